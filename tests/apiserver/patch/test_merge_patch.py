"""JSON merge patch: RFC 7386 appendix A, evanphx/json-patch v4 quirks, and the create/apply round trip."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.apiserver.patch import apply_merge_patch, apply_merge_patch_shared, create_merge_patch
from kubelite.errors import BadRequest, InternalError

# RFC 7386 appendix A, in order. The two examples with a null or scalar patch document are below:
# kube-apiserver (evanphx MergePatch) rejects those with 400 instead of returning the patch.
RFC7386_EXAMPLES: list[tuple[Any, Any, Any]] = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(
    ("original", "patch", "expected"), RFC7386_EXAMPLES, ids=[f"A.{i + 1}" for i in range(len(RFC7386_EXAMPLES))]
)
def test_rfc7386_appendix_a(original: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch(original, patch) == expected


@pytest.mark.parametrize("patch", [None, "bar", 5, True], ids=["null", "string", "number", "bool"])
def test_non_object_patch_is_bad_request(patch: Any) -> None:
    with pytest.raises(BadRequest) as exc:
        apply_merge_patch({"a": "foo"}, patch)
    assert exc.value.status.code == 400
    assert exc.value.message == "Invalid JSON Patch"


def test_null_document_is_an_internal_error() -> None:
    # ErrBadJSONDoc is not a Status in handlers/patch.go: it reaches the client as a 500.
    with pytest.raises(InternalError) as exc:
        apply_merge_patch(None, {"a": 1})
    assert (exc.value.status.code, exc.value.status.reason, exc.value.message) == (500, "", "Invalid JSON Document")


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        # A new key takes the patch value with null object members pruned, inside arrays too.
        ({}, {"a": [{"b": None, "c": 1}, None]}, {"a": [{"c": 1}, None]}),
        ({"a": None}, {"a": {"b": None, "c": {"d": None}}}, {"a": {"c": {}}}),
        ({"a": 1}, {"a": {"b": None, "c": 2}}, {"a": {"c": 2}}),
        # An array replacing an object is taken verbatim, nulls and all.
        ({"a": {"x": 1}}, {"a": [{"b": None}]}, {"a": [{"b": None}]}),
        ({"a": {"b": {"c": 1, "d": 2}}}, {"a": {"b": {"c": None}}}, {"a": {"b": {"d": 2}}}),
        ({"metadata": {"labels": {"app": "x"}}}, {"metadata": {"labels": None}}, {"metadata": {}}),
        ({"a": 1}, {}, {"a": 1}),
    ],
    ids=["prune-in-array", "prune-into-null", "prune-into-scalar", "array-over-object", "nested-delete",
         "delete-map", "empty-patch"],
)
def test_evanphx_null_handling(original: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch(original, patch) == expected


def _containers(value: Any) -> list[Any]:
    found = []
    if isinstance(value, dict | list):
        found.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            found.extend(_containers(child))
    return found


def test_inputs_untouched_and_result_shares_no_container() -> None:
    original = {"spec": {"template": {"labels": {"a": "1"}}, "list": [{"x": 1}]}, "keep": {"deep": [1]}}
    patch = {"spec": {"template": {"labels": {"b": "2"}}, "new": {"n": [{"m": None}]}}, "list2": [1]}
    before = (copy.deepcopy(original), copy.deepcopy(patch))
    result = apply_merge_patch(original, patch)
    assert (original, patch) == before
    assert result["spec"]["template"]["labels"] == {"a": "1", "b": "2"}
    inputs = {id(c) for c in _containers(original) + _containers(patch)}
    assert not any(id(c) in inputs for c in _containers(result))


@pytest.mark.parametrize(
    ("original", "modified", "expected"),
    [
        ({"a": 1}, {"a": 1}, {}),
        ({"a": 1}, {"a": 2}, {"a": 2}),
        ({"a": 1, "b": 2}, {"a": 1}, {"b": None}),
        ({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3, "d": 4}}, {"a": {"c": 3, "d": 4}}),
        ({"a": [1, 2]}, {"a": [1, 2]}, {}),
        ({"a": [1, 2]}, {"a": [2, 1]}, {"a": [2, 1]}),
        ({"a": {"b": 1}}, {"a": [1]}, {"a": [1]}),
        ({"a": True}, {"a": 1}, {"a": 1}),
        ({"a": None}, {"a": None}, {}),
        ([{"a": 1}, {"b": 1}], [{"a": 2}, {"b": 1}], [{"a": 2}, {}]),
    ],
    ids=["same", "change", "delete", "nested", "same-list", "reordered-list", "type-change", "bool-vs-number",
         "both-null", "array-of-objects"],
)
def test_create_merge_patch(original: Any, modified: Any, expected: Any) -> None:
    assert create_merge_patch(original, modified) == expected


@pytest.mark.parametrize(
    ("original", "modified", "message"),
    [({"a": 1}, [{"a": 1}], "Mismatched JSON Documents"), ([{}], [{}, {}], "Invalid JSON Document"),
     ("x", "y", "Invalid JSON Document")],
    ids=["object-vs-array", "array-lengths", "scalars"],
)
def test_create_merge_patch_rejects_mismatched_documents(original: Any, modified: Any, message: str) -> None:
    with pytest.raises(InternalError, match=message):
        create_merge_patch(original, modified)


def test_created_patch_shares_no_container_with_modified() -> None:
    modified = {"a": {"b": [1, {"c": 2}]}}
    patch = create_merge_patch({}, modified)
    patch["a"]["b"][1]["c"] = 3
    assert modified == {"a": {"b": [1, {"c": 2}]}}


_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "x", "y"]) | st.floats(
    allow_nan=False, allow_infinity=False, width=32
)
_KEYS = st.sampled_from(["a", "b", "c", "d"])
# Merge patches cannot carry a null object member (null means delete), so documents have none;
# arrays are replaced wholesale and may hold anything.
_VALUES = st.recursive(
    _SCALARS.filter(lambda v: v is not None) | st.lists(_SCALARS, max_size=3),
    lambda inner: st.dictionaries(_KEYS, inner, max_size=3) | st.lists(inner, max_size=3),
    max_leaves=12,
)
_OBJECTS = st.dictionaries(_KEYS, _VALUES, max_size=4)


@given(_OBJECTS, _OBJECTS)
def test_create_then_apply_round_trips(a: dict[str, Any], b: dict[str, Any]) -> None:
    patch = create_merge_patch(a, b)
    assert apply_merge_patch(a, patch) == b
    assert create_merge_patch(b, apply_merge_patch(b, {})) == {}


@pytest.mark.parametrize(
    ("original", "patch", "expected"), RFC7386_EXAMPLES, ids=[f"A.{i + 1}" for i in range(len(RFC7386_EXAMPLES))]
)
def test_shared_variant_matches_rfc7386(original: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch_shared(original, patch) == expected


@settings(suppress_health_check=[HealthCheck.too_slow])  # generation time depends on the machine's load
@given(_OBJECTS, _OBJECTS)
def test_shared_variant_agrees_and_leaves_inputs_alone(a: dict[str, Any], p: dict[str, Any]) -> None:
    a_before, p_before = copy.deepcopy(a), copy.deepcopy(p)
    assert apply_merge_patch_shared(a, p) == apply_merge_patch(a, p)
    assert a == a_before
    assert p == p_before


def test_shared_variant_copies_patched_paths_and_shares_the_rest() -> None:
    original = {"spec": {"x": [1]}, "status": {"phase": "Pending", "c": {"d": 1}}}
    out = apply_merge_patch_shared(original, {"status": {"phase": "Running"}})
    assert out == {"spec": {"x": [1]}, "status": {"phase": "Running", "c": {"d": 1}}}
    assert out is not original
    assert out["status"] is not original["status"]
    assert out["spec"] is original["spec"]
    assert original["status"]["phase"] == "Pending"


@pytest.mark.parametrize(("original", "patch", "error"), [
    ({"a": 1}, None, BadRequest), ({"a": 1}, 5, BadRequest), (None, {"a": 1}, InternalError),
], ids=["null-patch", "scalar-patch", "null-document"])
def test_shared_variant_errors_match(original: Any, patch: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        apply_merge_patch_shared(original, patch)
