"""Decode once, share read-only (kubelite.api.views): one object per stored version for every control-plane
informer, private copies for everybody else, and a loud failure when a component breaks the contract.

client-go's shared informers hand every cache and handler the one object decoded per event; these tests
hold kubelite's version of that to its isolation guarantee: nobody can corrupt the store or a cache by
mutating what it was handed.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
import pytest

from kubelite.api import views
from kubelite.api.codec import json_decoder
from kubelite.api.types import ConfigMap, Pod
from kubelite.api.views import (
    SharedViewMutated,
    StoredBytes,
    is_frozen,
    release_views,
    shared_view,
    thaw,
    thawed_type,
    verify_views,
)
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


# Every way of changing a view in place, on a typed view and on a dict view: each fails at the point of
# mutation (client-go's contract, enforced), and the view still equals its stored bytes afterwards.
_STRUCT_MUTATIONS: dict[str, Callable[[Any], Any]] = {
    "set-attribute": lambda v: setattr(v.metadata, "name", "evil"),
    "set-top-attribute": lambda v: setattr(v, "kind", "Evil"),
    "delete-attribute": lambda v: delattr(v.spec, "containers"),
    "dict-setitem": lambda v: v.metadata.labels.__setitem__("app", "evil"),
    "dict-delitem": lambda v: v.metadata.labels.__delitem__("app"),
    "dict-update": lambda v: v.metadata.labels.update(app="evil"),
    "dict-setdefault": lambda v: v.metadata.labels.setdefault("new", "x"),
    "dict-pop": lambda v: v.metadata.labels.pop("app"),
    "dict-popitem": lambda v: v.metadata.labels.popitem(),
    "dict-clear": lambda v: v.metadata.labels.clear(),
    "dict-ior": lambda v: v.metadata.labels.__ior__({"app": "evil"}),
    "list-append": lambda v: v.spec.containers.append(v.spec.containers[0]),
    "list-extend": lambda v: v.spec.containers.extend([]),
    "list-insert": lambda v: v.spec.containers.insert(0, v.spec.containers[0]),
    "list-setitem": lambda v: v.spec.containers.__setitem__(0, None),
    "list-delitem": lambda v: v.spec.containers.__delitem__(0),
    "list-pop": lambda v: v.spec.containers.pop(),
    "list-remove": lambda v: v.spec.containers.remove(v.spec.containers[0]),
    "list-clear": lambda v: v.spec.containers.clear(),
    "list-sort": lambda v: v.spec.containers[0].args.sort(),
    "list-reverse": lambda v: v.spec.containers[0].args.reverse(),
    "list-iadd": lambda v: v.spec.containers.__iadd__([]),
    "list-imul": lambda v: v.spec.containers.__imul__(2),
    "nested-struct-in-list": lambda v: setattr(v.spec.containers[0], "image", "evil:latest"),
    "scalar-list-in-struct": lambda v: v.spec.containers[0].args.append("--evil"),
    "replace-copy-is-read-only": lambda v: setattr(msgspec.structs.replace(v, kind="Pod"), "kind", "Evil"),
}
_DICT_MUTATIONS: dict[str, Callable[[Any], Any]] = {
    "set-key": lambda v: v.__setitem__("kind", "Evil"),
    "nested-set-key": lambda v: v["metadata"].__setitem__("name", "evil"),
    "nested-delete-key": lambda v: v["metadata"]["labels"].__delitem__("app"),
    "nested-update": lambda v: v["metadata"].update(name="evil"),
    "list-append": lambda v: v["spec"]["containers"].append({}),
    "list-item-set-key": lambda v: v["spec"]["containers"][0].__setitem__("image", "evil"),
}
POD_WITH_ARGS: dict[str, Any] = {**POD, "spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                                                 "args": ["--b", "--a"]}]}}


@pytest.mark.parametrize(("tp", "mutate"), [(Pod, m) for m in _STRUCT_MUTATIONS.values()]
                         + [(None, m) for m in _DICT_MUTATIONS.values()],
                         ids=[f"struct-{k}" for k in _STRUCT_MUTATIONS] + [f"dict-{k}" for k in _DICT_MUTATIONS])
def test_a_shared_view_refuses_every_mutation_at_once(tp: Any, mutate: Callable[[Any], Any]) -> None:
    data = stored(POD_WITH_ARGS)
    view = shared_view(data, tp)
    with pytest.raises(SharedViewMutated, match="view is read-only"):
        mutate(view)
    verify_views(data, "pods default/web")  # nothing changed
    assert msgspec.json.encode(view) == msgspec.json.encode(shared_view(stored(POD_WITH_ARGS), tp))
    assert isinstance(SharedViewMutated("x"), TypeError)  # as Python's own immutable types raise


@pytest.mark.parametrize("how", ["struct-setattr", "list-append", "dict-setitem"])
def test_verify_views_catches_a_write_that_bypasses_the_frozen_types(how: str) -> None:
    data = stored(POD)
    verify_views(data)  # never viewed: nothing to check
    view = shared_view(data, Pod)
    verify_views(data, "pods default/web")
    if how == "struct-setattr":
        msgspec.Struct.__setattr__(view.metadata, "name", "evil")
    elif how == "list-append":
        list.append(view.spec.containers, view.spec.containers[0])
    else:
        dict.__setitem__(view.metadata.labels, "app", "evil")
    try:
        with pytest.raises(SharedViewMutated, match="pods default/web was mutated by its reader"):
            verify_views(data, "pods default/web")
    finally:
        views._PARTS.clear()  # (the broken part is shared: later views of an equal pod must not get it)


def test_a_view_reads_compares_and_encodes_as_a_private_decode() -> None:
    data = stored(POD_WITH_ARGS)
    view = shared_view(data, Pod)
    private = msgspec.json.decode(data, type=Pod)
    private.metadata.managed_fields = None
    assert isinstance(view, Pod) and isinstance(view.spec.containers, list)
    assert isinstance(view.metadata.labels, dict)
    assert view == private and private == view
    assert (view != private) is False and (private != view) is False
    assert repr(view) == repr(private) and msgspec.json.encode(view) == msgspec.json.encode(private)
    assert is_frozen(view) and is_frozen(view.spec.containers[0]) and not is_frozen(private)
    assert thawed_type(type(view)) is Pod and thawed_type(Pod) is Pod
    # what reading code does with lists and dicts gives plain, mutable results
    joined = view.spec.containers + []  # noqa: RUF005 (concatenation is what is under test)
    merged = view.metadata.labels | {"x": "y"}
    assert type(joined) is list and type(merged) is dict and type(view.metadata.labels.copy()) is dict
    assert sorted(view.spec.containers[0].args) == ["--a", "--b"]
    # the codec's decoder for a view's class decodes into the generated class (a private copy)
    assert type(json_decoder(type(view)).decode(data)) is Pod


@pytest.mark.parametrize("how", ["thaw", "deepcopy", "dict-thaw", "dict-deepcopy"])
def test_copies_of_a_view_are_mutable_and_private(how: str) -> None:
    data = stored(POD_WITH_ARGS)
    view = shared_view(data, None if how.startswith("dict") else Pod)
    copy_ = thaw(view) if how.endswith("thaw") else copy.deepcopy(view)
    assert copy_ == view and not is_frozen(copy_)
    if how.startswith("dict"):
        assert type(copy_) is dict and type(copy_["metadata"]["labels"]) is dict
        copy_["metadata"]["labels"]["app"] = "mine"
        copy_["spec"]["containers"].append({})
    else:
        assert type(copy_) is Pod and type(copy_.spec.containers) is list
        copy_.metadata.labels["app"] = "mine"
        copy_.spec.containers[0].args.append("--mine")
        copy_.metadata.name = "mine"
    verify_views(data, "pods default/web")


def test_a_shallow_copy_has_a_mutable_top_and_still_shared_children() -> None:
    view = shared_view(stored(POD), Pod)
    top = copy.copy(view)
    assert type(top) is Pod
    top.kind = "Pod"  # its own field
    assert top.metadata is view.metadata  # ... but its children are the shared ones, still read-only
    with pytest.raises(SharedViewMutated):
        top.metadata.labels["app"] = "evil"  # type: ignore[index]


def test_stored_bytes_are_bytes() -> None:
    data = stored(POD)
    assert data == _encode(POD) and hash(data) == hash(_encode(POD))
    assert isinstance(data, bytes) and bytes(data) == data


# --- parts shared across views (hash-consing below the top level) ---


def _replica(name: str, *, image: str = "registry.example.com/shared-parts:1", env: str = "info",
             node: str = "node-1", ip: str = "10.244.0.2", started: str = "2025-01-01T00:00:02Z") -> dict[str, Any]:
    """One replica of a template, as stored once running: what differs between replicas is its name, uid, node
    and IP."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": "9",
                     "labels": {"app": "shared-parts", "pod-template-hash": "5d8f"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "shared-parts-5d8f",
                                          "uid": "rs-uid", "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"nodeName": node, "containers": [{
            "name": "app", "image": image, "env": [{"name": "LOG_LEVEL", "value": env}],
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}}],
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}]},
        "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": started}],
                   "containerStatuses": [{"name": "app", "image": image, "imageID": "", "ready": True,
                                          "restartCount": 0, "containerID": f"containerd://{name}",
                                          "state": {"running": {"startedAt": started}}}]},
    }


def test_replicas_of_a_template_share_every_part_below_the_top_level() -> None:
    """Two replicas' views hold one frozen copy of each equal part (containers, tolerations, owner references,
    labels, conditions), and their own metadata, spec and status structs, their container statuses and
    their pod IPs (which differ)."""
    a = shared_view(stored(_replica("web-a", node="node-1", ip="10.244.0.2")), Pod)
    b = shared_view(stored(_replica("web-b", node="node-2", ip="10.244.1.7")), Pod)
    assert a is not b and a.metadata is not b.metadata and a.spec is not b.spec and a.status is not b.status
    assert a.spec.containers is b.spec.containers and a.spec.containers[0] is b.spec.containers[0]
    assert a.spec.tolerations is b.spec.tolerations
    assert a.metadata.owner_references is b.metadata.owner_references
    assert a.metadata.labels is b.metadata.labels
    assert a.status.conditions is b.status.conditions
    assert a.status.container_statuses[0] is not b.status.container_statuses[0]
    assert a.status.pod_ips[0] is not b.status.pod_ips[0]
    assert (a.spec.node_name, b.spec.node_name) == ("node-1", "node-2")
    assert is_frozen(a.spec.containers[0]) and is_frozen(b.metadata.labels)


def test_the_next_version_of_an_object_holds_its_unchanged_parts_again() -> None:
    """A status write makes a new version; its view's spec parts are the previous view's, so whoever still
    holds a part of the older view (a kubelet's container record) keeps nothing alive twice."""
    v1 = shared_view(stored(_replica("web-v", started="2025-01-01T00:00:02Z")), Pod)
    v2 = shared_view(stored(_replica("web-v", started="2025-01-01T00:05:00Z")), Pod)
    assert v2 is not v1 and v2.spec.containers[0] is v1.spec.containers[0]
    assert v2.status.conditions is not v1.status.conditions  # the new transition time: a part of its own
    assert v2.status.conditions[0].last_transition_time == "2025-01-01T00:05:00Z"
    assert v1.status.conditions[0].last_transition_time == "2025-01-01T00:00:02Z"


@pytest.mark.parametrize(("a", "b"), [
    ({"env": "info"}, {"env": "debug"}),
    ({"image": "registry.example.com/shared-parts:1"}, {"image": "registry.example.com/shared-parts:2"}),
], ids=["env-value", "image"])
def test_parts_that_differ_in_one_value_are_not_shared(a: dict[str, str], b: dict[str, str]) -> None:
    x = shared_view(stored(_replica("diff-x", **a)), Pod)
    y = shared_view(stored(_replica("diff-y", **b)), Pod)
    assert x.spec.containers[0] is not y.spec.containers[0] and x.spec.containers[0] != y.spec.containers[0]
    assert x.spec.tolerations is y.spec.tolerations  # the parts that are equal still are shared
    assert thaw(x) == msgspec.json.decode(stored(_replica("diff-x", **a)), type=Pod)  # (no managedFields to drop)


def test_scalars_that_compare_equal_are_not_confused() -> None:
    """``True == 1 == 1.0`` in Python; a shared dict of scalars tells them apart by type."""
    from kubelite.api.views import _shared_dict

    assert _shared_dict({"a": "b"}) is _shared_dict({"a": "b"})
    assert _shared_dict({"a": True}) is not _shared_dict({"a": 1})
    assert type(_shared_dict({"a": 1.0})["a"]) is float and type(_shared_dict({"a": 1})["a"]) is int
    assert _shared_dict({"a": "b", "c": "d"}) is not _shared_dict({"c": "d", "a": "b"})  # (order is kept)


@pytest.mark.parametrize("mutate", [
    lambda v: setattr(v.spec.containers[0], "image", "evil"),
    lambda v: v.spec.containers[0].env.append({}),
    lambda v: v.metadata.labels.__setitem__("app", "evil"),
    lambda v: setattr(v.status.conditions[0], "status", "False"),
], ids=["container-setattr", "env-append", "labels-setitem", "condition-setattr"])
def test_a_shared_part_refuses_mutation_and_its_other_holders_are_untouched(mutate: Callable[[Any], Any]) -> None:
    """The isolation guarantee for a part shared across objects: mutating it through one view raises at once,
    and the other replica's view, a copy of it, and the next view of either are all unchanged."""
    da, db = stored(_replica("iso-a")), stored(_replica("iso-b", node="node-2"))
    a, b = shared_view(da, Pod), shared_view(db, Pod)
    with pytest.raises(SharedViewMutated):
        mutate(a)
    mine = thaw(a)
    mine.spec.containers[0].image = "mine"
    mine.metadata.labels["app"] = "mine"
    verify_views(da, "pods default/iso-a")
    verify_views(db, "pods default/iso-b")
    assert b.spec.containers[0].image == "registry.example.com/shared-parts:1" and b.metadata.labels["app"] == "shared-parts"
    c = shared_view(stored(_replica("iso-c")), Pod)
    assert c.spec.containers[0] is a.spec.containers[0] and c.spec.containers[0].image != "mine"


def test_a_write_bypassing_the_frozen_types_on_a_shared_part_is_caught_in_every_view_holding_it() -> None:
    """verify_views (the cluster runs it over the store on exit) is the backstop for a bypassing write: on a
    shared part it shows in every view that holds the part, not only the one it was made through."""
    da, db = stored(_replica("bypass-a", image="registry.example.com/bypass:1")), \
        stored(_replica("bypass-b", image="registry.example.com/bypass:1", node="node-2"))
    a, b = shared_view(da, Pod), shared_view(db, Pod)
    assert a.spec.containers[0] is b.spec.containers[0]
    msgspec.Struct.__setattr__(a.spec.containers[0], "image", "evil")
    try:
        for data, name in ((da, "bypass-a"), (db, "bypass-b")):
            with pytest.raises(SharedViewMutated, match=f"pods default/{name} was mutated by its reader"):
                verify_views(data, f"pods default/{name}")
    finally:
        views._PARTS.clear()  # (this test broke the contract on purpose: later views must not share its part)


def test_the_shared_parts_table_is_bounded() -> None:
    from kubelite.memo import statistics

    for i in range(40):
        shared_view(stored(_replica(f"bound-{i}", env=f"v{i}")), Pod)
    (stats,) = [s for s in statistics() if s.name == "api.views.shared_parts"]
    assert stats.maxsize == 16_384 and 0 < stats.size <= stats.maxsize


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


async def test_a_kubelet_holds_its_node_as_the_view_the_scheduler_holds(cluster: Cluster) -> None:
    """The kubelet's own Node informer (upstream's on ``metadata.name``) is on the typed Node: after a Node
    status write it holds the very object the scheduler's Node informer holds (no decode of its own)."""
    import gc

    from kubelite.api.types import Node

    kubelet = cluster.kubelet("node-0")
    kubelet.heartbeat.mark_dirty()
    await cluster.advance(11)  # the next beat writes the Node status
    (sched,) = [inf.get_indexer().get_by_key(kubelet.node_name) for inf in gc.get_objects()
                if isinstance(inf, SharedIndexInformer) and inf.clock is cluster.clock
                and inf.client.user.name == "system:kube-scheduler" and inf.resource is Node]
    assert kubelet.node is not None and kubelet.node is sched
    assert kubelet.node.metadata.resource_version == (await cluster.client.get(Node, kubelet.node_name)
                                                      ).metadata.resource_version


async def test_a_kubelet_holds_its_pods_as_the_view_the_scheduler_holds(cluster: Cluster) -> None:
    """The kubelet's pod informer (upstream's on ``spec.nodeName``) is on the typed Pod: once the pod runs (the
    kubelet's own status writes included) the kubelet's cache and its pod worker hold the very object the
    scheduler's and the controllers' Pod informers hold, frozen, with no dict decode of its own."""
    await cluster.client.create(pod("web"))
    await cluster.advance(10)
    live = await cluster.client.get(Pod, "web")
    assert live.status is not None and live.status.phase == "Running"
    (kubelet,) = _cached(cluster, "system:node:node-0", "web")
    (sched,) = _cached(cluster, "system:kube-scheduler", "web")
    (kcm,) = _cached(cluster, "system:kube-controller-manager", "web")
    assert kubelet is sched is kcm and is_frozen(kubelet)
    assert kubelet.metadata.resource_version == live.metadata.resource_version
    worker = cluster.kubelet("node-0").worker("default", "web")
    assert worker is not None and worker.pod is kubelet
    with pytest.raises(SharedViewMutated):
        worker.pod.spec.containers[0].image = "evil"  # type: ignore[union-attr,index]


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


async def test_a_handler_mutating_what_it_was_handed_raises_at_once_and_fails_the_cluster() -> None:
    """A control-plane component whose event handler breaks client-go's contract fails at the mutation
    itself (not at cluster exit): the handler raises, the cluster records the component error (as every
    handler exception is), and the store and every cache keep the object as stored."""
    cluster = Cluster(seed=1, scheduler=False, controllers=False, network=False)
    raised: list[BaseException] = []

    class Mutating:
        def on_add(self, obj: ConfigMap, is_in_initial_list: bool) -> None:
            try:
                obj.data["k"] = "corrupted"  # type: ignore[index]
            except SharedViewMutated as e:
                raised.append(e)
                raise

        def on_update(self, old: ConfigMap, new: ConfigMap) -> None: ...

        def on_delete(self, obj: ConfigMap) -> None: ...

    async with cluster:
        await cluster.client.create(ConfigMap(metadata={"name": "cm"}, data={"k": "v"}))  # type: ignore[arg-type]
        client = cluster.component_client("system:kube-controller-manager", field_manager="kcm")
        inf = SharedIndexInformer(client, ConfigMap, clock=cluster.clock, rng=cluster.rng)
        inf.add_event_handler(Mutating())
        cluster.start_soon(inf.run, name="buggy-component")
        await cluster.advance(1)
        assert len(raised) == 1  # at the mutation, during the handler call
        (error,) = [e for e in cluster.errors.errors if e.component == "informer"]
        assert error.error.startswith("SharedViewMutated: a shared dict view is read-only")
        assert error.context["object"] == "default/cm"
        cached = inf.get_indexer().get_by_key("default/cm")
        assert cached is not None and cached.data == {"k": "v"}
        assert (await cluster.client.get(ConfigMap, "cm")).data == {"k": "v"}
        with pytest.raises(SharedViewMutated):
            cached.metadata.name = "evil"  # and the cache's object itself is as read-only


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
