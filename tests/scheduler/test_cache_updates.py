"""A bound pod's updates in the scheduler cache: a status write swaps the cached PodInfo in place (no node
totals recomputed, no change-log entry, no generation bump); a change of anything the scheduler accounts
(labels, deletionTimestamp, spec) goes through remove + add as upstream's ``cache.UpdatePod``."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.types import Pod
from kubelite.cluster import Cluster
from kubelite.scheduler.framework.types import PodInfo
from tests.scheduler.helpers import create_node, create_pod, make_pod, node_info, node_of, running_scheduler

_ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}


async def _write(cluster: Cluster, change: str) -> None:
    c = cluster.client
    if change == "status":
        await c.patch(Pod, "web", {"status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True"}]}}, namespace="default", subresource="status")
    elif change == "annotations":  # nothing the scheduler reads
        await c.patch(Pod, "web", {"metadata": {"annotations": {"note": "x"}}}, namespace="default")
    elif change == "labels":
        await c.patch(Pod, "web", {"metadata": {"labels": {"app": "api"}}}, namespace="default")
    else:  # a graceful delete sets deletionTimestamp; no kubelet finishes it
        await c.delete(Pod, "web", namespace="default", grace_period=30)


@pytest.mark.parametrize(("change", "in_place"), [
    ("status", True), ("annotations", True), ("labels", False), ("deletion", False),
], ids=["status", "annotations", "labels", "deletion-timestamp"])
async def test_bound_pod_update_in_cache(cluster: Cluster, change: str, in_place: bool) -> None:
    await create_node(cluster, "n1")
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "web", cpu="250m", labels={"app": "web"}, affinity=_ANTI)
        await cluster.settle()
        assert await node_of(cluster, "web") == "n1"
        cache = sched.cache
        ni = cache.nodes["n1"]
        (before,) = ni.pods
        uid = before.uid
        _, seq = cache.changes_since(0)
        gen, requested, res_key = ni.generation, dict(ni.requested), ni.res_key
        await _write(cluster, change)
        await cluster.settle()
        after = cache.pod_info(uid)
        assert after is not None and after is not before
        live = await cluster.client.get(Pod, "web", namespace="default")
        assert after.pod.metadata.resource_version == live.metadata.resource_version  # the newest version
        assert ni.pods == [after] and ni.pods_with_affinity == [after]
        assert ni.pods_with_required_anti_affinity == [after]
        assert ni.requested == requested and ni.requested["cpu"] == 250 and ni.res_key == res_key
        changed, _ = cache.changes_since(seq)
        if in_place:
            assert changed == [] and ni.generation == gen
            assert after.requests is before.requests  # the derived fields are shared, not recomputed
        else:
            assert changed and set(changed) == {"n1"} and ni.generation != gen
        by_label = cache.nodes_with_label("default", "app", "web")
        assert dict(by_label) == ({} if change == "labels" else {"n1": 1})


def test_replace_pod_keeps_totals_and_order() -> None:
    a, b = make_pod("a", cpu="1", node_name="n1"), make_pod("b", cpu="1", node_name="n1", affinity=_ANTI,
                                                              labels={"app": "web"})
    ni = node_info("n1", [a, b])
    pa, pb = ni.pods
    gen, req = ni.generation, dict(ni.requested)
    b2: Any = make_pod("b", cpu="1", node_name="n1", affinity=_ANTI, labels={"app": "web"})
    nb = pb.status_update(b2)
    assert nb is not None and ni.replace_pod(pb, nb)
    assert ni.pods == [pa, nb] and ni.pods_with_affinity == [nb] and ni.pods_with_required_anti_affinity == [nb]
    assert ni.generation == gen and ni.requested == req
    assert not ni.replace_pod(pb, nb)  # pb is no longer there: nothing changes
    assert ni.pods == [pa, nb]
    other = PodInfo(make_pod("b", cpu="2", node_name="n1"))
    assert pb.status_update(other.pod) is None  # another spec: not a status update
