"""Structured concurrency: task groups with a deterministic cancellation order, and supervisors for
components whose start and stop happen in different tasks.

Contract (anyio/trio task groups, which this wraps):
- :class:`TaskGroup` is an anyio task group (``async with TaskGroup(name) as g: g.start_soon(...)``) whose
  children are cancelled one by one in the order they were started, whatever cancels them: a child's
  exception, the body's, an outer cancellation. anyio's own order follows memory addresses, so the clean-ups
  of cancelled tasks would run in a different order in each replay; this order is the same in every run
  of a seed. Every component task of a cluster or a manager (controller workers, the scheduler's binding
  cycles, leader election's leading and renewing tasks) runs in one.
- Every task a :class:`Supervisor` starts runs inside its one task group; nothing outlives it.
- An unexpected exception in any task cancels every sibling and becomes the group's (and supervisor's)
  :attr:`~Supervisor.failure` (the exception itself, never wrapped in an ``ExceptionGroup``). A supervisor
  logs it at ERROR with its traceback the moment it happens, hands it to its ``on_failure`` callbacks (so
  an owner can fail fast), and raises it again from :meth:`Supervisor.close`. Nothing fails silently.
- Stopping one task on purpose (:meth:`TaskHandle.cancel`, e.g. a controller "crash") is not a failure.
- Unlike a bare ``async with``, a supervisor may be opened in one task and closed in another
  (pytest-asyncio runs an async fixture's setup and teardown in different tasks): its group lives in one
  host task that the supervisor owns and :meth:`Supervisor.close` awaits.

:func:`report_error` is the one way a component reports an error it recovered from (a reconcile that
raised, an event handler that raised): an ERROR log line with the traceback, plus a record in the
current :class:`ErrorLog` (the running cluster's: ``Cluster.errors``, which the pytest plugin checks).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Coroutine, Iterator
from types import TracebackType
from typing import Any, TypeVar

import anyio
import msgspec

from kubelite.logs import get_logger

__all__ = [
    "ComponentError", "ErrorLog", "Supervisor", "TaskGroup", "TaskHandle", "current_error_log", "first_error",
    "gather", "report_error",
]

log = get_logger("kubelite.supervise")

T = TypeVar("T")


class ComponentError(msgspec.Struct, frozen=True, kw_only=True):
    """One error a component logged and recovered from (or died of)."""

    component: str
    error: str
    context: dict[str, str] = {}
    fatal: bool = False


class ErrorLog:
    """The errors reported by the tasks of one context: a cluster owns one and makes it current
    (:data:`current_error_log`) while it runs, so its tasks, and the tasks they start, report into it."""

    def __init__(self) -> None:
        self.errors: list[ComponentError] = []
        #: components started in this context that announced themselves (controller managers)
        self.attached: list[Any] = []
        #: exceptions that killed an attached component, in order
        self.failures: list[BaseException] = []

    def record(self, e: ComponentError) -> None:
        """Append one reported error (called by :func:`report_error`)."""
        self.errors.append(e)

    def attach(self, component: Any) -> None:
        """Remember ``component`` (it has ``add_failure_callback``); its death goes to :attr:`failures`."""
        if any(c is component for c in self.attached):
            return
        self.attached.append(component)
        component.add_failure_callback(self.failures.append)

    @contextlib.contextmanager
    def current(self) -> Iterator[ErrorLog]:
        """Make this the current error log for the block (and the tasks started inside it)."""
        token = current_error_log.set(self)
        try:
            yield self
        finally:
            with contextlib.suppress(ValueError):
                current_error_log.reset(token)

    def __len__(self) -> int:
        return len(self.errors)


#: The error log of the cluster whose task is running (tasks copy the context when they are created).
current_error_log: contextvars.ContextVar[ErrorLog | None] = contextvars.ContextVar(
    "kubelite_error_log", default=None)


def report_error(component: str, exc: BaseException, *, event: str = "component_error", fatal: bool = False,
                 **context: Any) -> ComponentError:
    """Log ``exc`` at ERROR (with its traceback) as ``event`` and record it in every listening
    :class:`ErrorLog`. ``context`` (request, handler, ...) goes into both."""
    ctx = {k: str(v) for k, v in context.items()}
    record = ComponentError(component=component, error=f"{type(exc).__name__}: {exc}", context=ctx, fatal=fatal)
    log.error(event, component=component, error=record.error, exc_info=exc, **ctx)
    sink = current_error_log.get()
    if sink is not None:
        sink.record(record)
    return record


def first_error(exc: BaseException) -> BaseException:
    """The first leaf of an (anyio) ``ExceptionGroup`` that is not a cancellation; ``exc`` otherwise."""
    if isinstance(exc, BaseExceptionGroup):
        leaves = [first_error(e) for e in exc.exceptions]
        for leaf in leaves:
            if not isinstance(leaf, asyncio.CancelledError):
                return leaf
        return leaves[0] if leaves else exc
    return exc


_SCOPE_CLASS: Any = None

#: how anyio's asyncio backend recognises its own cancellations (``is_anyio_cancellation``: the message's
#: prefix), so the quiet reason starts with it
_ANYIO_REASON = "Cancelled via cancel scope "

#: what :func:`_quiet_scope_class` reimplements of anyio's asyncio ``CancelScope.cancel`` (anyio 4.16); if the
#: installed anyio's scope lacks any of them, its own class (and its own ``cancel``) is used unchanged
_SCOPE_INTERNALS = ("_cancel_called", "_cancel_reason", "_timeout_handle", "_host_task")


def _quiet_scope_class(base: Any) -> Any:
    """anyio's asyncio ``CancelScope`` with a ``cancel()`` that does not format the cancelling task.

    anyio's ``cancel()`` builds its reason as ``f"Cancelled via cancel scope {id(self):x} by {current_task()}"``,
    and a Task's repr formats its coroutine (name, file, line) and what it waits for: stopping a default
    cluster cancels ~130 tasks from one task, so it formatted that task ~130 times, about a tenth of the
    stop's CPU time. The reason only becomes the ``CancelledError``'s message, which kubelite never shows
    (a failure is the exception the task died of, raised by its group: that stays loud); and it named a
    memory address, which nothing that can reach a trace may. Here the reason names the task by its
    :class:`TaskHandle` name instead, after the prefix anyio recognises its own cancellations by; everything
    else is anyio's ``cancel()`` as is (the timeout handle dropped, the scope marked, the cancellation
    delivered to its tasks now, or when it is entered)."""
    slots = {s for k in base.__mro__ for s in getattr(k, "__slots__", ())}
    if not all(a in slots for a in _SCOPE_INTERNALS) or not hasattr(base, "_deliver_cancellation"):
        return base

    class QuietCancelScope(base):  # type: ignore[misc,valid-type]
        __slots__ = ("task_name",)

        def cancel(self, reason: str | None = None) -> None:
            scope: Any = self  # anyio's private slots, checked above
            if scope._cancel_called:
                return
            if scope._timeout_handle:
                scope._timeout_handle.cancel()
                scope._timeout_handle = None
            scope._cancel_called = True
            scope._cancel_reason = f"{_ANYIO_REASON}of task {self.task_name}" + (
                f"; reason: {reason}" if reason else "")
            if scope._host_task is not None:
                scope._deliver_cancellation(scope)

    QuietCancelScope.__qualname__ = QuietCancelScope.__name__ = base.__name__
    return QuietCancelScope


def _cancel_scope(task_name: str) -> anyio.CancelScope:
    """``anyio.CancelScope(shield=True)`` for the task ``task_name``, made by the running backend's class
    directly: ``anyio.CancelScope()`` asks sniffio for the running async library on every call (a third of a
    task start, and the scheduler starts one per binding cycle). kubelite runs on asyncio only, so the class
    found first serves every later scope (its quiet-``cancel()`` subclass, :func:`_quiet_scope_class`)."""
    global _SCOPE_CLASS
    cls = _SCOPE_CLASS
    if cls is None:
        cls = _SCOPE_CLASS = _quiet_scope_class(type(anyio.CancelScope(shield=True)))
    made: anyio.CancelScope = cls(shield=True)
    if "task_name" in cls.__slots__:
        made.task_name = task_name  # type: ignore[attr-defined]
    return made


class TaskHandle:
    """One task of a :class:`TaskGroup` (anyio's ``TaskHandle`` and trio's per-task cancel scope in one):
    :meth:`cancel` stops it on purpose (not a failure); :meth:`wait` waits for it to end."""

    __slots__ = ("_done", "_exception", "_scope", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        # created here, entered by the task itself: a cancel before the task has run is kept
        self._scope = _cancel_scope(name)
        self._done = asyncio.Event()
        self._exception: BaseException | None = None

    def exception(self) -> BaseException | None:
        """The exception the task ended with (not a cancellation), or None."""
        return self._exception

    @property
    def done(self) -> bool:
        """Whether the task has ended (returned, raised or been cancelled)."""
        return self._done.is_set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called (by its owner or by its group)."""
        return self._scope.cancel_called

    def cancel(self) -> None:
        """Cancel the task at its next checkpoint; a no-op once it has ended."""
        self._scope.cancel()

    async def wait(self) -> None:
        """Wait until the task has ended."""
        await self._done.wait()

    async def stop(self) -> None:
        """Cancel and wait."""
        self.cancel()
        await self.wait()

    def __repr__(self) -> str:
        return f"<TaskHandle {self.name}{' done' if self.done else ''}>"


class TaskGroup:
    """An anyio task group whose children are cancelled one by one in the order they were started.

    ``async with TaskGroup(name) as g: g.start_soon(fn, *args)`` keeps anyio's (and trio's) contract: every
    child runs inside the group and none outlives the ``async with``; the block ends once every child has
    ended; an exception in a child cancels its siblings and the block's body and is raised by the
    ``async with`` (the first one, unwrapped; later ones are reported with :func:`report_error`); an
    exception or a cancellation of the body cancels the children and is raised after they have ended.

    What it adds is a deterministic cancellation order. anyio delivers a group's cancellation by walking
    a ``set`` of tasks and scopes, whose order follows memory addresses and differs between runs, so the
    cancelled tasks' clean-ups (releases, status writes, log lines) would run in a different order in each
    replay. Here each child runs in a cancel scope of its own, shielded from the group's scope, and every
    cancellation (a child's failure, the body's exception, an outer cancellation, :meth:`cancel`) is
    delivered child by child in start order. Children's exceptions never reach anyio's group, so anyio
    never cancels in its own order.
    """

    def __init__(self, name: str, *, on_failure: Callable[[BaseException], Any] | None = None) -> None:
        """``on_failure(exc)`` is called synchronously when a child first fails (before the siblings end),
        so an owner can fail fast."""
        self.name = name
        self._on_failure = on_failure
        self._tg: anyio.abc.TaskGroup | None = None
        self._body: anyio.CancelScope | None = None
        #: running children in start order (a dict: deterministic iteration, O(1) removal)
        self._children: dict[TaskHandle, None] = {}
        #: set while no child runs
        self._idle = asyncio.Event()
        self._idle.set()
        self._failures: list[BaseException] = []

    @property
    def failure(self) -> BaseException | None:
        """The first exception a child failed with, or None."""
        return self._failures[0] if self._failures else None

    @property
    def active(self) -> bool:
        """Inside its ``async with``: children may be started."""
        return self._tg is not None

    def children(self) -> list[TaskHandle]:
        """The running children, in start order."""
        return list(self._children)

    async def __aenter__(self) -> TaskGroup:
        tg = anyio.create_task_group()
        await tg.__aenter__()
        self._tg = tg
        self._body = anyio.CancelScope()
        self._body.__enter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool:
        tg, body = self._tg, self._body
        assert tg is not None and body is not None, "TaskGroup exited without being entered"
        if body.__exit__(exc_type, exc, tb):  # the body was cancelled by a child's failure: not an error
            exc = None
        if exc is not None:
            self.cancel()
        cancelled = exc if isinstance(exc, asyncio.CancelledError) else None
        try:
            # Wait for every child here rather than in anyio's exit: a cancellation that arrives while
            # waiting must reach the children in start order too (anyio would cancel its own scope, which
            # the children are shielded from). Once cancelled, wait shielded, as anyio does.
            while self._children:
                try:
                    if cancelled is None:
                        await self._idle.wait()
                    else:
                        with anyio.CancelScope(shield=True):
                            await self._idle.wait()
                except asyncio.CancelledError as e:
                    cancelled = e
                    self.cancel()
            try:
                if cancelled is not None:  # through anyio's exit, for its cancel-scope bookkeeping
                    await tg.__aexit__(type(cancelled), cancelled, cancelled.__traceback__)
                else:
                    await tg.__aexit__(None, None, None)
                cancelled = None
            except asyncio.CancelledError as e:
                cancelled = e
        finally:
            self._tg = None
        if self._failures:
            first, *rest = self._failures
            for later in rest:
                report_error(self.name, later, event="task_failed")
            if exc is not None and not isinstance(exc, asyncio.CancelledError):
                report_error(self.name, exc, event="task_failed")
            raise first
        if cancelled is not None:
            raise cancelled
        return False

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any, name: str | None = None
                   ) -> TaskHandle:
        """Run ``fn(*args)`` as a child (synchronous: callable from plain code, as anyio's ``start_soon``)."""
        if self._tg is None:
            raise RuntimeError(f"task group {self.name!r} is not active (use it in an async with block)")
        handle = TaskHandle(name or str(getattr(fn, "__qualname__", "task")))
        self._spawn(handle, fn, args)
        return handle

    def _spawn(self, handle: TaskHandle, fn: Callable[..., Coroutine[Any, Any, Any]], args: tuple[Any, ...]
               ) -> None:
        assert self._tg is not None
        self._children[handle] = None
        self._idle.clear()
        scope = handle._scope

        async def run() -> None:
            try:
                with scope:
                    if not scope.cancel_called:
                        await fn(*args)
            except Exception as e:
                handle._exception = e
                self._failed(e)
            finally:
                self._children.pop(handle, None)
                if not self._children:
                    self._idle.set()
                handle._done.set()

        self._tg.start_soon(run, name=handle.name)

    def _failed(self, exc: BaseException) -> None:
        self._failures.append(exc)
        if len(self._failures) > 1:
            return
        self.cancel()
        if self._body is not None:
            self._body.cancel()
        if self._on_failure is not None:
            self._on_failure(exc)

    def cancel(self) -> None:
        """Cancel every running child, one by one in start order (the body goes on; the ``async with``
        then ends once they have)."""
        for h in list(self._children):
            h.cancel()


async def gather(name: str, *aws: Coroutine[Any, Any, T]) -> list[T]:
    """Run the coroutines concurrently in one :class:`TaskGroup` and return their results in order (Go's
    ``sync.WaitGroup`` fan-out that upstream controllers use for bursts of deletes). Unlike
    ``asyncio.gather``, the first exception cancels the others (in order) before it is raised, so none
    outlives the call."""
    if not aws:
        return []  # as asyncio.gather(): nothing to wait for, no suspension
    results: list[Any] = [None] * len(aws)
    started = [False] * len(aws)

    async def one(i: int, aw: Coroutine[Any, Any, T]) -> None:
        started[i] = True
        results[i] = await aw

    try:
        async with TaskGroup(name) as group:
            for i, aw in enumerate(aws):
                group.start_soon(one, i, aw, name=f"{name}-{i}")
    finally:
        for aw, ran in zip(aws, started, strict=True):
            if not ran:
                aw.close()  # cancelled before it ran: never awaited, on purpose
    return results


class Supervisor:
    """A :class:`TaskGroup` that may be opened and closed from different tasks (see the module docstring).

    :meth:`open` is synchronous (so a synchronous ``start()`` can use it): tasks started before the host
    task has entered its group are queued and started, in order, as soon as it has."""

    def __init__(self, name: str, *, on_failure: Callable[[BaseException], Any] | None = None) -> None:
        """``on_failure(exc)`` is called (after logging) when a task first fails."""
        self.name = name
        #: the exception the first failed task ended with (None while healthy)
        self.failure: BaseException | None = None
        self._on_failure: list[Callable[[BaseException], Any]] = [on_failure] if on_failure is not None else []
        self._group: TaskGroup | None = None
        self._host: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._pending: list[tuple[TaskHandle, Callable[..., Coroutine[Any, Any, Any]], tuple[Any, ...]]] = []

    def add_failure_callback(self, fn: Callable[[BaseException], Any]) -> None:
        """Also call ``fn(exc)`` when a task first fails."""
        self._on_failure.append(fn)

    @property
    def running(self) -> bool:
        """Open and not failed or closed."""
        return self._host is not None and self.failure is None

    def open(self) -> None:
        """Start the host task and its task group (a no-op while open). Needs a running event loop."""
        if self._host is not None:
            return
        self.failure = None
        self._closing = asyncio.Event()
        # the one task a supervisor owns outside a group: it hosts the group, and close() awaits it
        self._host = asyncio.get_running_loop().create_task(self._run_host(self._closing),
                                                            name=f"supervisor-{self.name}")

    async def _run_host(self, closing: asyncio.Event) -> None:
        try:
            async with TaskGroup(self.name, on_failure=self._failed) as group:
                self._group = group
                pending, self._pending = self._pending, []
                for handle, fn, args in pending:
                    if closing.is_set():
                        handle._done.set()
                    else:
                        group._spawn(handle, fn, args)
                await closing.wait()
                group.cancel()
        except Exception as e:  # already reported and kept by _failed
            if self.failure is None:
                self._failed(e)
        finally:
            self._group = None

    def _failed(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        report_error(self.name, exc, event="component_failed", fatal=True)
        for fn in self._on_failure:
            fn(exc)

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any, name: str | None = None
                   ) -> TaskHandle:
        """Run ``fn(*args)`` in the group. Raises RuntimeError if the supervisor is not open (or has failed)."""
        if self.failure is not None:
            raise RuntimeError(f"{self.name} has failed: {self.failure!r}") from self.failure
        if self._host is None:
            raise RuntimeError(f"{self.name} is not running")
        handle = TaskHandle(name or str(getattr(fn, "__qualname__", "task")))
        if self._group is None or not self._group.active:
            self._pending.append((handle, fn, args))
        else:
            self._group._spawn(handle, fn, args)
        return handle

    def cancel(self) -> None:
        """Cancel every task without waiting (:meth:`close` waits)."""
        if self._closing is not None:
            self._closing.set()

    async def close(self, *, raise_failure: bool = True) -> None:
        """Cancel every task, wait for them all, then raise the failure (if any and ``raise_failure``)."""
        host, self._host = self._host, None
        if host is not None:
            # cancel the tasks in start order synchronously, before any await: a close() that is itself
            # cancelled still closes
            if self._group is not None:
                self._group.cancel()
            if self._closing is not None:
                self._closing.set()
            # wait for the host even when the closing task is itself being cancelled (a component's run()
            # closing its supervisor in a finally): close() never returns while its tasks still run
            with anyio.CancelScope(shield=True):
                while not host.done():
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.shield(host)
        if raise_failure and self.failure is not None:
            raise self.failure
