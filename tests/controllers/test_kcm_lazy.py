"""kube-controller-manager's controllers of ``kcm.LOAD_ON_FIRST``: imported and registered with their kind's
first event, then the same controllers as if they had started with the cluster (issue #17, cold start)."""

from __future__ import annotations

import pytest

import kubelite.api.types as types
from kubelite import Cluster
from kubelite.controllers.kcm import CONTROLLERS, LOAD_ON_FIRST

LAZY = sorted(LOAD_ON_FIRST)


@pytest.mark.parametrize("controller", LAZY, ids=LAZY)
def test_each_lazy_controller_is_a_controller_and_its_kinds_are_api_types(controller: str) -> None:
    assert controller in CONTROLLERS
    assert LOAD_ON_FIRST[controller]
    for kind in LOAD_ON_FIRST[controller]:
        assert getattr(types, kind).__name__ == kind


def test_the_controllers_that_every_cluster_needs_start_with_it() -> None:
    """Namespaces, their service accounts, the ``kube-dns`` Service's Endpoints and slices, the garbage
    collector's graph and the pod GC's periodic pass exist in every cluster: nothing to wait for."""
    assert sorted(set(CONTROLLERS) - set(LOAD_ON_FIRST)) == [
        "endpoint", "endpointslice", "garbagecollector", "namespace", "podgc", "serviceaccount"]


async def test_a_replicaset_loads_its_controller_which_then_reconciles_it() -> None:
    async with Cluster(seed=1, controllers=["replicaset"], scheduler=False, network=False) as cluster:
        mgr = cluster.controller_manager
        assert mgr is not None
        await cluster.settle()
        assert cluster.controllers_started == ["replicaset"]
        assert mgr.controllers == {}  # registered to load; nothing built until a ReplicaSet exists
        await cluster.client.create({
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "rs"}},
                     "template": {"metadata": {"labels": {"app": "rs"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        await cluster.settle()
        assert sorted(mgr.controllers) == ["replicaset"]
        assert len(await cluster.client.list("pods", labels="app=rs")) == 2
        rs = await cluster.client.get("replicasets", "rs")
        assert rs["status"]["replicas"] == 2


async def test_an_event_while_the_manager_crashes_loads_nothing() -> None:
    """Regression: an informer still delivering while kube-controller-manager stops (a docs example's cluster
    exit) loaded a controller into the stopping manager, which failed with "is not running"."""
    from kubelite.api.types import ReplicaSet
    from kubelite.controllers.kcm import _LoadOnFirst

    async with Cluster(seed=1, controllers=["replicaset"], scheduler=False, network=False) as cluster:
        kcm = cluster.controller_manager
        assert kcm is not None
        informer = kcm.informers.informer_for(ReplicaSet)
        loader = next(li.handler for li in informer._listeners if isinstance(li.handler, _LoadOnFirst))
        await kcm.crash()
        assert kcm.stopping
        loader.on_add(None, False)
        assert not loader.loaded and kcm.controllers == {}
        await kcm.restart()
        assert not kcm.stopping
        await cluster.client.create({
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "rs"}},
                     "template": {"metadata": {"labels": {"app": "rs"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        await cluster.settle()
        assert sorted(kcm.controllers) == ["replicaset"]
        assert len(await cluster.client.list("pods", labels="app=rs")) == 1
