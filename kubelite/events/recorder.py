"""Event recording: components report what they did as core/v1 Events, written in the background.

Follows client-go ``tools/record/event.go`` (``recorderImpl``, ``eventBroadcasterImpl.recordToSink``,
``recordEvent``). Contract:

- **Recording never blocks and never fails the caller.** :meth:`EventRecorder.event` builds the Event
  and appends it to the broadcaster's queue; it does no I/O and raises nothing for a bad event (it logs
  and drops, as upstream does). At most 1000 events wait; beyond that new ones are dropped with a log
  line (upstream's ``maxQueuedEvents`` with ``DropIfChannelFull``).
- **One writer per broadcaster.** Events are written in the order they were recorded, by
  :meth:`EventBroadcaster.run` (the sink task) or by :meth:`EventBroadcaster.flush`, never both at once.
  Each write goes through the broadcaster's :class:`~kubelite.events.correlator.EventCorrelator`:
  repeats become patches of the first Event, similar events aggregate, spam is dropped.
- **Objects as upstream writes them.** Name ``<involvedObject.name>.<nanoseconds in hex>`` from the
  cluster clock; namespace of the object (``default`` for cluster-scoped ones); ``involvedObject`` from
  the object's apiVersion, kind and metadata; ``source``, ``reportingComponent``, ``reportingInstance``,
  ``firstTimestamp = lastTimestamp``, ``count = 1``, no ``eventTime``.
- **Retries.** A write that fails with a transient error (429, 500, 503, 504: what a real client sees
  while it cannot reach the apiserver) is retried up to 12 times, 10 s apart, the first sleep randomised
  from ``rng`` so clients do not retry in lockstep; then it is dropped with a log line. Any other
  rejection (invalid, forbidden, namespace gone, ...) drops the event at once, as upstream does for a
  ``StatusError``. A patch of a repeat whose Event was deleted falls back to a create.
- **Deliberate deviation:** on virtual time two recorders may stamp the same nanosecond for the same
  object; a create rejected with AlreadyExists is retried under a fresh name (upstream drops it, which
  on a wall clock essentially never happens).
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Mapping
from typing import Any

import msgspec

from kubelite.clock import Clock
from kubelite.errors import (
    AlreadyExists,
    ApiError,
    InternalError,
    NotFound,
    ServerTimeout,
    ServiceUnavailable,
    TooManyRequests,
)
from kubelite.events.correlator import Event, EventCorrelator, EventNamer
from kubelite.logs import get_logger

__all__ = [
    "EVENT_TYPE_NORMAL",
    "EVENT_TYPE_WARNING",
    "MAX_QUEUED_EVENTS",
    "MAX_TRIES_PER_EVENT",
    "EventBroadcaster",
    "EventRecorder",
]

EVENT_TYPE_NORMAL = "Normal"
EVENT_TYPE_WARNING = "Warning"
MAX_TRIES_PER_EVENT = 12
MAX_QUEUED_EVENTS = 1000
DEFAULT_SLEEP_DURATION = 10.0
# How often a create that collided with another recorder's name is retried under a new name.
_MAX_RENAMES = 8

_RETRYABLE = (TooManyRequests, InternalError, ServiceUnavailable, ServerTimeout)
_REF_KEYS = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")

log = get_logger("kubelite.events")


def _reference(obj: Any) -> dict[str, str] | None:
    """``ref.GetReference``: an ObjectReference (only non-empty fields) for a Struct or dict, or None."""
    if isinstance(obj, Mapping):
        if "metadata" not in obj:  # already an ObjectReference
            ref = {k: str(obj[k]) for k in _REF_KEYS if obj.get(k)}
        else:
            meta = obj.get("metadata") or {}
            ref = {"kind": obj.get("kind") or "", "namespace": meta.get("namespace") or "",
                   "name": meta.get("name") or "", "uid": meta.get("uid") or "",
                   "apiVersion": obj.get("apiVersion") or "", "resourceVersion": meta.get("resourceVersion") or ""}
    elif isinstance(obj, msgspec.Struct):
        meta = getattr(obj, "metadata", None)
        if meta is None and hasattr(obj, "field_path"):  # core/v1 ObjectReference
            return _reference(msgspec.to_builtins(obj))
        ref = {"kind": getattr(obj, "kind", None) or "", "apiVersion": getattr(obj, "api_version", None) or ""}
        if meta is not None:
            ref.update(namespace=meta.namespace or "", name=meta.name or "", uid=meta.uid or "",
                       resourceVersion=meta.resource_version or "")
    else:
        return None
    ref = {k: v for k, v in ref.items() if v}
    return ref if ref.get("kind") else None


def _go_format(fmt: str, args: tuple[Any, ...]) -> str:
    """``fmt.Sprintf`` for the verbs components use: Python %-formatting, with Go's ``%v`` as ``%s``."""
    if not args:
        return fmt
    if "%v" in fmt:
        fmt = fmt.replace("%v", "%s")
    return fmt % args


class EventBroadcaster:
    """Queues events from any number of recorders and writes them to one sink (a client).

    Shaped like client-go's ``EventBroadcaster``: :meth:`new_recorder` hands out recorders,
    :meth:`start_recording_to_sink` starts the writer task, :meth:`shutdown` stops it. In kubelite code
    prefer ``cluster.start_soon(broadcaster.run)`` with the sink given to the constructor.
    ``max_queued`` is upstream's 1000 by default; a broadcaster shared by many recorders (a whole node
    pool) may want more.
    """

    def __init__(
        self, sink: Any = None, *, clock: Clock, rng: random.Random | None = None,
        sleep_duration: float = DEFAULT_SLEEP_DURATION, correlator: EventCorrelator | None = None,
        max_queued: int = MAX_QUEUED_EVENTS,
    ) -> None:
        self.sink = sink
        self.max_queued = max_queued
        self.clock = clock
        self.rng = rng
        self.sleep_duration = sleep_duration
        self.correlator = correlator if correlator is not None else EventCorrelator(clock=clock)
        self.namer: EventNamer = self.correlator.namer
        # Invariant: an event is in _queue until a writer takes it; _writing is True while one writer
        # (run or flush) drains; _idle is cleared by each new event and set whenever a drain ends.
        self._queue: deque[Event] = deque()
        self._writing = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0

    # --- producers ---
    def new_recorder(self, *, component: str, host: str = "", reporting_instance: str = "") -> EventRecorder:
        """A recorder reporting as ``component`` (on ``host``) through this broadcaster
        (``EventBroadcaster.NewRecorder``)."""
        return EventRecorder(None, component=component, host=host, clock=self.clock, rng=self.rng,
                             reporting_instance=reporting_instance, broadcaster=self)

    def action(self, event: Event) -> bool:
        """Queue one event (``ActionOrDrop``); False if the queue was full and the event dropped."""
        if len(self._queue) >= self.max_queued:
            self.dropped += 1
            log.error("event_dropped", reason="too many queued events", object=event["involvedObject"].get("name"),
                      event_reason=event.get("reason"))
            return False
        self._queue.append(event)
        self._idle.clear()
        self._wakeup.set()
        return True

    @property
    def pending(self) -> int:
        """Events queued or being written."""
        return len(self._queue) + (1 if self._writing else 0)

    # --- the writer ---
    def start_recording_to_sink(self, sink: Any) -> None:
        """Set the sink and start the writer task (stopped by :meth:`shutdown`)."""
        self.sink = sink
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="event-broadcaster")

    def shutdown(self) -> None:
        """Stop the writer task started by :meth:`start_recording_to_sink` (``EventBroadcaster.Shutdown``); queued
        events are dropped."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def run(self) -> None:
        """Write queued events forever (the broadcaster's sink loop)."""
        while True:
            await self._drain()
            if not self._queue:
                self._wakeup.clear()
                await self._wakeup.wait()

    async def flush(self) -> None:
        """Return once every event queued so far is written (or dropped). Writes them itself if no writer
        task is running."""
        while self._queue or self._writing:
            await self._drain()

    async def _drain(self) -> None:
        if self._writing:
            await self._idle.wait()
            return
        self._writing = True
        try:
            while self._queue:
                await self._record_to_sink(self._queue.popleft())
        finally:
            self._writing = False
            # Wake flush() waiters even if this writer was cancelled mid-queue: they re-check and take over.
            self._idle.set()

    async def _record_to_sink(self, event: Event) -> None:
        """``recordToSink``: correlate, then write with retries."""
        if self.sink is None:
            raise RuntimeError("EventBroadcaster has no sink: pass a client or call start_recording_to_sink()")
        result = self.correlator.correlate(event)
        if result.skip or result.event is None:
            return
        ev = result.event
        tries = 0
        try:
            while not await self._record_event(ev, result.patch):
                tries += 1
                if tries >= MAX_TRIES_PER_EVENT:
                    log.error("event_write_failed", reason="retry limit exceeded", **_describe(ev))
                    return
                delay = self.sleep_duration
                if tries == 1:  # randomise the first sleep so clients do not retry in lockstep
                    delay *= self.rng.random() if self.rng is not None else 1.0
                await self.clock.sleep(delay)
        except asyncio.CancelledError:
            log.error("event_write_failed", reason="broadcaster is shut down", **_describe(ev))
            raise

    async def _record_event(self, event: Event, patch: dict[str, Any] | None) -> bool:
        """``recordEvent``: True if written or abandoned, False to retry after sleeping."""
        meta = event["metadata"]
        ns = meta.get("namespace") or "default"
        try:
            new: Event | None = None
            if (event.get("count") or 0) > 1 and patch is not None:
                try:
                    new = await self.sink.patch("events", meta["name"], patch, namespace=ns, patch_type="strategic")
                except NotFound:  # the first occurrence was deleted: write it afresh
                    new = None
            if new is None:
                new = await self._create(event, ns)
        except _RETRYABLE as e:
            log.warning("event_write_retry", error=e.message, **_describe(event))
            return False
        except ApiError as e:
            level = log.debug if isinstance(e, AlreadyExists) or _namespace_terminating(e) else log.error
            level("event_rejected", error=e.message, **_describe(event))
            return True
        self.correlator.update_state(new)
        return True

    async def _create(self, event: Event, ns: str) -> Event:
        meta = event["metadata"]
        if meta.get("resourceVersion"):  # never create with a resourceVersion
            meta = {k: v for k, v in meta.items() if k != "resourceVersion"}
            event = {**event, "metadata": meta}
        for _ in range(_MAX_RENAMES):
            try:
                created: Event = await self.sink.create(event, namespace=ns)
                return created
            except AlreadyExists:
                if (event.get("count") or 0) > 1:
                    raise
                # Virtual time: another recorder took this name at the same instant; take the next one.
                name = self.namer.name(event["involvedObject"].get("name", ""), self.clock.now())
                event = {**event, "metadata": {**meta, "name": name}}
                meta = event["metadata"]
        created = await self.sink.create(event, namespace=ns)
        return created


def _namespace_terminating(err: ApiError) -> bool:
    return any(c.reason == "NamespaceTerminating" for c in err.causes)


def _describe(event: Event) -> dict[str, Any]:
    io = event.get("involvedObject") or {}
    return {"object": f"{io.get('namespace', '')}/{io.get('name', '')}", "kind": io.get("kind", ""),
            "event_reason": event.get("reason", ""), "event_message": event.get("message", "")}


class EventRecorder:
    """Records events on behalf of one component (upstream ``recorderImpl``).

    Standalone (``EventRecorder(client, component=..., clock=...)``) it owns a private broadcaster whose
    writer is :meth:`run`; from :meth:`EventBroadcaster.new_recorder` it shares that broadcaster.
    """

    def __init__(
        self, client: Any, *, component: str, host: str = "", clock: Clock, rng: random.Random | None = None,
        reporting_instance: str = "", broadcaster: EventBroadcaster | None = None,
    ) -> None:
        if broadcaster is None:
            broadcaster = EventBroadcaster(client, clock=clock, rng=rng)
        self.broadcaster = broadcaster
        self.clock = clock
        self.component = component
        self.host = host
        self._source: dict[str, str] = {}
        if component:
            self._source["component"] = component
        if host:
            self._source["host"] = host
        # Upstream: ReportingController = source.Component, ReportingInstance = source.Host.
        self.reporting_instance = reporting_instance or host

    def event(self, obj: Any, type: str, reason: str, message: str) -> None:
        """Record an Event about ``obj`` (``EventRecorder.Event``): ``type`` Normal or Warning, a CamelCase ``reason``,
        a message."""
        self._generate(obj, None, type, reason, message)

    def eventf(self, obj: Any, type: str, reason: str, fmt: str, *args: Any) -> None:
        """``event`` with a Go-style format string and arguments (``EventRecorder.Eventf``)."""
        self._generate(obj, None, type, reason, _go_format(fmt, args))

    def annotated_eventf(
        self, obj: Any, annotations: Mapping[str, str] | None, type: str, reason: str, fmt: str, *args: Any,
    ) -> None:
        """``eventf`` with annotations on the Event (``EventRecorder.AnnotatedEventf``)."""
        self._generate(obj, annotations, type, reason, _go_format(fmt, args))

    async def flush(self) -> None:
        """Return once every event recorded so far is written (or dropped by the correlator)."""
        await self.broadcaster.flush()

    async def run(self) -> None:
        """Run the broadcaster's writer loop (for a recorder used on its own)."""
        await self.broadcaster.run()

    def _generate(
        self, obj: Any, annotations: Mapping[str, str] | None, type: str, reason: str, message: str,
    ) -> None:
        """``generateEvent`` + ``makeEvent``."""
        ref = _reference(obj)
        if ref is None:
            log.error("event_reference_failed", object=repr(obj)[:200], event_type=type, event_reason=reason)
            return
        if type != EVENT_TYPE_NORMAL and type != EVENT_TYPE_WARNING:
            log.error("unsupported_event_type", event_type=type, event_reason=reason)
            return
        now = self.clock.now()
        ts = self.clock.timestamp()
        meta: dict[str, Any] = {"name": self.broadcaster.namer.name(ref.get("name", ""), now),
                                "namespace": ref.get("namespace") or "default"}
        if annotations:
            meta["annotations"] = dict(annotations)
        self.broadcaster.action({
            "apiVersion": "v1", "kind": "Event", "metadata": meta, "involvedObject": ref, "reason": reason,
            "message": message, "source": self._source, "firstTimestamp": ts, "lastTimestamp": ts, "count": 1,
            "type": type, "eventTime": None, "reportingComponent": self.component,
            "reportingInstance": self.reporting_instance,
        })
