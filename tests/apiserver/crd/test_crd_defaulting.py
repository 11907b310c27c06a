"""Structural defaulting (apiextensions-apiserver schema/defaulting/algorithm.go)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.schema import Schema
from kubelite.apiserver.crd import apply_defaults, prune_non_nullable_nulls

SCHEMA = Schema.of({
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "color": {"type": "string", "default": "red"},
                "maybe": {"type": "string", "nullable": True, "default": "d"},
                "strategy": {
                    "type": "object",
                    "properties": {"type": {"type": "string", "default": "Rolling"}, "max": {"type": "integer"}},
                },
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "default": {"port": 80},
                        "properties": {"port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"}},
                    },
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "v"}},
                "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
            },
        },
    },
})

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("absent-spec-created-then-filled", {}, {"spec": {"replicas": 1, "color": "red", "maybe": "d", "tags": ["a"]}}),
    (
        "set-values-not-overridden",
        {"spec": {"replicas": 5, "color": "blue", "maybe": "x", "tags": []}},
        {"spec": {"replicas": 5, "color": "blue", "maybe": "x", "tags": []}},
    ),
    (
        "null-non-nullable-defaulted-null-nullable-kept",
        {"spec": {"replicas": None, "maybe": None}},
        {"spec": {"replicas": 1, "color": "red", "maybe": None, "tags": ["a"]}},
    ),
    (
        "nested-object-only-when-present",
        {"spec": {"strategy": {"max": 2}}},
        {"spec": {"replicas": 1, "color": "red", "maybe": "d", "tags": ["a"], "strategy": {"max": 2, "type": "Rolling"}}},
    ),
    (
        "inside-array-items-and-null-items",
        {"spec": {"ports": [{"port": 1}, None, {"port": 2, "protocol": "UDP"}]}},
        {"spec": {
            "replicas": 1, "color": "red", "maybe": "d", "tags": ["a"],
            "ports": [{"port": 1, "protocol": "TCP"}, {"port": 80, "protocol": "TCP"}, {"port": 2, "protocol": "UDP"}],
        }},
    ),
    (
        "additional-properties-null-defaulted",
        {"spec": {"labels": {"a": None, "b": "x"}}},
        {"spec": {"replicas": 1, "color": "red", "maybe": "d", "tags": ["a"], "labels": {"a": "v", "b": "x"}}},
    ),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_apply_defaults(obj: dict[str, Any], want: dict[str, Any]) -> None:
    apply_defaults(obj, SCHEMA)
    assert obj == want


def test_defaults_are_deep_copies() -> None:
    a: dict[str, Any] = {}
    b: dict[str, Any] = {}
    apply_defaults(a, SCHEMA)
    apply_defaults(b, SCHEMA)
    a["spec"]["tags"].append("mutated")
    assert b["spec"]["tags"] == ["a"]
    assert SCHEMA.property("spec").property("tags").default == ["a"]  # type: ignore[union-attr]


def test_defaulting_is_idempotent() -> None:
    obj: dict[str, Any] = {"spec": {"ports": [{}]}}
    apply_defaults(obj, SCHEMA)
    once = repr(obj)
    apply_defaults(obj, SCHEMA)
    assert repr(obj) == once


NULL_CASES = [
    ("non-nullable-no-default-dropped", {"spec": {"strategy": {"max": None}}}, {"spec": {"strategy": {}}}),
    ("defaulted-null-left-for-defaulting", {"spec": {"replicas": None}}, {"spec": {"replicas": None}}),
    ("nullable-kept", {"spec": {"maybe": None}}, {"spec": {"maybe": None}}),
    ("unknown-null-kept", {"spec": {"zzz": None}}, {"spec": {"zzz": None}}),
    ("in-array", {"spec": {"ports": [{"port": None}]}}, {"spec": {"ports": [{}]}}),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in NULL_CASES], ids=[c[0] for c in NULL_CASES])
def test_prune_non_nullable_nulls(obj: dict[str, Any], want: dict[str, Any]) -> None:
    prune_non_nullable_nulls(obj, SCHEMA)
    assert obj == want
