"""OpenAPI value validation with upstream's messages (kube-openapi validate + kubeOpenAPIResultToFieldErrors)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.schema import Schema
from kubelite.apiserver.crd import validate
from kubelite.apiserver.crd.validation import go_value

PROPS: dict[str, Any] = {
    "replicas": {"type": "integer", "minimum": 1},
    "ratio": {"type": "number", "exclusiveMaximum": True, "maximum": 1.5},
    "big": {"type": "number", "maximum": 1e6},
    "small": {"type": "integer", "format": "int32"},
    "nullable": {"type": "string", "nullable": True},
    "port": {"x-kubernetes-int-or-string": True},
    "color": {"type": "string", "enum": ["red", "blue"]},
    "level": {"type": "integer", "enum": [1, 2]},
    "when": {"type": "string", "format": "date-time"},
    "ip": {"type": "string", "format": "ipv4"},
    "id": {"type": "string", "format": "uuid"},
    "unknownfmt": {"type": "string", "format": "no-such-format"},
    "even": {"type": "integer", "multipleOf": 2},
    "tenth": {"type": "number", "multipleOf": 0.1},
    "name": {"type": "string", "minLength": 3, "maxLength": 5},
    "code": {"type": "string", "pattern": "^[A-Z]+$"},
    "items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "integer"}},
    "uniq": {"type": "array", "uniqueItems": True, "items": {"type": "string"}},
    "labels": {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": {"type": "string"}},
    "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "ports": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}},
    },
    "pairs": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "b"],
        "items": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
    },
    "either": {"type": "string", "anyOf": [{"pattern": "^a"}, {"maxLength": 2}]},
    "one": {"type": "string", "oneOf": [{"minLength": 1}, {"maxLength": 5}]},
    "notx": {"type": "string", "not": {"enum": ["x"]}},
    "all": {"type": "integer", "allOf": [{"minimum": 0}, {"maximum": 10}]},
}
SCHEMA = Schema.of({
    "type": "object",
    "properties": {"spec": {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer"}, **PROPS}}},
})

CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("valid", {"replicas": 2, "ratio": 1.2, "port": "http", "color": "red", "when": "2024-01-02T03:04:05Z"}, []),
    ("integer-vs-string", {"replicas": "string"},
     ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']),
    ("integer-vs-float", {"replicas": 1.5}, [
        'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
        'Invalid value: "": Checked value must be of type integer (default format) in spec.replicas',
    ]),
    ("integral-float-is-integer", {"replicas": 2.0}, []),
    ("number-accepts-integer", {"big": 3}, []),
    # MaximumNativeType compares integer data with the limit truncated to int64 (1.5 -> 1).
    ("integer-data-truncates-limit", {"ratio": 1}, ["spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1"]),
    ("number-vs-bool", {"ratio": True},
     ['spec.ratio: Invalid value: "boolean": spec.ratio in body must be of type number: "boolean"']),
    ("null-not-nullable", {"replicas": None},
     ['spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: "null"']),
    ("null-nullable", {"nullable": None}, []),
    ("int-or-string-int", {"port": 8080}, []),
    ("int-or-string-bool", {"port": True},
     ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']),
    ("enum-string", {"color": "pink"}, ['spec.color: Unsupported value: "pink": supported values: "red", "blue"']),
    ("enum-int", {"level": 3}, ['spec.level: Unsupported value: 3: supported values: "1", "2"']),
    ("enum-int-float-equal", {"level": 2.0}, []),
    ("format-int32", {"small": 2**31},
     ['Invalid value: "": Checked value must be of type integer with format int32 in spec.small']),
    ("format-date-time", {"when": "yesterday"},
     ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']),
    ("format-ipv4", {"ip": "::1"}, ['spec.ip: Invalid value: "::1": spec.ip in body must be of type ipv4: "::1"']),
    ("format-uuid-ok", {"id": "0b7e2b9c-5c1a-4d7e-9d3a-2f1e0c9b8a7d"}, []),
    ("format-unsupported-ignored", {"unknownfmt": "whatever"}, []),
    ("minimum", {"replicas": 0},
     ["spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"]),
    ("exclusive-maximum", {"ratio": 1.5}, ["spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5"]),
    ("maximum-go-float", {"big": 2e6},
     ["spec.big: Invalid value: 2000000.0: spec.big in body should be less than or equal to 1e+06"]),
    ("multiple-of-int", {"even": 3}, ["spec.even: Invalid value: 3: spec.even in body should be a multiple of 2"]),
    ("multiple-of-fraction-ok", {"tenth": 0.5}, []),
    ("min-length", {"name": "ab"}, ['spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long']),
    ("max-length", {"name": "abcdef"}, ["spec.name: Too long: may not be more than 5 bytes"]),
    ("max-length-counts-characters", {"name": "ééééé"}, []),
    ("pattern", {"code": "abc"}, ['spec.code: Invalid value: "abc": spec.code in body should match \'^[A-Z]+$\'']),
    ("min-items", {"items": []}, ["spec.items: Invalid value: 0: spec.items in body should have at least 1 items"]),
    ("max-items", {"items": [1, 2, 3]}, ["spec.items: Too many: 3: must have at most 2 items"]),
    ("item-type", {"items": [1, "x"]},
     ['spec.items[1]: Invalid value: "string": spec.items[1] in body must be of type integer: "string"']),
    ("unique-items", {"uniq": ["a", "b", "a"]},
     ['spec.uniq: Invalid value: "": spec.uniq in body shouldn\'t contain duplicates']),
    ("min-properties", {"labels": {}},
     ["spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties"]),
    ("max-properties-and-additional-type", {"labels": {"a": "x", "b": 1}}, [
        "spec.labels: Too many: 2: must have at most 1 item",
        'spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"',
    ]),
    ("additional-properties-false", {"closed": {"a": "x", "b": "y"}},
     ['spec.closed: Invalid value: "b": spec.closed.b in body is a forbidden property']),
    ("list-set-duplicate", {"set": ["a", "b", "a", "a"]}, ['spec.set[2]: Duplicate value: "a"']),
    ("list-map-duplicate", {"ports": [{"name": "http", "port": 1}, {"name": "http", "port": 2}]},
     ['spec.ports[1]: Duplicate value: {"name":"http"}']),
    ("list-map-missing-keys-duplicate", {"ports": [{"port": 1}, {"port": 2}]}, ["spec.ports[1]: Duplicate value: {}"]),
    ("list-map-multi-key", {"pairs": [{"a": "x", "b": 1}, {"a": "x", "b": 2}, {"a": "x", "b": 1}]},
     ['spec.pairs[2]: Duplicate value: {"a":"x","b":1}']),
    ("list-map-non-object", {"ports": ["x"]}, [
        'spec.ports[0]: Invalid value: "string": spec.ports[0] in body must be of type object: "string"',
        'spec.ports[0]: Invalid value: "x": must be an object for an array of list-type map',
    ]),
    ("any-of-fails", {"either": "bcd"}, [
        'Invalid value: "": "spec.either" must validate at least one schema (anyOf)',
        'spec.either: Invalid value: "bcd": spec.either in body should match \'^a\'',
    ]),
    ("any-of-ok", {"either": "bc"}, []),
    ("one-of-two-valid", {"one": "abc"},
     ['Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found 2 valid alternatives']),
    ("one-of-exactly-one", {"one": "abcdefg"}, []),
    ("not", {"notx": "x"}, ['Invalid value: "": "spec.notx" must not validate the schema (not)']),
    ("all-of", {"all": 11}, [
        "spec.all: Invalid value: 11: spec.all in body should be less than or equal to 10",
        'Invalid value: "": "spec.all" must validate all the schemas (allOf)',
    ]),
]


@pytest.mark.parametrize(("spec", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate(spec: dict[str, Any], want: list[str]) -> None:
    obj = {"spec": {"size": 1, **spec}}
    assert [str(e) for e in validate(obj, SCHEMA)] == want


def test_required_missing() -> None:
    errs = validate({"spec": {}}, SCHEMA)
    assert [str(e) for e in errs] == ["spec.size: Required value"]
    assert errs[0].kind == "Required"


def test_error_kinds() -> None:
    errs = validate({"spec": {"size": 1, "replicas": "x", "color": "pink", "name": "toolong"}}, SCHEMA)
    assert [e.kind for e in errs] == ["TypeInvalid", "NotSupported", "TooLong"]


def test_path_prefix_names_field_not_message() -> None:
    errs = validate({"spec": {"size": "x"}}, SCHEMA, path="spec.validation.openAPIV3Schema.default")
    assert [str(e) for e in errs] == [
        'spec.validation.openAPIV3Schema.default.spec.size: Invalid value: "string": '
        'spec.size in body must be of type integer: "string"'
    ]


def test_root_scalar_default_message_has_empty_name() -> None:
    errs = validate("x", Schema.of({"type": "integer"}), path="p.default")
    assert [str(e) for e in errs] == ['p.default: Invalid value: "string":  in body must be of type integer: "string"']


def test_does_not_mutate() -> None:
    obj = {"spec": {"size": 1, "labels": {"a": 1, "b": 2}}}
    before = repr(obj)
    validate(obj, SCHEMA)
    assert repr(obj) == before


@pytest.mark.parametrize(
    ("value", "want"),
    [(1, "1"), (1.5, "1.5"), (1e6, "1e+06"), (123456.0, "123456"), (1e-5, "1e-05"), (0.0001, "0.0001"),
     (-2.5e21, "-2.5e+21"), (True, "true")],
    ids=["int", "frac", "1e6", "123456", "1e-5", "1e-4", "neg-big", "bool"],
)
def test_go_value(value: Any, want: str) -> None:
    assert go_value(value) == want
