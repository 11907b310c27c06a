"""Read-only access to an object's metadata, whether it is a generated Struct or a plain dict.

Informers carry whatever the client decoded: typed Structs (``Pod``, attributes in snake_case) when the
resource was named by its Struct class, dicts (JSON keys in camelCase) when it was named by a string.
These helpers are upstream's ``meta.Accessor`` for both shapes. They only read; they never copy or
mutate the object. They sit on the informer's hot path (every event computes a key), so each one is a
couple of attribute or item lookups and nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = [
    "ObjectMetaView",
    "annotations_of",
    "labels_of",
    "meta_of",
    "name_of",
    "namespace_of",
    "resource_version_of",
]

_EMPTY: Mapping[str, str] = {}


class ObjectMetaView(NamedTuple):
    """The metadata fields the informer machinery needs ("" or None when unset)."""

    namespace: str
    name: str
    resource_version: str
    labels: Mapping[str, str] | None
    uid: str


def meta_of(obj: Any) -> ObjectMetaView:
    """namespace, name, resourceVersion, labels and uid of a Struct or dict object."""
    if isinstance(obj, dict):
        d: Mapping[str, Any] = obj.get("metadata") or _EMPTY
        return ObjectMetaView(
            d.get("namespace") or "", d.get("name") or "", d.get("resourceVersion") or "", d.get("labels"),
            d.get("uid") or "",
        )
    m = obj.metadata
    if m is None:
        return ObjectMetaView("", "", "", None, "")
    return ObjectMetaView(m.namespace or "", m.name or "", m.resource_version or "", m.labels, m.uid or "")


def namespace_of(obj: Any) -> str:
    if isinstance(obj, dict):
        return (obj.get("metadata") or _EMPTY).get("namespace") or ""
    m = obj.metadata
    return (m.namespace or "") if m is not None else ""


def name_of(obj: Any) -> str:
    if isinstance(obj, dict):
        return (obj.get("metadata") or _EMPTY).get("name") or ""
    m = obj.metadata
    return (m.name or "") if m is not None else ""


def resource_version_of(obj: Any) -> str:
    if isinstance(obj, dict):
        return (obj.get("metadata") or _EMPTY).get("resourceVersion") or ""
    m = obj.metadata
    return (m.resource_version or "") if m is not None else ""


def labels_of(obj: Any) -> Mapping[str, str] | None:
    if isinstance(obj, dict):
        meta: Mapping[str, Any] = obj.get("metadata") or _EMPTY
        labels: Mapping[str, str] | None = meta.get("labels")
        return labels
    m = obj.metadata
    return m.labels if m is not None else None


def annotations_of(obj: Any) -> Mapping[str, str] | None:
    if isinstance(obj, dict):
        meta: Mapping[str, Any] = obj.get("metadata") or _EMPTY
        annotations: Mapping[str, str] | None = meta.get("annotations")
        return annotations
    m = obj.metadata
    return m.annotations if m is not None else None
