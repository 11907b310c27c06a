"""The sans-IO event correlator (client-go tools/record/events_cache.go), without an event loop."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.clock import EPOCH, format_time
from kubelite.events.correlator import (
    AGGREGATE_MESSAGE_PREFIX,
    EventCorrelator,
    EventNamer,
    LRUCache,
    TokenBucket,
    event_key,
    spam_key,
)


class FakeClock:
    """Just enough of kubelite.clock.Clock for sync code: now() and timestamps."""

    def __init__(self, now: float = EPOCH) -> None:
        self.t = now

    def now(self) -> float:
        return self.t

    def timestamp(self) -> str:
        return format_time(self.t)


def event(message: str = "m", reason: str = "R", name: str = "web", component: str = "kubelet",
          t: float = EPOCH) -> dict[str, Any]:
    ts = format_time(t)
    return {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{name}.x", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": name, "uid": "u1", "apiVersion": "v1"},
        "reason": reason, "message": message, "source": {"component": component, "host": "node-1"},
        "firstTimestamp": ts, "lastTimestamp": ts, "count": 1, "type": "Normal",
        "reportingComponent": component, "reportingInstance": "node-1",
    }


def test_first_event_passes_unchanged() -> None:
    c = EventCorrelator(clock=FakeClock())
    ev = event()
    r = c.correlate(ev)
    assert not r.skip and r.patch is None and r.event == ev


def test_identical_event_becomes_patch_of_first() -> None:
    clock = FakeClock()
    c = EventCorrelator(clock=clock)
    first = c.correlate(event()).event
    assert first is not None
    c.update_state({**first, "metadata": {**first["metadata"], "resourceVersion": "7"}})
    clock.t += 30
    r = c.correlate(event(t=clock.t))
    assert r.event is not None
    assert r.event["count"] == 2
    assert r.event["metadata"]["name"] == "web.x" and r.event["metadata"]["resourceVersion"] == "7"
    assert r.event["firstTimestamp"] == format_time(EPOCH)
    assert r.patch == {"count": 2, "lastTimestamp": format_time(EPOCH + 30), "message": "m"}


@pytest.mark.parametrize(
    ("field", "value"),
    [("reason", "Other"), ("type", "Warning"), ("message", "different")],
    ids=["reason", "type", "message"],
)
def test_events_differing_in_key_fields_are_not_deduplicated(field: str, value: str) -> None:
    c = EventCorrelator(clock=FakeClock())
    c.correlate(event())
    r = c.correlate({**event(), field: value})
    assert r.patch is None and r.event is not None and r.event["count"] == 1


def test_similar_events_aggregate_after_ten() -> None:
    c = EventCorrelator(clock=FakeClock())
    results = [c.correlate(event(message=f"m{i}")) for i in range(11)]
    plain = [r.event for r in results[:9]]
    assert [e["message"] for e in plain if e] == [f"m{i}" for i in range(9)]
    tenth = results[9].event
    assert tenth is not None and tenth["message"] == AGGREGATE_MESSAGE_PREFIX + "m9" and tenth["count"] == 1
    assert "reportingComponent" not in tenth  # upstream's aggregate copy carries no reporting fields
    eleventh = results[10]
    assert eleventh.event is not None and eleventh.patch is not None
    assert eleventh.event["metadata"]["name"] == tenth["metadata"]["name"]
    assert eleventh.patch["count"] == 2 and eleventh.patch["message"] == AGGREGATE_MESSAGE_PREFIX + "m10"


def test_aggregation_window_restarts_after_ten_minutes() -> None:
    clock = FakeClock()
    c = EventCorrelator(clock=clock)
    for i in range(9):
        c.correlate(event(message=f"m{i}"))
    clock.t += 601  # more than 10 minutes since the last similar event
    r = c.correlate(event(message="late"))
    assert r.event is not None and r.event["message"] == "late"


def test_spam_filter_burst_then_refill() -> None:
    clock = FakeClock()
    c = EventCorrelator(clock=clock)
    passed = [not c.correlate(event(reason=f"R{i}")).skip for i in range(30)]
    assert passed == [True] * 25 + [False] * 5
    clock.t += 300  # one token per 5 minutes
    assert not c.correlate(event(reason="R100")).skip
    assert c.correlate(event(reason="R101")).skip
    # another object from the same source has its own bucket
    assert not c.correlate(event(reason="R0", name="other")).skip


@pytest.mark.parametrize(
    ("elapsed", "accepted"),
    [(0.0, False), (4.0, False), (5.0, True), (100.0, True)],
    ids=["none", "partial-token", "one-token", "capped"],
)
def test_token_bucket_refill(elapsed: float, accepted: bool) -> None:
    b = TokenBucket(0.2, 2, 0.0)
    assert b.try_accept(0.0) and b.try_accept(0.0) and not b.try_accept(0.0)
    assert b.try_accept(elapsed) is accepted


def test_token_bucket_burst_is_capped() -> None:
    b = TokenBucket(1.0, 2, 0.0)
    assert [b.try_accept(1000.0) for _ in range(3)] == [True, True, False]


def test_keys_follow_upstream_fields() -> None:
    a, b = event(), {**event(), "involvedObject": {**event()["involvedObject"], "fieldPath": "spec.containers{c}"}}
    assert event_key(a) != event_key(b)  # fieldPath is part of the event key ...
    assert spam_key(a) == spam_key(b)  # ... but not of the spam key


def test_namer_is_strictly_increasing_on_one_instant() -> None:
    n = EventNamer()
    names = [n.name("web", EPOCH) for _ in range(3)]
    base = int(EPOCH * 1_000_000_000)
    assert names == [f"web.{base:x}", f"web.{base + 1:x}", f"web.{base + 2:x}"]
    assert len(names[0].split(".")[1]) == 16


def test_lru_evicts_least_recently_used() -> None:
    lru: LRUCache[str, int] = LRUCache(2)
    lru.add("a", 1)
    lru.add("b", 2)
    assert lru.get("a") == 1  # a is now the most recent
    lru.add("c", 3)
    assert lru.get("b") is None and lru.get("a") == 1 and lru.get("c") == 3 and len(lru) == 2
