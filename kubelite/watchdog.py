"""Livelock and stall detection for runs on virtual time.

Contract:
- A cluster on virtual time must never hang a caller. When components keep writing at one virtual
  instant without bound (a reject → recreate → bind loop, say), or a run stops making virtual progress,
  the cluster stops the run by raising :class:`LivelockError` from the call that was driving time
  (``advance``, ``settle``, ``wait_for``, a scenario run).
- The error carries a human-readable diagnosis naming the objects and components involved, so
  ``kubelite run`` can print it and exit 3.

:class:`LivelockDetector` is the write-side detector. The cluster feeds :meth:`LivelockDetector.observe`
every committed write (a ``Store.observers`` hook). Writes are counted per virtual instant, per object and in
total; when one object is written more than ``per_object`` times, or the cluster more than ``total``
times, at one instant, the detector trips once: it keeps the diagnosis (the most-written objects with
their counts and the field managers that wrote them at this instant) and cancels the task driving time,
which the cluster turns into :class:`LivelockError`. Memory is bounded by the number of distinct objects
written at the current instant; everything is dropped when time moves. The bounds sit well above
anything a legitimate burst does at one instant (30,000 pods created and started at once write each pod
a handful of times; an aggregated Event is patched once per occurrence).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ["DEFAULT_PER_OBJECT", "DEFAULT_TOTAL", "LivelockDetector", "LivelockError"]

#: writes of one object at one virtual instant beyond which the cluster is livelocked
DEFAULT_PER_OBJECT = 20_000
#: writes of the whole cluster at one virtual instant beyond which it is livelocked
DEFAULT_TOTAL = 2_000_000

_decode = msgspec.json.Decoder().decode


class LivelockError(RuntimeError):
    """The cluster made no virtual progress within its bound; ``diagnosis`` says who was busy with what."""

    def __init__(self, message: str, *, diagnosis: str = "", at: float | None = None) -> None:
        super().__init__(message)
        self.diagnosis = diagnosis
        self.at = at

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}\n{self.diagnosis}" if self.diagnosis else base


class LivelockDetector:
    """See the module docstring. ``now`` reads the cluster clock; ``format_time`` renders it as the
    managedFields timestamps do (to tell which managers wrote at this instant)."""

    def __init__(self, now: Callable[[], float], *, per_object: int = DEFAULT_PER_OBJECT,
                 total: int = DEFAULT_TOTAL, format_time: Callable[[float], str] | None = None) -> None:
        self._now = now
        self.per_object = per_object
        self.total = total
        self._format = format_time
        self._instant: float | None = None
        self._count = 0
        self._objects: dict[tuple[str, str], int] = {}
        self._writers_seen: dict[tuple[str, str], set[str]] = {}
        self.error: LivelockError | None = None
        self._drivers: list[asyncio.Task[Any]] = []

    # --- the write hook ---
    def observe(self, resource: str, key: str, data: bytes | Callable[[], bytes]) -> None:
        """One committed write of ``resource`` (``pods``, ``apps/replicasets``) object ``key``; ``data`` is its
        JSON or a callable giving it, read only for a hot object (a version kept compact at rest, such as an
        Event's, would otherwise be inflated on every write to be looked at almost never)."""
        if self.error is not None:
            return
        now = self._now()
        if now != self._instant:
            self._instant = now
            self._count = 0
            self._objects.clear()
            self._writers_seen.clear()
        self._count += 1
        k = (resource, key)
        n = self._objects.get(k, 0) + 1
        self._objects[k] = n
        if n > self.per_object // 2:
            # a hot object: remember who writes it at this instant (managedFields keep only current owners)
            self._writers_seen.setdefault(k, set()).update(self._managers(data if isinstance(data, bytes) else data()))
        if n > self.per_object or self._count > self.total:
            self._trip(now)

    # --- the drivers ---
    def driving(self, task: asyncio.Task[Any]) -> None:
        self._drivers.append(task)

    def done_driving(self, task: asyncio.Task[Any]) -> None:
        if task in self._drivers:
            self._drivers.remove(task)

    def _trip(self, now: float) -> None:
        top = sorted(self._objects.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
        lines = [f"{self._count} writes at one virtual instant (t={now:.3f}); most written:"]
        for (resource, key), n in top:
            lines.append(f"  {resource} {key}: {n} writes{self._writers(resource, key)}")
        why = ("one object was written more than " f"{self.per_object} times" if top and top[0][1] > self.per_object
               else f"the cluster wrote more than {self.total} objects")
        self.error = LivelockError(f"livelock: {why} without virtual time moving", diagnosis="\n".join(lines),
                                   at=now)
        for task in self._drivers:
            task.cancel("kubelite livelock watchdog")

    def _writers(self, resource: str, key: str) -> str:
        """`` (by blue-operator, kubelet)``: the field managers (or an Event's reporting component) seen
        writing the object at this instant."""
        names = sorted(self._writers_seen.get((resource, key), ()))
        return f" (by {', '.join(names)})" if names else ""

    def _managers(self, data: bytes) -> list[str]:
        try:
            obj = _decode(data)
        except msgspec.DecodeError:
            return []
        stamp = self._format(self._instant) if self._format is not None and self._instant is not None else None
        names = [str(mf.get("manager", "")) for mf in (obj.get("metadata") or {}).get("managedFields") or ()
                 if stamp is None or mf.get("time") == stamp]
        src = obj.get("reportingComponent") or (obj.get("source") or {}).get("component")
        if src:
            names.append(str(src))
        return [n for n in names if n]
