"""Structural-schema rules (schema/validation.go ValidateStructural) and the CRD OpenAPI-schema checks."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiserver.crd import check_structural
from kubelite.apiserver.crd.structural import check_openapi_schema

P = "spec.validation.openAPIV3Schema"


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


STRUCTURAL_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("ok", obj(spec=obj(replicas={"type": "integer"}, port={"x-kubernetes-int-or-string": True})), []),
    ("missing-type-field", obj(spec=obj(foo={})),
     [f"{P}.properties[spec].properties[foo].type: Required value: must not be empty for specified object fields"]),
    ("missing-type-root", {"properties": {}}, [f"{P}.type: Required value: must not be empty at the root"]),
    ("missing-type-items", obj(l={"type": "array", "items": {}}),
     [f"{P}.properties[l].items.type: Required value: must not be empty for specified array items"]),
    ("array-without-items", obj(l={"type": "array"}), [f"{P}.properties[l].items: Required value: must be specified"]),
    ("preserve-unknown-needs-no-type", obj(x={"x-kubernetes-preserve-unknown-fields": True}), []),
    ("root-not-object", {"type": "string"}, [f'{P}.type: Invalid value: "string": must be object at the root']),
    ("additional-properties-at-root", {"type": "object", "additionalProperties": {"type": "string"}},
     [f"{P}.additionalProperties: Forbidden: must not be used at the root"]),
    ("metadata-name-only-ok", obj(metadata=obj(name={"type": "string", "maxLength": 10})), []),
    ("metadata-other-field", obj(metadata=obj(labels={"type": "object"})), [
        f"{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, "
        "but metadata is implicitly specified",
    ]),
    ("kind-must-be-string", obj(kind={"type": "integer"}),
     [f'{P}.properties[kind].type: Invalid value: "integer": must be string']),
    ("embedded-not-object", obj(t={"x-kubernetes-embedded-resource": True, "type": "string",
                                   "x-kubernetes-preserve-unknown-fields": True}),
     [f'{P}.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true']),
    ("embedded-without-properties", obj(t={"type": "object", "x-kubernetes-embedded-resource": True}), [
        f"{P}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true "
        "without x-kubernetes-preserve-unknown-fields",
    ]),
    ("int-or-string-and-preserve", obj(p={"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}),
     [f"{P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: "
      "must be false if x-kubernetes-int-or-string is true"]),
    ("int-or-string-anyof-pattern-allowed", obj(p={
        "x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}), []),
    ("int-or-string-allof-pattern-allowed", obj(p={
        "x-kubernetes-int-or-string": True,
        "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^a"}]}), []),
    ("type-inside-anyof", obj(s={"type": "string", "anyOf": [{"type": "string"}]}),
     [f"{P}.properties[s].anyOf[0].type: Forbidden: must be empty to be structural"]),
    ("nested-junctor-forbidden-keys", obj(s={"type": "string", "oneOf": [{"description": "d", "default": "x",
                                                                         "nullable": True}]}), [
        f"{P}.properties[s].oneOf[0].default: Forbidden: must be undefined to be structural",
        f"{P}.properties[s].oneOf[0].description: Forbidden: must be empty to be structural",
        f"{P}.properties[s].oneOf[0].nullable: Forbidden: must be false to be structural",
    ]),
    ("junctor-property-not-in-structure", {**obj(a={"type": "string"}), "not": {"properties": {"b": {}}}},
     [f"{P}.properties[b]: Required value: because it is defined in {P}.not.properties[b]"]),
    ("junctor-items-not-in-structure", {**obj(), "anyOf": [{"items": {"maxLength": 1}}]},
     [f"{P}.items: Required value: because it is defined in {P}.anyOf[0].items"]),
    ("metadata-in-nested-context", {**obj(metadata={"type": "object"}), "allOf": [{"properties": {"metadata": {}}}]},
     [f"{P}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context"]),
    ("bad-pattern", obj(s={"type": "string", "pattern": "("}),
     [f'{P}.properties[s].pattern: Invalid value: "(": must be a valid regular expression, '
      "but isn't: missing ), unterminated subpattern at position 0"]),
]


@pytest.mark.parametrize(("schema", "want"), [c[1:] for c in STRUCTURAL_CASES], ids=[c[0] for c in STRUCTURAL_CASES])
def test_check_structural(schema: dict[str, Any], want: list[str]) -> None:
    assert [str(e) for e in check_structural(schema, P)] == want


def test_errors_sorted_by_message() -> None:
    errs = [str(e) for e in check_structural(obj(b={}, a={}), P)]
    assert errs == sorted(errs)
    assert len(errs) == 2


OPENAPI_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("ok", obj(l={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}), []),
    ("unknown-type", obj(x={"type": "str"}), [
        f'{P}.properties[x].type: Unsupported value: "str": supported values: '
        '"array", "boolean", "integer", "number", "object", "string"',
    ]),
    ("unique-items", obj(x={"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
     [f"{P}.properties[x].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity "
      "becomes quadratic"]),
    ("properties-and-additional", obj(x={**obj(a={"type": "string"}), "additionalProperties": {"type": "string"}}),
     [f"{P}.properties[x].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"]),
    ("default-in-metadata", obj(metadata={"type": "object", "default": {}}),
     [f"{P}.properties[metadata].default: Forbidden: must not be set in top-level metadata"]),
    ("ref", obj(x={"$ref": "#/definitions/x"}), [f"{P}.properties[x].$ref: Forbidden: $ref is not supported"]),
    ("preserve-false", obj(x={"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
     [f"{P}.properties[x].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"]),
    ("list-type-on-object", obj(x={"type": "object", "x-kubernetes-list-type": "set"}),
     [f'{P}.properties[x].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified']),
    ("list-map-without-keys", obj(x={"type": "array", "x-kubernetes-list-type": "map",
                                     "items": obj(name={"type": "string"})}),
     [f"{P}.properties[x].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"]),
    ("list-map-key-not-required", obj(x={
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": obj(name={"type": "string"})}),
     [f"{P}.properties[x].items.properties[name].default: Required value: this property is in "
      "x-kubernetes-list-map-keys, so it must have a default or be a required property"]),
    ("list-map-key-missing", obj(x={
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
        "items": obj(name={"type": "string"})}),
     [f'{P}.properties[x].x-kubernetes-list-map-keys: Invalid value: ["id"]: entries must all be names of item properties']),
    ("set-of-granular-objects", obj(x={"type": "array", "x-kubernetes-list-type": "set", "items": obj()}),
     [f"{P}.properties[x].items.x-kubernetes-map-type: Invalid value: null: "
      "must be atomic as item of a list with x-kubernetes-list-type=set"]),
]


@pytest.mark.parametrize(("schema", "want"), [c[1:] for c in OPENAPI_CASES], ids=[c[0] for c in OPENAPI_CASES])
def test_check_openapi_schema(schema: dict[str, Any], want: list[str]) -> None:
    assert [str(e) for e in check_openapi_schema(schema, P)] == want
