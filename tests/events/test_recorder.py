"""EventRecorder / EventBroadcaster through a real cluster on virtual time (client-go tools/record)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.api.types import Node, ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, ObjectReference, PodSpec
from kubelite.clock import EPOCH
from kubelite.cluster import Cluster
from kubelite.events import AGGREGATE_MESSAGE_PREFIX, EventBroadcaster, EventRecorder
from kubelite.events.recorder import MAX_QUEUED_EVENTS


def pod(name: str = "web") -> Pod:
    return Pod(metadata=ObjectMeta(name=name), spec=PodSpec(containers=[Container(name="c", image="nginx:1.25")]))


def recorder(cluster: Cluster, component: str = "default-scheduler", host: str = "", **kw: Any) -> EventRecorder:
    return EventRecorder(cluster.client, component=component, host=host, clock=cluster.clock, rng=cluster.rng, **kw)


async def events_for(cluster: Cluster, name: str, namespace: str = "default") -> list[dict[str, Any]]:
    return await cluster.client.list("events", namespace=namespace, fields=f"involvedObject.name={name}")


async def test_event_has_upstream_fields(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster, host="node-1")
    rec.event(p, "Normal", "Scheduled", "Successfully assigned default/web to node-1")
    await rec.flush()
    (ev,) = await events_for(cluster, "web")
    assert ev["metadata"]["name"] == f"web.{int(EPOCH * 1_000_000_000):x}"
    assert len(ev["metadata"]["name"].split(".")[1]) == 16
    assert ev["metadata"]["namespace"] == "default"
    assert ev["involvedObject"] == {
        "kind": "Pod", "namespace": "default", "name": "web", "uid": p.metadata.uid, "apiVersion": "v1",
        "resourceVersion": p.metadata.resource_version,
    }
    assert (ev["type"], ev["reason"], ev["message"]) == (
        "Normal", "Scheduled", "Successfully assigned default/web to node-1")
    assert ev["source"] == {"component": "default-scheduler", "host": "node-1"}
    assert ev["reportingComponent"] == "default-scheduler" and ev["reportingInstance"] == "node-1"
    assert ev["firstTimestamp"] == ev["lastTimestamp"] == "2025-01-01T00:00:00Z"
    assert ev["count"] == 1
    assert ev.get("eventTime") is None


async def test_cluster_scoped_object_records_in_default(cluster: Cluster) -> None:
    node = await cluster.client.create(Node(metadata=ObjectMeta(name="node-1")))
    rec = recorder(cluster, component="node-controller")
    rec.event(node, "Normal", "RegisteredNode", "Node node-1 event: Registered Node node-1 in Controller")
    await rec.flush()
    (ev,) = await events_for(cluster, "node-1")
    assert ev["metadata"]["namespace"] == "default"
    assert "namespace" not in ev["involvedObject"] and ev["involvedObject"]["kind"] == "Node"


@pytest.mark.parametrize(
    "subject",
    [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "uid": "u-1"}},
        {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default", "uid": "u-1"},
        ObjectReference(api_version="v1", kind="Pod", name="web", namespace="default", uid="u-1"),
    ],
    ids=["object-dict", "reference-dict", "reference-struct"],
)
async def test_accepts_objects_and_references(cluster: Cluster, subject: Any) -> None:
    rec = recorder(cluster)
    rec.event(subject, "Warning", "FailedScheduling", "0/3 nodes are available")
    await rec.flush()
    (ev,) = await events_for(cluster, "web")
    assert ev["involvedObject"] == {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default",
                                    "uid": "u-1"}
    assert ev["type"] == "Warning"


async def test_repeat_increments_count_on_one_object(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster, component="kubelet", host="node-1")
    rec.event(p, "Warning", "BackOff", "Back-off restarting failed container")
    await rec.flush()
    await cluster.advance(40)
    rec.event(p, "Warning", "BackOff", "Back-off restarting failed container")
    await cluster.advance(20)
    rec.event(p, "Warning", "BackOff", "Back-off restarting failed container")
    await rec.flush()
    (ev,) = await events_for(cluster, "web")
    assert ev["count"] == 3
    assert ev["firstTimestamp"] == "2025-01-01T00:00:00Z"
    assert ev["lastTimestamp"] == "2025-01-01T00:01:00Z"


async def test_similar_events_aggregate(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    for i in range(11):
        rec.eventf(p, "Warning", "FailedScheduling", "0/%d nodes are available", i)
    await rec.flush()
    evs = await events_for(cluster, "web")
    combined = [e for e in evs if e["message"].startswith(AGGREGATE_MESSAGE_PREFIX)]
    assert len(evs) == 10 and len(combined) == 1
    assert combined[0]["message"] == AGGREGATE_MESSAGE_PREFIX + "0/10 nodes are available"
    assert combined[0]["count"] == 2


async def test_spam_filter_drops_excess(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    for i in range(30):
        rec.event(p, "Normal", f"Reason{i}", "m")
    await rec.flush()
    assert len(await events_for(cluster, "web")) == 25
    await cluster.advance(300)  # one more token after 5 minutes
    rec.event(p, "Normal", "Late1", "m")
    rec.event(p, "Normal", "Late2", "m")
    await rec.flush()
    reasons = {e["reason"] for e in await events_for(cluster, "web")}
    assert "Late1" in reasons and "Late2" not in reasons


async def test_field_selector_finds_events_of_one_object(cluster: Cluster) -> None:
    a, b = await cluster.client.create(pod("a")), await cluster.client.create(pod("b"))
    rec = recorder(cluster)
    rec.event(a, "Normal", "Scheduled", "a")
    rec.event(b, "Normal", "Scheduled", "b")
    rec.event(a, "Normal", "Pulled", "a")
    await rec.flush()
    assert sorted(e["reason"] for e in await events_for(cluster, "a")) == ["Pulled", "Scheduled"]
    assert [e["message"] for e in await events_for(cluster, "b")] == ["b"]


async def test_many_events_on_one_instant_get_distinct_names(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    one, two = recorder(cluster, component="kubelet"), recorder(cluster, component="default-scheduler")
    one.event(p, "Normal", "Pulling", "x")
    one.event(p, "Normal", "Pulled", "x")
    two.event(p, "Normal", "Scheduled", "x")  # collides with one's first name: renamed, not dropped
    await one.flush()
    await two.flush()
    evs = await events_for(cluster, "web")
    assert sorted(e["reason"] for e in evs) == ["Pulled", "Pulling", "Scheduled"]


async def test_eventf_and_annotations(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    rec.annotated_eventf(p, {"example.com/k": "v"}, "Normal", "Created", "Created container %v on %s", "c", "n1")
    await rec.flush()
    (ev,) = await events_for(cluster, "web")
    assert ev["message"] == "Created container c on n1"
    assert ev["metadata"]["annotations"] == {"example.com/k": "v"}


@pytest.mark.parametrize(
    ("obj", "type_"),
    [({"apiVersion": "v1", "metadata": {"name": "web"}}, "Normal"), (None, "Normal"),
     ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}, "Info")],
    ids=["no-kind", "not-an-object", "bad-type"],
)
async def test_bad_events_are_dropped_without_raising(cluster: Cluster, obj: Any, type_: str) -> None:
    rec = recorder(cluster)
    rec.event(obj, type_, "Reason", "m")
    assert rec.broadcaster.pending == 0
    await rec.flush()
    assert await events_for(cluster, "web") == []


async def test_event_is_synchronous_and_run_writes_in_background(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    cluster.start_soon(rec.run)
    rec.event(p, "Normal", "Scheduled", "x")
    assert await events_for(cluster, "web") == []  # nothing written inside event()
    await cluster.settle()
    assert len(await events_for(cluster, "web")) == 1
    rec.event(p, "Normal", "Pulled", "x")
    await rec.flush()  # with a writer task running, flush waits for it
    assert len(await events_for(cluster, "web")) == 2


async def test_transient_errors_are_retried(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    cluster.faults.inject(500, verb="create", resource="events", times=2)
    start = cluster.now
    rec.event(p, "Normal", "Scheduled", "x")
    await rec.flush()
    assert len(await events_for(cluster, "web")) == 1
    # one randomised sleep (< 10 s) and one full 10 s sleep
    assert 10 <= cluster.now - start < 20


async def test_event_dropped_after_twelve_tries(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    rule = cluster.faults.inject(503, verb="create", resource="events", times=None)
    start = cluster.now
    rec.event(p, "Normal", "Scheduled", "x")
    await rec.flush()
    assert rule.fired == 12
    assert 100 <= cluster.now - start < 110
    cluster.faults.clear()
    assert await events_for(cluster, "web") == []


async def test_rejected_event_is_not_retried(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = EventRecorder(cluster.client_as("nobody"), component="c", clock=cluster.clock, rng=cluster.rng)
    start = cluster.now
    rec.event(p, "Normal", "Scheduled", "x")
    await rec.flush()
    assert cluster.now == start
    assert await events_for(cluster, "web") == []


async def test_repeat_of_deleted_event_is_created_again(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    rec = recorder(cluster)
    rec.event(p, "Normal", "Pulled", "x")
    await rec.flush()
    (first,) = await events_for(cluster, "web")
    await cluster.client.delete("events", first["metadata"]["name"])
    await cluster.advance(5)
    rec.event(p, "Normal", "Pulled", "x")
    await rec.flush()
    (again,) = await events_for(cluster, "web")
    assert again["metadata"]["name"] == first["metadata"]["name"] and again["count"] == 2


async def test_queue_is_bounded() -> None:
    async with Cluster(seed=3, scheduler=False, controllers=False) as cluster:
        rec = recorder(cluster)
        ref = {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default"}
        for i in range(MAX_QUEUED_EVENTS + 5):
            rec.event(ref, "Normal", f"R{i}", "x")
        assert rec.broadcaster.pending == MAX_QUEUED_EVENTS and rec.broadcaster.dropped == 5


async def test_broadcaster_recorders_share_one_sink(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    b = EventBroadcaster(clock=cluster.clock, rng=cluster.rng)
    sched, kubelet = b.new_recorder(component="default-scheduler"), b.new_recorder(component="kubelet", host="n1")
    sched.event(p, "Normal", "Scheduled", "x")
    kubelet.event(p, "Normal", "Pulled", "y")
    b.start_recording_to_sink(cluster.client)
    try:
        await b.flush()
    finally:
        b.shutdown()
    await asyncio.sleep(0)
    sources = sorted((e["source"]["component"], e["reportingInstance"]) for e in await events_for(cluster, "web"))
    assert sources == [("default-scheduler", ""), ("kubelet", "n1")]
