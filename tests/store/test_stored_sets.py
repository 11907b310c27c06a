"""The labels and selectable fields the store keeps per version (issue #17, memory per pod).

A version's labels are one shared, read-only dict per distinct label set (the replicas of a template hold
one), and its selectable fields a :class:`~kubelite.store.compact.FieldSet` over a label tuple shared per kind.
Both must select exactly as the plain dicts they replace did (upstream's ``labels.Set`` and ``fields.Set``:
a missing field reads as ``""``), and nobody may change a stored version through them.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from kubelite.api.fields import object_fields, parse_field_selector
from kubelite.api.labels import parse_selector
from kubelite.api.views import SharedViewMutated
from kubelite.store import Store
from kubelite.store.compact import FieldSet, selectable


def _pod(name: str, labels: dict[str, str], node: str = "", phase: str = "Pending") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns", "labels": labels},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": phase}}


def _store() -> tuple[Store, Any]:
    store = Store()
    table = store.add_table("", "pods", namespaced=True, fields_fn=lambda o: object_fields("", "pods", o),
                            trigger_field="spec.nodeName")
    return store, table


def test_replicas_with_equal_labels_share_one_read_only_dict() -> None:
    store, table = _store()
    body = {"app": "web", "pod-template-hash": "abc"}
    a = store.create(table, _pod("a", dict(body)))
    b = store.create(table, _pod("b", dict(body)))
    c = store.create(table, _pod("c", {"app": "db"}))
    assert a.labels is b.labels and a.labels == body
    assert c.labels is not a.labels and c.labels == {"app": "db"}
    with pytest.raises(SharedViewMutated):
        a.labels["app"] = "evil"  # type: ignore[index]
    with pytest.raises(SharedViewMutated):
        a.labels.update(app="evil")  # type: ignore[union-attr]
    assert b.labels == body and parse_selector("app=web").matches(b.labels)


def test_the_request_body_keeps_no_hold_on_the_stored_labels() -> None:
    store, table = _store()
    pod = _pod("a", {"app": "web"})
    stored = store.create(table, pod)
    pod["metadata"]["labels"]["app"] = "changed"  # the writer's dict is its own
    assert stored.labels == {"app": "web"}
    assert store.list(table, predicate=lambda o: parse_selector("app=web").matches(o.labels)).items == [stored]


FIELDS = {"metadata.name": "a", "metadata.namespace": "ns", "spec.nodeName": "", "status.phase": "Running"}


@pytest.mark.parametrize(("selector", "selected"), [
    ("status.phase=Running", True),
    ("status.phase!=Running", False),
    ("spec.nodeName=", True),  # empty: reads as ""
    ("spec.nodeName!=", False),
    ("spec.nodeName=node-1", False),
    ("spec.schedulerName=", True),  # not a label of the set at all: ""
    ("metadata.name=a,metadata.namespace=ns", True),
    ("metadata.name=a,status.phase=Failed", False),
], ids=["equal", "not-equal", "empty-equals-empty", "empty-not-empty", "empty-vs-value", "absent-reads-empty",
        "two-terms", "one-term-fails"])
def test_a_field_set_selects_as_the_dict_it_replaces(selector: str, selected: bool) -> None:
    plain = {k: v for k, v in FIELDS.items() if v != ""}
    fs = selectable(FIELDS)
    sel = parse_field_selector(selector)
    assert sel.matches(fs) is sel.matches(plain) is selected


def test_a_field_set_is_a_read_only_mapping_of_its_non_empty_fields() -> None:
    fs = selectable(FIELDS)
    assert fs == {"metadata.name": "a", "metadata.namespace": "ns", "status.phase": "Running"}
    assert dict(fs) == fs and len(fs) == 3 and "spec.nodeName" not in fs and "status.phase" in fs
    assert fs["status.phase"] == "Running" and fs.get("spec.nodeName", "") == "" and fs.get("nope") is None
    with pytest.raises(KeyError):
        fs["spec.nodeName"]
    assert not hasattr(fs, "__setitem__") and not hasattr(fs, "update")
    with pytest.raises(AttributeError):
        fs.extra = 1  # type: ignore[attr-defined]
    other = selectable({**FIELDS, "status.phase": "Failed"})
    assert other != fs and isinstance(other, FieldSet) and other._index is fs._index  # one label tuple per kind


def test_a_field_set_is_smaller_than_the_dict_it_replaces() -> None:
    event = {f"involvedObject.{k}": f"value-{k}" for k in ("kind", "namespace", "name", "uid", "apiVersion",
                                                        "resourceVersion", "fieldPath")}
    event.update({"metadata.name": "n", "metadata.namespace": "ns", "reason": "Pulled", "type": "Normal",
                  "source": "kubelet", "reportingComponent": "kubelet"})
    fs = selectable(event)
    assert sys.getsizeof(fs) + sys.getsizeof(fs._values) < sys.getsizeof(dict(event)) / 2


def test_a_status_write_that_keeps_the_fields_shares_them_with_the_version_before() -> None:
    store, table = _store()
    a0 = store.create(table, _pod("a", {"app": "web"}, node="n1", phase="Running"))
    a1 = store.update(table, _pod("a", {"app": "web"}, node="n1", phase="Running"))
    a2 = store.update(table, _pod("a", {"app": "web"}, node="n1", phase="Succeeded"))
    assert a1.fields is a0.fields and a1.labels is a0.labels
    assert a2.fields is not a1.fields and a2.fields == {**a1.fields, "status.phase": "Succeeded"}
    assert a2.trigger == "n1"


def test_every_version_of_an_object_holds_the_tables_one_key_and_namespace_string() -> None:
    store, table = _store()
    a0 = store.create(table, _pod("a", {"app": "web"}))
    (table_key,) = [k for k in table.objects if k == "ns/a"]
    a1 = store.update(table, _pod("a", {"app": "web"}, phase="Running"))
    final = store.delete(table, "ns", "a")
    assert a0.key is table_key and a1.key is table_key and final.key is table_key
    b = store.create(table, _pod("b", {"app": "web"}))
    assert b.namespace is a0.namespace  # interned
