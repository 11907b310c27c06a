"""FieldsV1 of objects, the managedFields wire form, capping and conflict errors.

Ported from apimachinery's managedfields/internal tests (managedfields_test.go, capmanagers_test.go,
conflict_test.go) and structured-merge-diff's typed/toset_test.go.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa import fields_v1
from kubelite.apiserver.ssa.managed_fields import (
    ManagerKey,
    VersionedSet,
    cap_update_managers,
    conflict_error,
    decode_managed_fields,
    encode_managed_fields,
)

SCHEMA = Schema.of({
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "selector": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}},
                },
                "containers": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "image": {"type": "string"},
                            "args": {"type": "array", "items": {"type": "string"}},
                            "ports": {
                                "type": "array",
                                "x-kubernetes-list-type": "map",
                                "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "containerPort": {"type": "integer"},
                                        "protocol": {"type": "string", "default": "TCP"},
                                    },
                                },
                            },
                        },
                    },
                },
                "tags": {"type": "array", "items": {"type": "string"}},
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "empty": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        },
    },
})


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        ({"metadata": {"labels": {"app": "web", "tier": "fe"}}}, {"f:metadata": {"f:labels": {"f:app": {}, "f:tier": {}}}}),
        (
            {"spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]}},
            {"f:spec": {"f:containers": {'k:{"name":"nginx"}': {".": {}, "f:image": {}, "f:name": {}}}}},
        ),
        (
            {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}},
            {"f:spec": {"f:containers": {'k:{"name":"c"}': {
                ".": {}, "f:name": {}, "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
            }}}},
        ),
        ({"metadata": {"finalizers": ["b", "a"]}}, {"f:metadata": {"f:finalizers": {'v:"a"': {}, 'v:"b"': {}}}}),
        ({"spec": {"tags": ["x", "y"]}}, {"f:spec": {"f:tags": {}}}),
        ({"spec": {"containers": [{"name": "c", "args": ["-v"]}]}}, {"f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:args": {}, "f:name": {}}}}}),
        ({"spec": {"selector": {"matchLabels": {"a": "b"}}}}, {"f:spec": {"f:selector": {}}}),
        ({"spec": {"config": {"a": {"b": 1}, "l": [1]}}}, {"f:spec": {"f:config": {"f:a": {".": {}, "f:b": {}}, "f:l": {}}}}),
        ({"spec": {"empty": {}}}, {"f:spec": {"f:empty": {}}}),
        ({"spec": {"replicas": None}}, {"f:spec": {"f:replicas": {}}}),
        ({"metadata": {"finalizers": []}}, {}),
        ({"spec": {"unknown": {"a": 1}}}, {"f:spec": {"f:unknown": {".": {}, "f:a": {}}}}),
        (
            {"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "a", "image": "2"}]}},
            {"f:spec": {"f:containers": {'k:{"name":"a"}': {}}}},
        ),
    ],
    ids=[
        "map", "associative-list", "multi-key-with-default", "set", "atomic-list-default", "atomic-list-nested",
        "atomic-map", "preserve-unknown-deduced", "empty-struct", "null", "empty-set-unowned",
        "undeclared-field-deduced", "duplicate-keys",
    ],
)
def test_fields_v1(obj: dict[str, Any], want: dict[str, Any]) -> None:
    assert fields_v1(obj, SCHEMA) == want


def test_fields_v1_without_schema_is_deduced() -> None:
    assert fields_v1({"a": {"b": [1, 2]}, "c": 1}, None) == {"f:a": {".": {}, "f:b": {}}, "f:c": {}}


def _key(manager: str, op: str = "Update", version: str = "v1", sub: str = "") -> ManagerKey:
    return ManagerKey(manager, op, version if op == "Update" else "", sub)


def test_encode_orders_appliers_then_time_then_manager() -> None:
    managers = {
        _key("z"): VersionedSet({"f:a": {}}, "v1", False),
        _key("b", "Apply"): VersionedSet({"f:b": {}}, "v1", True),
        _key("a"): VersionedSet({"f:c": {}}, "v1", False),
        _key("y", sub="status"): VersionedSet({"f:status": {}}, "v1", False),
    }
    times = {
        _key("z"): "2024-01-01T00:00:00Z", _key("b", "Apply"): "2024-01-02T00:00:00Z",
        _key("a"): "2024-01-01T00:00:00Z", _key("y", sub="status"): "2023-12-31T00:00:00Z",
    }
    entries = encode_managed_fields(managers, times)
    assert [(e["manager"], e["operation"]) for e in entries] == [("b", "Apply"), ("y", "Update"), ("a", "Update"), ("z", "Update")]
    assert entries[1] == {
        "manager": "y", "operation": "Update", "apiVersion": "v1", "time": "2023-12-31T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}, "subresource": "status",
    }
    assert "subresource" not in entries[0]


def test_decode_round_trip() -> None:
    entries = [
        {"manager": "m", "operation": "Apply", "apiVersion": "v1", "time": "t", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}},
        {"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:b": {}}, "subresource": "status"},
    ]
    managers, times = decode_managed_fields(entries, trusted=False)
    assert managers == {
        _key("m", "Apply"): VersionedSet({"f:a": {}}, "v1", True),
        _key("m", sub="status"): VersionedSet({"f:b": {}}, "v1", False),
    }
    assert encode_managed_fields(managers, times) == entries


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"manager": "m", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"}, "operation must be `Apply` or `Update`"),
        ({"manager": "m", "operation": "Update", "fieldsType": "FieldsV1"}, "apiVersion must not be empty"),
        ({"manager": "m", "operation": "Update", "apiVersion": "v1"}, "missing fieldsType in managed fields entry 0"),
        ({"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"}, "invalid fieldsType 'FieldsV2' in managed fields entry 0"),
    ],
    ids=["operation", "api-version", "missing-fields-type", "bad-fields-type"],
)
def test_decode_rejects(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_managed_fields([entry], trusted=True)


def test_cap_merges_oldest_updaters_into_ancient_changes() -> None:
    managers = {_key(f"m{i:02d}"): VersionedSet({f"f:f{i}": {}}, "v1", False) for i in range(12)}
    managers[_key("applier", "Apply")] = VersionedSet({"f:x": {}}, "v1", True)
    times: dict[ManagerKey, str | None] = {k: f"2024-01-01T00:00:{i:02d}Z" for i, k in enumerate(managers)}
    cap_update_managers(managers, times, 10)
    updaters = [k for k, v in managers.items() if not v.applied]
    assert len(updaters) == 10
    bucket = _key("ancient-changes")
    assert managers[bucket].fields == {"f:f0": {}, "f:f1": {}, "f:f2": {}}
    assert times[bucket] == "2024-01-01T00:00:02Z"
    assert _key("m00") not in managers
    assert _key("applier", "Apply") in managers


def test_cap_keeps_buckets_per_version() -> None:
    managers = {_key(f"m{i}", version=f"v{i % 2}"): VersionedSet({f"f:f{i}": {}}, f"v{i % 2}", False) for i in range(4)}
    times: dict[ManagerKey, str | None] = {k: f"2024-01-01T00:00:0{i}Z" for i, k in enumerate(managers)}
    cap_update_managers(managers, times, 2)
    assert managers == {
        _key("ancient-changes", version="v0"): VersionedSet({"f:f0": {}, "f:f2": {}}, "v0", False),
        _key("ancient-changes", version="v1"): VersionedSet({"f:f1": {}, "f:f3": {}}, "v1", False),
    }


def test_conflict_error_single() -> None:
    err = conflict_error({_key("kubectl-edit", version="apps/v1"): {"f:spec": {"f:replicas": {}}}})
    assert (err.status.code, err.status.reason) == (409, "Conflict")
    assert err.message == 'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas'
    assert [(c.reason, c.message, c.field) for c in err.causes] == [
        ("FieldManagerConflict", 'conflict with "kubectl-edit" using apps/v1', ".spec.replicas"),
    ]


def test_conflict_error_several_grouped_by_sorted_manager() -> None:
    err = conflict_error({
        _key("z-updater", version="apps/v1"): {"f:spec": {"f:replicas": {}}},
        _key("a-applier", "Apply"): {"f:spec": {"f:paused": {}, "f:template": {"f:spec": {"f:x": {}}}}},
        _key("kubelet", sub="status"): {"f:status": {"f:phase": {}}},
    })
    assert err.message == (
        "Apply failed with 4 conflicts: "
        'conflicts with "a-applier":\n- .spec.paused\n- .spec.template.spec.x\n'
        'conflicts with "kubelet" with subresource "status" using v1:\n- .status.phase\n'
        'conflicts with "z-updater" using apps/v1:\n- .spec.replicas'
    )
    assert [c.field for c in err.causes] == [".spec.paused", ".spec.template.spec.x", ".status.phase", ".spec.replicas"]
    assert err.causes[0].message == 'conflict with "a-applier"'
