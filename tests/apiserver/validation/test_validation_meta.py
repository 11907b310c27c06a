"""ObjectMeta rules (apimachinery objectmeta.go) through the public entry points."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api import names
from kubelite.apiserver.validation import validate_create, validate_update

Obj = dict[str, Any]


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def cm(**meta: Any) -> Obj:
    return {"metadata": {"name": "c", "namespace": "default", **meta}, "data": {}}


NAME_CASES: list[tuple[str, str, str, Obj, list[str]]] = [
    ("namespace-is-dns-label", "", "Namespace", {"metadata": {"name": "a.b"}},
     [f'metadata.name: Invalid value: "a.b": {names.is_dns1123_label("a.b")[0]}']),
    ("service-is-dns1035", "", "Service",
     {"metadata": {"name": "1svc", "namespace": "d"},
      "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "type": "ClusterIP",
               "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"}},
     [f'metadata.name: Invalid value: "1svc": {names.is_dns1035_label("1svc")[0]}']),
    ("configmap-is-subdomain-ok", "", "ConfigMap", cm(name="a.b-c"), []),
    ("configmap-upper", "", "ConfigMap", cm(name="A"),
     [f'metadata.name: Invalid value: "A": {names.is_dns1123_subdomain("A")[0]}']),
    ("name-required", "", "ConfigMap", cm(name=""),
     ["metadata.name: Required value: name or generateName is required"]),
    ("generate-name-checked", "", "ConfigMap", cm(generateName="Web-"),
     [f'metadata.generateName: Invalid value: "Web-": {names.is_dns1123_subdomain("Wea")[0]}']),
    ("namespace-required", "", "ConfigMap", {"metadata": {"name": "c"}}, ["metadata.namespace: Required value"]),
    ("namespace-forbidden-cluster-scoped", "scheduling.k8s.io", "PriorityClass",
     {"metadata": {"name": "p", "namespace": "d"}, "value": 1, "preemptionPolicy": "Never"},
     ["metadata.namespace: Forbidden: not allowed on this type"]),
    ("bad-label", "", "ConfigMap", cm(labels={"a/b/c": "v"}),
     [f'metadata.labels: Invalid value: "a/b/c": {names.is_qualified_name("a/b/c")[0]}']),
    ("negative-generation", "", "ConfigMap", cm(generation=-1),
     ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
    ("finalizer-name", "", "ConfigMap", cm(finalizers=["a/b/c"]),
     [f'metadata.finalizers: Invalid value: "a/b/c": {names.is_qualified_name("a/b/c")[0]}']),
    ("finalizers-orphan-and-foreground", "", "ConfigMap", cm(finalizers=["orphan", "foregroundDeletion"]),
     ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and '
      "foregroundDeletion cannot be both set"]),
    ("owner-reference-fields", "", "ConfigMap", cm(ownerReferences=[{"apiVersion": "", "kind": "", "name": "", "uid": ""}]),
     ['metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty']),
    ("two-controllers", "", "ConfigMap", cm(ownerReferences=[
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": True},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": True}]),
     ['metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1",'
      '"controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2","controller":true}]: '
      'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and '
      "ReplicaSet/b"]),
]


@pytest.mark.parametrize(("group", "kind", "obj", "want"), [c[1:] for c in NAME_CASES], ids=[c[0] for c in NAME_CASES])
def test_object_meta_create(group: str, kind: str, obj: Obj, want: list[str]) -> None:
    assert strs(validate_create(group, kind, obj)) == want


UPDATE_CASES: list[tuple[str, Obj, Obj, list[str]]] = [
    ("namespace-immutable", {"namespace": "other"}, {}, ['metadata.namespace: Invalid value: "other": field is immutable']),
    ("creation-timestamp", {"creationTimestamp": "2025-01-01T00:00:00Z"}, {"creationTimestamp": "2024-01-01T00:00:00Z"},
     ['metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable']),
    ("generation-decrement", {"generation": 1}, {"generation": 2},
     ["metadata.generation: Invalid value: 1: must not be decremented"]),
    ("new-finalizer-while-deleting", {"finalizers": ["a.io/x"], "deletionTimestamp": "t"}, {"deletionTimestamp": "t"},
     ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, '
      'found new finalizers []string{"a.io/x"}']),
    ("removing-finalizer-while-deleting-ok", {"deletionTimestamp": "t"}, {"deletionTimestamp": "t", "finalizers": ["a.io/x"]}, []),
    ("labels-may-change", {"labels": {"x": "y"}}, {}, []),
]


@pytest.mark.parametrize(("new_meta", "old_meta", "want"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_object_meta_update(new_meta: Obj, old_meta: Obj, want: list[str]) -> None:
    new = cm(**new_meta)
    old = cm(**old_meta)
    assert strs(validate_update("", "ConfigMap", new, old)) == want


def test_unknown_kind_gets_meta_rules_only() -> None:
    obj = {"metadata": {"name": "Bad"}, "spec": {"anything": True}}
    assert [e.field for e in validate_create("example.com", "Widget", obj)] == ["metadata.name"]
