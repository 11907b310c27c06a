"""Event expiry: kube-apiserver's ``--event-ttl`` (default one hour).

Upstream stores every write of an Event with an etcd lease of the TTL (the event registry's ``TTLFunc``
returns it on create and on update), so an event lives ``ttl`` after its *last* write and then vanishes:
etcd deletes the key and watchers see DELETED. Leases are shared (``storage/etcd3/lease_manager.go``):
a write reuses the current lease while that lease still outlives ``now + ttl`` and was granted less than
a reuse window ago (``min(60 s, 5 % of ttl)``, at most 1,000 objects a lease); a new lease is granted
for ``ttl`` plus that window. So an event expires between ``ttl`` and ``ttl + window`` after its last
write, and expiry costs one timer per lease, not one per event.

Contract:
- :meth:`EventTTL.touch` is called after every committed create or update of an Event (never for dry
  runs or rejected requests); it attaches the object to a lease, replacing any earlier one.
- When a lease expires, every object still attached to it is deleted from the store directly (an etcd
  lease expiry, not an API request: no admission, no finalizers), which sends the DELETED watch event.
- ``ttl=None`` disables expiry (events live until deleted, kubelite's behaviour before this module).
- Deterministic: timers run on the cluster clock; leases are processed in grant order and objects in
  the order they were attached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.registry.core import CreateOnUpdateStrategy
from kubelite.clock import Clock, TimerHandle
from kubelite.store import Store, Table

__all__ = ["DEFAULT_EVENT_TTL", "EventStrategy", "EventTTL"]

DEFAULT_EVENT_TTL: Final = 3600.0
_REUSE_SECONDS: Final = 60.0
_REUSE_PERCENT: Final = 0.05
_MAX_OBJECTS_PER_LEASE: Final = 1000


class _Lease:
    __slots__ = ("expires", "granted", "handle", "keys", "lease_id")

    def __init__(self, lease_id: int, granted: float, expires: float) -> None:
        self.lease_id = lease_id
        self.granted = granted
        self.expires = expires
        self.keys: dict[tuple[str, str], None] = {}  # insertion-ordered set
        self.handle: TimerHandle | None = None


class EventTTL:
    """Leases for Events (see the module docstring)."""

    def __init__(self, *, clock: Clock, store: Store, table: Callable[[], Table | None],
                 ttl: float | None = DEFAULT_EVENT_TTL) -> None:
        if ttl is not None and ttl <= 0:
            raise ValueError(f"event ttl must be positive, got {ttl}")
        self.clock = clock
        self.store = store
        self.ttl = ttl
        self._table = table
        self._current: _Lease | None = None
        self._leases: dict[int, _Lease] = {}
        self._attached: dict[tuple[str, str], int] = {}  # object key -> lease id
        self._next_id = 1
        self.expired = 0  # events deleted by expiry (for tests and metrics)

    def _reuse_window(self) -> float:
        assert self.ttl is not None
        return min(_REUSE_SECONDS, _REUSE_PERCENT * self.ttl)

    def _lease(self) -> _Lease:
        """``leaseManager.GetLease``."""
        assert self.ttl is not None
        now = self.clock.now()
        window = self._reuse_window()
        cur = self._current
        if (cur is not None and now + self.ttl < cur.expires and now + self.ttl + window >= cur.expires
                and len(cur.keys) < _MAX_OBJECTS_PER_LEASE):
            return cur
        lease = _Lease(self._next_id, now, now + self.ttl + window)
        self._next_id += 1
        self._leases[lease.lease_id] = lease
        lease.handle = self.clock.call_later(lease.expires - now, lambda: self._expire(lease.lease_id))
        self._current = lease
        return lease

    def touch(self, obj: dict[str, Any]) -> None:
        """Attach a just-written Event to a lease (its TTL restarts)."""
        if self.ttl is None:
            return
        meta = obj.get("metadata") or {}
        key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        lease = self._lease()
        previous = self._attached.get(key)
        if previous is not None and previous != lease.lease_id:
            old = self._leases.get(previous)
            if old is not None:
                old.keys.pop(key, None)
        self._attached[key] = lease.lease_id
        lease.keys[key] = None

    def _expire(self, lease_id: int) -> None:
        lease = self._leases.pop(lease_id, None)
        if lease is None:
            return
        if self._current is lease:
            self._current = None
        table = self._table()
        for key in lease.keys:
            if self._attached.get(key) != lease_id:
                continue
            del self._attached[key]
            if table is not None and self.store.get(table, *key) is not None:
                self.store.delete(table, *key)
                self.expired += 1

    def close(self) -> None:
        """Cancel every pending expiry (the cluster is stopping)."""
        for lease in self._leases.values():
            if lease.handle is not None:
                lease.handle.cancel()
        self._leases.clear()
        self._attached.clear()
        self._current = None


class EventStrategy(CreateOnUpdateStrategy):
    """The Event registry's strategy: every committed write (re)attaches the event to a lease."""

    def __init__(self, info: ResourceInfo, ttl: EventTTL) -> None:
        super().__init__(info)
        self.ttl = ttl

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if obj is not None:
            self.ttl.touch(obj)
