"""SharedInformerFactory (client-go ``informers/factory.go``) and the package's public facade."""

from __future__ import annotations

from typing import Any

import pytest

import kubelite.informer
from kubelite.api.types import ConfigMap, ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, PodSpec
from kubelite.cluster import Cluster
from kubelite.errors import NotFound
from kubelite.informer import NAMESPACE_INDEX, ResourceEventHandlerFuncs, SharedInformerFactory


def make_pod(name: str, ns: str = "default", node: str | None = None) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, namespace=ns),
               spec=PodSpec(node_name=node, containers=[Container(name="c", image="nginx:1.25")]))


def by_node(obj: Any) -> list[str]:
    return [obj.spec.node_name] if obj.spec.node_name else []


def factory(cluster: Cluster, **kw: Any) -> SharedInformerFactory:
    return SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng, **kw)


async def test_one_informer_per_resource(cluster: Cluster) -> None:
    f = factory(cluster)
    pods = f.informer_for(Pod)
    assert f.informer_for(Pod) is pods
    assert f.informer_for("configmaps") is not pods
    assert f.informer_for(Pod, indexers={"by_node": by_node}) is pods  # new indexers are added
    assert set(pods.get_indexer().get_indexers()) == {NAMESPACE_INDEX, "by_node"}


async def test_start_sync_list_and_shutdown(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a", node="n1"))
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="cm", namespace="kube-system")))
    f = factory(cluster)
    pods = f.informer_for(Pod, indexers={"by_node": by_node})
    f.informer_for(ConfigMap)
    added: list[str] = []
    pods.add_event_handler(ResourceEventHandlerFuncs(on_add=lambda o: added.append(o.metadata.name)))
    f.start()
    f.start()  # idempotent
    assert await f.wait_for_cache_sync(timeout=5) == {Pod: True, ConfigMap: True}
    await cluster.client.create(make_pod("b", node="n1"))
    await cluster.settle()
    lister = f.lister_for(Pod)
    assert [p.metadata.name for p in lister.namespace("default").list()] == ["a", "b"]
    assert lister.namespace("default").get("b").spec.node_name == "n1"
    assert pods.get_indexer().index_keys("by_node", "n1") == ["default/a", "default/b"]
    assert f.lister_for(ConfigMap).namespace("kube-system").get("cm").metadata.name == "cm"
    with pytest.raises(NotFound, match='configmaps "nope" not found'):
        f.lister_for(ConfigMap).namespace("kube-system").get("nope")
    assert added == ["a", "b"]
    await f.shutdown()
    assert pods.is_stopped() and f.informer_for(ConfigMap).is_stopped()
    late = f.informer_for("secrets")
    f.start()  # a shut-down factory starts nothing
    await cluster.settle()
    assert not late.has_started()


async def test_informers_started_later_are_started_by_a_second_start(cluster: Cluster) -> None:
    f = factory(cluster)
    f.informer_for(Pod)
    f.start()
    cms = f.informer_for(ConfigMap)
    assert not cms.has_started()
    f.start()
    assert (await f.wait_for_cache_sync(timeout=5))[ConfigMap]
    await f.shutdown()


async def test_namespaced_factory_and_default_resync(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    await cluster.client.create(make_pod("s", "kube-system"))
    f = factory(cluster, namespace="kube-system", default_resync=30)
    pods = f.informer_for(Pod)
    other = f.informer_for(ConfigMap, resync=0)
    assert pods.resync_check_period == 30 and other.resync_check_period == 0
    f.start()
    await f.wait_for_cache_sync()
    assert pods.get_indexer().list_keys() == ["kube-system/s"]
    await f.shutdown()


async def test_wait_for_cache_sync_reports_unsynced(cluster: Cluster) -> None:
    f = factory(cluster)
    pods = f.informer_for(Pod)
    cluster.faults.inject(500, verb="list", resource="pods", times=None)
    f.start()
    assert await f.wait_for_cache_sync(timeout=3) == {Pod: False}
    assert pods.reflector is not None and pods.reflector.errors >= 2
    cluster.faults.clear()
    assert await f.wait_for_cache_sync(timeout=60) == {Pod: True}
    await f.shutdown()


def test_public_api_is_guarded_by_all() -> None:
    exported = set(kubelite.informer.__all__)
    assert {
        "SharedIndexInformer", "SharedInformerFactory", "DeltaFIFO", "Reflector", "Indexer", "Lister",
        "ResourceEventHandler", "ResourceEventHandlerFuncs", "FilteringResourceEventHandler",
        "DeletedFinalStateUnknown", "meta_namespace_key_func", "split_meta_namespace_key",
        "wait_for_cache_sync", "namespace_index", "RequeueError",
    } <= exported
    for name in exported:
        assert getattr(kubelite.informer, name) is not None
    assert sorted(exported) == sorted(set(kubelite.informer.__all__))  # no duplicates
    assert len(kubelite.informer.__all__) == len(exported)
