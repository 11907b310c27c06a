"""Generate kubelite's API types and structural OpenAPI definitions from upstream's schemas.

Contract:
- Input: the ``_definitions.json`` that the ``kubernetes-validate`` package (pinned in
  pyproject's ``gen`` extra) ships for Kubernetes 1.37; it is upstream's OpenAPI, converted to
  JSON Schema (nullable types as ``["string", "null"]``, ``$ref`` as ``#/$defs/NAME``).
- Outputs (all committed; the runtime never needs kubernetes-validate):
  ``kubelite/api/openapi.json``: ``{"definitions": {name: node}}`` for every definition reachable
  from :data:`ROOTS`, normalized to the structural form documented in ``kubelite/api/schema.py``;
  ``kubelite/api/types/*.py``: one module of msgspec Structs per group/version, plus
  ``__init__.py`` re-exporting every kind.
- Deterministic: the same input gives byte-identical output (everything is sorted), so re-running
  it is a no-op and a diff shows exactly what upstream changed.

Run it with ``.venv/bin/python tools/gen_api.py`` from the repository root.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import textwrap
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TYPES_DIR = ROOT / "kubelite" / "api" / "types"
OPENAPI_PATH = ROOT / "kubelite" / "api" / "openapi.json"
SOURCE_VERSION = "v1.37.0-local"

_CORE = "io.k8s.api.core.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
_AGGREGATOR = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1."

# Every kind kubelite serves, plus the meta types the apiserver and client exchange.
ROOTS: tuple[str, ...] = (
    *(_CORE + k for k in (
        "Namespace", "Pod", "Node", "Service", "ConfigMap", "Secret", "ServiceAccount", "Event",
        "PersistentVolume", "PersistentVolumeClaim", "Binding", "Endpoints",
        "ReplicationController", "LimitRange", "ResourceQuota", "ComponentStatus",
    )),
    # events.k8s.io/v1: the core/v1 Events under upstream's field mapping (pkg/apis/events/v1/conversion.go)
    "io.k8s.api.events.v1.Event",
    *("io.k8s.api.networking.v1." + k for k in ("Ingress", "IngressClass", "NetworkPolicy")),
    *("io.k8s.api.flowcontrol.v1." + k for k in ("FlowSchema", "PriorityLevelConfiguration")),
    "io.k8s.api.certificates.v1.CertificateSigningRequest",
    *("io.k8s.api.admissionregistration.v1." + k for k in (
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
    )),
    *("io.k8s.api.apps.v1." + k for k in (
        "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision",
    )),
    "io.k8s.api.batch.v1.Job",
    "io.k8s.api.batch.v1.CronJob",
    "io.k8s.api.discovery.v1.EndpointSlice",
    "io.k8s.api.coordination.v1.Lease",
    "io.k8s.api.policy.v1.PodDisruptionBudget",
    "io.k8s.api.policy.v1.Eviction",
    "io.k8s.api.scheduling.v1.PriorityClass",
    "io.k8s.api.storage.v1.StorageClass",
    *("io.k8s.api.rbac.v1." + k for k in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")),
    _APIEXT + "CustomResourceDefinition",
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    "io.k8s.api.autoscaling.v1.Scale",
    # served besides the storage version (converted to autoscaling/v2; not re-exported: see _NOT_REEXPORTED)
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
    *("io.k8s.api.resource.v1." + k for k in ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate",
                                             "ResourceSlice")),
    _AGGREGATOR + "APIService",
    # create-only reviews (authentication.k8s.io, authorization.k8s.io): answered, never stored
    *("io.k8s.api.authentication.v1." + k for k in ("TokenReview", "SelfSubjectReview", "TokenRequest")),
    *("io.k8s.api.authorization.v1." + k for k in (
        "SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview",
    )),
    *(_META + k for k in (
        "ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry", "LabelSelector",
        "DeleteOptions", "Preconditions", "Status", "Condition",
    )),
)

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INTSTR = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_PRESERVE_OBJECT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_PRESERVE_ANY = {"x-kubernetes-preserve-unknown-fields": True}

# Definitions whose upstream shape is not a plain object: their structural node, and the Python
# annotation a field of that type gets.
SPECIAL: dict[str, tuple[dict[str, Any], str]] = {
    _QUANTITY: ({"x-kubernetes-int-or-string": True, "format": "quantity"}, "Quantity"),
    _INTSTR: ({"x-kubernetes-int-or-string": True}, "IntOrString"),
    _META + "Time": ({"type": "string", "format": "date-time"}, "str"),
    _META + "MicroTime": ({"type": "string", "format": "date-time"}, "str"),
    _META + "FieldsV1": (_PRESERVE_OBJECT, "dict[str, Any]"),
    "io.k8s.apimachinery.pkg.runtime.RawExtension": (_PRESERVE_OBJECT, "dict[str, Any]"),
    # apiextensions JSON and the JSONSchemaPropsOr* wrappers may hold any JSON value; validation
    # of a CRD's schema is done by the CRD strategy, not by the structural schema.
    _APIEXT + "JSON": (_PRESERVE_ANY, "Any"),
    _APIEXT + "JSONSchemaPropsOrBool": (_PRESERVE_ANY, "JSONSchemaProps | bool"),
    _APIEXT + "JSONSchemaPropsOrArray": (_PRESERVE_ANY, "JSONSchemaProps | list[JSONSchemaProps]"),
    _APIEXT + "JSONSchemaPropsOrStringArray": (_PRESERVE_ANY, "JSONSchemaProps | list[str]"),
}

# Definition-name prefix -> generated module; ``io.k8s.api.<group>.<version>.`` -> ``<group>_<version>``
# (batch/v1 Job reaches scheduling/v1alpha3 types, so that module exists too).
_MODULE_PREFIXES: tuple[tuple[str, str], ...] = (
    (_META, "meta_v1"),
    (_APIEXT, "apiextensions_v1"),
    (_AGGREGATOR, "apiregistration_v1"),
)
# Kinds of a served non-storage version: their name is the storage version's, which the package re-exports
# (the older version's Struct is reached through its module: ``kubelite.api.types.autoscaling_v1``).
_NOT_REEXPORTED = frozenset({"io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler", "io.k8s.api.events.v1.Event"})
_API_NAME = re.compile(r"io\.k8s\.api\.([a-z0-9]+)\.(v[a-z0-9]+)\.[A-Za-z0-9]+")
# A field must not shadow a module name that annotations refer to (msgspec resolves string
# annotations with the class namespace in scope).
_API_NAME_MODULE = re.compile(r"(core|apps|batch|meta|apiextensions|scheduling|policy|storage|rbac|"
                              r"discovery|coordination|autoscaling|networking|flowcontrol|certificates|resource|apiregistration|"
                              r"admissionregistration|events)_v[0-9][a-z0-9]*")

_DROP_KEYS = frozenset({"description", "oneOf"})
_SCALAR_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_BASE_NAMES = frozenset({"Any", "K8sStruct", "Quantity", "IntOrString", "msgspec", "partial",
                         "str", "int", "float", "bool", "list", "dict", "None"})


def load_source() -> dict[str, Any]:
    ref = resources.files("kubernetes_validate").joinpath(
        "kubernetes-json-schema", SOURCE_VERSION, "_definitions.json")
    defs: dict[str, Any] = json.loads(ref.read_text(encoding="utf-8"))["$defs"]
    return defs


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def iter_refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield ref_name(value)
            elif key not in ("enum", "default", "required", "x-kubernetes-group-version-kind"):
                yield from iter_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from iter_refs(item)


def reachable(defs: dict[str, Any]) -> list[str]:
    seen: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in SPECIAL and not name.startswith(_APIEXT + "JSONSchemaPropsOr"):
            continue
        todo.extend(iter_refs(defs[name]))
    return sorted(seen)


def single_type(t: Any) -> str | None:
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        assert len(rest) <= 1, t
        return rest[0] if rest else None
    return t  # type: ignore[no-any-return]


def gvks(node: dict[str, Any]) -> list[dict[str, str]]:
    return list(node.get("x-kubernetes-group-version-kind") or ())


# --- openapi.json ---

def normalize(node: Any) -> Any:
    """The structural form of one schema node: single type, bare ``$ref``, no descriptions."""
    if isinstance(node, list):
        return [normalize(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP_KEYS:
            continue
        if key == "type":
            t = single_type(value)
            if t is not None:
                out["type"] = t
        elif key == "$ref":
            out["$ref"] = ref_name(value)
        elif key == "properties":
            out[key] = {k: normalize(v) for k, v in value.items()}
        elif key in ("enum", "default", "required", "x-kubernetes-group-version-kind",
                     "x-kubernetes-list-map-keys", "x-kubernetes-unions"):
            out[key] = value
        else:
            out[key] = normalize(value)
    return out


#: Defaults upstream's published OpenAPI v3 carries (``+default=`` markers) but kubernetes-validate's JSON
#: schemas drop. Server-side apply needs them: they complete list-map keys (a container port applied
#: without ``protocol`` is keyed ``{"containerPort":80,"protocol":"TCP"}``, as upstream keys it).
KEY_FIELD_DEFAULTS: dict[tuple[str, str], Any] = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.EndpointPort", "protocol"): "TCP",
    ("io.k8s.api.discovery.v1.EndpointPort", "protocol"): "TCP",
}


def normalize_definition(name: str, node: dict[str, Any]) -> dict[str, Any]:
    if name in SPECIAL:
        return dict(SPECIAL[name][0])
    out: dict[str, Any] = normalize(node)
    for (def_name, field), value in KEY_FIELD_DEFAULTS.items():
        if def_name == name and field in out.get("properties", {}):
            out["properties"][field]["default"] = value
    if gvks(node):
        # kubernetes-validate pins apiVersion/kind with an enum to pick a schema per document;
        # upstream's OpenAPI has no such enum (lists and embedded objects may omit or vary them).
        for key in ("apiVersion", "kind"):
            out.get("properties", {}).get(key, {}).pop("enum", None)
    return out


def build_openapi(defs: dict[str, Any], names: list[str]) -> bytes:
    doc = {"definitions": {n: normalize_definition(n, defs[n]) for n in names}}
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"


# --- Structs ---

def module_of(name: str) -> str:
    for prefix, module in _MODULE_PREFIXES:
        if name.startswith(prefix):
            return module
    m = _API_NAME.fullmatch(name)
    if m:
        return f"{m.group(1)}_{m.group(2)}"
    raise ValueError(f"no module for definition {name}")


def class_name(name: str) -> str:
    return name.rsplit(".", 1)[-1]


_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z0-9])")
_PLURAL_ACRONYM = re.compile(r"([A-Z]{2,})s(?=[A-Z_]|$)")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def attr_name(json_name: str) -> str:
    """``podIPs`` -> ``pod_ips``, ``openAPIV3Schema`` -> ``open_api_v3_schema``,
    ``x-kubernetes-list-type`` -> ``x_kubernetes_list_type``, ``continue`` -> ``continue_``."""
    s = json_name.lstrip("$").replace("-", "_")
    s = _PLURAL_ACRONYM.sub(lambda m: m.group(1) + "S", s)  # IPs, URLs, CIDRs: one word each
    s = _CAMEL.sub(r"\1_\2", _ACRONYM.sub(r"\1_\2", s)).lower()
    if keyword.iskeyword(s):
        s += "_"
    return s


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    m = re.search(r"(?<=[.!?])\s", text)
    if m:
        text = text[: m.start()]
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


class ModuleWriter:
    def __init__(self, module: str, defs: dict[str, Any]) -> None:
        self.module = module
        self.defs = defs
        self.imports: set[str] = set()
        self.uses: set[str] = set()

    def ref_type(self, name: str) -> str:
        if name in SPECIAL:
            annotation = SPECIAL[name][1]
            for word in ("Any", "Quantity", "IntOrString"):
                if word in annotation:
                    self.uses.add(word)
            if "JSONSchemaProps" in annotation and self.module != "apiextensions_v1":
                raise ValueError(f"{name} used outside apiextensions")
            return annotation
        mod = module_of(name)
        if mod == self.module:
            return class_name(name)
        self.imports.add(mod)
        return f"{mod}.{class_name(name)}"

    def type_of(self, node: dict[str, Any]) -> str:
        if "$ref" in node:
            return self.ref_type(ref_name(node["$ref"]))
        t = single_type(node.get("type"))
        if t in _SCALAR_TYPES:
            return _SCALAR_TYPES[t]
        if t == "array":
            return f"list[{self.type_of(node['items'])}]"
        if t == "object" or t is None:
            assert "properties" not in node, f"inline object in {self.module}: {node}"
            ap = node.get("additionalProperties")
            if isinstance(ap, dict):
                return f"dict[str, {self.type_of(ap)}]"
            self.uses.add("Any")
            return "dict[str, Any]" if t == "object" else "Any"
        raise ValueError(f"unknown type {t!r}")

    def render_class(self, name: str) -> list[str]:
        node = self.defs[name]
        cls = class_name(name)
        # kw_only is the one Struct option msgspec does not inherit from the base class.
        lines = [f"class {cls}(K8sStruct, kw_only=True):"]
        doc = first_sentence(node.get("description") or f"{cls} has no upstream description.")
        lines.append(f'    """{doc}"""')
        lines.append("")
        props: dict[str, Any] = node.get("properties") or {}
        kinds = gvks(node)
        # Kinds encode apiVersion, kind and metadata first, as kubectl prints them.
        first = {"apiVersion": 0, "kind": 1, "metadata": 2} if kinds else {}
        order = sorted(props, key=lambda k: (first.get(k, 3), k))
        attrs: set[str] = set()
        for json_name in order:
            attr = attr_name(json_name)
            if attr in _BASE_NAMES and attr not in attrs:
                attr += "_"  # DeviceAttribute.bool / .int: a field must not shadow a builtin the annotations use
            if attr in attrs or attr in _BASE_NAMES or _API_NAME_MODULE.fullmatch(attr):
                raise ValueError(f"{cls}.{attr}: duplicate or shadows a name used in annotations")
            attrs.add(attr)
            rename = f', name="{json_name}"' if attr != json_name else ""
            if len(kinds) == 1 and json_name in ("apiVersion", "kind"):
                g, v = kinds[0]["group"], kinds[0]["version"]
                value = kinds[0]["kind"] if json_name == "kind" else (f"{g}/{v}" if g else v)
                self.uses.add("partial")
                lines.append(
                    f'    {attr}: str = msgspec.field(default_factory=partial(str, "{value}"){rename})')
                continue
            t = self.type_of(props[json_name])
            if len(kinds) == 1 and json_name == "metadata" and t.endswith("ObjectMeta"):
                # every top-level kind has metadata: never None (an absent one decodes as empty), so
                # `obj.metadata.name` type-checks; it is still not required in a manifest
                lines.append(f"    {attr}: {t} = msgspec.field(default_factory={t})")
                continue
            annotation = t if t == "Any" else f"{t} | None"
            default = f"msgspec.field(default=None{rename})" if rename else "None"
            lines.append(f"    {attr}: {annotation} = {default}")
        if not props:
            lines.append("    pass")
        return lines

    def render(self, names: list[str]) -> str:
        body: list[str] = []
        for name in names:
            body.extend(["", ""])
            body.extend(self.render_class(name))
        group_version = self.module.replace("_", "/")
        head = [
            f'"""Generated msgspec Structs for {group_version} (Kubernetes 1.37). DO NOT EDIT.',
            "",
            "Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the",
            'conventions (every field optional, exact JSON names, unknown fields rejected)."""',
            "",
            "from __future__ import annotations",
            "",
        ]
        if "partial" in self.uses:
            head.append("from functools import partial")
        if "Any" in self.uses:
            head.append("from typing import Any")
        if "partial" in self.uses or "Any" in self.uses:
            head.append("")
        head.append("import msgspec")
        head.append("")
        base_names = sorted({"K8sStruct"} | (self.uses & {"IntOrString", "Quantity"}))
        for mod in sorted(self.imports):
            head.append(f"from kubelite.api.types import {mod}")
        head.append(f"from kubelite.api.types._base import {', '.join(base_names)}")
        exported = textwrap.fill(", ".join(f'"{class_name(n)}"' for n in names), 100,
                                 initial_indent="    ", subsequent_indent="    ")
        head.extend(["", "__all__ = [", exported, "]"])
        return "\n".join(head + body) + "\n"


def render_init(kinds_by_module: dict[str, list[str]]) -> str:
    """The package ``__init__``: every kind re-exported, each group/version module imported the first time
    one of its names is read (PEP 562, :mod:`kubelite.lazy`), so a process imports only the modules of the
    kinds it uses (core/v1 alone is ~200 classes; issue #17, cold start). Type checkers read the
    ``TYPE_CHECKING`` imports."""
    lines = [
        '"""Typed Kubernetes objects: msgspec Structs generated from upstream\'s OpenAPI (1.37).',
        "",
        "Every kind kubelite serves is re-exported here; the supporting types live in the",
        "per-group/version modules (``kubelite.api.types.core_v1.PodSpec``). A group/version module is",
        "imported the first time one of its names is read (kubelite.lazy). Generated by",
        'tools/gen_api.py. DO NOT EDIT."""',
        "",
        "from typing import TYPE_CHECKING",
        "",
        "from kubelite.api.types._base import IntOrString, K8sStruct, Quantity",
        "from kubelite.lazy import lazy_exports",
        "",
        "if TYPE_CHECKING:",
    ]
    exported = ["IntOrString", "K8sStruct", "Quantity"]
    lazy: list[tuple[str, str]] = []
    for module in sorted(kinds_by_module):
        names = sorted(kinds_by_module[module])
        assert not set(names) & set(exported), names
        lines.append(f"    from kubelite.api.types.{module} import {', '.join(names)}")
        exported.extend(names)
        lazy.extend((n, module) for n in names)
    lines.append("")
    lines.append("__all__ = [")
    lines.extend(f'    "{n}",' for n in sorted(exported))
    lines.append("]")
    lines.append("")
    lines.append("__getattr__, __dir__ = lazy_exports(__name__, {")
    lines.extend(f'    "{n}": "kubelite.api.types.{module}",' for n, module in sorted(lazy))
    lines.append("})")
    return "\n".join(lines) + "\n"


def build_types(defs: dict[str, Any], names: list[str]) -> dict[str, str]:
    by_module: dict[str, list[str]] = {}
    for name in names:
        if name not in SPECIAL:
            by_module.setdefault(module_of(name), []).append(name)
    files: dict[str, str] = {}
    exported: dict[str, list[str]] = {}
    for module, members in sorted(by_module.items()):
        members.sort(key=class_name)
        files[f"{module}.py"] = ModuleWriter(module, defs).render(members)
        for n in members:
            if (n in ROOTS or len(gvks(defs[n])) == 1) and n not in _NOT_REEXPORTED:
                exported.setdefault(module, []).append(class_name(n))
    files["__init__.py"] = render_init(exported)
    return files


def main() -> int:
    defs = load_source()
    names = reachable(defs)
    OPENAPI_PATH.write_bytes(build_openapi(defs, names))
    TYPES_DIR.mkdir(parents=True, exist_ok=True)
    for filename, text in build_types(defs, names).items():
        (TYPES_DIR / filename).write_text(text, encoding="utf-8")
    print(f"{len(names)} definitions; openapi.json {OPENAPI_PATH.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
