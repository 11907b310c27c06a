"""Fan-out from one informer to many handlers: client-go ``sharedProcessor`` and ``processorListener``
(``tools/cache/shared_informer.go``).

Contract:
- Every registered handler gets every notification, in the order the informer produced them, exactly
  once, except resync notifications, which go only to the handlers whose own resync period is due.
- Each :class:`ProcessorListener` owns an unbounded buffer (a deque) and one long-lived task that
  drains it. Adding a notification never blocks and never runs handler code, so a slow or blocked
  handler delays only itself; its buffer grows instead (upstream's growing ring buffer).
- A listener is also the handler's registration: ``has_synced()`` is true once the informer has synced
  *and* this handler has returned from every ``on_add`` of the initial list (upstream's
  ``SingleFileTracker``). Removing a listener stops its deliveries at once (what is buffered is dropped).
- Handler exceptions are never silent: each is logged at ERROR with the handler, the notification and
  the traceback, counted (:attr:`ProcessorListener.errors`) and recorded as an unexpected component
  error of the running cluster (:func:`kubelite.supervise.report_error`); the listener then sleeps one
  second (on the clock, upstream's ``wait.Until`` period) and goes on with the next notification.
- Every listener's task runs in its processor's anyio task group (:class:`kubelite.supervise.Supervisor`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from kubelite.clock import Clock
from kubelite.informer.handlers import ResourceEventHandler, describe_handler
from kubelite.logs import get_logger
from kubelite.supervise import Supervisor, TaskHandle, report_error

__all__ = ["MINIMUM_RESYNC_PERIOD", "ProcessorListener", "SharedProcessor", "determine_resync_period"]

log = get_logger("kubelite.informer")

#: upstream ``minimumResyncPeriod``.
MINIMUM_RESYNC_PERIOD = 1.0

# Notification kinds; a notification is a (kind, a, b) tuple: no object allocation beyond the tuple.
ADD, UPDATE, DELETE = 0, 1, 2
Notification = tuple[int, Any, Any]


def determine_resync_period(desired: float, check: float) -> float:
    """A handler's effective resync period given the informer's check period (upstream)."""
    if desired == 0:
        return 0.0
    if check == 0:
        log.warning("resync_period_unsupported", desired=desired,
                    reason="this shared informer doesn't support resyncing")
        return 0.0
    if desired < check:
        log.warning("resync_period_increased", desired=desired, resync_check_period=check)
        return check
    return desired


_NAMES = ("add", "update", "delete")


def _nothing() -> None:
    return None


def _describe(obj: Any) -> str:
    """namespace/name of an object (a dict or a Struct) for an error line."""
    meta = obj.get("metadata") if isinstance(obj, dict) else getattr(obj, "metadata", None)
    if meta is None:
        return "?"
    if isinstance(meta, dict):
        ns, name = meta.get("namespace"), meta.get("name")
    else:
        ns, name = getattr(meta, "namespace", None), getattr(meta, "name", None)
    return f"{ns}/{name}" if ns else str(name)


class ProcessorListener:
    """One handler's buffer and task; returned to callers as its registration."""

    def __init__(
        self, handler: ResourceEventHandler, *, requested_resync_period: float, resync_period: float,
        now: float, upstream_has_synced: Callable[[], bool], clock: Clock,
        notify_sync: Callable[[], None] | None = None,
    ) -> None:
        self.handler = handler
        self.requested_resync_period = requested_resync_period
        self.resync_period = resync_period
        self.next_resync = now + resync_period
        self._upstream_has_synced = upstream_has_synced
        self._notify_sync = notify_sync if notify_sync is not None else _nothing
        #: the informer this registration belongs to (set by it)
        self.owner: Any = None
        self._clock = clock
        self._pending: deque[Notification] = deque()
        # initial-list on_add calls added but not yet returned from (the sync tracker's count)
        self._initial_outstanding = 0
        self._waiter: asyncio.Future[None] | None = None
        self._task: TaskHandle | None = None
        self._stopped = False
        self.delivered = 0
        #: handler calls that raised
        self.errors = 0
        #: the last of them, as "Type: message"
        self.last_error: str | None = None

    def __repr__(self) -> str:
        return f"<ProcessorListener handler={describe_handler(self.handler)} pending={len(self._pending)}>"

    # --- registration API ---
    def has_synced(self) -> bool:
        """Whether the informer synced and this handler returned from every initial ``on_add``."""
        return self._initial_outstanding == 0 and self._upstream_has_synced()

    @property
    def pending(self) -> int:
        """Notifications buffered and not yet handed to the handler."""
        return len(self._pending)

    @property
    def stopped(self) -> bool:
        """Whether the registration was removed (or its informer stopped)."""
        return self._stopped

    # --- producer side (synchronous, called by the informer) ---
    def add(self, n: Notification) -> None:
        """Buffer a notification (never blocks, never runs handler code)."""
        if self._stopped:
            return
        if n[0] == ADD and n[2]:
            self._initial_outstanding += 1
        self._pending.append(n)
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def should_resync(self, now: float) -> bool:
        """Whether this handler's resync is due at ``now``."""
        return self.resync_period != 0 and now >= self.next_resync

    def determine_next_resync(self, now: float) -> None:
        """Schedule this handler's next resync from ``now``."""
        self.next_resync = now + self.resync_period

    # --- lifecycle ---
    def start(self, supervisor: Supervisor) -> None:
        """Start delivering, as a task of ``supervisor`` (the processor's)."""
        if self._task is None and not self._stopped:
            self._task = supervisor.start_soon(self._run, name=f"listener-{describe_handler(self.handler)}")

    def stop(self) -> None:
        """Stop delivering: drop the buffer and cancel the task (it may be blocked inside the handler)."""
        self._stopped = True
        self._pending.clear()
        self._initial_outstanding = 0
        if self._task is not None:
            self._task.cancel()

    async def wait_stopped(self) -> None:
        """Wait until the delivery task has ended."""
        if self._task is not None:
            await self._task.wait()

    async def _run(self) -> None:
        # Hot path: drain the whole buffer per wake-up; the handler's methods are looked up once.
        pending = self._pending
        handler = self.handler
        on_add, on_update, on_delete = handler.on_add, handler.on_update, handler.on_delete
        popleft = pending.popleft
        loop = asyncio.get_running_loop()
        while True:
            while pending:
                kind, a, b = popleft()
                try:
                    if kind == ADD:
                        r = on_add(a, b)
                    elif kind == UPDATE:
                        r = on_update(a, b)
                    else:
                        r = on_delete(a)
                    if r is not None:
                        await r
                except Exception as err:
                    self.errors += 1
                    self.last_error = f"{type(err).__name__}: {err}"
                    report_error("informer", err, event="event_handler_failed", handler=describe_handler(handler),
                                 notification=_NAMES[kind], object=_describe(a if kind != UPDATE else b))
                    self._returned(kind, b)
                    self.delivered += 1
                    await self._clock.sleep(1.0)
                    continue
                except BaseException:
                    self._returned(kind, b)
                    raise
                if kind == ADD and b and self._initial_outstanding > 0:
                    self._initial_outstanding -= 1
                    if self._initial_outstanding == 0:
                        self._notify_sync()
                self.delivered += 1
            self._waiter = loop.create_future()
            await self._waiter

    def _returned(self, kind: int, b: Any) -> None:
        """The sync tracker's bookkeeping for a handler call that raised (or was cancelled)."""
        if kind == ADD and b and self._initial_outstanding > 0:
            self._initial_outstanding -= 1
            if self._initial_outstanding == 0:
                self._notify_sync()


class SharedProcessor:
    """The set of listeners of one informer (insertion ordered), with each one's "resync due" flag."""

    def __init__(self, *, clock: Clock) -> None:
        self.clock = clock
        # listener -> whether it takes part in the resync being delivered now
        self.listeners: dict[ProcessorListener, bool] = {}
        self.started = False
        self.supervisor = Supervisor("event-handlers")

    def add_listener(self, listener: ProcessorListener) -> None:
        """Register a listener (started at once if the processor runs)."""
        self.listeners[listener] = False
        if self.started:
            listener.start(self.supervisor)

    def remove_listener(self, listener: ProcessorListener) -> bool:
        """Unregister and stop a listener; False if it was not registered."""
        if listener not in self.listeners:
            return False
        del self.listeners[listener]
        listener.stop()
        return True

    def distribute(self, n: Notification, sync: bool) -> None:
        """Hand a notification to every listener (``sync``: only to those resyncing now)."""
        if sync:
            for listener, syncing in self.listeners.items():
                if syncing:
                    listener.add(n)
        else:
            for listener in self.listeners:
                listener.add(n)

    def start(self) -> None:
        """Start every listener's delivery task (in the processor's task group)."""
        self.started = True
        self.supervisor.open()
        for listener in self.listeners:
            listener.start(self.supervisor)

    async def stop(self) -> None:
        """Stop every listener and wait; raises what a listener's task died of (a bug, not a handler
        exception: those are caught and reported)."""
        listeners = list(self.listeners)
        self.listeners.clear()
        self.started = False
        for listener in listeners:
            listener.stop()
        await self.supervisor.close()

    def should_resync(self) -> bool:
        """Mark the listeners whose resync is due (and schedule their next one); true if any is."""
        now = self.clock.now()
        needed = False
        for listener in self.listeners:
            due = listener.should_resync(now)
            self.listeners[listener] = due
            if due:
                needed = True
                listener.determine_next_resync(now)
        return needed

    def resync_check_period_changed(self, check: float) -> None:
        """Recompute every listener's resync period for a new check period."""
        for listener in self.listeners:
            listener.resync_period = determine_resync_period(listener.requested_resync_period, check)
