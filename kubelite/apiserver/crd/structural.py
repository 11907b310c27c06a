"""The structural-schema rules a CRD's ``openAPIV3Schema`` must satisfy.

Contract:
- :func:`check_structural` reads a raw schema dict (never mutates it) and returns the
  violations as field errors under ``path`` (e.g. ``spec.validation.openAPIV3Schema``), sorted
  by their message as upstream sorts them.
- It follows apiextensions-apiserver ``pkg/apiserver/schema/validation.go``
  (``ValidateStructural``: ``validateStructuralInvariants`` and the nested value-validation
  rules) and ``complete.go`` (``validateStructuralCompleteness``), with the default options
  (no ``additionalProperties`` and no ``x-kubernetes-validations`` inside logical junctors).
  The rules, in short: every node specifies ``type`` unless it is int-or-string or preserves
  unknown fields; arrays have ``items``; ``additionalProperties`` is not used at the root;
  ``allOf``/``anyOf``/``oneOf``/``not`` only add value validations (no types, defaults,
  descriptions, extensions or ``metadata`` inside them) for fields that the structural part
  defines; root ``metadata`` may only restrict ``name`` and ``generateName``; embedded resources
  are objects.
- Schema keywords that upstream's ``NewStructural`` refuses outright (``$ref``, ``items`` as a
  list, ...) are skipped by :func:`check_structural`; :func:`check_openapi_schema` reports them.
- :func:`check_openapi_schema` is the rest of what CRD creation enforces on a schema
  (``ValidateCustomResourceDefinitionOpenAPISchema`` with ``specStandardValidatorV3``): known
  types, no ``uniqueItems``/``$ref``/``patternProperties``/..., ``additionalProperties`` and
  ``properties`` mutually exclusive, no defaults in top-level metadata, and the
  ``x-kubernetes-list-type``/``-list-map-keys``/``-map-type`` rules. CEL rules are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubelite.errors import FieldError

__all__ = ["check_openapi_schema", "check_structural"]

_ROOT, _ITEM, _FIELD = 0, 1, 2

_TYPE_REQUIRED = {
    _ROOT: "must not be empty at the root",
    _ITEM: "must not be empty for specified array items",
    _FIELD: "must not be empty for specified object fields",
}


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


def _index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def _props(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    p = raw.get("properties")
    return p if isinstance(p, Mapping) else {}


def _schema(v: Any) -> Mapping[str, Any] | None:
    return v if isinstance(v, Mapping) else None


def _clauses(raw: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    v = raw.get(key)
    return [c for c in v if isinstance(c, Mapping)] if isinstance(v, list) else []


def _only_type(raw: Mapping[str, Any], t: str) -> bool:
    return raw.get("type") == t and all(not v for k, v in raw.items() if k != "type")


def _is_int_or_string_any_of(raw: Mapping[str, Any]) -> bool:
    any_of = _clauses(raw, "anyOf")
    return len(any_of) == 2 and _only_type(any_of[0], "integer") and _only_type(any_of[1], "string")


def _is_int_or_string_all_of(raw: Mapping[str, Any]) -> bool:
    all_of = _clauses(raw, "allOf")
    return bool(all_of) and _is_int_or_string_any_of(all_of[0])


def check_structural(schema_raw: Mapping[str, Any], path: str) -> list[FieldError]:
    """Violations of the structural-schema rules by ``schema_raw`` (see module doc)."""
    errs: list[FieldError] = []
    _invariants(schema_raw, _ROOT, path, errs)
    _value_completeness(schema_raw, schema_raw, path, path, errs)
    errs.sort(key=str)
    return errs


def _invariants(s: Mapping[str, Any], lvl: int, path: str, errs: list[FieldError]) -> None:
    typ = s.get("type") or ""
    items = _schema(s.get("items"))
    if typ == "array" and "items" not in s:
        errs.append(FieldError.required(_child(path, "items"), "must be specified"))
    if items is not None:
        _invariants(items, _ITEM, _child(path, "items"), errs)
    props = _props(s)
    for k, v in props.items():
        if isinstance(v, Mapping):
            _invariants(v, _FIELD, _key(_child(path, "properties"), k), errs)
    ap = s.get("additionalProperties")
    if ap is not None:
        if lvl == _ROOT:
            errs.append(FieldError.forbidden(_child(path, "additionalProperties"), "must not be used at the root"))
        if isinstance(ap, Mapping):
            _invariants(ap, _FIELD, _child(path, "additionalProperties"), errs)

    int_or_string = bool(s.get("x-kubernetes-int-or-string"))
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = bool(s.get("x-kubernetes-embedded-resource"))
    if int_or_string and preserve:
        errs.append(FieldError.invalid(
            _child(path, "x-kubernetes-preserve-unknown-fields"), True,
            "must be false if x-kubernetes-int-or-string is true",
        ))
    if int_or_string and embedded:
        errs.append(FieldError.invalid(
            _child(path, "x-kubernetes-embedded-resource"), True,
            "must be false if x-kubernetes-int-or-string is true",
        ))

    _value_validation(s, _is_int_or_string_any_of(s), _is_int_or_string_all_of(s), lvl, path, errs)

    check_metadata = lvl == _ROOT or embedded
    if embedded and typ != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        if not typ:
            errs.append(FieldError.required(_child(path, "type"), detail))
        else:
            errs.append(FieldError.invalid(_child(path, "type"), typ, detail))
    elif not typ and not int_or_string and not preserve:
        errs.append(FieldError.required(_child(path, "type"), _TYPE_REQUIRED[lvl]))
    if embedded and ap is not None:
        errs.append(FieldError.forbidden(
            _child(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"
        ))
    if lvl == _ROOT and typ and typ != "object":
        errs.append(FieldError.invalid(_child(path, "type"), typ, "must be object at the root"))

    if check_metadata:
        for name in ("kind", "apiVersion"):
            sub = props.get(name)
            if isinstance(sub, Mapping) and sub.get("type") != "string":
                errs.append(FieldError.invalid(
                    _child(_key(_child(path, "properties"), name), "type"), sub.get("type") or "", "must be string"
                ))
    meta = props.get("metadata")
    if isinstance(meta, Mapping):
        _metadata_invariants(meta, check_metadata, lvl, _key(_child(path, "properties"), "metadata"), errs)

    if embedded and not preserve and not props:
        errs.append(FieldError.required(
            _child(path, "properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ))


def _metadata_invariants(
    s: Mapping[str, Any], check_metadata: bool, lvl: int, path: str, errs: list[FieldError]
) -> None:
    if check_metadata and s.get("type") != "object":
        errs.append(FieldError.invalid(_child(path, "type"), s.get("type") or "", "must be object"))
    if lvl != _ROOT:
        return
    # At the root only {type: object, properties: {name, generateName}} (and a default, which the
    # CRD's OpenAPI checks forbid separately) may be said about metadata.
    props = set(_props(s))
    restricts_names_only = props <= {"name", "generateName"}
    extra = [k for k, v in s.items() if k not in ("type", "default", "properties") and v not in (None, False, "")]
    if extra or not restricts_names_only:
        errs.append(FieldError.forbidden(
            path, "must not specify anything other than name and generateName, but metadata is implicitly specified"
        ))


def _value_validation(
    s: Mapping[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, lvl: int, path: str,
    errs: list[FieldError],
) -> None:
    if not skip_any_of:
        for i, c in enumerate(_clauses(s, "anyOf")):
            _nested(c, False, lvl, _index(_child(path, "anyOf"), i), errs)
    for i, c in enumerate(_clauses(s, "allOf")):
        _nested(c, skip_first_all_of_any_of and i == 0, lvl, _index(_child(path, "allOf"), i), errs)
    for i, c in enumerate(_clauses(s, "oneOf")):
        _nested(c, False, lvl, _index(_child(path, "oneOf"), i), errs)
    not_ = _schema(s.get("not"))
    if not_ is not None:
        _nested(not_, False, lvl, _child(path, "not"), errs)
    pattern = s.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(pattern)
        except re.error as e:
            errs.append(FieldError.invalid(
                _child(path, "pattern"), pattern, f"must be a valid regular expression, but isn't: {e}"
            ))


_NESTED_FORBIDDEN = (
    ("type", "must be empty to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)
# Keywords whose mere presence (not truthiness) counts upstream: pointers and JSON values.
_PRESENCE = frozenset(("default", "x-kubernetes-list-type", "x-kubernetes-map-type"))


def _nested(s: Mapping[str, Any], skip_any_of: bool, lvl: int, path: str, errs: list[FieldError]) -> None:
    """A clause under allOf/anyOf/oneOf/not: value validations only."""
    _value_validation(s, skip_any_of, False, lvl, path, errs)
    items = _schema(s.get("items"))
    if items is not None:
        _nested(items, False, lvl, _child(path, "items"), errs)
    props = _props(s)
    for k, v in props.items():
        if isinstance(v, Mapping):
            _nested(v, False, _FIELD, _key(_child(path, "properties"), k), errs)
    ap = s.get("additionalProperties")
    if ap is True or isinstance(ap, Mapping):
        errs.append(FieldError.forbidden(_child(path, "additionalProperties"), "must be undefined to be structural"))
    for key, detail in _NESTED_FORBIDDEN:
        v = s.get(key)
        if (v is not None) if key in _PRESENCE else bool(v):
            errs.append(FieldError.forbidden(_child(path, key), detail))
    if "metadata" in props:
        errs.append(FieldError.forbidden(
            _key(_child(path, "properties"), "metadata"), "must not be specified in a nested context"
        ))


def _value_completeness(
    v: Mapping[str, Any], s: Mapping[str, Any], s_path: str, v_path: str, errs: list[FieldError]
) -> None:
    """Every field or item a junctor clause talks about must exist in the structural part."""
    not_ = _schema(v.get("not"))
    if not_ is not None:
        _nested_completeness(not_, s, s_path, _child(v_path, "not"), errs)
    for key in ("allOf", "anyOf", "oneOf"):
        for i, c in enumerate(_clauses(v, key)):
            _nested_completeness(c, s, s_path, _index(_child(v_path, key), i), errs)


def _nested_completeness(
    v: Mapping[str, Any] | None, s: Mapping[str, Any] | None, s_path: str, v_path: str,
    errs: list[FieldError],
) -> None:
    if v is None:
        return
    if s is None:
        errs.append(FieldError.required(s_path, f"because it is defined in {v_path}"))
        return
    _value_completeness(v, s, s_path, v_path, errs)
    _nested_completeness(
        _schema(v.get("items")), _schema(s.get("items")), _child(s_path, "items"), _child(v_path, "items"), errs
    )
    s_props = _props(s)
    for k, vf in _props(v).items():
        sf = s_props.get(k)
        if not isinstance(sf, Mapping):
            errs.append(FieldError.required(
                _key(_child(s_path, "properties"), k),
                f"because it is defined in {_key(_child(v_path, 'properties'), k)}",
            ))
        elif isinstance(vf, Mapping):
            _nested_completeness(
                vf, sf, _key(_child(s_path, "properties"), k), _key(_child(v_path, "properties"), k), errs
            )


# --- the CRD's OpenAPI-schema checks (ValidateCustomResourceDefinitionOpenAPISchema) --------------

_OPENAPI_V3_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS = frozenset(("metadata", "kind", "apiVersion"))
_UNSUPPORTED = (
    ("id", "id is not supported"),
    ("additionalItems", "additionalItems is not supported"),
    ("patternProperties", "patternProperties is not supported"),
    ("definitions", "definitions is not supported"),
    ("dependencies", "dependencies is not supported"),
    ("$ref", "$ref is not supported"),
)
@dataclass(frozen=True)
class _Ctx:
    """specStandardValidatorV3's state as the walk descends."""

    allow_defaults: bool = True
    disallow_reason: str = ""
    inside_meta: bool = False

    def forbid_defaults(self, reason: str) -> _Ctx:
        return _Ctx(False, reason, self.inside_meta)

    def in_meta(self) -> _Ctx:
        return _Ctx(self.allow_defaults, self.disallow_reason, True)


def check_openapi_schema(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """The CRD-specific OpenAPI rules (types, unsupported keywords, list/map extensions, ...)."""
    errs: list[FieldError] = []
    _openapi(schema, path, _Ctx(), True, errs)
    return errs


def _openapi(s: Mapping[str, Any], path: str, ctx: _Ctx, is_root: bool, errs: list[FieldError]) -> None:
    typ = s.get("type") or ""
    # specStandardValidatorV3.validate
    if typ and typ not in _OPENAPI_V3_TYPES:
        errs.append(FieldError.not_supported(_child(path, "type"), typ, _OPENAPI_V3_TYPES))
    if "default" in s and s["default"] is not None and not ctx.allow_defaults:
        detail = "must not be set" + (" " + ctx.disallow_reason if ctx.disallow_reason else "")
        errs.append(FieldError.forbidden(_child(path, "default"), detail))
    for key, detail in _UNSUPPORTED:
        if s.get(key):
            errs.append(FieldError.forbidden(_child(path, key), detail))
    if typ == "null":
        errs.append(FieldError.forbidden(_child(path, "type"), "type cannot be set to null, use nullable as an alternative"))
    items_raw = s.get("items")
    if isinstance(items_raw, list) and items_raw:
        errs.append(FieldError.forbidden(_child(path, "items"), "items must be a schema object and not an array"))
    if ctx.inside_meta and s.get("x-kubernetes-embedded-resource"):
        errs.append(FieldError.forbidden(_child(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))

    if s.get("uniqueItems"):
        errs.append(FieldError.forbidden(
            _child(path, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
        ))
    props = _props(s)
    ap = s.get("additionalProperties")
    if ap is not None:
        if props and (ap is False or isinstance(ap, Mapping)):
            errs.append(FieldError.forbidden(
                _child(path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"
            ))
        if isinstance(ap, Mapping):
            sub = ctx.forbid_defaults("inside additionalProperties applying to object metadata") if ctx.inside_meta else ctx
            _openapi(ap, _child(path, "additionalProperties"), sub, False, errs)
    embedded = bool(s.get("x-kubernetes-embedded-resource"))
    for k, v in props.items():
        if not isinstance(v, Mapping):
            continue
        sub = ctx
        if (is_root or embedded) and k in _META_FIELDS:
            sub = sub.in_meta()
            if is_root:
                sub = sub.forbid_defaults(f"in top-level {k}")
        _openapi(v, _key(_child(path, "properties"), k), sub, False, errs)
    not_ = _schema(s.get("not"))
    if not_ is not None:
        _openapi(not_, _child(path, "not"), ctx, False, errs)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, c in enumerate(_clauses(s, key)):
            _openapi(c, _index(_child(path, key), i), ctx, False, errs)
    if isinstance(items_raw, Mapping):
        _openapi(items_raw, _child(path, "items"), ctx, False, errs)
    elif isinstance(items_raw, list):
        for i, c in enumerate(items_raw):
            if isinstance(c, Mapping):
                _openapi(c, _index(_child(path, "items"), i), ctx, False, errs)
    _extensions(s, path, errs)


def _extensions(s: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    typ = s.get("type") or ""
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(FieldError.invalid(_child(path, "x-kubernetes-preserve-unknown-fields"), False, "must be true or undefined"))
    map_type = s.get("x-kubernetes-map-type")
    if map_type is not None and typ != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        errs.append(FieldError.invalid(_child(path, "type"), typ, detail) if typ else FieldError.required(_child(path, "type"), detail))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(FieldError.not_supported(_child(path, "x-kubernetes-map-type"), map_type, ("atomic", "granular")))
    list_type = s.get("x-kubernetes-list-type")
    items = _schema(s.get("items"))
    if list_type is not None and typ != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        errs.append(FieldError.invalid(_child(path, "type"), typ, detail) if typ else FieldError.required(_child(path, "type"), detail))
    elif list_type == "set" and items is not None:
        detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            errs.append(FieldError.invalid(_child(_child(path, "items"), "x-kubernetes-list-type"), items.get("x-kubernetes-list-type"), detail))
        elif items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            errs.append(FieldError.invalid(_child(_child(path, "items"), "x-kubernetes-map-type"), items.get("x-kubernetes-list-type"), detail))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(FieldError.not_supported(_child(path, "x-kubernetes-list-type"), list_type, ("atomic", "set", "map")))
    keys = list(s.get("x-kubernetes-list-map-keys") or ())
    if keys:
        detail = "must be map if x-kubernetes-list-map-keys is non-empty"
        if list_type is None:
            errs.append(FieldError.required(_child(path, "x-kubernetes-list-type"), detail))
        elif list_type != "map":
            errs.append(FieldError.invalid(_child(path, "x-kubernetes-list-type"), list_type, detail))
    if list_type == "map":
        _list_map_rules(s, keys, items, path, errs)
    if list_type in ("set", "map") and items is not None:
        if items.get("nullable"):
            errs.append(FieldError.forbidden(
                _child(_child(path, "items"), "nullable"), f"cannot be nullable when x-kubernetes-list-type is {list_type}"
            ))
        if list_type == "map":
            required = set(items.get("required") or ())
            item_props = _props(items)
            for k in keys:
                p = item_props.get(k)
                if not isinstance(p, Mapping):
                    continue
                kp = _key(_child(_child(path, "items"), "properties"), k)
                if k not in required and p.get("default") is None:
                    errs.append(FieldError.required(
                        _child(kp, "default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    ))
                if p.get("nullable"):
                    errs.append(FieldError.forbidden(
                        _child(kp, "nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"
                    ))


def _list_map_rules(
    s: Mapping[str, Any], keys: list[str], items: Mapping[str, Any] | None, path: str, errs: list[FieldError]
) -> None:
    if not keys:
        errs.append(FieldError.required(
            _child(path, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"
        ))
    if "items" not in s:
        errs.append(FieldError.required(_child(path, "items"), "must have a schema if x-kubernetes-list-type is map"))
        return
    if items is None:
        errs.append(FieldError.invalid(
            _child(path, "items"), s.get("items"), "must only have a single schema if x-kubernetes-list-type is map"
        ))
        return
    if items.get("type") != "object":
        errs.append(FieldError.invalid(
            _child(_child(path, "items"), "type"), items.get("type") or "",
            "must be object if parent array's x-kubernetes-list-type is map",
        ))
        return
    item_props = _props(items)
    seen: set[str] = set()
    for k in keys:
        p = item_props.get(k)
        if isinstance(p, Mapping):
            if p.get("type") in ("array", "object"):
                errs.append(FieldError.invalid(
                    _child(_key(_child(_child(path, "items"), "properties"), k), "type"), "object",
                    "must be a scalar type if parent array's x-kubernetes-list-type is map",
                ))
        else:
            errs.append(FieldError.invalid(
                _child(path, "x-kubernetes-list-map-keys"), keys, "entries must all be names of item properties"
            ))
        if k in seen:
            errs.append(FieldError.invalid(
                _child(path, "x-kubernetes-list-map-keys"), keys, "must not contain duplicate entries"
            ))
        seen.add(k)
