"""The event correlator: spam filtering, aggregation and de-duplication of core/v1 Events.

Follows client-go ``tools/record/events_cache.go`` (``EventCorrelator`` with its
``EventSourceObjectSpamFilter``, ``EventAggregator`` and ``eventLogger``). Contract:

- **Sans-IO and synchronous.** :meth:`EventCorrelator.correlate` decides what to write (a create, a
  patch, or nothing) from the event and the correlator's own caches; it never touches the API. The
  writer that owns a correlator reports the server's answer back with :meth:`EventCorrelator.update_state`.
  One correlator belongs to one writer (one broadcaster's sink); nobody else may mutate it.
- **De-duplication.** An event identical to one seen before (same source, involvedObject, type, reason
  and message: upstream's ``getEventKey``) becomes a strategic-merge patch of ``count``,
  ``lastTimestamp`` and ``message`` on the first occurrence's Event object instead of a new object.
- **Aggregation.** When more than ``max_events - 1`` distinct messages for the same source, object,
  type and reason were seen, each less than ``max_interval`` seconds after the previous one, the event
  is replaced by one aggregate Event whose message is prefixed ``"(combined from similar events): "``;
  later similar events update that aggregate.
- **Spam filter.** A token bucket per source+object (burst 25, refill one token per 5 minutes) drops
  the excess. As upstream, the filter runs *after* the logger counted the occurrence, so a dropped
  repeat still advances the count that the next written repeat carries.
- Caches are LRUs of 4096 entries, as upstream, so memory is bounded whatever the event rate.

Events are plain JSON-shaped dicts (``metadata``, ``involvedObject``, ``source``, ...). Keys are tuples
rather than upstream's concatenated strings: the same grouping, without accidental collisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from kubelite.clock import Clock, format_time
from kubelite.memo import BoundedCache

__all__ = [
    "AGGREGATE_MESSAGE_PREFIX",
    "CorrelateResult",
    "EventAggregator",
    "EventCorrelator",
    "EventLogger",
    "EventNamer",
    "EventSourceObjectSpamFilter",
    "LRUCache",
    "TokenBucket",
    "event_key",
    "spam_key",
]

MAXLRUCache_CACHE_ENTRIES = 4096
#: More than this many similar events (differing only in message) ...
DEFAULT_AGGREGATE_MAX_EVENTS = 10
#: ... within this many seconds of each other are aggregated into one.
DEFAULT_AGGREGATE_INTERVAL_SECONDS = 600
#: A source may burst 25 events about an object, then one every 5 minutes.
DEFAULT_SPAM_BURST = 25
DEFAULT_SPAM_QPS = 1.0 / 300.0

AGGREGATE_MESSAGE_PREFIX = "(combined from similar events): "

Event = dict[str, Any]
K = TypeVar("K")
V = TypeVar("V")

_EMPTY: dict[str, Any] = {}


class LRUCache(BoundedCache[K, V]):
    """A bounded mapping that evicts the least recently used key (groupcache ``lru.Cache``): kubelite's
    :class:`~kubelite.memo.BoundedCache`, per correlator instance (unregistered)."""

    __slots__ = ()

    def __init__(self, max_entries: int) -> None:
        super().__init__(None, maxsize=max_entries)

    def add(self, key: K, value: V) -> None:
        self.put(key, value)


def _source_and_object(event: Event) -> tuple[str, ...]:
    src = event.get("source") or _EMPTY
    io = event.get("involvedObject") or _EMPTY
    return (
        src.get("component", ""), src.get("host", ""), io.get("kind", ""), io.get("namespace", ""),
        io.get("name", ""), io.get("uid", ""), io.get("apiVersion", ""),
    )


def event_key(event: Event, source_and_object: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Upstream ``getEventKey``: source, involvedObject (with fieldPath), type, reason, message
    (``source_and_object``: the event's :func:`spam_key`, when the caller has it already)."""
    io = event.get("involvedObject") or _EMPTY
    so = _source_and_object(event) if source_and_object is None else source_and_object
    return (*so, io.get("fieldPath", ""), event.get("type", ""), event.get("reason", ""), event.get("message", ""))


def spam_key(event: Event) -> tuple[str, ...]:
    """Upstream ``getSpamKey``: source and involvedObject."""
    return _source_and_object(event)


def aggregator_by_reason(event: Event, source_and_object: tuple[str, ...] | None = None,
                         ) -> tuple[tuple[str, ...], str]:
    """Upstream ``EventAggregatorByReasonFunc``: (aggregate key, local key = message)."""
    so = _source_and_object(event) if source_and_object is None else source_and_object
    key = (*so, event.get("type", ""), event.get("reason", ""), event.get("reportingComponent", ""),
           event.get("reportingInstance", ""))
    return key, event.get("message", "")


def aggregate_message(event: Event) -> str:
    """Upstream ``EventAggregatorByReasonMessageFunc``."""
    return AGGREGATE_MESSAGE_PREFIX + str(event.get("message", ""))


class EventNamer:
    """Event names ``<involvedObject.name>.<UnixNano in hex>`` (upstream ``makeEvent``).

    Upstream relies on the wall clock's nanoseconds to keep names unique; on virtual time many events
    share one instant, so the nanosecond stamp is made strictly increasing per namer. Share one namer
    between every recorder and the correlator that write through the same sink.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = 0

    def nanos(self, now: float) -> int:
        ns = int(now * 1_000_000_000)
        if ns <= self._last:
            ns = self._last + 1
        self._last = ns
        return ns

    def name(self, object_name: str, now: float) -> str:
        return f"{object_name}.{self.nanos(now):x}"


class TokenBucket:
    """``flowcontrol.NewTokenBucketRateLimiterWithClock``: starts full, ``try_accept`` never waits."""

    __slots__ = ("_burst", "_last", "_qps", "_tokens")

    def __init__(self, qps: float, burst: int, now: float) -> None:
        self._qps = qps
        self._burst = float(burst)
        self._tokens = float(burst)
        self._last = now

    def try_accept(self, now: float) -> bool:
        elapsed = now - self._last
        if elapsed > 0:
            self._tokens = min(self._burst, self._tokens + elapsed * self._qps)
            self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class EventSourceObjectSpamFilter:
    """Upstream ``EventSourceObjectSpamFilter``: a token bucket per source+object."""

    def __init__(self, *, clock: Clock, lru_cache_size: int = MAXLRUCache_CACHE_ENTRIES,
                 burst: int = DEFAULT_SPAM_BURST, qps: float = DEFAULT_SPAM_QPS) -> None:
        self._cache: LRUCache[tuple[str, ...], TokenBucket] = LRUCache(lru_cache_size)
        self._burst = burst
        self._qps = qps
        self._clock = clock

    def filter(self, event: Event, key: tuple[str, ...] | None = None) -> bool:
        """True if the event must be dropped (``key``: its :func:`spam_key`, when the caller has it)."""
        if key is None:
            key = spam_key(event)
        now = self._clock.now()
        bucket = self._cache.get(key)  # a hit is now the most recently used, as upstream's Get then Add
        if bucket is None:
            bucket = TokenBucket(self._qps, self._burst, now)
            self._cache.add(key, bucket)
        return not bucket.try_accept(now)


class _AggregateRecord:
    """Distinct messages seen for one aggregate key (insertion-ordered, so eviction is deterministic)
    and when the last of them was seen."""

    __slots__ = ("last_timestamp", "local_keys")

    def __init__(self, now: float) -> None:
        self.local_keys: dict[str, None] = {}
        self.last_timestamp = now


class EventAggregator:
    """Upstream ``EventAggregator``: folds similar events into one aggregate event."""

    def __init__(
        self, *, clock: Clock, namer: EventNamer, lru_cache_size: int = MAXLRUCache_CACHE_ENTRIES,
        key_func: Callable[[Event], tuple[tuple[str, ...], str]] = aggregator_by_reason,
        message_func: Callable[[Event], str] = aggregate_message,
        max_events: int = DEFAULT_AGGREGATE_MAX_EVENTS,
        max_interval_seconds: float = DEFAULT_AGGREGATE_INTERVAL_SECONDS,
    ) -> None:
        self._cache: LRUCache[tuple[str, ...], _AggregateRecord] = LRUCache(lru_cache_size)
        self._clock = clock
        self._namer = namer
        self._key_func = key_func
        self._message_func = message_func
        self._max_events = max_events
        self._max_interval = max_interval_seconds

    def aggregate(self, event: Event, source_and_object: tuple[str, ...] | None = None,
                  ) -> tuple[Event, tuple[str, ...]]:
        """``EventAggregate``: the event to write (maybe an aggregate) and its cache key for the logger
        (``source_and_object``: the event's :func:`spam_key`, when the caller has it)."""
        now = self._clock.now()
        so = _source_and_object(event) if source_and_object is None else source_and_object
        key = event_key(event, so)
        aggregate_key, local_key = (aggregator_by_reason(event, so) if self._key_func is aggregator_by_reason
                                    else self._key_func(event))
        record = self._cache.get(aggregate_key)  # a hit is now the most recently used, as Get then Add
        if record is None or now - record.last_timestamp > self._max_interval:
            record = _AggregateRecord(now)
            self._cache.add(aggregate_key, record)
        record.local_keys[local_key] = None
        record.last_timestamp = now
        if len(record.local_keys) < self._max_events:
            return event, key
        # Keep the set at max_events - 1 so the next distinct message aggregates too; upstream pops an
        # arbitrary member, we pop the oldest so runs replay.
        del record.local_keys[next(iter(record.local_keys))]
        ts = format_time(now)
        meta = event.get("metadata") or _EMPTY
        io = event.get("involvedObject") or _EMPTY
        # Exactly the fields upstream's aggregate copy carries (no annotations, no reporting fields).
        aggregate: Event = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": self._namer.name(io.get("name", ""), now), "namespace": meta.get("namespace", "")},
            "involvedObject": io, "reason": event.get("reason", ""), "message": self._message_func(event),
            "source": event.get("source") or {}, "firstTimestamp": ts, "lastTimestamp": ts, "count": 1,
            "type": event.get("type", ""),
        }
        return aggregate, aggregate_key


class _EventLog(msgspec.Struct, frozen=True):
    """What the logger remembers of an event: its count so far, first time, name and resourceVersion."""

    count: int
    first_timestamp: str
    name: str
    resource_version: str


class EventLogger:
    """Upstream ``eventLogger``: counts repeats and turns them into patches of the first Event."""

    def __init__(self, *, lru_cache_size: int = MAXLRUCache_CACHE_ENTRIES) -> None:
        self._cache: LRUCache[tuple[str, ...], _EventLog] = LRUCache(lru_cache_size)

    def observe(self, event: Event, key: tuple[str, ...]) -> tuple[Event, dict[str, Any] | None]:
        """``eventObserve``: the event to write and, for a repeat, the strategic-merge patch."""
        patch: dict[str, Any] | None = None
        last = self._cache.get(key)
        if last is not None and last.count > 0:
            meta = dict(event.get("metadata") or _EMPTY)
            meta["name"] = last.name
            meta["resourceVersion"] = last.resource_version
            event = {**event, "metadata": meta, "firstTimestamp": last.first_timestamp, "count": last.count + 1}
            # Upstream diffs the event against a copy with count, lastTimestamp and message cleared.
            patch = {"count": event["count"], "lastTimestamp": event.get("lastTimestamp")}
            if event.get("message"):
                patch["message"] = event["message"]
        self._remember(key, event)
        return event, patch

    def update_state(self, event: Event) -> None:
        """``updateState``: record the server's view (name, resourceVersion, count) of a written event."""
        self._remember(event_key(event), event)

    def _remember(self, key: tuple[str, ...], event: Event) -> None:
        meta = event.get("metadata") or _EMPTY
        self._cache.add(key, _EventLog(
            int(event.get("count") or 0), event.get("firstTimestamp") or "", meta.get("name", ""),
            meta.get("resourceVersion") or "",
        ))


class CorrelateResult(msgspec.Struct, frozen=True):
    """``EventCorrelateResult``: the event after correlation, the patch for a repeat, or skip."""

    event: Event | None
    patch: dict[str, Any] | None = None
    skip: bool = False


class EventCorrelator:
    """Upstream ``EventCorrelator``: aggregate, then count, then spam-filter each event."""

    def __init__(
        self, *, clock: Clock, namer: EventNamer | None = None, lru_cache_size: int = MAXLRUCache_CACHE_ENTRIES,
        burst: int = DEFAULT_SPAM_BURST, qps: float = DEFAULT_SPAM_QPS,
        max_events: int = DEFAULT_AGGREGATE_MAX_EVENTS,
        max_interval_seconds: float = DEFAULT_AGGREGATE_INTERVAL_SECONDS,
    ) -> None:
        self.namer = namer if namer is not None else EventNamer()
        self._filter = EventSourceObjectSpamFilter(clock=clock, lru_cache_size=lru_cache_size, burst=burst, qps=qps)
        self._aggregator = EventAggregator(
            clock=clock, namer=self.namer, lru_cache_size=lru_cache_size, max_events=max_events,
            max_interval_seconds=max_interval_seconds,
        )
        self._logger = EventLogger(lru_cache_size=lru_cache_size)

    def correlate(self, event: Event) -> CorrelateResult:
        """Aggregate, de-duplicate and rate-limit ``event`` (client-go ``EventCorrelator.EventCorrelate``): the event
        to create or the patch to apply, or skip."""
        # The aggregate copy keeps the source and involvedObject, so one key serves all three steps.
        so = spam_key(event)
        aggregated, key = self._aggregator.aggregate(event, so)
        observed, patch = self._logger.observe(aggregated, key)
        if self._filter.filter(observed, so):
            return CorrelateResult(None, None, True)
        return CorrelateResult(observed, patch)

    def update_state(self, event: Event) -> None:
        """Remember ``event`` as written, so a repeat becomes a count patch (``EventCorrelator.UpdateState``)."""
        self._logger.update_state(event)
