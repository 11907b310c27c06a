"""Decode once, share read-only (kubelite.api.views): one object per stored version for every control-plane
informer, private copies for everybody else, and a loud failure when a component breaks the contract.

client-go's shared informers hand every cache and handler the one object decoded per event; these tests
hold kubelite's version of that to its isolation guarantee: nobody can corrupt the store or a cache by
mutating what it was handed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from kubelite.api.types import ConfigMap, Pod
from kubelite.api.views import SharedViewMutated, StoredBytes, release_views, shared_view, verify_views
from kubelite.cluster import Cluster
from kubelite.informer import SharedIndexInformer

_encode = msgspec.json.Encoder().encode


def stored(obj: dict[str, Any]) -> StoredBytes:
    return StoredBytes(_encode(obj))


POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7", "labels": {"app": "web"},
                 "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1",
                                    "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}}]},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
}


@pytest.mark.parametrize("tp", [Pod, None], ids=["struct", "dict"])
def test_one_view_per_version_and_type(tp: Any) -> None:
    data = stored(POD)
    first = shared_view(data, tp)
    assert shared_view(data, tp) is first
    assert shared_view(stored(POD), tp) is not first  # another version: its own view
    other = shared_view(data, dict if tp is None else None)
    assert other is not first


@pytest.mark.parametrize("tp", [Pod, None], ids=["struct", "dict"])
def test_views_drop_managed_fields_as_the_controller_manager_does(tp: Any) -> None:
    view = shared_view(stored(POD), tp)
    if tp is None:
        assert "managedFields" not in view["metadata"]
        assert view["metadata"]["labels"] == {"app": "web"}
    else:
        assert view.metadata.managed_fields is None
        assert view.metadata.labels == {"app": "web"}


def test_plain_bytes_and_superseded_versions_get_fresh_objects() -> None:
    plain = _encode(POD)
    assert shared_view(plain, Pod) is not shared_view(plain, Pod)
    data = stored(POD)
    kept = shared_view(data, Pod)
    release_views(data)
    again = shared_view(data, Pod)
    assert again is not kept and again == kept  # its holders keep theirs; nobody shares it any more
    assert shared_view(data, Pod) is not again


def test_a_version_never_viewed_is_released_without_growing() -> None:
    data = stored(POD)
    release_views(data)
    assert getattr(data, "views", None) is None  # no attribute dict was made for it
    assert shared_view(data, Pod) is shared_view(data, Pod)


@pytest.mark.parametrize("how", ["attribute", "nested-dict", "list"])
def test_verify_views_catches_a_mutated_view(how: str) -> None:
    data = stored(POD)
    verify_views(data)  # never viewed: nothing to check
    view = shared_view(data, Pod)
    verify_views(data, "pods default/web")
    if how == "attribute":
        view.metadata.name = "evil"
    elif how == "nested-dict":
        view.metadata.labels["app"] = "evil"
    else:
        view.spec.containers.append(view.spec.containers[0])
    with pytest.raises(SharedViewMutated, match="pods default/web was mutated by its reader"):
        verify_views(data, "pods default/web")


def test_stored_bytes_are_bytes() -> None:
    data = stored(POD)
    assert data == _encode(POD) and hash(data) == hash(_encode(POD))
    assert isinstance(data, bytes) and bytes(data) == data


# --- in a running cluster ---


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, nodes=1, network=True) as c:
        yield c


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}


def _cached(cluster: Cluster, user: str, name: str) -> list[Any]:
    """The Pod objects named ``name`` in every informer cache of ``user`` (a component identity)."""
    import gc

    out = []
    for inf in (o for o in gc.get_objects() if isinstance(o, SharedIndexInformer)):
        if inf.clock is cluster.clock and inf.client.user.name == user and inf.resource is Pod:
            obj = inf.get_indexer().get_by_key(f"default/{name}")
            if obj is not None:
                out.append(obj)
    return out


async def test_control_plane_informers_share_one_object_per_version(cluster: Cluster) -> None:
    await cluster.client.create(pod("web"))
    await cluster.advance(5)
    (kcm,) = _cached(cluster, "system:kube-controller-manager", "web")
    (sched,) = _cached(cluster, "system:kube-scheduler", "web")
    # the data plane's NetworkPolicy agent (kube-proxy itself watches no Pods) and metrics-server
    (policy,) = _cached(cluster, "system:serviceaccount:kube-system:kube-network-policies", "web")
    (metrics,) = _cached(cluster, "system:serviceaccount:kube-system:metrics-server", "web")
    assert kcm is sched is policy is metrics
    assert kcm.metadata.managed_fields is None
    assert kcm.metadata.resource_version == (await cluster.client.get(Pod, "web")).metadata.resource_version


async def test_a_users_informer_gets_private_copies(cluster: Cluster) -> None:
    """A user's informer (and its handlers) may break client-go's contract and mutate what it is handed:
    it corrupts only its own cache, never the store or the control plane's shared objects."""
    await cluster.client.create(pod("web"))
    seen: list[Pod] = []

    class Handler:
        def on_add(self, obj: Pod, is_in_initial_list: bool) -> None:
            obj.metadata.labels["app"] = "mutated"  # type: ignore[index]
            seen.append(obj)

        def on_update(self, old: Pod, new: Pod) -> None: ...

        def on_delete(self, obj: Pod) -> None: ...

    inf = SharedIndexInformer(cluster.client, Pod, clock=cluster.clock, rng=cluster.rng)
    inf.add_event_handler(Handler())
    cluster.start_soon(inf.run, name="user-informer")
    await cluster.advance(2)
    assert seen and seen[0].metadata.managed_fields  # a private decode, managedFields and all
    (kcm,) = _cached(cluster, "system:kube-controller-manager", "web")
    assert seen[0] is not kcm and kcm.metadata.labels == {"app": "web"}
    assert (await cluster.client.get(Pod, "web")).metadata.labels == {"app": "web"}
    # a component's own raw watch (not an informer's) is a private copy too
    stream = await cluster.component_client("system:kube-scheduler", field_manager="x").open_watch(
        Pod, namespace="default", resource_version="0")
    with stream:
        _typ, watched, _rv = await stream.__anext__()
    assert watched is not kcm and watched == (await cluster.client.get(Pod, "web"))


async def test_a_component_mutating_a_shared_object_fails_the_cluster() -> None:
    cluster = Cluster(seed=1, scheduler=False, controllers=False, network=False)
    with pytest.raises(SharedViewMutated, match=r"configmaps default/cm was mutated"):  # noqa: PT012
        async with cluster:
            await cluster.client.create(ConfigMap(metadata={"name": "cm"}, data={"k": "v"}))  # type: ignore[arg-type]
            client = cluster.component_client("system:kube-controller-manager", field_manager="kcm")
            inf = SharedIndexInformer(client, ConfigMap, clock=cluster.clock, rng=cluster.rng)
            cluster.start_soon(inf.run, name="buggy-component")
            await cluster.advance(1)
            obj = inf.get_indexer().get_by_key("default/cm")
            assert obj is not None
            obj.data["k"] = "corrupted"  # breaking the contract: every sharing cache sees this


async def test_a_watcher_behind_the_history_window_gets_410_and_relists() -> None:
    """The window is bounded by bytes: a reflector whose watch closed while the window moved past its
    revision gets 410 Gone on re-watching and relists (upstream's Reflector), ending up consistent."""
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False, history_bytes=4096) as c:
        inf = SharedIndexInformer(c.client, ConfigMap, clock=c.clock, rng=c.rng)
        c.start_soon(inf.run, name="informer")
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "first"}})
        await c.settle()
        assert inf.has_synced()
        reflector = inf.reflector
        assert reflector is not None and reflector.lists == 1
        c.store.close_watches()  # the watch ends (a timeout, a network blip) ...
        table = c.store.table("", "configmaps")
        for i in range(60):  # ... and before it re-watches, the window moves on
            c.store.create(table, {"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": f"cm-{i:02d}", "namespace": "default"}})
        assert table.dropped_rv > int(reflector.last_sync_resource_version())
        await c.advance(5)
        assert reflector.relists_after_expired == 1 and reflector.lists == 2
        names = sorted(o.metadata.name for o in inf.get_indexer().list())
        assert names == [*(f"cm-{i:02d}" for i in range(60)), "first"]
