"""The manager's cache-backed reader (controller-runtime's cache as a client.Reader), its field indexes and
the public event recorder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.api.types import ConfigMap, Deployment, Event, ObjectMeta, Pod
from kubelite.cluster import Cluster
from kubelite.controllers import Manager
from kubelite.errors import NotFound


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c


def deployment(name: str = "web", replicas: int = 1) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


def pod(name: str, node: str, ns: str = "default", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}}


async def test_mutating_a_cached_object_cannot_corrupt_the_cache(cluster: Cluster) -> None:
    """The 99-replicas bug: a reader mutated the informer's object; the cache said 99, the server 1."""
    await cluster.client.create(deployment())
    async with Manager(cluster.client, clock=cluster.clock, rng=cluster.rng) as mgr:
        d = await mgr.cache.get(Deployment, "web", namespace="default")
        assert d.spec is not None and d.spec.replicas == 1
        d.spec.replicas = 99
        again = await mgr.cache.get(Deployment, "web", namespace="default")
        assert again.spec is not None and again.spec.replicas == 1
        (listed,) = await mgr.cache.list(Deployment)
        listed.spec.replicas = 98  # type: ignore[union-attr]
        cached = mgr.informers.informer_for(Deployment).get_indexer().get_by_key("default/web")
        assert cached.spec.replicas == 1
        assert (await cluster.client.get(Deployment, "web")).spec.replicas == 1  # type: ignore[union-attr]
        # copy=False is the explicit opt-out: the shared object itself
        assert await mgr.cache.get(Deployment, "web", namespace="default", copy=False) is cached


async def test_reads_start_informers_lazily_and_follow_the_server(cluster: Cluster) -> None:
    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    with pytest.raises(RuntimeError, match="start the manager first"):
        await mgr.cache.get(ConfigMap, "x")
    async with mgr:
        with pytest.raises(NotFound):
            await mgr.cache.get(ConfigMap, "x")
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="x"), data={"k": "v"}))
        await cluster.settle()
        got = await mgr.cache.get("configmaps", "x")
        assert isinstance(got, dict) and got["data"] == {"k": "v"}


async def test_field_index_answers_field_selectors(cluster: Cluster) -> None:
    for name, node, ns in [("a", "n1", "default"), ("b", "n2", "default"), ("c", "n1", "kube-system"),
                           ("d", "n1", "default")]:
        await cluster.client.create(pod(name, node, ns, labels={"tier": "web" if name != "d" else "db"}))
    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.index_field(Pod, "spec.nodeName", lambda p: [p.spec.node_name] if p.spec and p.spec.node_name else [])
    async with mgr:
        def names(pods: list[Pod]) -> list[str]:
            return [p.metadata.name or "" for p in pods if p.metadata is not None]

        assert names(await mgr.cache.list(Pod, fields={"spec.nodeName": "n1"})) == ["a", "d", "c"]
        assert names(await mgr.cache.list(Pod, namespace="default", fields={"spec.nodeName": "n1"})) == ["a", "d"]
        assert names(await mgr.cache.list(Pod, namespace="default", fields={"spec.nodeName": "n1"},
                                          labels={"tier": "web"})) == ["a"]
        assert names(await mgr.cache.list(Pod, namespace="default", labels="tier in (db)")) == ["d"]
        assert names(await mgr.cache.list(Pod, fields={"spec.nodeName": "n9"})) == []
        with pytest.raises(ValueError, match=r"no index for field 'status.phase'"):
            await mgr.cache.list(Pod, fields={"status.phase": "Running"})


async def test_event_recorder_for_writes_correlated_events(cluster: Cluster) -> None:
    cm = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="x")))
    async with Manager(cluster.client, clock=cluster.clock, rng=cluster.rng) as mgr:
        recorder = mgr.get_event_recorder_for("my-operator")
        for _ in range(3):
            recorder.event(cm, "Normal", "Synced", "configmap synced")
        await cluster.settle()
    (event,) = await cluster.client.list(Event, namespace="default")
    assert (event.reason, event.message, event.count) == ("Synced", "configmap synced", 3)
    assert event.source is not None and event.source.component == "my-operator"
    assert event.involved_object.name == "x"
