"""The cluster's one clock: every time read, sleep and timeout in the process goes through it.

Guarantees:
- :class:`VirtualClock` never reads the wall clock for cluster time. While it runs (``async with
  clock.running()``, which the cluster does), the **event loop itself** is on virtual time
  (:class:`LoopTime`): ``loop.time()`` is virtual, so every asyncio timer in the process (``asyncio.sleep``,
  ``asyncio.wait_for``, ``loop.call_later``, anyio, aiohttp/httpx/uvicorn timeouts) follows cluster time,
  not only kubelite's own. ``await asyncio.sleep(0.3)`` inside a cluster moves cluster time by 0.3 s.
- Time jumps (to the loop's next timer) only when nothing can make progress: no ready callbacks, no I/O
  ready, no known I/O in flight (:func:`io_hold`, executor jobs, kubelite's HTTP server reading a request),
  and, for file descriptors whose peer is outside this loop, after ``idle_grace`` real seconds without I/O,
  and only while no child process (a kubectl subprocess) is running or runnable. Known I/O in flight and busy
  child processes make virtual time flow at real speed instead, so real waiting is never skipped over.
  With ``autojump=False`` the loop jumps only while :meth:`VirtualClock.advance` is pending.
- A clock's own timers fire in deadline order, ties in the order they were registered, all timers with the
  same deadline together. Given the same inputs the interleaving is the same on every run: this, with the
  cluster's seeded RNG, is what makes runs replay byte for byte.
- Several clocks in one loop share the loop's timeline, each offset by where it stood when it joined, so
  clusters sharing a loop advance in lockstep and none can starve another.
- :class:`RealClock` is for serving real clients: the same API over ``time.time`` and the loop.

Design note: this follows looptime (kopf's test time: fake ``loop.time()``, compress the selector's waits)
rather than depending on it: kubelite needs what looptime does not give (several cluster timelines on one
loop, ``settle()``, manual advance, a clock that keeps its own deterministic tie order, knowing about its own
HTTP server's in-flight requests), and trio's ``MockClock(autojump_threshold=...)`` idea of a real-time
grace only for I/O it cannot see. The whole mechanism is two patched attributes of one loop, restored on
exit.

Only this module may touch ``time``/``asyncio.sleep`` (ruff TID251 bans them elsewhere in kubelite).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import math
import os
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, TypeVar

import anyio

__all__ = [
    "DEFAULT_IDLE_GRACE", "EPOCH", "Clock", "LoopTime", "ProcFS", "RealClock", "TimerHandle", "VirtualClock",
    "format_time", "io_hold", "parse_time",
]

T = TypeVar("T")

#: Where virtual time starts: 2025-01-01T00:00:00Z. Fixed, so traces do not depend on the day.
EPOCH = 1735689600.0

#: Real seconds the loop waits for I/O it cannot see (a peer in another process) before jumping.
DEFAULT_IDLE_GRACE = 0.01


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
        """Cancel the timer (``asyncio.TimerHandle.cancel``); a no-op once it has fired."""
        self.cancelled = True


class Clock(Protocol):
    """What components may ask of time. Passed as ``clock=``; never a global."""

    def now(self) -> float:
        """Seconds since the Unix epoch (virtual or real)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        """Call ``callback()`` once ``delay`` seconds from now on this clock (``loop.call_later``); the handle cancels
        it."""

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` on this clock (``asyncio.sleep``); ``0`` yields once."""

    async def sleep_until(self, deadline: float) -> None:
        """Sleep until this clock reads ``deadline`` (an absolute ``now()`` value)."""

    async def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, running every timer that comes due on the way (virtual time); a real clock
        just sleeps."""

    async def settle(self) -> None:
        """Return once no task can make progress without time moving (every ready callback has run)."""

    def move_on_after(self, seconds: float) -> contextlib.AbstractContextManager[anyio.CancelScope]:
        """A cancel scope that silently ends its block after ``seconds`` on this clock (``anyio.move_on_after``)."""

    def fail_after(self, seconds: float) -> contextlib.AbstractContextManager[anyio.CancelScope]:
        """A cancel scope that raises ``TimeoutError`` after ``seconds`` on this clock (``anyio.fail_after``)."""

    async def wait_for(self, aw: Awaitable[T], timeout: float) -> T:  # noqa: ASYNC109 - on the cluster clock
        """Await ``aw``, raising ``TimeoutError`` if it takes longer than ``timeout`` seconds on this clock
        (``asyncio.wait_for``)."""

    def timestamp(self) -> str:
        """Now as a Kubernetes ``Time`` string (RFC 3339, seconds, UTC), as metadata timestamps carry."""

    def micro_timestamp(self) -> str:
        """Now as a Kubernetes ``MicroTime`` string (RFC 3339 with microseconds, UTC), as Events carry."""


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

    The clock must be running for time to move: ``async with clock.running(): ...`` (the cluster does
    this for you). While it runs, the event loop itself is on virtual time (:class:`LoopTime`).
    """

    def __init__(self, *, start: float = EPOCH, autojump: bool = True, idle_grace: float = DEFAULT_IDLE_GRACE) -> None:
        self._now = start
        self.autojump = autojump
        self.idle_grace = idle_grace
        # heap of (deadline, seq, handle); invariant: every live timer is in the heap exactly once.
        self._timers: list[tuple[float, int, TimerHandle]] = []
        self._seq = itertools.count()
        self._loop_time: LoopTime | None = None
        # cluster time = loop time + _offset while running; _now is a floor (exact timer deadlines)
        self._offset = 0.0
        # the one loop handle that fires this clock's earliest timer, and the deadline it is for
        self._wake: asyncio.TimerHandle | None = None
        self._wake_at = math.inf
        self._advances = 0
        # the loop time ``_now`` was last derived from: reads at the same loop time return the same value, and a
        # timer fired at its deadline makes that deadline exactly "now" (no float round-trip error)
        self._seen_vt = math.nan
        self.timers_fired = 0
        #: Perturbation hook (kubelite.perturb): called with the loop's ready queue at the start of every loop
        #: iteration that will run several callbacks, so a seeded fuzzer may reorder the *tasks* that are ready
        #: at once (any interleaving of ready tasks is one a real loop could run). None: FIFO, as asyncio does.
        self.ready_hook: Callable[[Any], None] | None = None

    # --- reading time ---
    def now(self) -> float:
        """Current virtual time in seconds since the epoch; it moves only when the loop would otherwise sleep."""
        lt = self._loop_time
        if lt is not None and lt.vt != self._seen_vt:
            self._seen_vt = lt.vt
            t = lt.vt + self._offset
            if t > self._now:
                self._now = t
        return self._now

    @property
    def pending_timers(self) -> int:
        """How many timers are set and not cancelled."""
        return sum(1 for _, _, h in self._timers if not h.cancelled)

    def next_deadline(self) -> float | None:
        """The deadline of the earliest pending timer, or None when none is pending."""
        self._drop_cancelled()
        return self._timers[0][0] if self._timers else None

    # --- scheduling ---
    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        """Call ``callback()`` when virtual time reaches now + ``delay`` (timers of equal deadline fire in the order
        they were set)."""
        handle = TimerHandle(self.now() + max(0.0, delay), callback)
        heapq.heappush(self._timers, (handle.deadline, next(self._seq), handle))
        if handle.deadline < self._wake_at and self._loop_time is not None:
            self._schedule_wake()
        return handle

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of virtual time (``0`` yields once); costs no wall time."""
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
        """Let ``seconds`` of virtual time pass, running every timer due on the way (in manual mode the loop
        may jump only while an advance is pending)."""
        if self.autojump:
            await self.sleep(seconds)
            return
        self._require_running()
        self._advances += 1
        try:
            await self.sleep(seconds)
        finally:
            self._advances -= 1

    async def settle(self) -> None:
        """Return once every other task is idle (nothing ready, no I/O ready), without moving time."""
        lt = self._require_running()
        await lt.idle()

    # --- running ---
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[VirtualClock]:
        """Put the event loop on virtual time for the duration of the block (the cluster does this for you)."""
        if self._loop_time is not None:
            raise RuntimeError("this VirtualClock is already running")
        lt = LoopTime.for_loop(asyncio.get_running_loop())
        lt.add(self)
        try:
            yield self
        finally:
            lt.remove(self)

    def _joined(self, lt: LoopTime) -> None:
        self._loop_time = lt
        self._seen_vt = lt.vt
        self._offset = self._now - lt.vt
        self._wake_at = math.inf
        self._schedule_wake()

    def _left(self) -> None:
        self.now()
        self._loop_time = None
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        self._wake_at = math.inf

    def _require_running(self) -> LoopTime:
        if self._loop_time is None:
            raise RuntimeError("the VirtualClock is not running (use `async with clock.running():`)")
        return self._loop_time

    def _drop_cancelled(self) -> None:
        timers = self._timers
        while timers and timers[0][2].cancelled:
            heapq.heappop(timers)

    def _schedule_wake(self) -> None:
        """(Re)arm the loop handle for the earliest live timer."""
        lt = self._loop_time
        assert lt is not None
        self._drop_cancelled()
        deadline = self._timers[0][0] if self._timers else math.inf
        if deadline == self._wake_at:
            return
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        self._wake_at = deadline
        if deadline != math.inf:
            self._wake = lt.loop.call_at(deadline - self._offset, self._fire_due)

    def _fire_due(self) -> None:
        """The loop reached this clock's earliest deadline: fire every timer due by then, in order."""
        self._wake = None
        self._wake_at = math.inf
        timers = self._timers
        self._drop_cancelled()
        if timers:
            # the loop fired us at this deadline: it is now, whatever the float round trip says
            head = timers[0][0]
            now = self.now()
            if abs(head - now) < 1e-6:  # the loop fired us at this deadline: it is exactly now
                self._now = now = head
            while timers and timers[0][0] <= now:
                _, _, handle = heapq.heappop(timers)
                if not handle.cancelled:
                    handle.cancelled = True
                    self.timers_fired += 1
                    handle.callback()
        if self._loop_time is not None:
            self._schedule_wake()


class LoopTime:
    """Virtual time for one asyncio event loop, shared by every :class:`VirtualClock` running in it.

    While installed, ``loop.time()`` is virtual, so every timer in the process (``asyncio.sleep``,
    ``wait_for``, ``loop.call_later``, anyio, aiohttp and httpx timeouts, uvicorn's keep-alive) is on the one
    timeline the clusters share; each cluster's time is this timeline plus the offset it had when it joined,
    which keeps several clusters in one loop in lockstep. The loop's selector is wrapped so that, when the
    loop would block waiting for I/O or a timer, it first polls I/O and only then decides:

    - I/O ready, or callbacks ready: nothing special, time stands still.
    - Someone waits in :meth:`idle` (``clock.settle()``): wake them, time stands still.
    - Known I/O in flight (:meth:`hold`; a pending ``run_in_executor`` future; kubelite's HTTP server while it
      reads a request body or waits to write): really wait for I/O, and let virtual time flow at real speed
      meanwhile, so a test that really waits on I/O is never skipped over.
    - A child process of this one (or its descendant) that is running or runnable, or used CPU since the
      last look (a kubectl subprocess starting up or working on a response): really wait, and let virtual
      time flow at real speed, so how fast the machine runs that process cannot change what the cluster
      shows it. A child blocked on I/O or asleep does not stop jumps. Linux only (``/proc``); elsewhere only
      the grace below applies.
    - I/O it cannot see (file descriptors whose peer is not in this loop: a kubectl subprocess, a client in
      another process or thread): wait ``idle_grace`` real seconds for it first; any I/O resets the wait.
    - Otherwise jump straight to the loop's next timer.

    Uninstalling (when the last clock leaves) hands the loop back on real time, continuing from where virtual
    time stood: loop time never goes backwards and timers scheduled meanwhile keep their remaining delays.
    """

    _by_loop: ClassVar[dict[int, LoopTime]] = {}

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clocks: list[VirtualClock] = []
        self.vt = loop.time()
        self._real = loop.time  # the time the loop had before (real, or a continuation of a past LoopTime)
        self._holds = 0
        self._executor_futures: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._select: Callable[[float | None], list[Any]] | None = None
        self.jumps = 0
        self.real_waits = 0
        self.grace_waits = 0
        self._children = _ChildProcesses()

    @classmethod
    def for_loop(cls, loop: asyncio.AbstractEventLoop) -> LoopTime:
        """The one LoopTime of ``loop`` (created on first use): every virtual clock on a loop shares it."""
        lt = cls._by_loop.get(id(loop))
        if lt is None or lt.loop is not loop:
            lt = cls._by_loop[id(loop)] = LoopTime(loop)
        return lt

    @classmethod
    def current(cls) -> LoopTime | None:
        """The LoopTime of the running loop, if one is installed."""
        loop = asyncio.get_running_loop()
        lt = cls._by_loop.get(id(loop))
        return lt if lt is not None and lt.loop is loop and lt.clocks else None

    # --- clocks ---
    def add(self, clock: VirtualClock) -> None:
        """Put ``clock`` on this loop's time (patching the loop's ``time()`` and selector on the first one)."""
        if not self.clocks:
            self._install()
        self.clocks.append(clock)
        clock._joined(self)

    def remove(self, clock: VirtualClock) -> None:
        """Take ``clock`` off this loop; the last one to leave restores the loop's own time and selector."""
        if clock in self.clocks:
            self.clocks.remove(clock)
            clock._left()
        if not self.clocks:
            self._uninstall()
            if LoopTime._by_loop.get(id(self.loop)) is self:
                del LoopTime._by_loop[id(self.loop)]

    def _install(self) -> None:
        loop = self.loop
        selector = getattr(loop, "_selector", None)
        if selector is None or not hasattr(loop, "_scheduled") or not hasattr(loop, "_ready"):
            raise RuntimeError(
                "VirtualClock needs the standard asyncio selector event loop (it puts the loop's own time and "
                "selector on virtual time); uvloop and the proactor loop are not supported"
            )
        self._real = loop.time
        # start on a whole second at or after the loop's time: handles already scheduled keep their deadlines
        # (at most a second early), and offsets between whole-second cluster starts and the loop stay exact, so
        # a cluster timer's deadline round-trips through loop time without float error
        self.vt = float(math.ceil(loop.time()))
        self._select = selector.select
        loop.time = self._time  # type: ignore[method-assign]
        selector.select = self._virtual_select
        self._orig_run_in_executor = loop.run_in_executor

        def run_in_executor(executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
            fut = self._orig_run_in_executor(executor, func, *args)
            self._executor_futures.add(fut)
            return fut

        loop.run_in_executor = run_in_executor  # type: ignore[method-assign,assignment]
        for name in ("subprocess_exec", "subprocess_shell"):
            setattr(loop, name, self._watching_subprocesses(getattr(loop, name)))

    def _watching_subprocesses(self, start: Callable[..., Awaitable[tuple[Any, Any]]]
                               ) -> Callable[..., Awaitable[tuple[Any, Any]]]:
        async def started(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
            transport, protocol = await start(*args, **kwargs)
            self._children.transports.add(transport)
            return transport, protocol
        return started

    def _uninstall(self) -> None:
        loop = self.loop
        real = self._real
        delta = self.vt - real()

        def continued() -> float:
            return real() + delta

        loop.time = continued  # type: ignore[method-assign]
        selector = loop._selector  # type: ignore[attr-defined]
        if self._select is not None:
            with contextlib.suppress(AttributeError):
                del selector.select
            self._select = None
        for name in ("run_in_executor", "subprocess_exec", "subprocess_shell"):
            with contextlib.suppress(AttributeError):
                delattr(loop, name)
        for w in self._idle_waiters:
            if not w.done():
                w.set_result(None)
        self._idle_waiters = []

    def _time(self) -> float:
        return self.vt

    # --- what stops jumps ---
    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Known I/O in flight: while held, virtual time flows at real speed instead of jumping."""
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1

    @property
    def held(self) -> bool:
        """Whether a time jump must wait: a hold is taken or known I/O (an executor future) is in flight."""
        if self._holds:
            return True
        return any(not f.done() for f in self._executor_futures)

    def external_io(self) -> bool:
        """Whether the loop watches a file descriptor whose peer is not in this loop (so I/O may be on its way
        that polling cannot see yet): pipes, sockets to other processes, readers added by hand."""
        keys = self.loop._selector.get_map().values()  # type: ignore[attr-defined]
        local: set[Any] = set()
        peers: list[Any] = []
        for key in keys:
            reader = key.data[0] if key.data else None
            owner = getattr(getattr(reader, "_callback", None), "__self__", None)
            if owner is self.loop:  # the loop's self-pipe or a listening socket
                continue
            get_extra = getattr(owner, "get_extra_info", None)
            peer = get_extra("peername") if get_extra is not None else None
            if peer is None:
                return True
            local.add(get_extra("sockname"))  # type: ignore[misc]
            peers.append(peer)
        return any(p not in local for p in peers)

    async def idle(self) -> None:
        """Return at the next moment nothing in the loop can make progress (time does not move)."""
        fut: asyncio.Future[None] = self.loop.create_future()
        self._idle_waiters.append(fut)
        await fut

    # --- the selector ---
    def _may_jump(self) -> bool:
        return all(c.autojump or c._advances for c in self.clocks)

    def _virtual_select(self, timeout: float | None) -> list[Any]:
        select = self._select
        assert select is not None
        ready = select(0)
        if timeout == 0:
            queue = self.loop._ready  # type: ignore[attr-defined]
            if len(queue) > 1:
                for c in self.clocks:
                    if c.ready_hook is not None:
                        c.ready_hook(queue)
            return ready
        if ready:
            return ready
        # nothing is ready to run and no I/O is ready: the loop would block here
        if self._idle_waiters:
            waiters, self._idle_waiters = self._idle_waiters, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)
            return []
        if self.held or not self._may_jump():
            return self._real_wait(timeout, flow=self.held)
        grace = max((c.idle_grace for c in self.clocks), default=0.0)
        if grace > 0 and self._children.busy():
            # a subprocess (a kubectl the test started) is on a CPU or waiting for one: it can make progress,
            # so time flows at real speed instead of jumping, however slow the machine runs it
            return self._real_wait(timeout, flow=True)
        if grace > 0 and self.external_io():
            self.grace_waits += 1
            ready = select(grace if timeout is None else min(grace, timeout))
            if ready:
                return ready
        scheduled = self.loop._scheduled  # type: ignore[attr-defined]
        if scheduled:
            when = scheduled[0]._when
            if when > self.vt:
                self.vt = when
                self.jumps += 1
            return []
        # no timer at all: only outside I/O (or another thread) can wake the loop
        return select(None)

    def _real_wait(self, timeout: float | None, *, flow: bool) -> list[Any]:
        """Wait for real I/O; with ``flow`` virtual time moves by the real time spent (never past the next
        timer). Capped, so a hold that ends without I/O (an executor job finishing) is noticed soon."""
        select = self._select
        assert select is not None
        self.real_waits += 1
        cap = 0.05 if timeout is None else min(timeout, 0.05)
        t0 = self._real()
        ready = select(cap)
        if flow:
            elapsed = self._real() - t0
            self.vt += elapsed if timeout is None else min(elapsed, timeout)
        return ready


class ProcFS:
    """Read-only looks at Linux's ``/proc``: what the clock (and :mod:`kubelite.http.clients`) needs to tell
    whether another process can make progress. Every look tolerates a process or thread that is gone by the
    time it is read (an empty list, ``None`` or ``False``, never an exception), so callers need no race
    handling; where there is no ``/proc`` (not Linux) every look is empty."""

    #: thread states that can make progress: running or runnable, or in uninterruptible I/O
    RUNNING = frozenset("RD")
    #: how many processes :meth:`with_descendants` walks at most (a fork bomb must not stall the loop)
    MAX_WALK = 256

    @staticmethod
    def listdir(path: str) -> list[str]:
        """``os.listdir(path)``, or ``[]`` once the directory is gone."""
        try:
            return os.listdir(path)
        except OSError:
            return []

    @staticmethod
    def stat(pid: int | str, tid: str | None = None) -> list[str] | None:
        """The fields of ``/proc/PID/stat`` (or of thread ``tid``'s ``/proc/PID/task/TID/stat``) after the
        command name, state first (so ``fields[1]`` is the ppid, ``[11]``/``[12]`` utime/stime, ``[19]`` the
        start time), or None once it is gone."""
        path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return None
        return text[text.rfind(")") + 2:].split()

    @classmethod
    def threads(cls, pid: int | str) -> list[str]:
        """``pid``'s thread ids (``/proc/PID/task``)."""
        return cls.listdir(f"/proc/{pid}/task")

    @classmethod
    def thread_runs(cls, pid: int | str, tid: str) -> bool:
        """Whether thread ``tid`` of ``pid`` is in a :data:`RUNNING` state."""
        fields = cls.stat(pid, tid)
        return fields is not None and fields[0] in cls.RUNNING

    @classmethod
    def any_thread_runs(cls, pid: int | str) -> bool:
        """Whether one of ``pid``'s threads is in a :data:`RUNNING` state."""
        return any(cls.thread_runs(pid, tid) for tid in cls.threads(pid))

    @classmethod
    def children(cls, pid: int | str) -> list[int]:
        """``pid``'s child processes, from each of its threads' ``/proc/PID/task/TID/children``."""
        out: list[int] = []
        for tid in cls.threads(pid):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out.extend(int(k) for k in f.read().split())
            except (OSError, ValueError):
                continue
        return out

    @classmethod
    def with_descendants(cls, pids: list[int]) -> list[int]:
        """``pids`` and their descendants (at most :data:`MAX_WALK` processes)."""
        found: list[int] = []
        todo = list(pids)
        while todo and len(found) < cls.MAX_WALK:
            pid = todo.pop()
            found.append(pid)
            todo.extend(cls.children(pid))
        return found


class _ChildProcesses:
    """The loop's subprocesses (``asyncio.create_subprocess_exec``/``_shell``, i.e. ``loop.subprocess_exec``)
    and whether one of them, or a descendant, can make progress, read from Linux's ``/proc``.

    A process can make progress when one of its threads is running or runnable (``R``) or in uninterruptible
    I/O (``D``, e.g. paging in its binary), or when it used CPU since the previous look (a thread that ran
    between two looks). One that has exited but whose exit the loop has not seen yet (a zombie, or one the
    child watcher's thread has reaped but not yet reported) counts for up to a real second: the report is on
    its way. Sleeping (``S``) and stopped processes cannot make progress. Without
    ``/proc`` (not Linux) nothing is ever busy, and only the loop's idle grace covers other processes.
    """

    _REAP_WAIT = 1.0

    def __init__(self) -> None:
        self._proc = os.path.isdir("/proc/self/task")
        self.transports: weakref.WeakSet[asyncio.SubprocessTransport] = weakref.WeakSet()
        self._ticks: dict[int, int] = {}
        self._exited: dict[int, float] = {}  # pid -> real time it was first seen exited and unreaped

    def busy(self) -> bool:
        if not self.transports:
            return False
        live = [t.get_pid() for t in list(self.transports) if t.get_returncode() is None and not t.is_closing()]
        if not live or not self._proc:
            self._ticks = {}
            return False
        busy = False
        ticks: dict[int, int] = {}
        roots = set(live)
        for pid in ProcFS.with_descendants(live):
            fields = ProcFS.stat(pid)
            if fields is None or fields[0] in "ZX":
                if pid in roots:  # exited (perhaps reaped by the child watcher's thread), not yet reported
                    first = self._exited.setdefault(pid, time.monotonic())
                    busy = busy or time.monotonic() - first < self._REAP_WAIT
                continue
            used = int(fields[11]) + int(fields[12])  # utime + stime, summed over the process's threads
            ticks[pid] = used
            if used != self._ticks.get(pid, -1):  # it used CPU since the last look, or it has just started
                busy = True
            elif not busy:
                busy = ProcFS.any_thread_runs(pid)
        self._ticks = ticks
        if len(self._exited) > len(roots):
            self._exited = {pid: t for pid, t in self._exited.items() if pid in roots}
        return busy


class RealClock(_ClockBase):
    """Wall-clock time, for serving real clients. Same API as :class:`VirtualClock`."""

    def now(self) -> float:
        """Seconds since the Unix epoch, from the wall clock (``time.time()``)."""
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        """Call ``callback()`` after ``delay`` wall-clock seconds (the event loop's ``call_later``)."""
        handle = TimerHandle(self.now() + delay, callback)

        def fire() -> None:
            if not handle.cancelled:
                handle.cancelled = True
                callback()

        asyncio.get_running_loop().call_later(max(0.0, delay), fire)
        return handle

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep`` on the wall clock (negative durations sleep 0)."""
        await asyncio.sleep(max(0.0, seconds))

    async def advance(self, seconds: float) -> None:
        """Wall time cannot be moved: sleep ``seconds`` instead."""
        await asyncio.sleep(max(0.0, seconds))

    async def settle(self) -> None:
        """Yield until the loop has no ready callbacks left (bounded), without moving time."""
        loop = asyncio.get_running_loop()
        ready = loop._ready  # type: ignore[attr-defined]
        for _ in range(10_000):
            await asyncio.sleep(0)
            if not ready:
                return

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[RealClock]:
        """A no-op context manager: a real clock needs nothing installed on the loop."""
        yield self


@contextlib.contextmanager
def io_hold() -> Iterator[None]:
    """Mark known I/O in flight for the running loop (a no-op when it is not on virtual time): until the block
    exits, virtual time flows at real speed instead of jumping. Use it around a wait for something outside
    the loop that must not be skipped over (a subprocess's output with a timeout, a thread)."""
    lt = LoopTime.current()
    if lt is None:
        yield
        return
    with lt.hold():
        yield
