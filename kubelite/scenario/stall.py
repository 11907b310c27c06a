"""The run watchdog: a scenario run that stops making virtual progress ends, with a diagnosis.

Contract:
- Two bounds, both ending the run with :class:`kubelite.watchdog.LivelockError` (``kubelite run`` exits 3):
  1. **Writes at one instant** (deterministic): more than :data:`MAX_CHANGES_PER_INSTANT` changes of
     the runner's view without virtual time moving. Real components settle in a handful of writes per
     instant; a reject → recreate → bind loop does not. The diagnosis names the busiest objects.
  2. **Wall time without virtual progress**: the virtual clock has not moved for ``wall_seconds`` of
     real time (a busy loop that writes nothing, say). This one is measured by a helper thread waiting
     on a :class:`threading.Event`; it only decides *whether* a run is stuck, never what a healthy run
     does, so a healthy run stays byte-for-byte reproducible.
- The guard cancels the run's task from the event loop (thread-safely for bound 2); the runner turns
  that cancellation into the LivelockError. If the loop is stuck in code that never yields, the thread
  interrupts the main thread after a grace period (``KeyboardInterrupt``, mapped by the CLI).
"""

from __future__ import annotations

import _thread
import asyncio
import threading
from collections import Counter
from typing import Any

__all__ = ["MAX_CHANGES_PER_INSTANT", "StallGuard"]

#: view changes (informer notifications) at one virtual instant before the run is called livelocked
MAX_CHANGES_PER_INSTANT = 200_000
#: wall seconds between the thread's looks at the clock
_TICK = 0.25
#: wall seconds after a cancellation before the main thread is interrupted
_GRACE = 10.0


class StallGuard:
    """Watches one run. ``note(resource, obj)`` is called on every view change; ``tripped`` holds the
    diagnosis once a bound was crossed."""

    def __init__(self, clock: Any, *, start: float, wall_seconds: float | None = 60.0,
                 max_changes: int | None = None) -> None:
        self.clock = clock
        self.start = start
        self.wall_seconds = wall_seconds
        self.max_changes = MAX_CHANGES_PER_INSTANT if max_changes is None else max_changes
        self.tripped: str | None = None
        self.at: float | None = None
        self._instant = clock.now()
        self._changes: Counter[str] = Counter()
        self._total = 0
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.interrupted = False

    # --- lifecycle ---
    def start_watching(self, task: asyncio.Task[Any]) -> None:
        self._task = task
        self._loop = asyncio.get_running_loop()
        if self.wall_seconds is not None:
            self._thread = threading.Thread(target=self._watch, name="kubelite-stall-guard", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    # --- bound 1 ---
    def note(self, resource: str, obj: Any) -> None:
        now = self.clock.now()
        if now != self._instant:
            self._instant = now
            self._changes.clear()
            self._total = 0
        self._total += 1
        if len(self._changes) < 10_000:
            meta = (getattr(obj, "obj", obj) or {}).get("metadata") or {}
            ns = meta.get("namespace")
            self._changes[f"{resource}/{ns + '/' if ns else ''}{meta.get('name', '?')}"] += 1
        if self._total > self.max_changes and self.tripped is None:
            self._trip(f"{self._total} changes at t={now - self.start:g}s without virtual time moving")
            if self._task is not None:
                self._task.cancel()

    # --- bound 2 ---
    def _watch(self) -> None:
        last = self.clock.now()
        still = 0.0
        while not self._stop.wait(_TICK):
            now = self.clock.now()
            if now != last:
                last, still = now, 0.0
                continue
            still += _TICK
            if self.wall_seconds is not None and still >= self.wall_seconds and self.tripped is None:
                self._trip(f"no virtual progress for {self.wall_seconds:g} s of wall time at t={now - self.start:g}s")
                loop, task = self._loop, self._task
                if loop is not None and task is not None:
                    loop.call_soon_threadsafe(task.cancel)
                if self._stop.wait(_GRACE):
                    return
                self.interrupted = True
                _thread.interrupt_main()
                return

    def _trip(self, what: str) -> None:
        self.at = self.clock.now() - self.start
        busiest = ", ".join(f"{k} ({n})" for k, n in self._changes.most_common(5))
        self.tripped = what + (f"; busiest objects at that instant: {busiest}" if busiest else "")
