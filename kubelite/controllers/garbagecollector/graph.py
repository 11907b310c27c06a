"""The dependency graph, kept as two informer indexes instead of a separate structure.

Upstream's ``GraphBuilder`` (``pkg/controller/garbagecollector/graph_builder.go``) mirrors every object's
ownerReferences into a ``uidToNode`` map. kubelite's garbage collector gets the same answers from the
monitored informers' caches, through two indexes added to each of them:

- :data:`OWNER_UID_INDEX`: owner uid -> the objects that name it (an owner's dependents);
- :data:`UID_INDEX`: uid -> the object (an owner's existence, for ``isDangling``).

So the graph is always exactly what the caches hold (no second copy to drift, nothing to rebuild on
restart). The helpers here read metadata from typed Structs and dicts alike and never mutate it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["OWNER_UID_INDEX", "UID_INDEX", "ObjectMeta", "OwnerRef", "meta", "owner_uid_index", "uid_index"]

OWNER_UID_INDEX = "gc.kubelite.io/owner-uid"
UID_INDEX = "gc.kubelite.io/uid"
FOREGROUND = "foregroundDeletion"
ORPHAN = "orphan"


class OwnerRef(NamedTuple):
    api_version: str
    kind: str
    name: str
    uid: str
    block_owner_deletion: bool
    controller: bool

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name, "uid": self.uid}
        if self.controller:
            d["controller"] = True
        if self.block_owner_deletion:
            d["blockOwnerDeletion"] = True
        return d


class ObjectMeta(NamedTuple):
    """The metadata the collector needs (upstream's ``objectReference`` plus node flags)."""

    uid: str
    namespace: str
    name: str
    resource_version: str
    owners: tuple[OwnerRef, ...]
    finalizers: tuple[str, ...]
    deleting: bool

    @property
    def deleting_dependents(self) -> bool:
        """``isDeletingDependents``: being deleted with the foregroundDeletion finalizer."""
        return self.deleting and FOREGROUND in self.finalizers

    @property
    def orphaning(self) -> bool:
        return self.deleting and ORPHAN in self.finalizers


def _refs_of_dicts(refs: Any) -> tuple[OwnerRef, ...]:
    return tuple(OwnerRef(r.get("apiVersion") or "", r.get("kind") or "", r.get("name") or "", r.get("uid") or "",
                          bool(r.get("blockOwnerDeletion")), bool(r.get("controller"))) for r in refs or ())


def meta(obj: Any) -> ObjectMeta:
    if isinstance(obj, dict):
        m = obj.get("metadata") or {}
        return ObjectMeta(m.get("uid") or "", m.get("namespace") or "", m.get("name") or "",
                          m.get("resourceVersion") or "", _refs_of_dicts(m.get("ownerReferences")),
                          tuple(m.get("finalizers") or ()), bool(m.get("deletionTimestamp")))
    m = obj.metadata
    refs = tuple(OwnerRef(r.api_version or "", r.kind or "", r.name or "", r.uid or "", bool(r.block_owner_deletion),
                          bool(r.controller)) for r in m.owner_references or ())
    return ObjectMeta(m.uid or "", m.namespace or "", m.name or "", m.resource_version or "", refs,
                      tuple(m.finalizers or ()), bool(m.deletion_timestamp))


def owner_uid_index(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        refs = (obj.get("metadata") or {}).get("ownerReferences")
        return [r.get("uid") or "" for r in refs] if refs else []
    refs = obj.metadata.owner_references if obj.metadata is not None else None
    return [r.uid or "" for r in refs] if refs else []


def uid_index(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        uid = (obj.get("metadata") or {}).get("uid")
    else:
        uid = obj.metadata.uid if obj.metadata is not None else None
    return [uid] if uid else []
