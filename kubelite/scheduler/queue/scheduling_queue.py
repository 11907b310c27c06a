"""The scheduling queue: activeQ, backoffQ and the unschedulable pool.

Follows ``pkg/scheduler/backend/queue/scheduling_queue.go`` (``PriorityQueue``). Guarantees:

- **Where a pod is.** Every pending pod the scheduler owns is in exactly one of: ``activeQ`` (ready,
  ordered by the profile's QueueSort ``less``), ``backoffQ`` (waiting out its backoff), the
  unschedulable pool (waiting for a cluster event, or gated by a PreEnqueue plugin), or *in flight*
  (popped and being scheduled). A uid is in ``_where`` iff it is in one of the first three.
- **Backoff.** After its n-th failed attempt a pod waits ``min(1 s * 2**(n-1), 10 s)`` on the clock
  (upstream ``podInitialBackoffDuration``/``podMaxBackoffDuration``) before it returns to activeQ.
  A timer fires at the earliest expiry, so the move happens at the exact virtual instant.
- **Unschedulable pool.** A pod rejected by plugins stays there until an event one of those plugins
  registered for (and whose QueueingHint says QUEUE) happens; it then goes to backoffQ if its backoff
  has not expired, else to activeQ. A pod rejected without a named plugin moves on any event. After
  ``POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION`` (5 min) it is flushed anyway (checked every 30 s).
  If an event arrived while the pod was in flight (``move_request_cycle`` >= the pod's cycle), a
  failed pod skips the pool and goes straight to backoffQ, as upstream does without per-event hints.
- **Gates.** PreEnqueue plugins run whenever a pod enters or is updated; a gated pod waits in the pool
  (``gated``) and leaves only when an update makes every PreEnqueue plugin pass.
- The bookkeeping is synchronous; only :meth:`pop_wait` awaits (until activeQ is non-empty).
- ``sort_key`` (optional, from a QueueSort plugin that offers one) must order pods exactly as ``less``
  does, equal keys meaning neither is less; activeQ then compares keys in C instead of calling ``less``
  through Python at every heap step. Ties go to the earlier insertion either way.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from kubelite.clock import Clock, TimerHandle
from kubelite.scheduler.framework.interface import ClusterEvent, ClusterEventWithHint
from kubelite.scheduler.framework.status import Status
from kubelite.scheduler.framework.types import PodInfo, QueuedPodInfo

__all__ = [
    "POD_INITIAL_BACKOFF",
    "POD_MAX_BACKOFF",
    "POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "UNSCHEDULABLE_FLUSH_INTERVAL",
    "WILDCARD_FLUSH",
    "QueueDepths",
    "SchedulingQueue",
]

POD_INITIAL_BACKOFF = 1.0
POD_MAX_BACKOFF = 10.0
POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0
WILDCARD_FLUSH = ClusterEvent("*", 0, "UnschedulableTimeout")

ACTIVE, BACKOFF, UNSCHEDULABLE = "active", "backoff", "unschedulable"


class _Item:
    """A heap entry; ``removed`` entries are skipped lazily."""

    __slots__ = ("key", "qpi", "removed", "seq")

    def __init__(self, key: Any, seq: int, qpi: QueuedPodInfo) -> None:
        self.key = key
        self.seq = seq
        self.qpi = qpi
        self.removed = False

    def __lt__(self, other: _Item) -> bool:
        return bool(self.key(self.qpi, other.qpi)) or (not self.key(other.qpi, self.qpi) and self.seq < other.seq)


class _BackoffItem(_Item):
    __slots__ = ()

    def __lt__(self, other: _Item) -> bool:
        a, b = self.qpi.backoff_expiration, other.qpi.backoff_expiration
        return a < b or (a == b and self.seq < other.seq)


class QueueDepths:
    __slots__ = ("active", "backoff", "gated", "in_flight", "unschedulable")

    def __init__(self, active: int, backoff: int, unschedulable: int, gated: int, in_flight: int) -> None:
        self.active = active
        self.backoff = backoff
        self.unschedulable = unschedulable
        self.gated = gated
        self.in_flight = in_flight

    def __repr__(self) -> str:
        return (f"QueueDepths(active={self.active}, backoff={self.backoff}, unschedulable={self.unschedulable}, "
                f"gated={self.gated}, in_flight={self.in_flight})")


class SchedulingQueue:
    """See the module docstring."""

    def __init__(
        self, *, clock: Clock, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        pre_enqueue: Callable[[PodInfo], Status | None],
        hints_for: Callable[[PodInfo], Mapping[str, list[ClusterEventWithHint]]],
        sort_key: Callable[[QueuedPodInfo], Any] | None = None, initial_backoff: float = POD_INITIAL_BACKOFF, max_backoff: float = POD_MAX_BACKOFF,
        max_in_unschedulable: float = POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    ) -> None:
        self.clock = clock
        self._less = less
        self._sort_key = sort_key
        self._pre_enqueue = pre_enqueue
        self._hints_for = hints_for
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self._seq = itertools.count()
        #: (sort key or the item itself, seq, item): tuples compare in C; ``seq`` is unique, so the
        #: item in the last place is never compared
        self._active: list[tuple[Any, int, _Item]] = []
        self._backoff: list[_Item] = []
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        #: uid -> (where, heap item or None)
        self._where: dict[str, tuple[str, _Item | None]] = {}
        self._in_flight: dict[str, QueuedPodInfo] = {}
        self._n_active = 0
        self._n_backoff = 0
        self.scheduling_cycle = 0
        self.move_request_cycle = -1
        self._backoff_timer: TimerHandle | None = None
        self._backoff_timer_at = float("inf")
        self._wakeup: asyncio.Event | None = None
        self._closed = False

    # --- internal moves ---
    def _push_active(self, qpi: QueuedPodInfo) -> None:
        seq = next(self._seq)
        item = _Item(self._less, seq, qpi)
        heapq.heappush(self._active, (item if self._sort_key is None else self._sort_key(qpi), seq, item))
        self._where[qpi.pod_info.uid] = (ACTIVE, item)
        self._n_active += 1
        if self._wakeup is not None:
            self._wakeup.set()

    def _push_backoff(self, qpi: QueuedPodInfo) -> None:
        item = _BackoffItem(None, next(self._seq), qpi)
        heapq.heappush(self._backoff, item)
        self._where[qpi.pod_info.uid] = (BACKOFF, item)
        self._n_backoff += 1
        self._arm_backoff_timer(qpi.backoff_expiration)

    def _push_unschedulable(self, qpi: QueuedPodInfo) -> None:
        self._unschedulable[qpi.pod_info.uid] = qpi
        self._where[qpi.pod_info.uid] = (UNSCHEDULABLE, None)

    def _take(self, uid: str) -> QueuedPodInfo | None:
        entry = self._where.pop(uid, None)
        if entry is None:
            return None
        where, item = entry
        if where == UNSCHEDULABLE:
            return self._unschedulable.pop(uid)
        assert item is not None
        item.removed = True
        if where == ACTIVE:
            self._n_active -= 1
        else:
            self._n_backoff -= 1
        return item.qpi

    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        d = self.initial_backoff
        for _ in range(1, qpi.attempts):
            d *= 2
            if d >= self.max_backoff:
                return self.max_backoff
        return d

    def _is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        return qpi.backoff_expiration > self.clock.now()

    def _arm_backoff_timer(self, at: float) -> None:
        if at >= self._backoff_timer_at or self._closed:
            return
        if self._backoff_timer is not None:
            self._backoff_timer.cancel()
        self._backoff_timer_at = at
        self._backoff_timer = self.clock.call_later(max(0.0, at - self.clock.now()), self._on_backoff_timer)

    def _on_backoff_timer(self) -> None:
        self._backoff_timer = None
        self._backoff_timer_at = float("inf")
        self.flush_backoff_completed()

    def _gate(self, qpi: QueuedPodInfo) -> bool:
        """Run PreEnqueue; True (and the pod parked as gated) if some plugin refused it."""
        st = self._pre_enqueue(qpi.pod_info)
        if st is not None and not st.is_success():
            qpi.gated = True
            qpi.gating_plugin = st.plugin
            qpi.unschedulable_plugins = {st.plugin} if st.plugin else set()
            self._push_unschedulable(qpi)
            return True
        qpi.gated = False
        qpi.gating_plugin = ""
        return False

    # --- API used by the scheduler's event handlers ---
    def add(self, pod: PodInfo) -> None:
        """A new unscheduled pod (upstream ``Add``)."""
        uid = pod.uid
        if uid in self._where or uid in self._in_flight:
            self.update(pod)
            return
        qpi = QueuedPodInfo(pod, self.clock.now())
        if not self._gate(qpi):
            self._push_active(qpi)

    def update(self, pod: PodInfo) -> None:
        """The pod object changed (upstream ``Update``): refresh it where it is; an update may ungate a
        gated pod or make an unschedulable one worth another try."""
        uid = pod.uid
        inflight = self._in_flight.get(uid)
        if inflight is not None:
            inflight.pod_info = pod
            return
        entry = self._where.get(uid)
        if entry is None:
            self.add(pod)
            return
        where, item = entry
        if where != UNSCHEDULABLE:
            assert item is not None
            item.qpi.pod_info = pod
            if where == ACTIVE:  # re-sort: the priority may have changed
                qpi = self._take(uid)
                assert qpi is not None
                self._push_active(qpi)
            return
        qpi = self._take(uid)
        assert qpi is not None
        qpi.pod_info = pod
        if qpi.gated:
            if not self._gate(qpi):
                self._push_active(qpi)
            return
        # Upstream moves an updated unschedulable pod (spec changes may make it fit).
        self._requeue(qpi)

    def delete(self, uid: str) -> None:
        self._take(uid)
        self._in_flight.pop(uid, None)

    def _requeue(self, qpi: QueuedPodInfo) -> None:
        if self._is_backing_off(qpi):
            self._push_backoff(qpi)
        else:
            self._push_active(qpi)

    # --- scheduling loop ---
    def pop(self) -> QueuedPodInfo | None:
        """The head of activeQ (now in flight), or None if activeQ is empty."""
        heap = self._active
        while heap:
            item = heapq.heappop(heap)[2]
            if item.removed:
                continue
            qpi = item.qpi
            uid = qpi.pod_info.uid
            del self._where[uid]
            self._n_active -= 1
            self.scheduling_cycle += 1
            qpi.attempts += 1
            if qpi.initial_attempt_timestamp is None:
                qpi.initial_attempt_timestamp = self.clock.now()
            qpi.unschedulable_plugins = set()
            qpi.pending_plugins = set()
            self._in_flight[uid] = qpi
            return qpi
        return None

    async def pop_wait(self) -> QueuedPodInfo:
        while True:
            qpi = self.pop()
            if qpi is not None:
                return qpi
            if self._wakeup is None:
                self._wakeup = asyncio.Event()
            self._wakeup.clear()
            await self._wakeup.wait()

    def done(self, uid: str) -> None:
        """The pod's scheduling attempt finished (bound, or requeued by :meth:`add_unschedulable`)."""
        self._in_flight.pop(uid, None)

    def add_unschedulable(self, qpi: QueuedPodInfo, pod_scheduling_cycle: int, *, error: bool = False) -> None:
        """A failed attempt (upstream ``AddUnschedulableIfNotPresent``): to backoffQ if it failed with an
        error or an event arrived during the attempt, else to the unschedulable pool."""
        uid = qpi.pod_info.uid
        if self._in_flight.pop(uid, None) is None or uid in self._where:
            return  # deleted (or re-added) while it was being scheduled
        now = self.clock.now()
        qpi.timestamp = now
        qpi.backoff_expiration = now + self.backoff_duration(qpi)
        if error or self.move_request_cycle >= pod_scheduling_cycle:
            self._push_backoff(qpi)
        else:
            self._push_unschedulable(qpi)

    def activate(self, uids: list[str]) -> None:
        """Move these pods to activeQ now (upstream ``Activate``, used by gang plugins)."""
        for uid in uids:
            entry = self._where.get(uid)
            if entry is None or entry[0] == ACTIVE:
                continue
            qpi = self._take(uid)
            assert qpi is not None
            if qpi.gated:
                self._push_unschedulable(qpi)
                continue
            self._push_active(qpi)

    # --- periodic flushes ---
    def flush_backoff_completed(self) -> None:
        now = self.clock.now()
        heap = self._backoff
        while heap:
            item = heap[0]
            if item.removed:
                heapq.heappop(heap)
                continue
            if item.qpi.backoff_expiration > now:
                self._arm_backoff_timer(item.qpi.backoff_expiration)
                return
            heapq.heappop(heap)
            qpi = self._take(item.qpi.pod_info.uid)
            if qpi is not None:
                self._push_active(qpi)

    def flush_unschedulable_left_over(self) -> None:
        now = self.clock.now()
        stale = [q for q in self._unschedulable.values()
                 if not q.gated and now - q.timestamp > self.max_in_unschedulable]
        if stale:
            self._move(stale, WILDCARD_FLUSH, None, None)

    # --- cluster events ---
    def move_all_to_active_or_backoff(self, event: ClusterEvent, old: Any, new: Any,
                                      precheck: Callable[[PodInfo], bool] | None = None) -> None:
        """Upstream ``MoveAllToActiveOrBackoffQueue``: every pod in the pool that ``event`` may help."""
        cands = [q for q in self._unschedulable.values()
                 if not q.gated and (precheck is None or precheck(q.pod_info))]
        self._move(cands, event, old, new)
        self.move_request_cycle = self.scheduling_cycle

    def _move(self, qpis: list[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any) -> None:
        for qpi in qpis:
            if event is WILDCARD_FLUSH or self._worth_requeuing(qpi, event, old, new):
                taken = self._take(qpi.pod_info.uid)
                if taken is not None:
                    self._requeue(taken)

    def _worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> bool:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors:
            return True
        hints = self._hints_for(qpi.pod_info)
        for plugin in sorted(rejectors):
            for h in hints.get(plugin, ()):
                if not h.event.matches(event):
                    continue
                if h.hint is None:
                    return True
                try:
                    if h.hint(qpi.pod, old, new):
                        return True
                except Exception:  # upstream: a failing hint means "queue"
                    return True
        return False

    # --- introspection ---
    def depths(self) -> QueueDepths:
        gated = sum(1 for q in self._unschedulable.values() if q.gated)
        return QueueDepths(self._n_active, self._n_backoff, len(self._unschedulable) - gated, gated,
                           len(self._in_flight))

    def where(self, uid: str) -> str | None:
        """"active", "backoff", "unschedulable", "gated", "in_flight" or None."""
        if uid in self._in_flight:
            return "in_flight"
        entry = self._where.get(uid)
        if entry is None:
            return None
        if entry[0] == UNSCHEDULABLE and self._unschedulable[uid].gated:
            return "gated"
        return entry[0]

    def get(self, uid: str) -> QueuedPodInfo | None:
        q = self._in_flight.get(uid)
        if q is not None:
            return q
        entry = self._where.get(uid)
        if entry is None:
            return None
        return self._unschedulable[uid] if entry[1] is None else entry[1].qpi

    def pending(self) -> list[QueuedPodInfo]:
        out = [q for q in (self.get(uid) for uid in self._where) if q is not None]
        return out

    def close(self) -> None:
        self._closed = True
        if self._backoff_timer is not None:
            self._backoff_timer.cancel()
            self._backoff_timer = None
