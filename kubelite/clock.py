"""The cluster's one clock: every time read, sleep and timeout in kubelite goes through it.

Guarantees:
- :class:`VirtualClock` never reads the wall clock. Time only moves when the driver task moves it:
  with ``autojump=True`` (the default) the driver jumps to the next timer as soon as every task in the
  event loop is idle, so an hour of cluster life costs only the CPU its events need. With
  ``autojump=False`` time moves only inside :meth:`Clock.advance`.
- Timers fire in deadline order, ties in the order they were registered, all timers with the same
  deadline together. Given the same inputs the interleaving is the same on every run: this, with the
  cluster's seeded RNG, is what makes runs replay byte for byte.
- "Idle" means the event loop has no ready callbacks. The driver is the only task that polls for
  idleness (two pollers would keep each other busy forever), so :meth:`settle` and :meth:`advance`
  hand their wait to the driver instead of polling.
- :class:`RealClock` is for serving real clients: the same API over ``time.time`` and the loop.

Only this module may touch ``time``/``asyncio.sleep`` (ruff TID251 bans them elsewhere in kubelite).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, TypeVar

import anyio

__all__ = ["EPOCH", "Clock", "RealClock", "TimerHandle", "VirtualClock", "format_time", "parse_time"]

T = TypeVar("T")

#: Where virtual time starts: 2025-01-01T00:00:00Z. Fixed, so traces do not depend on the day.
EPOCH = 1735689600.0


_last_formatted: tuple[int, str] = (-1, "")


def format_time(t: float, *, micro: bool = False) -> str:
    """RFC 3339 in UTC as Kubernetes writes ``metav1.Time`` (seconds) or ``MicroTime``."""
    global _last_formatted
    if micro:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    whole = int(t // 1)
    last = _last_formatted
    if last[0] == whole:  # many writes share one second of (virtual) time
        return last[1]
    text = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _last_formatted = (whole, text)
    return text


def parse_time(s: str) -> float:
    """Inverse of :func:`format_time` (accepts both precisions and ``+00:00``)."""
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    return datetime.fromisoformat(s).timestamp()


class TimerHandle:
    """A scheduled callback; :meth:`cancel` is idempotent."""

    __slots__ = ("callback", "cancelled", "deadline")

    def __init__(self, deadline: float, callback: Callable[[], Any]) -> None:
        self.deadline = deadline
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Clock(Protocol):
    """What components may ask of time. Passed as ``clock=``; never a global."""

    def now(self) -> float:
        """Seconds since the Unix epoch (virtual or real)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle: ...

    async def sleep(self, seconds: float) -> None: ...

    async def sleep_until(self, deadline: float) -> None: ...

    async def advance(self, seconds: float) -> None: ...

    async def settle(self) -> None: ...

    def move_on_after(self, seconds: float) -> contextlib.AbstractContextManager[anyio.CancelScope]: ...

    def fail_after(self, seconds: float) -> contextlib.AbstractContextManager[anyio.CancelScope]: ...

    async def wait_for(self, aw: Awaitable[T], timeout: float) -> T: ...  # noqa: ASYNC109 - on the cluster clock

    def timestamp(self) -> str: ...

    def micro_timestamp(self) -> str: ...


class _ClockBase:
    """Timeouts built on ``call_later`` plus cancel scopes, shared by both clocks."""

    def now(self) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:  # pragma: no cover
        raise NotImplementedError

    async def sleep(self, seconds: float) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def sleep_until(self, deadline: float) -> None:
        await self.sleep(max(0.0, deadline - self.now()))

    def timestamp(self) -> str:
        return format_time(self.now())

    def micro_timestamp(self) -> str:
        return format_time(self.now(), micro=True)

    @contextlib.contextmanager
    def move_on_after(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """Like ``anyio.move_on_after`` but on this clock."""
        scope = anyio.CancelScope()
        handle = self.call_later(seconds, scope.cancel)
        try:
            with scope:
                yield scope
        finally:
            handle.cancel()

    @contextlib.contextmanager
    def fail_after(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """Like ``anyio.fail_after`` but on this clock: raises ``TimeoutError``."""
        with self.move_on_after(seconds) as scope:
            yield scope
        if scope.cancelled_caught:
            raise TimeoutError(f"timed out after {seconds:g}s")

    async def wait_for(self, aw: Awaitable[T], timeout: float) -> T:  # noqa: ASYNC109 - on the cluster clock
        with self.fail_after(timeout):
            return await aw
        raise AssertionError("unreachable")  # pragma: no cover


class VirtualClock(_ClockBase):
    """Virtual time for an asyncio event loop; see the module docstring for the guarantees.

    The driver must be running for time to move: ``async with clock.running(): ...`` (the cluster does
    this for you).
    """

    def __init__(self, *, start: float = EPOCH, autojump: bool = True) -> None:
        self._now = start
        self.autojump = autojump
        # heap of (deadline, seq, handle); invariant: every live timer is in the heap exactly once.
        self._timers: list[tuple[float, int, TimerHandle]] = []
        self._seq = itertools.count()
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._advance_target: float | None = None
        self._advance_done: asyncio.Future[None] | None = None
        self._driver: _LoopDriver | None = None
        # where this clock's time stood when the shared timeline of its driver was at zero
        self._origin = start
        self.timers_fired = 0
        #: Perturbation hook (kubelite.perturb): called by the driver with the loop's ready queue whenever it
        #: holds several callbacks, so a seeded fuzzer may reorder the *tasks* that are ready at once (any
        #: interleaving of ready tasks is one a real loop could run). None: FIFO, as asyncio does.
        self.ready_hook: Callable[[Any], None] | None = None

    # --- reading time ---
    def now(self) -> float:
        return self._now

    @property
    def pending_timers(self) -> int:
        return sum(1 for _, _, h in self._timers if not h.cancelled)

    def next_deadline(self) -> float | None:
        self._drop_cancelled()
        return self._timers[0][0] if self._timers else None

    # --- scheduling ---
    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        handle = TimerHandle(self._now + max(0.0, delay), callback)
        heapq.heappush(self._timers, (handle.deadline, next(self._seq), handle))
        if self._driver is not None:
            self._driver.wakeup.set()
        return handle

    async def sleep(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)

        handle = self.call_later(seconds, wake)
        try:
            await fut
        finally:
            handle.cancel()

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass, running every timer due on the way."""
        if self.autojump:
            await self.sleep(seconds)
            return
        self._require_driver()
        loop = asyncio.get_running_loop()
        self._advance_target = self._now + max(0.0, seconds)
        self._advance_done = loop.create_future()
        self._poke()
        try:
            await self._advance_done
        finally:
            self._advance_target = None
            self._advance_done = None

    async def settle(self) -> None:
        """Return once every other task is idle, without moving time."""
        self._require_driver()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._idle_waiters.append(fut)
        self._poke()
        await fut

    # --- the driver ---
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[VirtualClock]:
        """Let time move for the duration of the block (the cluster does this for you)."""
        if self._driver is not None:
            raise RuntimeError("this VirtualClock is already running")
        loop = asyncio.get_running_loop()
        if not hasattr(loop, "_ready"):
            raise RuntimeError(
                "VirtualClock needs the standard asyncio event loop (it watches the loop's ready queue "
                "to know when every task is idle); uvloop and other loops are not supported"
            )
        driver = _LoopDriver.for_loop(loop)
        self._driver = driver
        driver.add(self)
        try:
            yield self
        finally:
            self._driver = None
            await driver.remove(self)

    def _require_driver(self) -> None:
        if self._driver is None:
            raise RuntimeError("the VirtualClock driver is not running (use `async with clock.running():`)")

    def _poke(self) -> None:
        if self._driver is not None:
            self._driver.wakeup.set()

    def _drop_cancelled(self) -> None:
        timers = self._timers
        while timers and timers[0][2].cancelled:
            heapq.heappop(timers)

    def _fire_next(self) -> None:
        """Jump to the earliest deadline and fire every timer due then."""
        self._drop_cancelled()
        deadline = self._timers[0][0]
        if deadline > self._now:
            self._now = deadline
        while self._timers and self._timers[0][0] <= self._now:
            _, _, handle = heapq.heappop(self._timers)
            if not handle.cancelled:
                handle.cancelled = True
                self.timers_fired += 1
                handle.callback()

    def _release_idle_waiters(self) -> bool:
        if not self._idle_waiters:
            return False
        waiters, self._idle_waiters = self._idle_waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)
        return True

    def _next_step(self) -> float | None:
        """When (as progress since this clock joined its driver) this clock's next step happens, or None."""
        self._drop_cancelled()
        target = self._advance_target
        if target is not None:
            if self._timers and self._timers[0][0] <= target:
                return self._timers[0][0] - self._origin
            return max(self._now, target) - self._origin
        if self.autojump and self._timers:
            return self._timers[0][0] - self._origin
        return None

    def _step(self) -> None:
        target = self._advance_target
        if target is not None:
            if self._timers and self._timers[0][0] <= target:
                self._fire_next()
                return
            self._now = max(self._now, target)
            done = self._advance_done
            self._advance_target = None
            if done is not None and not done.done():
                done.set_result(None)
            return
        self._fire_next()


class _LoopDriver:
    """The one task per event loop that moves virtual time, for every VirtualClock running in that loop.

    Only one task may poll the loop for idleness (two pollers would keep each other busy forever), so all
    clocks share it. When the loop is idle it first releases every clock's :meth:`VirtualClock.settle`
    waiters; otherwise it acts for the clock whose next step comes first on a shared timeline: each clock's
    time is measured from where the shared timeline stood when the clock joined (ties: the clock that
    joined first). Clusters sharing a loop thus advance in lockstep and none can starve another.
    """

    _by_loop: ClassVar[dict[int, _LoopDriver]] = {}

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clocks: list[VirtualClock] = []
        self.wakeup = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def for_loop(cls, loop: asyncio.AbstractEventLoop) -> _LoopDriver:
        driver = cls._by_loop.get(id(loop))
        if driver is None or driver.loop is not loop:
            driver = cls._by_loop[id(loop)] = _LoopDriver(loop)
        return driver

    def add(self, clock: VirtualClock) -> None:
        clock._origin = clock._now - self._progress()
        self.clocks.append(clock)
        if self.task is None:
            self.task = self.loop.create_task(self._run(), name="kubelite-virtual-clock")
        self.wakeup.set()

    def _progress(self) -> float:
        """How far the shared timeline has come (0 for a fresh driver)."""
        return max((c._now - c._origin for c in self.clocks), default=0.0)

    async def remove(self, clock: VirtualClock) -> None:
        if clock in self.clocks:
            self.clocks.remove(clock)
        if not self.clocks and self.task is not None:
            task, self.task = self.task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if _LoopDriver._by_loop.get(id(self.loop)) is self:
                del _LoopDriver._by_loop[id(self.loop)]

    async def _run(self) -> None:
        ready = self.loop._ready  # type: ignore[attr-defined]
        wakeup = self.wakeup
        while True:
            while True:
                await asyncio.sleep(0)
                if not ready:
                    break
                if len(ready) > 1:
                    for c in self.clocks:
                        if c.ready_hook is not None:
                            c.ready_hook(ready)
            released = False
            for c in self.clocks:
                released = c._release_idle_waiters() or released
            if released:
                continue
            best: VirtualClock | None = None
            best_step = 0.0
            for c in self.clocks:
                step = c._next_step()
                if step is not None and (best is None or step < best_step):
                    best, best_step = c, step
            if best is not None:
                best._step()
                continue
            wakeup.clear()
            await wakeup.wait()


class RealClock(_ClockBase):
    """Wall-clock time, for serving real clients. Same API as :class:`VirtualClock`."""

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        handle = TimerHandle(self.now() + delay, callback)

        def fire() -> None:
            if not handle.cancelled:
                handle.cancelled = True
                callback()

        asyncio.get_running_loop().call_later(max(0.0, delay), fire)
        return handle

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def advance(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def settle(self) -> None:
        loop = asyncio.get_running_loop()
        ready = loop._ready  # type: ignore[attr-defined]
        for _ in range(10_000):
            await asyncio.sleep(0)
            if not ready:
                return

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[RealClock]:
        yield self
