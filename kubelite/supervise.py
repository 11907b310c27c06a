"""Structured concurrency for components whose start and stop happen in different tasks.

Contract (anyio/trio task groups, which this wraps):
- Every task a :class:`Supervisor` starts runs inside one anyio task group; nothing outlives it.
- An unexpected exception in any task cancels every sibling and becomes the supervisor's
  :attr:`~Supervisor.failure` (the exception itself, unwrapped from anyio's ``ExceptionGroup``). It is
  logged at ERROR with its traceback the moment it happens, handed to the ``on_failure`` callbacks
  (so an owner can fail fast), and raised again by :meth:`Supervisor.close`. Nothing fails silently.
- Stopping one task on purpose (:meth:`TaskHandle.cancel`, e.g. a controller "crash") is not a failure.
- Unlike a bare ``async with create_task_group()``, a supervisor may be opened in one task and closed in
  another (pytest-asyncio runs an async fixture's setup and teardown in different tasks): the group
  lives in one host task that the supervisor owns.

:func:`report_error` is the one way a component reports an error it recovered from (a reconcile that
raised, an event handler that raised): an ERROR log line with the traceback, plus a record in the
current :class:`ErrorLog` (the running cluster's: ``Cluster.errors``, which the pytest plugin checks).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import anyio
import msgspec
import structlog

__all__ = ["ComponentError", "ErrorLog", "current_error_log", "Supervisor", "TaskHandle", "first_error", "report_error"]

log = structlog.get_logger("kubelite.supervise")


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


class TaskHandle:
    """One supervised task: :meth:`cancel` stops it (not a failure); :meth:`wait` waits for it to end."""

    __slots__ = ("_cancel_requested", "_done", "_exception", "_scope", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._scope: anyio.CancelScope | None = None
        self._cancel_requested = False
        self._done = asyncio.Event()
        self._exception: BaseException | None = None

    def exception(self) -> BaseException | None:
        """The exception the task ended with (not a cancellation), or None."""
        return self._exception

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def cancel(self) -> None:
        self._cancel_requested = True
        if self._scope is not None:
            self._scope.cancel()

    async def wait(self) -> None:
        await self._done.wait()

    async def stop(self) -> None:
        """Cancel and wait."""
        self.cancel()
        await self.wait()

    def __repr__(self) -> str:
        return f"<TaskHandle {self.name}{' done' if self.done else ''}>"


class Supervisor:
    """An anyio task group that may be opened and closed from different tasks (see the module docstring).

    :meth:`open` is synchronous (so a synchronous ``start()`` can use it): tasks started before the host
    task has entered its group are queued and started, in order, as soon as it has."""

    def __init__(self, name: str, *, on_failure: Callable[[BaseException], Any] | None = None) -> None:
        self.name = name
        self.failure: BaseException | None = None
        self._on_failure: list[Callable[[BaseException], Any]] = [on_failure] if on_failure is not None else []
        self._tg: anyio.abc.TaskGroup | None = None
        self._host: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._pending: list[tuple[TaskHandle, Callable[..., Coroutine[Any, Any, Any]], tuple[Any, ...]]] = []
        # running handles in start order (a dict: deterministic iteration, O(1) removal)
        self._handles: dict[TaskHandle, None] = {}

    def add_failure_callback(self, fn: Callable[[BaseException], Any]) -> None:
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
        self._host = asyncio.get_running_loop().create_task(self._run_host(self._closing),
                                                            name=f"supervisor-{self.name}")

    async def _run_host(self, closing: asyncio.Event) -> None:
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                pending, self._pending = self._pending, []
                if not closing.is_set():
                    for handle, fn, args in pending:
                        self._spawn(tg, handle, fn, args)
                else:
                    for handle, _, _ in pending:
                        handle._done.set()
                await closing.wait()
                tg.cancel_scope.cancel()
        except BaseException as e:
            leaf = first_error(e)
            if not isinstance(leaf, asyncio.CancelledError):
                self._failed(leaf)
            elif not isinstance(e, BaseExceptionGroup):
                raise
        finally:
            self._tg = None
            for h in list(self._handles):
                h._done.set()
            self._handles.clear()

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
        if self._tg is None:
            self._pending.append((handle, fn, args))
        else:
            self._spawn(self._tg, handle, fn, args)
        return handle

    def _spawn(self, tg: anyio.abc.TaskGroup, handle: TaskHandle, fn: Callable[..., Coroutine[Any, Any, Any]],
               args: tuple[Any, ...]) -> None:
        self._handles[handle] = None

        async def run() -> None:
            try:
                with anyio.CancelScope() as scope:
                    handle._scope = scope
                    if handle._cancel_requested:
                        scope.cancel()
                    await fn(*args)
            except Exception as e:
                handle._exception = e
                raise
            finally:
                handle._done.set()
                self._handles.pop(handle, None)

        tg.start_soon(run, name=handle.name)

    def cancel(self) -> None:
        """Cancel every task without waiting (:meth:`close` waits)."""
        if self._closing is not None:
            self._closing.set()

    async def close(self, *, raise_failure: bool = True) -> None:
        """Cancel every task, wait for them all, then raise the failure (if any and ``raise_failure``)."""
        host, self._host = self._host, None
        if host is not None:
            # cancel the tasks one by one in the order they were started, then wait for each: anyio would
            # cancel a whole group in set order, which differs between runs and would break replay
            # (synchronously, before any await: a close() that is itself cancelled still closes)
            for h in list(self._handles):
                h.cancel()
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
