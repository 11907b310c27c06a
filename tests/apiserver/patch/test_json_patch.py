"""JSON patch: RFC 6902 appendix A, evanphx/json-patch v4 behaviour and kube-apiserver's status codes."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from kubelite.apiserver.patch import MAX_JSON_PATCH_OPERATIONS, apply_json_patch
from kubelite.errors import ApiError, BadRequest, Invalid

_GENERIC_422 = "the server rejected our request due to an error in our request"

# RFC 6902 appendix A. A.13 (duplicate "op" members) is a property of the JSON text, which is
# decoded before it gets here.
RFC6902_EXAMPLES: list[tuple[str, Any, list[dict[str, Any]], Any]] = [
    ("A.1-add-member", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}],
     {"baz": "qux", "foo": "bar"}),
    ("A.2-add-element", {"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
     {"foo": ["bar", "qux", "baz"]}),
    ("A.3-remove-member", {"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ("A.4-remove-element", {"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}],
     {"foo": ["bar", "baz"]}),
    ("A.5-replace", {"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}],
     {"baz": "boo", "foo": "bar"}),
    ("A.6-move-value", {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ("A.7-move-element", {"foo": ["all", "grass", "cows", "eat"]},
     [{"op": "move", "from": "/foo/1", "path": "/foo/3"}], {"foo": ["all", "cows", "eat", "grass"]}),
    ("A.8-test-success", {"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ("A.10-add-nested-member", {"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ("A.11-ignore-unrecognized", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
     {"foo": "bar", "baz": "qux"}),
    ("A.14-escape-ordering", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}],
     {"/": 9, "~1": 10}),
    ("A.16-add-array-value", {"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
     {"foo": ["bar", ["abc", "def"]]}),
]


@pytest.mark.parametrize(("original", "ops", "expected"), [c[1:] for c in RFC6902_EXAMPLES],
                         ids=[c[0] for c in RFC6902_EXAMPLES])
def test_rfc6902_appendix_a(original: Any, ops: list[dict[str, Any]], expected: Any) -> None:
    assert apply_json_patch(original, ops) == expected


# Failures: (id, document, operations, evanphx's message, kept as the 422's __cause__).
FAILURES: list[tuple[str, Any, list[Any], str]] = [
    ("A.9-test-error", {"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}],
     "testing value /baz failed: test failed"),
    ("A.12-add-to-nonexistent-target", {"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}],
     'add operation does not apply: doc is missing path: "/baz/bat": missing value'),
    ("A.15-string-vs-number", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}],
     "testing value /~01 failed: test failed"),
    ("add-index-out-of-bounds", {"a": [1]}, [{"op": "add", "path": "/a/2", "value": 0}],
     "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index referenced"),
    ("add-bad-index", {"a": [1]}, [{"op": "add", "path": "/a/x", "value": 0}],
     "error in add for path: '/a/x': value was not a proper array index: 'x': "
     'strconv.Atoi: parsing "x": invalid syntax'),
    ("add-root", {"a": 1}, [{"op": "add", "path": "", "value": {}}],
     'add operation does not apply: doc is missing path: "": missing value'),
    ("add-no-path", {"a": 1}, [{"op": "add", "value": 1}], "add operation failed to decode path: missing value"),
    ("remove-missing-key", {"a": 1}, [{"op": "remove", "path": "/b"}],
     "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value"),
    ("remove-index-out-of-bounds", {"a": [1]}, [{"op": "remove", "path": "/a/1"}],
     "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced"),
    ("remove-dash", {"a": [1]}, [{"op": "remove", "path": "/a/-"}],
     "error in remove for path: '/a/-': strconv.Atoi: parsing \"-\": invalid syntax"),
    ("replace-missing-index", {"a": [1]}, [{"op": "replace", "path": "/a/1", "value": 2}],
     "replace operation does not apply: doc is missing key: /a/1: missing value"),
    ("replace-missing-parent", {"a": 1}, [{"op": "replace", "path": "/b/c", "value": 2}],
     "replace operation does not apply: doc is missing path: /b/c: missing value"),
    ("replace-root-with-scalar", {"a": 1}, [{"op": "replace", "path": "", "value": 2}],
     "replace operation value must be object or array: %!w(<nil>)"),
    ("replace-path-not-string", {"a": 1}, [{"op": "replace", "path": 1, "value": 2}],
     "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string"),
    ("move-missing-from", {"a": 1}, [{"op": "move", "from": "/b", "path": "/c"}],
     "error in move for path: 'b': Unable to remove nonexistent key: b: missing value"),
    ("move-into-own-child", {"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/c"}],
     "move operation does not apply: doc is missing destination path: /a/c: missing value"),
    ("move-no-from", {"a": 1}, [{"op": "move", "path": "/c"}],
     "move operation failed to decode from: operation, missing from field: missing value"),
    ("copy-bad-from-index", {"a": [1]}, [{"op": "copy", "from": "/a/5", "path": "/b"}],
     "error in copy for from: '/a/5': Unable to access invalid index: 5: invalid index referenced"),
    ("copy-missing-destination", {"a": 1}, [{"op": "copy", "from": "/a", "path": "/x/y"}],
     "copy operation does not apply: doc is missing destination path: /x/y: missing value"),
    ("test-missing-value", {"a": 1}, [{"op": "test", "path": "/a"}], "testing value /a failed: test failed"),
    ("test-true-is-not-1", {"a": 1}, [{"op": "test", "path": "/a", "value": True}],
     "testing value /a failed: test failed"),
    ("test-through-scalar", {"a": 1}, [{"op": "test", "path": "/a/b", "value": 1}],
     "test operation does not apply: is missing path: /a/b: missing value"),
    ("unknown-op", {"a": 1}, [{"op": "frobnicate", "path": "/a"}], "Unexpected kind: frobnicate"),
    ("missing-op", {"a": 1}, [{"path": "/a"}], "Unexpected kind: unknown"),
    ("null-operation", {"a": 1}, [None], "Unexpected kind: unknown"),
    ("negative-index-too-small", {"a": [1]}, [{"op": "remove", "path": "/a/-2"}],
     "error in remove for path: '/a/-2': Unable to access invalid index: -2: invalid index referenced"),
]


@pytest.mark.parametrize(("original", "ops", "detail"), [c[1:] for c in FAILURES], ids=[c[0] for c in FAILURES])
def test_failures_are_422_with_evanphx_detail(original: Any, ops: list[Any], detail: str) -> None:
    before = copy.deepcopy(original)
    with pytest.raises(Invalid) as exc:
        apply_json_patch(original, ops)
    status = exc.value.status
    assert (status.code, status.reason, status.message) == (422, "Invalid", _GENERIC_422)
    # NewGenericServerResponse sends an empty details object.
    assert msgspec.json.encode(status.details) == b"{}"
    assert str(exc.value.__cause__) == detail
    assert original == before


@pytest.mark.parametrize(
    ("original", "ops", "expected"),
    [
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/-1", "value": 9}], {"a": [1, 2, 9]}),
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/-3", "value": 9}], {"a": [9, 1, 2]}),
        ({"a": [1, 2, 3]}, [{"op": "remove", "path": "/a/-1"}], {"a": [1, 2]}),
        ({"a": [1, 2]}, [{"op": "replace", "path": "/a/-2", "value": 9}], {"a": [9, 2]}),
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/2", "value": 3}], {"a": [1, 2, 3]}),
        ({"a": [1]}, [{"op": "add", "path": "/a/01", "value": 2}], {"a": [1, 2]}),
        ({"a": 1}, [{"op": "replace", "path": "/b", "value": 2}], {"a": 1, "b": 2}),
        ({"a": 1}, [{"op": "add", "path": "/b"}], {"a": 1, "b": None}),
        ({"a": 1}, [{"op": "copy", "from": "/missing", "path": "/b"}], {"a": 1, "b": None}),
        ({"a": None}, [{"op": "test", "path": "/a", "value": None}], {"a": None}),
        ({"a": 1}, [{"op": "test", "path": "/b", "value": None}], {"a": 1}),
        ({"a": 1.0}, [{"op": "test", "path": "/a", "value": 1}], {"a": 1.0}),
        ({"a": 1}, [{"op": "test", "path": "", "value": {"a": 1}}], {"a": 1}),
        ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}, {"op": "add", "path": "/0", "value": 0}], [0, 1]),
        ([1, 2], [{"op": "move", "from": "/0", "path": "/-"}], [2, 1]),
        ({"a/b": {"m~n": 1}}, [{"op": "replace", "path": "/a~1b/m~0n", "value": 2}], {"a/b": {"m~n": 2}}),
        ({"": 1}, [{"op": "replace", "path": "/", "value": 2}], {"": 2}),
        ({"a": 1}, None, {"a": 1}),
        ({"a": 1}, [], {"a": 1}),
    ],
    ids=["add-negative", "add-negative-front", "remove-negative", "replace-negative", "add-at-len",
         "leading-zero-index", "replace-missing-key-adds", "add-without-value-adds-null", "copy-absent-is-null",
         "test-null", "test-null-missing", "test-numbers-by-value", "test-root", "replace-root",
         "array-document", "pointer-escapes", "empty-key", "null-body", "empty-body"],
)
def test_evanphx_behaviour(original: Any, ops: Any, expected: Any) -> None:
    assert apply_json_patch(original, ops) == expected


def test_sequence_applies_in_order_and_stops_at_first_failure() -> None:
    doc = {"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    ops = [
        {"op": "test", "path": "/spec/containers/0/name", "value": "c"},
        {"op": "replace", "path": "/spec/containers/0/image", "value": "y"},
        {"op": "add", "path": "/metadata/labels/b", "value": "2"},
        {"op": "copy", "from": "/spec/containers/0", "path": "/spec/containers/-"},
        {"op": "replace", "path": "/spec/containers/1/name", "value": "d"},
    ]
    result = apply_json_patch(doc, ops)
    assert result == {
        "metadata": {"labels": {"a": "1", "b": "2"}},
        "spec": {"containers": [{"name": "c", "image": "y"}, {"name": "d", "image": "y"}]},
    }
    assert doc["spec"]["containers"] == [{"name": "c", "image": "x"}]
    with pytest.raises(Invalid):
        apply_json_patch(doc, [*ops, {"op": "remove", "path": "/nope"}])


def test_inputs_untouched_and_values_copied() -> None:
    value = {"deep": [1, {"x": 1}]}
    ops = [{"op": "add", "path": "/a", "value": value}, {"op": "add", "path": "/b", "value": value}]
    doc = {"keep": {"k": [1]}}
    result = apply_json_patch(doc, ops)
    result["a"]["deep"][1]["x"] = 2
    result["keep"]["k"].append(2)
    assert value == {"deep": [1, {"x": 1}]}
    assert result["b"] == {"deep": [1, {"x": 1}]}
    assert doc == {"keep": {"k": [1]}}


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ("add", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
        ([{"op": "add", "path": "/a", "value": 1}, "x"],
         "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
        ([[]], "json: cannot unmarshal array into Go value of type jsonpatch.Operation"),
        ([3], "json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
    ],
    ids=["object", "string", "string-op", "array-op", "number-op"],
)
def test_malformed_body_is_bad_request(ops: Any, message: str) -> None:
    with pytest.raises(BadRequest) as exc:
        apply_json_patch({"a": 1}, ops)
    assert (exc.value.status.code, exc.value.message) == (400, message)


def test_too_many_operations_is_413() -> None:
    ops = [{"op": "test", "path": "/a", "value": 1}] * MAX_JSON_PATCH_OPERATIONS
    assert apply_json_patch({"a": 1}, ops) == {"a": 1}
    with pytest.raises(ApiError) as exc:
        apply_json_patch({"a": 1}, [*ops, ops[0]])
    status = exc.value.status
    assert (status.code, status.reason) == (413, "RequestEntityTooLarge")
    assert status.message == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
    )


def test_scalar_document_is_422() -> None:
    with pytest.raises(Invalid):
        apply_json_patch("x", [{"op": "test", "path": "", "value": "x"}])
