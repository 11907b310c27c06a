"""Pruning of unknown fields (apiextensions-apiserver schema/pruning), for CRs and built-in kinds."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.crd import prune, unknown_fields

STR = {"type": "string"}

CR_SCHEMA = Schema.of({
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "labels": {"type": "object", "additionalProperties": STR},
                "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
                "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "mixed": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"known": {"type": "object", "properties": {"a": STR}}},
                },
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object", "properties": {"x": STR}}},
                },
                "nested": {
                    "type": "object",
                    "additionalProperties": {"type": "object", "properties": {"v": STR}},
                },
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
    },
})

CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[str]]] = [
    (
        "nothing-unknown",
        {"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"replicas": 1}},
        {"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"replicas": 1}},
        [],
    ),
    (
        "nested-unknown",
        {"spec": {"replicas": 1, "foo": 2, "ports": [{"port": 1, "bar": 1}, {"port": 2}]}, "extra": True},
        {"spec": {"replicas": 1, "ports": [{"port": 1}, {"port": 2}]}},
        ["extra", "spec.foo", "spec.ports[0].bar"],
    ),
    (
        "unknown-object-subtree-removed-whole",
        {"spec": {"foo": {"deep": {"er": 1}}}},
        {"spec": {}},
        ["spec.foo"],
    ),
    (
        "additional-properties-map-kept",
        {"spec": {"labels": {"a": "b", "c": "d"}, "nested": {"k": {"v": "1", "w": "2"}}}},
        {"spec": {"labels": {"a": "b", "c": "d"}, "nested": {"k": {"v": "1"}}}},
        ["spec.nested.k.w"],
    ),
    (
        "preserve-unknown-subtree-kept",
        {"spec": {"raw": {"anything": {"goes": [1, {"x": 2}]}}}},
        {"spec": {"raw": {"anything": {"goes": [1, {"x": 2}]}}}},
        [],
    ),
    (
        "preserve-unknown-with-properties-prunes-inside-known",
        {"spec": {"mixed": {"free": 1, "known": {"a": "x", "b": "y"}}}},
        {"spec": {"mixed": {"free": 1, "known": {"a": "x"}}}},
        ["spec.mixed.known.b"],
    ),
    (
        "embedded-resource-keeps-type-and-object-meta",
        {"spec": {"template": {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t", "bogus": 1},
            "spec": {"x": "1", "y": "2"}, "other": 3,
        }}},
        {"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}, "spec": {"x": "1"}}}},
        ["spec.template.metadata.bogus", "spec.template.other", "spec.template.spec.y"],
    ),
    (
        "root-metadata-reduced-to-object-meta",
        {"metadata": {"name": "a", "labels": {"x": "y"}, "foo": 1,
                      "ownerReferences": [{"uid": "u", "what": 1}]}},
        {"metadata": {"name": "a", "labels": {"x": "y"}, "ownerReferences": [{"uid": "u"}]}},
        ["metadata.foo", "metadata.ownerReferences[0].what"],
    ),
    (
        "wrong-shape-scalar-kept-object-emptied",
        {"spec": {"ports": "not-a-list", "replicas": {"a": 1}}},
        {"spec": {"ports": "not-a-list", "replicas": {}}},
        ["spec.replicas.a"],
    ),
]


@pytest.mark.parametrize(("obj", "want", "paths"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_prune_custom_resource(obj: dict[str, Any], want: dict[str, Any], paths: list[str]) -> None:
    before = copy.deepcopy(obj)
    assert unknown_fields(obj, CR_SCHEMA) == paths
    assert obj == before, "unknown_fields must not mutate"
    assert prune(obj, CR_SCHEMA) == paths
    assert obj == want


def test_not_resource_root_prunes_type_meta_silently() -> None:
    obj = {"apiVersion": "v1", "spec": {"replicas": 1}}
    assert prune(obj, CR_SCHEMA, is_resource_root=False) == []
    assert obj == {"spec": {"replicas": 1}}


def test_prune_does_not_touch_schema() -> None:
    raw = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
    snapshot = copy.deepcopy(raw)
    prune({"a": {"b": 1}}, Schema.of(raw))
    assert raw == snapshot


POD_CASES = [
    ("clean", {"spec": {"containers": [{"name": "c", "image": "i"}]}}, []),
    ("container-field", {"spec": {"containers": [{"name": "c", "image": "i", "foo": 1}]}}, ["spec.containers[0].foo"]),
    ("second-container", {"spec": {"containers": [{"name": "a"}, {"name": "b", "imagee": "x"}]}},
     ["spec.containers[1].imagee"]),
    ("metadata", {"metadata": {"name": "p", "lables": {"a": "b"}}}, ["metadata.lables"]),
    ("resources-quantity", {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]}}, []),
    ("top-level", {"spec": {}, "spex": {}}, ["spex"]),
    ("status", {"status": {"phase": "Running", "phaze": "x"}}, ["status.phaze"]),
]


@pytest.mark.parametrize(("body", "paths"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES])
def test_unknown_fields_of_builtin_pod(body: dict[str, Any], paths: list[str]) -> None:
    pod = builtin_schemas().get("io.k8s.api.core.v1.Pod")
    obj = {"apiVersion": "v1", "kind": "Pod", **body}
    assert unknown_fields(obj, pod) == paths
    prune(obj, pod)
    assert unknown_fields(obj, pod) == []


def test_builtin_raw_extension_preserved() -> None:
    """RawExtension / FieldsV1 are preserve-unknown-fields: nothing below them is unknown."""
    pod = builtin_schemas().get("io.k8s.api.core.v1.Pod")
    obj = {"metadata": {"managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {"f:x": {}}}}]}}
    assert unknown_fields(obj, pod) == []
