"""The work queue: fair, stingy, multiple consumers (client-go ``util/workqueue/queue.go``).

Guarantees (see the package docstring for the whole contract):

- **Fair.** Items are handed out in the order they became dirty (FIFO).
- **Stingy.** An item is held by at most one consumer at a time. Adding an item that is already waiting
  does nothing; adding an item that is being processed marks it dirty, and :meth:`Queue.done` queues it
  again, so it is processed once more, never concurrently.
- **Multiple consumers.** Any number of tasks may ``await get()``; waiting consumers are woken one per
  ready item, in the order they started waiting.
- **Shutdown.** After :meth:`Queue.shutdown`, :meth:`Queue.add` is ignored, items already queued are
  still handed out, and ``get()`` raises :class:`ShutDown` once nothing is queued.
  :meth:`Queue.shutdown_with_drain` additionally waits until no item is being processed.

Who may mutate what: producers call ``add``; a consumer that got an item owns it until it calls
``done(item)``. All bookkeeping is plain synchronous code: in single-threaded asyncio it runs atomically,
so there are no locks. Only waiting (``get``, ``shutdown_with_drain``) is async.

Statistics replace upstream's metrics provider (``metrics.go``): every queue keeps them, read from the
queue's clock, and :meth:`Queue.statistics` returns a frozen snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

import msgspec

from kubelite.clock import Clock

__all__ = ["DurationStatistics", "Queue", "QueueStatistics", "ShutDown"]

T = TypeVar("T", bound=Hashable)


class ShutDown(Exception):
    """``get()`` on a queue that is shutting down and has nothing queued: the consumer should exit.

    Upstream returns ``shutdown == true`` from ``Get``; a Python consumer ends its loop on this instead.
    """


class DurationStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """Observed durations in seconds (upstream records these as histograms)."""

    count: int = 0
    last: float = 0.0
    avg: float = 0.0
    max: float = 0.0


class QueueStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot of one queue, named after upstream's workqueue metrics (``metrics.go``)."""

    name: str
    #: Items that need processing (queued, or added again while being processed): ``workqueue_depth``.
    depth: int
    #: Items being processed right now (got, not yet done).
    processing: int
    #: Items scheduled by ``add_after`` that are not yet due (0 for a plain :class:`Queue`).
    waiting: int
    #: Times an item became dirty; adds that collapse into a pending item are not counted.
    adds: int
    #: ``add_after`` calls, counted by the delaying layer as upstream's ``workqueue_retries_total``.
    retries: int
    #: From the time an item became dirty to the time ``get()`` handed it out.
    queue_latency: DurationStatistics
    #: From ``get()`` to ``done()``.
    work_duration: DurationStatistics
    #: Sum of the ages of the items being processed, at the time of the snapshot.
    unfinished_work_seconds: float
    #: Age of the oldest item being processed, at the time of the snapshot.
    longest_running_processor_seconds: float


class _Durations:
    """Running count/sum/last/max: constant memory, unlike a histogram."""

    __slots__ = ("count", "last", "max", "total")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.last = 0.0
        self.max = 0.0

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        self.last = seconds
        if seconds > self.max:
            self.max = seconds

    def snapshot(self) -> DurationStatistics:
        avg = self.total / self.count if self.count else 0.0
        return DurationStatistics(count=self.count, last=self.last, avg=avg, max=self.max)


class Queue(Generic[T]):
    """A fair, stingy work queue for any number of producers and consumers (upstream ``Typed[T]``).

    Items must be hashable and not ``None``. A consumer loop::

        while True:
            try:
                item = await queue.get()
            except ShutDown:
                return
            try:
                ...  # process item
            finally:
                queue.done(item)

    ``get()`` returns without suspending when an item is queued, so a consumer whose processing never
    awaits keeps the event loop until the queue is empty.
    """

    __slots__ = (
        "_adds",
        "_clock",
        "_dirty",
        "_drain",
        "_drainers",
        "_getters",
        "_latency",
        "_now",
        "_processing",
        "_queue",
        "_retries",
        "_shutting_down",
        "_work",
        "name",
    )

    def __init__(self, *, clock: Clock, name: str = "") -> None:
        self.name = name
        self._clock = clock
        # bound once: add, get and done each read the clock (the statistics' timestamps)
        self._now = clock.now
        # Invariants (upstream's Typed struct; the converse holds too because done() re-queues):
        # - an item is in `_queue` iff it is in `_dirty` and not in `_processing`; `_queue` has no duplicates.
        # - `_dirty` maps every item that needs processing to the time it became dirty (metrics.go's
        #   addTimes, whose keys are exactly the dirty set).
        # - `_processing` maps every item a consumer holds (got, not yet done) to the time get() handed it
        #   out (processingStartTimes). An item may be both dirty and processing: it was added again while
        #   being processed, and done() queues it again.
        self._queue: deque[T] = deque()
        self._dirty: dict[T, float] = {}
        self._processing: dict[T, float] = {}
        # Consumers blocked in get(), oldest first. A future is resolved to wake its consumer, which then
        # re-checks the queue (like sync.Cond.Wait): waking never hands over an item directly, so a
        # consumer cancelled right after its wake-up cannot take an item with it.
        self._getters: deque[asyncio.Future[None]] = deque()
        # Callers blocked in shutdown_with_drain(); all are released together.
        self._drainers: list[asyncio.Future[None]] = []
        self._shutting_down = False
        # True while shutdown_with_drain() waits; shutdown() clears it to stop the wait.
        self._drain = False
        self._adds = 0
        self._retries = 0
        self._latency = _Durations()
        self._work = _Durations()

    # --- producers ---
    def add(self, item: T) -> None:
        """Mark ``item`` as needing processing; ignored once the queue is shutting down.

        An item already dirty stays where it is (upstream's ``Touch`` is a no-op for the FIFO queue).
        """
        if self._shutting_down or item in self._dirty:
            return
        self._dirty[item] = self._now()
        self._adds += 1
        if item in self._processing:
            return  # done() will queue it; queuing it now would let a second consumer take it
        self._queue.append(item)
        if self._getters:
            self._wake_one()

    # --- consumers ---
    async def get(self) -> T:
        """The next item, waiting for one if none is queued; the caller must call :meth:`done` with it.

        Raises :class:`ShutDown` once the queue is shutting down and nothing is queued. Items queued
        before the shutdown (or re-queued by ``done``) are still handed out first, as upstream does.
        """
        if not self._queue:
            await self._wait_for_item()
        return self._pop()

    def get_nowait(self) -> T | None:
        """The next item if one is queued, else ``None``; raises :class:`ShutDown` like :meth:`get`.
        A worker's hot path: try this first and ``await get()`` only on ``None`` (no coroutine per item)."""
        if self._queue:
            return self._pop()
        if self._shutting_down:
            raise ShutDown(f"workqueue {self.name!r} is shutting down")
        return None

    def done(self, item: T) -> None:
        """Finish processing ``item``; if it was added meanwhile, queue it again.

        Calling ``done`` for an item that is not being processed does nothing (upstream would queue the
        item a second time if it was dirty, breaking stinginess).
        """
        started = self._processing.pop(item, None)
        if started is None:
            return
        work = self._work
        took = self._now() - started
        work.count += 1
        work.total += took
        work.last = took
        if took > work.max:
            work.max = took
        if item in self._dirty:
            self._queue.append(item)
            if self._getters:
                self._wake_one()
        if not self._processing and self._drainers:
            # upstream's ShutDownWithDrain loops on `processing.Len() != 0`: it ends as soon as nothing
            # is held, even if this done() just queued the item again.
            self._release_drainers()

    def __len__(self) -> int:
        """Items queued and ready to be handed out (not those being processed), for information only."""
        return len(self._queue)

    # --- shutdown ---
    def shutdown(self) -> None:
        """Ignore new items; consumers get what is queued, then :class:`ShutDown`. Does not wait.

        Also ends a pending :meth:`shutdown_with_drain` (upstream: "ShutDown can be called after
        ShutDownWithDrain to force ShutDownWithDrain to stop waiting").
        """
        self._drain = False
        self._begin_shutdown()
        self._release_drainers()

    async def shutdown_with_drain(self) -> None:
        """Like :meth:`shutdown`, then wait until no item is being processed.

        Consumers must call ``done`` for every item they got, or this waits forever (until
        :meth:`shutdown` is called). Items still queued and not yet got are not waited for.
        """
        self._drain = True
        self._begin_shutdown()
        loop = asyncio.get_running_loop()
        while self._processing and self._drain:
            fut: asyncio.Future[None] = loop.create_future()
            self._drainers.append(fut)
            try:
                await fut
            finally:
                if fut in self._drainers:  # cancelled while waiting
                    self._drainers.remove(fut)

    def shutting_down(self) -> bool:
        """Whether :meth:`shutdown` was called (upstream ``ShuttingDown``)."""
        return self._shutting_down

    # --- statistics ---
    def statistics(self) -> QueueStatistics:
        """A snapshot; the unfinished-work gauges are computed now (upstream refreshes them every 0.5s)."""
        now = self._clock.now()
        total = 0.0
        oldest = 0.0
        for started in self._processing.values():
            age = now - started
            total += age
            if age > oldest:
                oldest = age
        return QueueStatistics(
            name=self.name,
            depth=len(self._dirty),
            processing=len(self._processing),
            waiting=self._num_waiting(),
            adds=self._adds,
            retries=self._retries,
            queue_latency=self._latency.snapshot(),
            work_duration=self._work.snapshot(),
            unfinished_work_seconds=total,
            longest_running_processor_seconds=oldest,
        )

    # --- internals ---
    def _pop(self) -> T:
        item = self._queue.popleft()
        now = self._now()
        # _Durations.observe inlined: this and done() run once per item handed out
        lat = self._latency
        waited = now - self._dirty.pop(item)
        lat.count += 1
        lat.total += waited
        lat.last = waited
        if waited > lat.max:
            lat.max = waited
        self._processing[item] = now
        return item

    async def _wait_for_item(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._queue:
            if self._shutting_down:
                raise ShutDown(f"workqueue {self.name!r} is shutting down")
            fut: asyncio.Future[None] = loop.create_future()
            self._getters.append(fut)
            try:
                await fut
            except BaseException:
                fut.cancel()  # no-op if we were woken already
                with contextlib.suppress(ValueError):
                    self._getters.remove(fut)
                if not fut.cancelled() and self._queue:
                    # We were woken for an item but are leaving: pass the wake-up on, or it is lost.
                    self._wake_one()
                raise

    def _wake_one(self) -> None:
        getters = self._getters
        while getters:
            fut = getters.popleft()
            if not fut.done():
                fut.set_result(None)
                return

    def _begin_shutdown(self) -> None:
        self._shutting_down = True
        getters, self._getters = self._getters, deque()
        for fut in getters:
            if not fut.done():
                fut.set_result(None)

    def _release_drainers(self) -> None:
        drainers, self._drainers = self._drainers, []
        for fut in drainers:
            if not fut.done():
                fut.set_result(None)

    def _num_waiting(self) -> int:
        return 0
