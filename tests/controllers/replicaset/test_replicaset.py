"""The ReplicaSet controller through a real cluster on virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.types import Pod, ReplicaSet
from kubelite.cluster import Cluster
from kubelite.controllers.controller_utils import slow_start_batch


def rs_body(name: str, replicas: int, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}, **spec}}


async def pods_of(cluster: Cluster, app: str, *, active: bool = True) -> list[Pod]:
    pods = await cluster.client.list(Pod, labels={"app": app})
    return [p for p in pods if not active or p.metadata.deletion_timestamp is None]


async def reasons(cluster: Cluster) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in await cluster.client.list("events")]


@pytest.mark.parametrize(("fail_at", "calls", "successes"), [(None, 10, 10), (1, 1, 0), (4, 7, 6), (10, 10, 9)],
                         ids=["all-succeed", "first-fails", "third-batch-fails", "last-fails"])
async def test_slow_start_batch(fail_at: int | None, calls: int, successes: int) -> None:
    n = 0

    async def fn() -> None:
        nonlocal n
        n += 1
        if n == fail_at:
            raise RuntimeError("boom")

    ok, err = await slow_start_batch(10, 1, fn)
    assert (n, ok, err is None) == (calls, successes, fail_at is None)


async def test_scale_up_status_events_and_owner_refs(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(rs_body("web", 4))
    await c.advance(20)
    rs = await c.client.get(ReplicaSet, "web")
    st = rs.status
    assert (st.replicas, st.fully_labeled_replicas, st.ready_replicas, st.available_replicas,
            st.observed_generation) == (4, 4, 4, 4, 1)
    pods = await pods_of(c, "web")
    assert len(pods) == 4
    ref = pods[0].metadata.owner_references[0]
    assert (ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == \
        ("ReplicaSet", "web", rs.metadata.uid, True, True)
    assert pods[0].metadata.name.startswith("web-")
    assert ("SuccessfulCreate", f"Created pod: {pods[0].metadata.name}") in await reasons(c) or \
        any(r == "SuccessfulCreate" for r, _ in await reasons(c))

    await c.client.patch(ReplicaSet, "web", {"spec": {"replicas": 1}}, patch_type="merge")
    await c.advance(40)
    assert len(await pods_of(c, "web")) == 1
    assert (await c.client.get(ReplicaSet, "web")).status.replicas == 1
    assert any(r == "SuccessfulDelete" for r, _ in await reasons(c))


async def test_slow_start_stops_after_a_failed_batch(rs_cluster: Cluster) -> None:
    c = rs_cluster
    rule = c.faults.inject("internal", verb="create", resource="pods", times=None)
    await c.client.create(rs_body("web", 10))
    await c.settle()
    # each sync sends a first batch of one pod and stops at its failure (the second sync comes from the
    # status update that adds ReplicaFailure); without slow start this would be 20 failed creates
    assert rule.fired == 2
    rs = await c.client.get(ReplicaSet, "web")
    cond = [x for x in rs.status.conditions or () if x.type == "ReplicaFailure"]
    assert cond and cond[0].status == "True" and cond[0].reason == "FailedCreate"
    assert any(r == "FailedCreate" and m.startswith("Error creating: ") for r, m in await reasons(c))
    c.faults.clear()
    await c.advance(20)
    rs = await c.client.get(ReplicaSet, "web")
    assert rs.status.replicas == 10 and not rs.status.conditions
    assert len(await pods_of(c, "web")) == 10


async def test_no_duplicate_creates_with_a_stale_informer(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(rs_body("web", 300))
    for _ in range(30):  # watches keep closing while the pods are being created
        await c.clock.advance(0.001)
        c.close_watches()
    await c.advance(60)
    pods = await pods_of(c, "web", active=False)
    assert len(pods) == 300
    assert not any(r == "SuccessfulDelete" for r, _ in await reasons(c))
    assert (await c.client.get(ReplicaSet, "web")).status.replicas == 300


async def test_adopts_orphans_and_releases_mismatched_pods(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create({"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": "stray", "namespace": "default", "labels": {"app": "web"}},
                           "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})
    await c.client.create(rs_body("web", 2))
    await c.advance(20)
    rs = await c.client.get(ReplicaSet, "web")
    stray = await c.client.get(Pod, "stray")
    assert [r.uid for r in stray.metadata.owner_references or ()] == [rs.metadata.uid]
    assert len(await pods_of(c, "web")) == 2  # the orphan counts: only one pod was created

    await c.client.patch(Pod, "stray", {"metadata": {"labels": {"app": "other"}}}, patch_type="merge")
    await c.advance(20)
    stray = await c.client.get(Pod, "stray")
    assert not stray.metadata.owner_references  # released
    assert len(await pods_of(c, "web")) == 2  # and replaced


async def test_available_waits_for_min_ready_seconds(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(rs_body("web", 2, minReadySeconds=30))
    await c.advance(10)
    st = (await c.client.get(ReplicaSet, "web")).status
    assert (st.ready_replicas, st.available_replicas) == (2, None)  # availableReplicas: 0 is omitempty upstream
    await c.advance(40)
    assert (await c.client.get(ReplicaSet, "web")).status.available_replicas == 2
