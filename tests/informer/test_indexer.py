"""Indexer, keys and listers; ported from client-go ``index_test.go``, ``store_test.go``,
``thread_safe_store_test.go`` and ``listers_test.go`` (pure, no event loop)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.labels import parse_selector
from kubelite.api.types import ObjectMeta, Pod
from kubelite.api.types.core_v1 import PodSpec
from kubelite.errors import NotFound
from kubelite.informer import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    Indexer,
    Lister,
    ThreadSafeStore,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_index_func,
    meta_namespace_key_func,
    meta_of,
    split_meta_namespace_key,
)
from kubelite.informer.lister import group_resource_of
from kubelite.informer.store import key_func_for


def pod(name: str, ns: str = "default", node: str | None = None, rv: str = "1", **labels: str) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, namespace=ns, labels=dict(labels) or None, resource_version=rv,
                                   uid=f"uid-{name}"),
               spec=PodSpec(node_name=node))


def dict_pod(name: str, ns: str = "default", node: str | None = None, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": dict(labels), "resourceVersion": "7"},
            "spec": {"nodeName": node} if node else {}}


def by_node(obj: Any) -> list[str]:
    """The classic custom index: pods by spec.nodeName (unscheduled pods are not indexed)."""
    node = obj["spec"].get("nodeName") if isinstance(obj, dict) else obj.spec.node_name
    return [node] if node else []


# --- keys ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("obj", "expected"), [
    (pod("a", "ns1"), "ns1/a"),
    (dict_pod("a", "ns1"), "ns1/a"),
    ({"metadata": {"name": "node-1"}}, "node-1"),
    (Pod(metadata=ObjectMeta(name="cluster-wide")), "cluster-wide"),
    ("explicit/key", "explicit/key"),
], ids=["struct", "dict", "cluster-scoped-dict", "cluster-scoped-struct", "explicit-key"])
def test_meta_namespace_key_func(obj: Any, expected: str) -> None:
    assert meta_namespace_key_func(obj) == expected


def test_deletion_handling_key_func_uses_tombstone_key() -> None:
    assert deletion_handling_meta_namespace_key_func(DeletedFinalStateUnknown("ns/x", None)) == "ns/x"
    assert deletion_handling_meta_namespace_key_func(pod("y")) == "default/y"


@pytest.mark.parametrize(("key", "expected"), [
    ("ns/name", ("ns", "name")), ("name", ("", "name")), ("/name", ("", "name")),
], ids=["namespaced", "cluster", "empty-namespace"])
def test_split_meta_namespace_key(key: str, expected: tuple[str, str]) -> None:
    assert split_meta_namespace_key(key) == expected


def test_split_meta_namespace_key_rejects_extra_slashes() -> None:
    with pytest.raises(ValueError, match='unexpected key format: "a/b/c"'):
        split_meta_namespace_key("a/b/c")


@pytest.mark.parametrize("obj", [pod("a", "ns", rv="5", app="x"), {
    "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "5", "labels": {"app": "x"}, "uid": "uid-a"}}],
    ids=["struct", "dict"])
def test_meta_of(obj: Any) -> None:
    m = meta_of(obj)
    assert (m.namespace, m.name, m.resource_version, dict(m.labels or {}), m.uid) == ("ns", "a", "5", {"app": "x"},
                                                                                       "uid-a")


# --- store and indexer ----------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [pod, dict_pod], ids=["struct", "dict"])
def test_store_crud_and_replace(make: Any) -> None:
    s = Indexer()
    a, b = make("a"), make("b")
    s.add(a)
    s.add(b)
    assert s.list_keys() == ["default/a", "default/b"]
    assert s.get(make("a")) is a and s.get_by_key("default/b") is b
    b2 = make("b", node="n1")
    s.update(b2)
    assert s.get_by_key("default/b") is b2
    s.delete(make("a"))
    assert s.get_by_key("default/a") is None and len(s) == 1
    s.delete(make("zzz"))  # deleting an absent object is fine
    c = make("c")
    s.replace([a, c], "42")
    assert s.list() == [a, c] and s.resource_version == "42"


def test_delete_with_a_tombstone() -> None:
    s = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    s.add(pod("a", "ns1"))
    s.delete(DeletedFinalStateUnknown("ns1/a", None))
    assert len(s) == 0 and s.list_index_func_values(NAMESPACE_INDEX) == []


def test_by_index_namespace_and_node() -> None:
    s = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func, "by_node": by_node})
    s.add(pod("a", "ns1", node="n1"))
    s.add(pod("b", "ns1", node="n2"))
    s.add(pod("c", "ns2", node="n1"))
    s.add(pod("d", "ns2"))

    def names(objs: list[Any]) -> list[str]:
        return sorted(o.metadata.name for o in objs)

    assert names(s.by_index(NAMESPACE_INDEX, "ns1")) == ["a", "b"]
    assert names(s.by_index("by_node", "n1")) == ["a", "c"]
    assert s.index_keys("by_node", "n1") == ["ns1/a", "ns2/c"]
    assert sorted(s.list_index_func_values("by_node")) == ["n1", "n2"]
    assert names(s.index("by_node", pod("x", node="n2"))) == ["b"]
    # moving a pod between nodes updates the index; an emptied bucket disappears
    s.update(pod("b", "ns1", node="n1"))
    assert names(s.by_index("by_node", "n1")) == ["a", "b", "c"]
    assert sorted(s.list_index_func_values("by_node")) == ["n1"]
    s.delete(pod("a", "ns1"))
    assert s.index_keys("by_node", "n1") == ["ns1/b", "ns2/c"]
    assert s.by_index("by_node", "nope") == []


def test_multi_value_index() -> None:
    """index_test.go: an object indexed under several values is found by any of them, once."""
    def by_label_values(obj: Any) -> list[str]:
        return sorted((obj.metadata.labels or {}).values())

    s = Indexer(indexers={"vals": by_label_values})
    s.add(pod("one", a="x", b="y"))
    s.add(pod("two", a="y"))
    s.add(pod("three", a="z"))
    assert sorted(o.metadata.name for o in s.index("vals", pod("q", a="x", b="y"))) == ["one", "two"]
    assert sorted(s.index_keys("vals", "y")) == ["default/one", "default/two"]


def test_unknown_index_raises() -> None:
    s = Indexer()
    with pytest.raises(KeyError, match="Index with name nope does not exist"):
        s.by_index("nope", "x")
    with pytest.raises(KeyError):
        s.index_keys("nope", "x")
    assert s.list_index_func_values("nope") == []


def test_add_indexers_indexes_existing_objects_and_rejects_conflicts() -> None:
    s = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    s.add(pod("a", node="n1"))
    s.add_indexers({"by_node": by_node})
    assert s.index_keys("by_node", "n1") == ["default/a"]
    with pytest.raises(ValueError, match="indexer conflict"):
        s.add_indexers({NAMESPACE_INDEX: meta_namespace_index_func})
    assert set(s.get_indexers()) == {NAMESPACE_INDEX, "by_node"}


def test_replace_rebuilds_indices() -> None:
    s = Indexer(indexers={"by_node": by_node})
    s.add(pod("a", node="n1"))
    s.replace([pod("b", node="n2")], "9")
    assert s.by_index("by_node", "n1") == [] and s.index_keys("by_node", "n2") == ["default/b"]


def test_thread_safe_store_keyed_api() -> None:
    t = ThreadSafeStore({"by_node": by_node})
    t.add("k1", pod("a", node="n1"))
    t.update("k1", pod("a", node="n2"))
    assert t.index_keys("by_node", "n2") == ["k1"] and t.index_keys("by_node", "n1") == []
    t.delete("k1")
    assert t.list_keys() == [] and "k1" not in t


def test_thread_safe_store_update_and_delete_return_the_previous_object() -> None:
    t = ThreadSafeStore({NAMESPACE_INDEX: meta_namespace_index_func})
    a1, a2 = pod("a", "ns1", rv="1"), pod("a", "ns2", rv="2")
    assert t.update("k", a1) is None
    assert t.update("k", a2) is a1
    assert t.index_keys(NAMESPACE_INDEX, "ns2") == ["k"] and t.index_keys(NAMESPACE_INDEX, "ns1") == []
    assert t.delete("k") is a2
    assert t.delete("k") is None
    assert t.list_index_func_values(NAMESPACE_INDEX) == []


KEY_INPUTS = [
    pod("a", "ns1"), Pod(metadata=ObjectMeta(name="cluster-wide")), dict_pod("a", "ns1"), {"metadata": {"name": "n"}},
    {}, DeletedFinalStateUnknown("ns1/gone", None), DeletedFinalStateUnknown("ns1/gone", pod("gone", "ns1")),
    "explicit/key",
]
KEY_INPUT_IDS = ["struct", "cluster-scoped-struct", "dict", "cluster-scoped-dict", "empty-dict", "tombstone",
                 "tombstone-with-object", "explicit-key"]


@pytest.mark.parametrize("resource", [Pod, "pods"], ids=["struct-resource", "dict-resource"])
@pytest.mark.parametrize("obj", KEY_INPUTS, ids=KEY_INPUT_IDS)
def test_key_func_for_any_resource_matches_the_general_key_func(resource: Any, obj: Any) -> None:
    # the specialisation is a speed guess: right or wrong, the key is the general function's
    assert key_func_for(resource)(obj) == deletion_handling_meta_namespace_key_func(obj)


@pytest.mark.parametrize(("obj", "expected"), [
    (pod("a", "ns1"), ["ns1"]),
    (Pod(metadata=ObjectMeta(name="cluster-wide")), [""]),
    (Pod(), [""]),
    (dict_pod("a", "ns2"), ["ns2"]),
    ({"metadata": {"name": "n"}}, [""]),
], ids=["struct", "cluster-scoped-struct", "struct-without-metadata", "dict", "cluster-scoped-dict"])
def test_namespace_index_func(obj: Any, expected: list[str]) -> None:
    assert meta_namespace_index_func(obj) == expected


# --- listers ----------------------------------------------------------------------------------------

def _pods_lister(objs: list[Any], *, namespace_index: bool = True) -> Lister[Any]:
    s = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func} if namespace_index else None)
    for o in objs:
        s.add(o)
    return Lister.for_resource(s, Pod)


PODS = [pod("a", "ns1", app="web", tier="fe"), pod("b", "ns1", app="db"), pod("c", "ns2", app="web")]


@pytest.mark.parametrize(("selector", "names"), [
    (None, ["a", "b", "c"]),
    ("", ["a", "b", "c"]),
    ("app=web", ["a", "c"]),
    ("app in (db,web),tier", ["a"]),
    ("!tier", ["b", "c"]),
    (parse_selector("app!=web"), ["b"]),
], ids=["none", "empty", "equality", "set-and-exists", "not-exists", "selector-object"])
def test_lister_list_with_label_selectors(selector: Any, names: list[str]) -> None:
    assert [p.metadata.name for p in _pods_lister(PODS).list(selector)] == names


@pytest.mark.parametrize("namespace_index", [True, False], ids=["indexed", "scan"])
def test_namespace_lister(namespace_index: bool) -> None:
    lister = _pods_lister(PODS, namespace_index=namespace_index)
    assert [p.metadata.name for p in lister.namespace("ns1").list()] == ["a", "b"]
    assert [p.metadata.name for p in lister.namespace("ns1").list("app=web")] == ["a"]
    assert [p.metadata.name for p in lister.namespace("").list("app=web")] == ["a", "c"]
    assert lister.namespace("ns2").get("c") is PODS[2]


def test_lister_get_missing_is_not_found() -> None:
    lister = _pods_lister(PODS)
    with pytest.raises(NotFound) as e:
        lister.namespace("ns1").get("c")
    assert e.value.message == 'pods "c" not found'
    assert e.value.status.code == 404 and e.value.status.details is not None
    assert e.value.status.details.name == "c"


def test_cluster_scoped_lister_get() -> None:
    s = Indexer()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    s.add(node)
    lister = Lister.for_resource(s, "nodes")
    assert lister.get("n1") is node
    with pytest.raises(NotFound, match='nodes "n2" not found'):
        lister.get("n2")


@pytest.mark.parametrize(("resource", "expected"), [
    (Pod, ("", "pods")), ("deployments", ("apps", "deployments")), ("deploy", ("apps", "deployments")),
    ("widgets.example.com", ("example.com", "widgets")),
], ids=["struct", "plural", "short-name", "custom-resource"])
def test_group_resource_of(resource: Any, expected: tuple[str, str]) -> None:
    assert group_resource_of(resource) == expected
