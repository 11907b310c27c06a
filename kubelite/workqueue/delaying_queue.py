"""A work queue that can add an item later (client-go ``util/workqueue/delaying_queue.go``).

Guarantees, on top of :class:`~kubelite.workqueue.queue.Queue`'s:

- ``add_after(item, delay)`` adds ``item`` once ``delay`` seconds have passed on the queue's clock. A
  delay ``<= 0`` is a plain :meth:`add` now and leaves any pending deadline for the item in place.
- At most one pending deadline per item. Asking again for an item that is already waiting keeps the
  *earlier* deadline: an earlier request moves it forward, a later one is ignored (upstream ``insert``).
- Items whose deadlines pass together are added in deadline order, ties in the order they were
  scheduled: the clock fires timers that way (upstream's heap leaves ties unordered).
- When an item's deadline passes it goes through :meth:`Queue.add`, so it collapses with a pending
  copy and waits for a consumer that is processing it, like any add.
- Shutdown drops every pending deadline and cancels its timer; later ``add_after`` calls are ignored.

Mechanics: one clock timer per waiting item, so the clock's heap is the priority queue and virtual time
can jump straight to the next deadline. Upstream's goroutine, heartbeat and channel are not needed in
single-threaded asyncio.
"""

from __future__ import annotations

import functools
import math

from kubelite.clock import Clock, TimerHandle
from kubelite.workqueue.queue import Queue, T

__all__ = ["DelayingQueue"]


class DelayingQueue(Queue[T]):
    """A :class:`Queue` with :meth:`add_after` (upstream ``TypedDelayingInterface``)."""

    __slots__ = ("_waiting",)

    def __init__(self, *, clock: Clock, name: str = "") -> None:
        super().__init__(clock=clock, name=name)
        # Items scheduled by add_after and not yet added, with the live timer that will add them.
        # Invariant: every handle here is uncancelled and its deadline is the item's earliest request.
        self._waiting: dict[T, TimerHandle] = {}

    def add_after(self, item: T, delay: float) -> None:
        """Add ``item`` after ``delay`` seconds (at once if ``delay <= 0``); counts as a retry.

        Ignored once the queue is shutting down. An infinite delay never comes due, so the item is not
        scheduled at all.
        """
        if self._shutting_down:
            return
        self._retries += 1
        if delay <= 0:
            self.add(item)
            return
        if delay == math.inf:
            return
        existing = self._waiting.get(item)
        if existing is not None:
            if existing.deadline <= self._clock.now() + delay:
                return  # the earlier deadline wins
            existing.cancel()
        self._waiting[item] = self._clock.call_later(delay, functools.partial(self._ready, item))

    def _ready(self, item: T) -> None:
        del self._waiting[item]
        self.add(item)

    def _begin_shutdown(self) -> None:
        waiting, self._waiting = self._waiting, {}
        for handle in waiting.values():
            handle.cancel()
        super()._begin_shutdown()

    def next_waiting(self) -> float | None:
        """The deadline of the earliest item waiting to be added, or None."""
        return min((h.deadline for h in self._waiting.values()), default=None)

    def _num_waiting(self) -> int:
        return len(self._waiting)
