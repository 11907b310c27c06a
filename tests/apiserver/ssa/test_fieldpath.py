"""Field sets and path elements (ported from structured-merge-diff fieldpath/*_test.go)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.apiserver.ssa.fieldpath import (
    PathElement,
    difference,
    from_fields_v1,
    intersection,
    key_pe,
    path_string,
    paths,
    recursive_difference,
    to_fields_v1,
    union,
    value_pe,
)


@pytest.mark.parametrize(
    ("fields", "want"),
    [
        ({"name": "nginx"}, 'k:{"name":"nginx"}'),
        ({"protocol": "TCP", "containerPort": 80}, 'k:{"containerPort":80,"protocol":"TCP"}'),
        ({"port": 80.0}, 'k:{"port":80}'),
        ({"name": "<a&b>"}, 'k:{"name":"\\u003ca\\u0026b\\u003e"}'),
    ],
    ids=["one-key", "keys-sorted", "integral-float", "html-escaped"],
)
def test_key_pe(fields: dict[str, Any], want: str) -> None:
    assert key_pe(fields) == want


@pytest.mark.parametrize(
    ("serialized", "want"),
    [
        ("f:spec", ".spec"),
        ('k:{"name":"nginx"}', '[name="nginx"]'),
        ('k:{"protocol":"TCP","containerPort":80}', '[containerPort=80,protocol="TCP"]'),
        ('v:"foo"', '[="foo"]'),
        ("v:1.5", "[=1.5]"),
        ("v:1000000.5", "[=1.0000005e+06]"),
        ("v:true", "[=true]"),
        ("i:3", "[3]"),
    ],
    ids=["field", "key", "keys-resorted", "string-value", "float", "float-exponent", "bool", "index"],
)
def test_path_element_string(serialized: str, want: str) -> None:
    assert str(PathElement.parse(serialized)) == want


@pytest.mark.parametrize(
    "bad", ["x", "fspec", 'k:{"name"', "k:[1]", "z:foo", "i:x"], ids=["short", "no-colon", "bad-json", "key-not-object", "unknown", "bad-index"]
)
def test_path_element_parse_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        PathElement.parse(bad)


def test_path_string() -> None:
    assert path_string(["f:spec", "f:containers", 'k:{"name":"nginx"}', "f:image"]) == (
        '.spec.containers[name="nginx"].image'
    )


A = {"f:a": {}, "f:b": {".": {}, "f:c": {}}, "f:d": {"f:e": {}}}
B = {"f:b": {}, "f:d": {"f:e": {}, "f:f": {}}, "f:g": {}}


@pytest.mark.parametrize(
    ("op", "a", "b", "want"),
    [
        (union, A, B, {"f:a": {}, "f:b": {".": {}, "f:c": {}}, "f:d": {"f:e": {}, "f:f": {}}, "f:g": {}}),
        (union, {}, B, B),
        (union, {"f:x": {"f:y": {}}}, {"f:x": {}}, {"f:x": {".": {}, "f:y": {}}}),
        (intersection, A, B, {"f:b": {}, "f:d": {"f:e": {}}}),
        (intersection, {"f:x": {"f:y": {}}}, {"f:x": {}}, {}),
        (difference, A, B, {"f:a": {}, "f:b": {"f:c": {}}}),
        (difference, B, A, {"f:d": {"f:f": {}}, "f:g": {}}),
        (difference, {"f:x": {".": {}, "f:y": {}}}, {"f:x": {"f:y": {}}}, {"f:x": {}}),
        (recursive_difference, A, {"f:b": {}}, {"f:a": {}, "f:d": {"f:e": {}}}),
        (recursive_difference, A, {"f:d": {"f:e": {}}}, {"f:a": {}, "f:b": {".": {}, "f:c": {}}}),
    ],
    ids=[
        "union", "union-empty", "union-member-and-prefix", "intersection", "intersection-prefix-only",
        "difference", "difference-reverse", "difference-keeps-children-member", "recursive-difference",
        "recursive-difference-child",
    ],
)
def test_set_algebra(op: Any, a: dict[str, Any], b: dict[str, Any], want: dict[str, Any]) -> None:
    assert op(a, b) == want


def test_operations_do_not_mutate_inputs() -> None:
    a = msgspec.json.decode(msgspec.json.encode(A))
    b = msgspec.json.decode(msgspec.json.encode(B))
    for op in (union, intersection, difference, recursive_difference):
        op(a, b)
    assert (a, b) == (A, B)


def test_to_fields_v1_orders_like_upstream() -> None:
    trie = {
        "i:1": {},
        'v:"b"': {},
        "v:2": {},
        'k:{"port":10}': {"f:x": {}, ".": {}},
        'k:{"port":9}': {},
        "f:b": {},
        "f:a": {"f:z": {}, "f:y": {}},
    }
    out = to_fields_v1(trie)
    assert list(out) == ["f:a", "f:b", 'k:{"port":9}', 'k:{"port":10}', "v:2", 'v:"b"', "i:1"]
    assert list(out["f:a"]) == ["f:y", "f:z"]
    assert list(out['k:{"port":10}']) == [".", "f:x"]


def test_paths_iterate_members_before_subtrees() -> None:
    trie = {"f:b": {"f:x": {}}, "f:c": {}, "f:a": {".": {}, "f:y": {}}}
    assert [path_string(p) for p in paths(trie)] == [".a", ".c", ".a.y", ".b.x"]


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ({"f:a": {}}, {"f:a": {}}),
        ({'k:{"protocol":"TCP","port":80}': {}}, {'k:{"port":80,"protocol":"TCP"}': {}}),
        ({"f:a": {".": {}}}, {"f:a": {}}),
        ({"x:future": {}, "f:a": {}}, {"f:a": {}}),
    ],
    ids=["plain", "key-canonicalised", "lone-dot", "unknown-type-dropped"],
)
def test_from_fields_v1(raw: dict[str, Any], want: dict[str, Any]) -> None:
    assert from_fields_v1(raw) == want


def test_from_fields_v1_rejects_malformed() -> None:
    with pytest.raises(ValueError):
        from_fields_v1({"k:{": {}})
    with pytest.raises(ValueError):
        from_fields_v1(["f:a"])


def test_value_pe_set_element() -> None:
    assert value_pe("example.com/finalizer") == 'v:"example.com/finalizer"'
