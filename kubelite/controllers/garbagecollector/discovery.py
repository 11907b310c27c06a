"""Which resources exist, as the controllers see them through the API: upstream's discovery client.

Built-in kinds come from :data:`kubelite.api.resources.BUILTIN` (what ``/api`` and ``/apis`` serve);
custom kinds from the CustomResourceDefinitions in an informer cache (each CRD's group, names, scope,
and its storage version, or the first served one). Read-only; rebuilt on demand so a new CRD shows up
at the next call. Used by the garbage collector (what to monitor, how to find an owner's resource
from its apiVersion and kind) and the namespace controller (what to delete).
"""

from __future__ import annotations

from collections.abc import Iterator

from kubelite.api.resources import BUILTIN, ResourceInfo
from kubelite.api.types import CustomResourceDefinition
from kubelite.informer import Indexer

__all__ = ["Discovery", "crd_resource"]

_BUILTIN_BY_KIND = {(i.api_version, i.kind): i for i in BUILTIN}


def crd_resource(crd: CustomResourceDefinition) -> ResourceInfo | None:
    """The ResourceInfo a CRD serves (None if it serves no version yet)."""
    spec = crd.spec
    if spec is None or spec.names is None or not spec.group or not spec.names.plural:
        return None
    versions = [v for v in spec.versions or () if v.served]
    if not versions:
        return None
    version = next((v for v in versions if v.storage), versions[0])
    return ResourceInfo(group=spec.group, version=version.name or "", kind=spec.names.kind or "",
                        plural=spec.names.plural, singular=spec.names.singular or spec.names.plural,
                        namespaced=spec.scope != "Cluster", subresources=frozenset())


class Discovery:
    def __init__(self, crds: Indexer) -> None:
        self.crds = crds

    def custom(self) -> Iterator[ResourceInfo]:
        for crd in self.crds.list():
            info = crd_resource(crd)
            if info is not None:
                yield info

    def resources(self) -> Iterator[ResourceInfo]:
        yield from BUILTIN
        yield from self.custom()

    def by_kind(self, api_version: str, kind: str) -> ResourceInfo | None:
        info = _BUILTIN_BY_KIND.get((api_version, kind))
        if info is not None:
            return info
        group = api_version.rpartition("/")[0]
        for c in self.custom():
            if c.group == group and c.kind == kind:
                return c
        return None
