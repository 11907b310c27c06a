"""A minimal OpenAPI v3 (``/openapi/v3``): a root index plus one document per group-version.

Contract:
- The root lists ``api/v1`` and ``apis/{g}/{v}`` with a ``serverRelativeURL`` carrying a content hash, as
  ``k8s.io/kube-openapi/pkg/handler3`` does; a per-group document has a path per resource (collection and
  item, namespaced and cluster-wide) whose operations carry ``x-kubernetes-group-version-kind`` and
  ``x-kubernetes-action`` and the query parameters the server honours (``dryRun``, ``fieldManager``,
  ``fieldValidation``, ``force``). That is what kubectl reads to decide that the server validates fields
  itself (``kubectl apply``'s default ``--validate=strict`` becomes ``fieldValidation=Strict``), and the
  component schemas (upstream's, from ``kubelite/api/openapi.json``, or a CRD's ``openAPIV3Schema``) are what
  ``kubectl explain`` and patch-metadata lookups read. Built-in schemas carry upstream's descriptions of each
  definition and field (``kubelite/api/openapi_descriptions.json.gz``, loaded with the first document served).
- ``/openapi/v2`` is not served (404): clients of this generation fall back to v3.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.server import ApiServer
from kubelite.http.discovery import KUBE_VERSION, resources_of

__all__ = ["group_document", "root_document"]

_REF_PREFIX = "#/components/schemas/"


@functools.cache
def _definitions() -> dict[str, Any]:
    from importlib import resources

    raw = json.loads(resources.files("kubelite.api").joinpath("openapi.json").read_text())
    defs: dict[str, Any] = raw["definitions"]
    return defs


def _rewrite(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and not v.startswith("#"):
                out[k] = _REF_PREFIX + v
            else:
                out[k] = _rewrite(v)
        return out
    if isinstance(node, list):
        return [_rewrite(v) for v in node]
    return node


def _refs(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                out.add(v.removeprefix(_REF_PREFIX))
            else:
                _refs(v, out)
    elif isinstance(node, list):
        for v in node:
            _refs(v, out)


def _closure(names: set[str], defs: dict[str, Any]) -> dict[str, Any]:
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n in seen or n not in defs:
            continue
        seen.add(n)
        found: set[str] = set()
        _refs(defs[n], found)
        todo.extend(found - seen)
    descriptions = _descriptions()
    out: dict[str, Any] = {}
    for n in sorted(seen):
        node = _rewrite(defs[n])  # a fresh copy: the descriptions go into it, never into the shared definitions
        described = descriptions.get(n)
        if described is not None:
            text, fields = described
            if text:
                node["description"] = text
            props = node.get("properties")
            if isinstance(props, dict):
                for field, field_text in fields.items():
                    if isinstance(props.get(field), dict):
                        props[field]["description"] = field_text
        out[n] = node
    return out


@functools.cache
def _descriptions() -> dict[str, Any]:
    """Upstream's descriptions of every definition and its fields (``tools/gen_descriptions.py``), read with the
    first OpenAPI document a client asks for (``kubectl explain`` prints them)."""
    import gzip
    from importlib import resources

    raw = resources.files("kubelite.api").joinpath("openapi_descriptions.json.gz").read_bytes()
    table: dict[str, Any] = json.loads(gzip.decompress(raw))
    return table


_PARAMS = {
    "dryRun": "When present, indicates that modifications should not be persisted (All).",
    "fieldManager": "A name associated with the actor or entity that is making these changes.",
    "fieldValidation": "How the server handles unknown or duplicate fields: Ignore, Warn or Strict.",
    "force": "Force is going to \"force\" Apply requests.",
}


def _param(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "query", "description": _PARAMS.get(name, name), "schema": {"type": kind},
            "uniqueItems": True}


def _op(info: ResourceInfo, version: str, action: str, ref: str, params: list[str]) -> dict[str, Any]:
    gvk = {"group": info.group, "version": version, "kind": info.kind}
    schema = {"schema": {"$ref": ref}}
    # what kubelite.http.media and the body decoder serve: protobuf for built-in kinds only, as upstream lists it
    answers = ("application/json", "application/vnd.kubernetes.protobuf") if info.struct_name else ("application/json",)
    takes = {"post": ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"),
             "put": ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"),
             "patch": ("application/json-patch+json", "application/merge-patch+json",
                       "application/strategic-merge-patch+json", "application/apply-patch+yaml")}.get(action, ())
    op: dict[str, Any] = {
        "operationId": f"{action}{info.kind}", "x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk,
        "parameters": [_param(p, "boolean" if p == "force" else "string") for p in params],
        "responses": {"200": {"description": "OK", "content": {m: schema for m in answers}},
                      "401": {"description": "Unauthorized"}},
    }
    if takes:
        if not info.struct_name:
            takes = tuple(m for m in takes if m != "application/vnd.kubernetes.protobuf")
        op["requestBody"] = {"content": {m: schema for m in takes}}
    return op


def _paths(info: ResourceInfo, version: str, schema_name: str) -> dict[str, Any]:
    prefix = f"/apis/{info.group}/{version}" if info.group else f"/api/{version}"
    ref = _REF_PREFIX + schema_name
    write = ["dryRun", "fieldManager", "fieldValidation"]
    item = {
        "get": _op(info, version, "get", ref, []),
        "put": _op(info, version, "put", ref, write),
        "patch": _op(info, version, "patch", ref, [*write, "force"]),
        "delete": _op(info, version, "delete", ref, ["dryRun"]),
        "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
    }
    collection = {"get": _op(info, version, "list", ref, []), "post": _op(info, version, "post", ref, write)}
    paths: dict[str, Any] = {}
    if info.namespaced:
        base = f"{prefix}/namespaces/{{namespace}}/{info.plural}"
        ns_param = [{"name": "namespace", "in": "path", "required": True, "schema": {"type": "string"}}]
        paths[base] = {**collection, "parameters": ns_param}
        paths[base + "/{name}"] = {**item, "parameters": [*item["parameters"], *ns_param]}
        paths[f"{prefix}/{info.plural}"] = {"get": collection["get"]}
    else:
        paths[f"{prefix}/{info.plural}"] = collection
        paths[f"{prefix}/{info.plural}/{{name}}"] = item
    for sub in sorted(info.subresources):
        if sub in ("status", "scale"):
            sub_path = (f"{prefix}/namespaces/{{namespace}}/{info.plural}/{{name}}/{sub}" if info.namespaced
                        else f"{prefix}/{info.plural}/{{name}}/{sub}")
            sub_info = info if sub == "status" else ResourceInfo(
                group="autoscaling", version="v1", kind="Scale", plural=info.plural, singular="", namespaced=True)
            sub_ref = ref if sub == "status" else _REF_PREFIX + "io.k8s.api.autoscaling.v1.Scale"
            sv = version if sub == "status" else "v1"
            paths[sub_path] = {"get": _op(sub_info, sv, "get", sub_ref, []),
                               "patch": _op(sub_info, sv, "patch", sub_ref, [*write, "force"]),
                               "put": _op(sub_info, sv, "put", sub_ref, write)}
    return paths


def _crd_schemas(srv: ApiServer) -> dict[tuple[str, str, str], dict[str, Any]]:
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for crd in srv.read_all("apiextensions.k8s.io", "customresourcedefinitions"):
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        for v in spec.get("versions") or ():
            raw = (v.get("schema") or {}).get("openAPIV3Schema") or {"type": "object",
                                                                      "x-kubernetes-preserve-unknown-fields": True}
            out[(spec.get("group", ""), v.get("name", ""), names.get("kind", ""))] = raw
    return out


def _schema_name(info: ResourceInfo, version: str) -> str:
    if info.schema_ref is not None:
        return info.schema_ref
    reversed_group = ".".join(reversed(info.group.split(".")))
    return f"{reversed_group}.{version}.{info.kind}"


def group_document(srv: ApiServer, path: str) -> dict[str, Any] | None:
    """The document for ``api/v1`` or ``apis/{g}/{v}``; None if no such group-version is served."""
    parts = path.strip("/").split("/")
    if parts == ["api", "v1"]:
        group, version = "", "v1"
    elif len(parts) == 3 and parts[0] == "apis":
        group, version = parts[1], parts[2]
    else:
        return None
    infos = [(i, v) for i, v in resources_of(srv) if i.group == group and v == version]
    if not infos:
        return None
    defs = _definitions()
    paths: dict[str, Any] = {}
    builtin_names: set[str] = set()
    custom: dict[str, Any] = {}
    crd_schemas = _crd_schemas(srv) if any(not i.builtin for i, _ in infos) else {}
    for info, v in infos:
        name = _schema_name(info, v)
        paths.update(_paths(info, v, name))
        if info.schema_ref is not None:
            builtin_names.add(info.schema_ref)
        else:
            raw = crd_schemas.get((info.group, v, info.kind), {"type": "object"})
            props = dict(raw.get("properties") or {})
            props.setdefault("apiVersion", {"type": "string"})
            props.setdefault("kind", {"type": "string"})
            props["metadata"] = {"$ref": _REF_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
            custom[name] = {**raw, "type": "object", "properties": props,
                            "x-kubernetes-group-version-kind": [{"group": info.group, "version": v,
                                                                 "kind": info.kind}]}
            builtin_names.add("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        if "scale" in info.subresources:
            builtin_names.add("io.k8s.api.autoscaling.v1.Scale")
    schemas = _closure(builtin_names, defs)
    schemas.update(custom)
    major, minor, patch = KUBE_VERSION
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": f"v{major}.{minor}.{patch}"},
            "paths": paths, "components": {"schemas": schemas}}


def root_document(srv: ApiServer) -> dict[str, Any]:
    seen: dict[str, None] = {}
    for info, v in resources_of(srv):
        seen[f"apis/{info.group}/{v}" if info.group else f"api/{v}"] = None
    paths = {}
    for p in seen:
        doc = group_document(srv, p)
        digest = hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:32].upper()
        paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={digest}"}
    return {"paths": paths}
