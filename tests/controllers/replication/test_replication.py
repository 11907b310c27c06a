"""The ReplicationController controller: upstream's ReplicaSet logic over v1 ReplicationControllers
(``pkg/controller/replication``): creates to spec.replicas with controllerRefs naming the RC, scales down,
adopts matching orphans, and keeps ``status`` (replicas, readyReplicas, observedGeneration)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from tests.controllers.replicaset.conftest import untaint


def rc(name: str = "web", replicas: int = 3) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


@pytest.fixture
async def rc_cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=5, nodes=2, controllers=["replicationcontroller"]) as c:
        await untaint(c)
        yield c


async def _pods(c: Cluster, app: str) -> list[dict[str, Any]]:
    return [p for p in await c.client.list("pods", namespace="default", labels={"app": app})
            if not p["metadata"].get("deletionTimestamp")]


async def test_creates_owned_pods_and_reports_status(rc_cluster: Cluster) -> None:
    c = rc_cluster
    created = await c.client.create(rc())
    await c.advance(30)
    pods = await _pods(c, "web")
    assert len(pods) == 3
    for p in pods:
        (ref,) = p["metadata"]["ownerReferences"]
        assert (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], ref["controller"]) == (
            "v1", "ReplicationController", "web", created["metadata"]["uid"], True)
        assert p["metadata"]["generateName"] == "web-"
    got = await c.client.get("replicationcontrollers", "web", namespace="default")
    assert got["status"]["replicas"] == 3
    assert got["status"]["readyReplicas"] == 3
    assert got["status"]["observedGeneration"] == 1


async def test_scales_down_and_up(rc_cluster: Cluster) -> None:
    c = rc_cluster
    await c.client.create(rc(replicas=3))
    await c.advance(30)
    await c.client.patch("replicationcontrollers", "web", {"spec": {"replicas": 1}}, namespace="default",
                         patch_type="merge")
    await c.advance(60)
    assert len(await _pods(c, "web")) == 1
    got = await c.client.get("replicationcontrollers", "web", namespace="default")
    assert (got["status"]["replicas"], got["status"]["observedGeneration"]) == (1, 2)
    await c.client.patch("replicationcontrollers", "web", {"spec": {"replicas": 2}}, namespace="default",
                         patch_type="merge")
    await c.advance(30)
    assert len(await _pods(c, "web")) == 2


async def test_adopts_a_matching_orphan(rc_cluster: Cluster) -> None:
    c = rc_cluster
    await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "orphan", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    created = await c.client.create(rc(replicas=2))
    await c.advance(30)
    pods = await _pods(c, "web")
    assert len(pods) == 2
    orphan = await c.client.get("pods", "orphan", namespace="default")
    assert orphan["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
