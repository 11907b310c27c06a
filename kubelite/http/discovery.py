"""Discovery documents, built from the apiserver's registry: what ``kubectl api-resources`` reads.

Contract:
- Legacy discovery: ``/api`` (APIVersions), ``/apis`` (APIGroupList), ``/apis/{g}`` (APIGroup),
  ``/api/v1`` and ``/apis/{g}/{v}`` (APIResourceList with every resource and subresource, its verbs,
  short names and categories), as ``k8s.io/apiserver/pkg/endpoints/discovery`` serves them.
- Aggregated discovery (``apidiscovery.k8s.io/v2`` APIGroupDiscoveryList), served when the Accept header
  asks for it, with exactly the media type the client asked for (client-go falls back to legacy discovery
  when the response type does not match).
- Custom resources appear as soon as their CRD is established, with every served version; built-in kinds
  with every version they are served in (autoscaling: v2, preferred, and v1), the preferred one first. The documents are pure functions of the registry and the CRDs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.server import ApiServer

__all__ = [
    "AGGREGATED_TYPES", "api_group", "api_group_list", "api_resource_list", "api_versions", "aggregated",
    "group_versions", "resources_of", "version_info",
]

#: the aggregated-discovery media types client-go asks for (v2 first, then v2beta1)
AGGREGATED_TYPES = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
)

KUBE_VERSION = (1, 37, 0)


def version_info() -> dict[str, Any]:
    """``/version``: a version.Info kubectl and client libraries accept (they compare major/minor)."""
    major, minor, patch = KUBE_VERSION
    return {
        "major": str(major), "minor": str(minor), "emulationMajor": str(major), "emulationMinor": str(minor),
        "gitVersion": f"v{major}.{minor}.{patch}-kubelite", "gitCommit": "kubelite", "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z", "goVersion": "go1.24", "compiler": "gc", "platform": "linux/amd64",
    }


def _crd_versions(srv: ApiServer) -> dict[tuple[str, str], list[str]]:
    """(group, plural) -> served versions of every CRD (storage version first)."""
    out: dict[tuple[str, str], list[str]] = {}
    for crd in srv.read_all("apiextensions.k8s.io", "customresourcedefinitions"):
        spec = crd.get("spec") or {}
        plural = (spec.get("names") or {}).get("plural")
        if not plural:
            continue
        versions = [v for v in spec.get("versions") or () if v.get("served", True)]
        versions.sort(key=lambda v: not v.get("storage"))
        out[(spec.get("group", ""), plural)] = [v["name"] for v in versions]
    return out


def resources_of(srv: ApiServer) -> list[tuple[ResourceInfo, str]]:
    """Every served (resource, version), in registry order."""
    crds = _crd_versions(srv)
    out: list[tuple[ResourceInfo, str]] = []
    for info in srv.registry:
        if not info.builtin:
            for v in crds.get((info.group, info.plural), [info.version]):
                out.append((info, v))
        else:
            # the storage version (kube-apiserver's preferred one) first, then the other served versions
            out.extend((info, v) for v in (info.version, *info.served_versions))
    return out


def group_versions(srv: ApiServer) -> dict[str, list[str]]:
    """group -> versions (preferred first), core group under ""."""
    groups: dict[str, list[str]] = {}
    for info, v in resources_of(srv):
        vs = groups.setdefault(info.group, [])
        if v not in vs:
            vs.append(v)
    return groups


def api_versions(server_address: str) -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def _group_doc(group: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list(srv: ApiServer) -> dict[str, Any]:
    groups = [_group_doc(g, vs) for g, vs in group_versions(srv).items() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(srv: ApiServer, group: str) -> dict[str, Any] | None:
    vs = group_versions(srv).get(group)
    if not vs or not group:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_doc(group, vs)}


def _verbs(info: ResourceInfo) -> list[str]:
    return sorted(info.verbs)


_SUB_VERBS = {"status": ["get", "patch", "update"], "approval": ["get", "patch", "update"], "scale": ["get", "patch", "update"], "binding": ["create"],
              "eviction": ["create"], "log": ["get"], "finalize": ["update"]}
_SUB_KINDS = {"scale": ("autoscaling", "v1", "Scale"), "binding": ("", "v1", "Binding"),
              "eviction": ("policy", "v1", "Eviction")}


def _subresources(info: ResourceInfo) -> list[str]:
    subs = sorted(info.subresources)
    if (info.group, info.plural) == ("", "pods") and "log" not in subs:
        subs.append("log")
    return subs


def _legacy_resources(infos: Iterable[ResourceInfo], version: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for info in infos:
        res: dict[str, Any] = {
            "name": info.plural, "singularName": info.singular, "namespaced": info.namespaced, "kind": info.kind,
            "verbs": _verbs(info),
        }
        if info.short_names:
            res["shortNames"] = list(info.short_names)
        if info.categories:
            res["categories"] = list(info.categories)
        res["storageVersionHash"] = _hash(f"{info.group}/{version}/{info.kind}")
        out.append(res)
        for sub in _subresources(info):
            g, v, kind = _SUB_KINDS.get(sub, (info.group, version, info.kind))
            if sub == "log":
                kind = "Pod"
            entry: dict[str, Any] = {"name": f"{info.plural}/{sub}", "singularName": "", "namespaced": info.namespaced,
                                     "kind": kind, "verbs": _SUB_VERBS.get(sub, ["get"])}
            if sub in _SUB_KINDS:
                entry["group"], entry["version"] = g, v
            out.append(entry)
    return out


def api_resource_list(srv: ApiServer, group: str, version: str) -> dict[str, Any] | None:
    infos = [info for info, v in resources_of(srv) if info.group == group and v == version]
    if not infos:
        return None
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
            "resources": _legacy_resources(infos, version)}


def _hash(text: str) -> str:
    # a stable opaque value, as storageVersionHash is (upstream: sha256 of the storage GVK, base64, 8 bytes)
    import base64
    import hashlib

    return base64.b64encode(hashlib.sha256(text.encode()).digest()[:8]).decode()


def aggregated(srv: ApiServer, *, core: bool, version: str) -> dict[str, Any]:
    """The APIGroupDiscoveryList for ``/api`` (``core``) or ``/apis``, in apidiscovery ``version``."""
    by_group: dict[str, dict[str, list[ResourceInfo]]] = {}
    for info, v in resources_of(srv):
        if (info.group == "") != core:
            continue
        by_group.setdefault(info.group, {}).setdefault(v, []).append(info)
    items = []
    for group, versions in by_group.items():
        vdocs = []
        for v, infos in versions.items():
            resources = []
            for info in infos:
                res: dict[str, Any] = {
                    "resource": info.plural, "responseKind": {"group": info.group, "version": v, "kind": info.kind},
                    "scope": "Namespaced" if info.namespaced else "Cluster", "singularResource": info.singular,
                    "verbs": _verbs(info),
                }
                if info.short_names:
                    res["shortNames"] = list(info.short_names)
                if info.categories:
                    res["categories"] = list(info.categories)
                subs = []
                for sub in _subresources(info):
                    g, sv, kind = _SUB_KINDS.get(sub, (info.group, v, info.kind))
                    if sub == "log":
                        kind = "Pod"
                    subs.append({"subresource": sub, "responseKind": {"group": g, "version": sv, "kind": kind},
                                 "verbs": _SUB_VERBS.get(sub, ["get"])})
                if subs:
                    res["subresources"] = subs
                resources.append(res)
            vdocs.append({"version": v, "resources": resources, "freshness": "Current"})
        items.append({"metadata": {"name": group, "creationTimestamp": None}, "versions": vdocs})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"apidiscovery.k8s.io/{version}",
            "metadata": {}, "items": items}
