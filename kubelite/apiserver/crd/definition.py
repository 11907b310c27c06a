"""CustomResourceDefinition defaulting and validation, and the per-version schema bundle.

Contract:
- :func:`crd_defaults` mutates a CRD dict in place with upstream's ``SetDefaults`` for
  apiextensions/v1 (``pkg/apis/apiextensions/v1/defaults.go``). Call it before
  :func:`validate_crd`.
- :func:`validate_crd` never mutates the CRD and returns upstream's field errors for a create
  (``ValidateCustomResourceDefinition`` in ``pkg/apis/apiextensions/validation/validation.go``),
  in upstream's order. Like upstream's v1 → internal conversion, per-version schemas,
  subresources and selectable fields that are identical across all versions are reported
  under ``spec.validation`` / ``spec.subresources`` / ``spec.selectableFields``; otherwise
  under ``spec.versions[i]``.
- ``x-kubernetes-validations`` rules and messageExpressions are compiled and their worst-case cost
  estimated (a rule that does not compile, or whose estimate exceeds 10,000,000, is rejected); left out: the
  CRD-wide cost total,
  conversion-webhook URL/service/CA details, ``status`` (accepted names, stored versions) and
  validation of metadata inside schema defaults.
- :class:`CustomResourceSchema` is an immutable bundle of what the request path needs for one
  version of a CRD; build it with :meth:`CustomResourceSchema.from_crd`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubelite.api.schema import Schema
from kubelite.apiserver.crd.defaulting import deep_copy_json
from kubelite.apiserver.crd.pruning import prune
from kubelite.apiserver.crd.structural import check_openapi_schema, check_structural
from kubelite.apiserver.crd.validation import validate
from kubelite.errors import FieldError

__all__ = ["MAX_SELECTABLE_FIELDS", "CustomResourceSchema", "crd_defaults", "validate_crd"]

MAX_SELECTABLE_FIELDS = 8
_PRESERVE_ALL: Mapping[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def _dns1035_label(v: str) -> list[str]:
    """utilvalidation.IsDNS1035Label."""
    errs = ["must be no more than 63 characters"] if len(v) > 63 else []
    if not _DNS1035.match(v):
        errs.append(_DNS1035_MSG)
    return errs


def _dns1123_subdomain(v: str) -> list[str]:
    """utilvalidation.IsDNS1123Subdomain."""
    errs = ["must be no more than 253 characters"] if len(v) > 253 else []
    if not _DNS1123_SUBDOMAIN.match(v):
        errs.append(_DNS1123_SUBDOMAIN_MSG)
    return errs


def _map(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


# JSONSchemaProps fields in Go struct order (with their JSON names), for the status-subresource
# root check, which reports the first disallowed one.
_ROOT_FIELDS = (
    ("ID", "id"), ("Schema", "$schema"), ("Ref", "$ref"), ("Description", "description"), ("Type", "type"),
    ("Format", "format"), ("Title", "title"), ("Default", "default"), ("Maximum", "maximum"),
    ("ExclusiveMaximum", "exclusiveMaximum"), ("Minimum", "minimum"), ("ExclusiveMinimum", "exclusiveMinimum"),
    ("MaxLength", "maxLength"), ("MinLength", "minLength"), ("Pattern", "pattern"), ("MaxItems", "maxItems"),
    ("MinItems", "minItems"), ("UniqueItems", "uniqueItems"), ("MultipleOf", "multipleOf"), ("Enum", "enum"),
    ("MaxProperties", "maxProperties"), ("MinProperties", "minProperties"), ("Required", "required"),
    ("Items", "items"), ("AllOf", "allOf"), ("OneOf", "oneOf"), ("AnyOf", "anyOf"), ("Not", "not"),
    ("Properties", "properties"), ("AdditionalProperties", "additionalProperties"),
    ("PatternProperties", "patternProperties"), ("Dependencies", "dependencies"),
    ("AdditionalItems", "additionalItems"), ("Definitions", "definitions"), ("ExternalDocs", "externalDocs"),
    ("Example", "example"), ("Nullable", "nullable"),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields"),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource"), ("XIntOrString", "x-kubernetes-int-or-string"),
    ("XListMapKeys", "x-kubernetes-list-map-keys"), ("XListType", "x-kubernetes-list-type"),
    ("XMapType", "x-kubernetes-map-type"), ("XValidations", "x-kubernetes-validations"),
)
_ALLOWED_AT_ROOT = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum",
    "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required",
    "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations",
)


def check_root_for_status(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """With a status subresource only a few keywords may appear at the schema root."""
    for go_name, key in _ROOT_FIELDS:
        v = schema.get(key)
        if v is None or v is False or v == "" or v == [] or v == {}:
            continue
        if go_name == "Type":
            if v != "object":
                return [FieldError.invalid(
                    f"{path}.type", v,
                    'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
                )]
            continue
        if go_name not in _ALLOWED_AT_ROOT:
            allowed = "[" + " ".join(_ALLOWED_AT_ROOT) + "]"
            return [FieldError.invalid(
                path, schema, f"only {allowed} fields are allowed at the root of the schema if the status subresource is enabled"
            )]
    return []


# --- defaults --------------------------------------------------------------------------------------


def crd_defaults(crd: dict[str, Any]) -> None:
    """apiextensions/v1 SetDefaults_CustomResourceDefinition, in place."""
    spec = crd.setdefault("spec", {})
    names = spec.setdefault("names", {})
    kind = _str(names.get("kind"))
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = kind + "List"
    conversion = spec.get("conversion")
    if conversion is None:
        spec["conversion"] = {"strategy": "None"}
    else:
        service = _map(_map(_map(conversion).get("webhook")).get("clientConfig")).get("service")
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443
    status = crd.setdefault("status", {})
    if not status.get("storedVersions"):
        for v in spec.get("versions") or ():
            if isinstance(v, Mapping) and v.get("storage"):
                status["storedVersions"] = [v.get("name")]
                break


# --- validation ------------------------------------------------------------------------------------


def _hoisted(versions: list[Mapping[str, Any]], key: str) -> tuple[bool, Any]:
    """Whether ``versions[*].<key>`` are identical (then upstream moves them to the spec)."""
    if not versions:
        return False, None
    first = versions[0].get(key)
    return all(v.get(key) == first for v in versions), first


def validate_crd(crd: Mapping[str, Any]) -> list[FieldError]:
    """ValidateCustomResourceDefinition for a create (see module doc for what is left out)."""
    errs: list[FieldError] = []
    spec = _map(crd.get("spec"))
    names = _map(spec.get("names"))
    group = _str(spec.get("group"))
    errs.extend(_validate_name(_map(crd.get("metadata")), f"{_str(names.get('plural'))}.{group}"))

    if not group:
        errs.append(FieldError.required("spec.group"))
    elif msgs := _dns1123_subdomain(group):
        errs.append(FieldError.invalid("spec.group", group, ",".join(msgs)))
    elif "." not in group:
        errs.append(FieldError.invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = _str(spec.get("scope"))
    if not scope:
        errs.append(FieldError.required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        errs.append(FieldError.not_supported("spec.scope", scope, ("Cluster", "Namespaced")))

    versions = [v if isinstance(v, Mapping) else {} for v in spec.get("versions") or ()]
    schema_same, schema = _hoisted(versions, "schema")
    sub_same, subresources = _hoisted(versions, "subresources")
    sel_same, selectable = _hoisted(versions, "selectableFields")
    if not (schema_same and _map(schema).get("openAPIV3Schema") is not None):
        for i, v in enumerate(versions):
            if _map(v.get("schema")).get("openAPIV3Schema") is None:
                errs.append(FieldError.required(f"spec.versions[{i}].schema.openAPIV3Schema"))

    storage = 0
    seen: set[str] = set()
    unique = True
    for i, v in enumerate(versions):
        vp = f"spec.versions[{i}]"
        name = _str(v.get("name"))
        storage += bool(v.get("storage"))
        unique = unique and name not in seen
        seen.add(name)
        if msgs := _dns1035_label(name):
            errs.append(FieldError.invalid(f"{vp}.name", name, ",".join(msgs)))
        if v.get("deprecationWarning") is not None and not v.get("deprecated"):
            errs.append(FieldError.invalid(
                f"{vp}.deprecationWarning", v.get("deprecationWarning"), "can only be set for deprecated versions"
            ))
        status_on = "status" in _map(subresources if sub_same else v.get("subresources"))
        if not schema_same:
            errs.extend(_validate_schema(_map(v.get("schema")), status_on, f"{vp}.schema"))
        if not sub_same:
            errs.extend(_validate_subresources(v.get("subresources"), f"{vp}.subresources"))
        if not sel_same and v.get("selectableFields"):
            errs.extend(_validate_selectable(
                v.get("selectableFields"), v.get("schema"), f"{vp}.selectableFields",
                "may only be set when `version.schema.openAPIV3Schema` is not included",
            ))

    if not unique:
        errs.append(FieldError.invalid("spec.versions", list(versions), "must contain unique version names"))
    if storage != 1:
        errs.append(FieldError.invalid(
            "spec.versions", list(versions), "must have exactly one version marked as storage version"
        ))
    errs.extend(_validate_names(names))
    if schema_same:
        status_on = any("status" in _map(subresources if sub_same else v.get("subresources")) for v in versions)
        errs.extend(_validate_schema(_map(schema), status_on, "spec.validation"))
    if sub_same:
        errs.extend(_validate_subresources(subresources, "spec.subresources"))
    if sel_same and selectable:
        errs.extend(_validate_selectable(
            selectable, schema, "spec.selectableFields", "may only be set when validations.schema is included"
        ))
    errs.extend(_validate_conversion(spec.get("conversion")))
    if spec.get("preserveUnknownFields") is True:
        errs.append(FieldError.invalid(
            "spec.preserveUnknownFields", True,
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ))
    return errs


def _validate_name(meta: Mapping[str, Any], required: str) -> list[FieldError]:
    name = _str(meta.get("name"))
    if not name:
        return [FieldError.required("metadata.name", "name or generateName is required")]
    msgs = _dns1123_subdomain(name)
    if name != required:
        msgs.append('must be spec.names.plural+"."+spec.group')
    return [FieldError.invalid("metadata.name", name, m) for m in msgs]


def _validate_names(names: Mapping[str, Any]) -> list[FieldError]:
    """The required names, then ValidateCustomResourceDefinitionNames."""
    errs = [
        FieldError.required(f"spec.names.{k}") for k in ("plural", "singular", "kind", "listKind") if not names.get(k)
    ]
    for k in ("plural", "singular"):
        v = _str(names.get(k))
        if v and (msgs := _dns1035_label(v)):
            errs.append(FieldError.invalid(f"spec.names.{k}", v, ",".join(msgs)))
    for k in ("kind", "listKind"):
        v = _str(names.get(k))
        if v and (msgs := _dns1035_label(v.lower())):
            errs.append(FieldError.invalid(
                f"spec.names.{k}", v, "may have mixed case, but should otherwise match: " + ",".join(msgs)
            ))
    for list_key in ("shortNames", "categories"):
        for i, v in enumerate(names.get(list_key) or ()):
            if msgs := _dns1035_label(_str(v)):
                errs.append(FieldError.invalid(f"spec.names.{list_key}[{i}]", v, ",".join(msgs)))
    kind = names.get("kind")
    if kind and kind == names.get("listKind"):
        errs.append(FieldError.invalid("spec.names.listKind", kind, "kind and listKind may not be the same"))
    return errs


def _validate_schema(validation: Mapping[str, Any], status_on: bool, path: str) -> list[FieldError]:
    """validateCustomResourceDefinitionValidation for one openAPIV3Schema."""
    schema = validation.get("openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return []
    sp = f"{path}.openAPIV3Schema"
    errs = check_root_for_status(schema, sp) if status_on else []
    if schema.get("nullable"):
        errs.append(FieldError.forbidden(f"{sp}.nullable", "nullable cannot be true at the root"))
    structural = check_structural(schema, sp)
    errs.extend(structural)
    if not structural:
        errs.extend(_validate_defaults(Schema.of(schema), sp, is_root=True))
    errs.extend(check_openapi_schema(schema, sp))
    if not errs:  # upstream skips CEL checks while the schema itself has errors
        errs.extend(_rule_compile_errors(schema, sp))
    return errs


def _rule_compile_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    """Rules and messageExpressions that do not compile (upstream ``cel.Compile`` at CRD validation:
    ``...x-kubernetes-validations[i].rule: Invalid value: ...: compilation failed: ERROR: <input>:...``)."""
    errs: list[FieldError] = []
    rules = node.get("x-kubernetes-validations") or ()
    if rules:  # CEL loads with the first CRD that has rules, not with the apiserver (issue #17, cold start)
        from kubelite.apiserver.crd.cel import (
            STATIC_COST_LIMIT,
            compile_errors,
            cost_error_message,
            estimated_cost,
        )
    for i, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        rp = f"{path}.x-kubernetes-validations[{i}]"
        for key in ("rule", "messageExpression"):
            text = rule.get(key)
            if isinstance(text, str) and text.strip():
                err = compile_errors(text)
                if err is not None:
                    what = "compilation failed" if key == "rule" else "messageExpression compilation failed"
                    errs.append(FieldError.invalid(f"{rp}.{key}", text, f"{what}: {err}"))
                    continue
                cost = estimated_cost(text, node)
                if cost > STATIC_COST_LIMIT:
                    name = "estimated rule cost" if key == "rule" else "estimated messageExpression cost"
                    errs.append(FieldError.forbidden(f"{rp}.{key}", cost_error_message(name, cost, STATIC_COST_LIMIT)))
    for key in ("properties", "patternProperties"):
        for name, child in _map(node.get(key)).items():
            if isinstance(child, Mapping):
                errs.extend(_rule_compile_errors(child, f"{path}.{key}[{name}]"))
    for key in ("items", "additionalProperties"):
        child = node.get(key)
        if isinstance(child, Mapping):
            errs.extend(_rule_compile_errors(child, f"{path}.{key}"))
    return errs


def _validate_defaults(s: Schema, path: str, *, is_root: bool, inside_meta: bool = False) -> list[FieldError]:
    """defaulting.ValidateDefaults: every default validates against its schema and is pruned."""
    errs: list[FieldError] = []
    embedded = s.embedded_resource or is_root
    if s.has_default and s.default is not None and not inside_meta:
        d = s.default
        pruned = deep_copy_json(d)
        prune(pruned, s, is_resource_root=s.embedded_resource)
        if pruned != d:
            errs.append(FieldError.invalid(f"{path}.default", d, "must not have unknown fields"))
        errs.extend(validate(d, s, path=f"{path}.default"))
    items = s.items
    if items is not None:
        errs.extend(_validate_defaults(items, f"{path}.items", is_root=False, inside_meta=inside_meta))
    for k, sub in s.properties.items():
        meta = inside_meta or (embedded and k in ("metadata", "apiVersion", "kind"))
        errs.extend(_validate_defaults(sub, f"{path}.properties[{k}]", is_root=False, inside_meta=meta))
    return errs


def _validate_simple_json_path(p: str, path: str) -> list[FieldError]:
    if not p:
        return [FieldError.invalid(path, p, "must not be empty")]
    if p[0] != ".":
        return [FieldError.invalid(path, p, "must be a simple json path starting with .")]
    return []


def _validate_subresources(sub: Any, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionSubresources."""
    scale = _map(sub).get("scale")
    if not isinstance(scale, Mapping):
        return []
    errs: list[FieldError] = []
    for key, prefix, where in (("specReplicasPath", ".spec.", ".spec"), ("statusReplicasPath", ".status.", ".status")):
        v = _str(scale.get(key))
        fp = f"{path}.scale.{key}"
        if not v:
            errs.append(FieldError.required(fp))
        elif e := _validate_simple_json_path(v, fp):
            errs.extend(e)
        elif not v.startswith(prefix):
            errs.append(FieldError.invalid(fp, v, f"should be a json path under {where}"))
    selector = _str(scale.get("labelSelectorPath"))
    if selector:
        fp = f"{path}.scale.labelSelectorPath"
        if e := _validate_simple_json_path(selector, fp):
            errs.extend(e)
        elif not selector.startswith((".spec.", ".status.")):
            errs.append(FieldError.invalid(fp, selector, "should be a json path under either .spec or .status"))
    return errs


def _field_path(json_path: str, s: Schema) -> tuple[str, Schema]:
    """cel.ValidFieldPath without array notation: ``.spec.color`` -> (``spec.color``, node)."""
    parts: list[str] = []
    rest = json_path
    node = s
    while rest:
        if rest[0] == "[":
            raise ValueError("array notation is not allowed")
        if rest[0] != ".":
            raise ValueError(f"expected [ or . but got: {rest.split('.', 1)[0]}")
        name, _, tail = rest[1:].partition(".")
        if "[" in name:
            raise ValueError("array notation is not allowed")
        rest = "." + tail if _ else ""
        if not name:
            raise ValueError("unexpected end of JSON path")
        if node.properties:
            nxt = node.properties.get(name)
        elif node.additional_properties is not None:
            nxt = node.additional_properties
        else:
            nxt = None
        if nxt is None:
            raise ValueError("does not refer to a valid field")
        parts.append(name)
        node = nxt
    return ".".join(parts), node


def _validate_selectable(fields: Any, schema: Any, path: str, no_schema: str) -> list[FieldError]:
    """ValidateCustomResourceSelectableFields (``no_schema``: upstream's per-place message)."""
    root = _map(_map(schema).get("openAPIV3Schema"))
    if not root:
        return [FieldError.invalid(path, "", no_schema)]
    s = Schema.of(root)
    errs: list[FieldError] = []
    unique: list[str] = []
    for i, f in enumerate(fields if isinstance(fields, list) else ()):
        fp = f"{path}[{i}].jsonPath"
        jp = _str(_map(f).get("jsonPath"))
        if not jp:
            errs.append(FieldError.required(fp))
            continue
        try:
            p, node = _field_path(jp, s)
        except ValueError as e:
            errs.append(FieldError.invalid(fp, jp, f"is an invalid path: {e}"))
            continue
        if p.split(".", 1)[0] == "metadata":
            errs.append(FieldError.invalid(fp, jp, "must not point to fields in metadata"))
        if node.type not in ("string", "boolean", "integer"):
            errs.append(FieldError.invalid(
                fp, jp,
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ))
        if p in unique:
            errs.append(FieldError.duplicate(fp, jp))
        else:
            unique.append(p)
    if len(unique) > MAX_SELECTABLE_FIELDS:
        errs.append(FieldError(
            kind="TooMany", field=path, detail=f"{len(unique)}: must have at most {MAX_SELECTABLE_FIELDS} items"
        ))
    return errs


def _validate_conversion(conversion: Any) -> list[FieldError]:
    """validateCustomResourceConversion (strategy and presence checks only)."""
    if not isinstance(conversion, Mapping):
        return []
    strategy = _str(conversion.get("strategy"))
    if not strategy:
        return [FieldError.required("spec.conversion.strategy")]
    if strategy not in ("None", "Webhook"):
        return [FieldError.not_supported("spec.conversion.strategy", strategy, ("None", "Webhook"))]
    webhook = conversion.get("webhook")
    if strategy == "Webhook":
        cc = _map(webhook).get("clientConfig")
        if not isinstance(cc, Mapping):
            return [FieldError.required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook")]
        if ("url" in cc) == ("service" in cc):
            return [FieldError.required("spec.conversion.webhookClientConfig", "exactly one of url or service is required")]
        return []
    if isinstance(webhook, Mapping) and webhook.get("clientConfig") is not None:
        return [FieldError.forbidden(
            "spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"
        )]
    return []


# --- the per-version bundle ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CustomResourceSchema:
    """What the request path needs to serve one version of a CRD."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    served: bool
    storage: bool
    schema: Schema
    status: bool = False
    scale: bool = False
    spec_replicas_path: str | None = None
    status_replicas_path: str | None = None
    label_selector_path: str | None = None
    selectable_fields: tuple[str, ...] = ()

    @classmethod
    def from_crd(cls, crd: Mapping[str, Any], version: str) -> CustomResourceSchema:
        """The bundle for ``version``; ``KeyError`` if the CRD has no such version."""
        spec = _map(crd.get("spec"))
        names = _map(spec.get("names"))
        for v in spec.get("versions") or ():
            if isinstance(v, Mapping) and v.get("name") == version:
                break
        else:
            raise KeyError(f"custom resource definition {crd.get('metadata', {}).get('name')!r} has no version {version!r}")
        raw = _map(v.get("schema")).get("openAPIV3Schema")
        sub = _map(v.get("subresources"))
        scale = sub.get("scale")
        scale_map = _map(scale)
        return cls(
            group=_str(spec.get("group")),
            version=version,
            kind=_str(names.get("kind")),
            plural=_str(names.get("plural")),
            namespaced=spec.get("scope") != "Cluster",
            served=bool(v.get("served")),
            storage=bool(v.get("storage")),
            schema=Schema.of(raw if isinstance(raw, Mapping) else _PRESERVE_ALL),
            status="status" in sub,
            scale=isinstance(scale, Mapping),
            spec_replicas_path=scale_map.get("specReplicasPath"),
            status_replicas_path=scale_map.get("statusReplicasPath"),
            label_selector_path=scale_map.get("labelSelectorPath"),
            selectable_fields=tuple(_str(_map(f).get("jsonPath")) for f in v.get("selectableFields") or ()),
        )
