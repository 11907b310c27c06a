"""``namespaces/finalize`` (``pkg/registry/core/namespace/storage`` FinalizeREST): PUT a Namespace whose
``spec.finalizers`` replace the stored ones; nothing else changes. The namespace controller empties them
once the namespace's content is gone, and the store then removes a namespace being deleted."""

from __future__ import annotations

from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.handlers import update
from kubelite.apiserver.registry.strategy import SubresourceStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope

__all__ = ["FinalizeREST", "FinalizeStrategy"]


class FinalizeStrategy(SubresourceStrategy):
    """Only ``spec.finalizers`` come from the request (upstream's namespaceFinalizeStrategy)."""

    subresource = "finalize"

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        """The stored namespace with only ``spec.finalizers`` from the request."""
        result = {k: v for k, v in old.items() if k != "spec"}
        spec = dict(old.get("spec") or {})
        fin = (obj.get("spec") or {}).get("finalizers")
        if fin:
            spec["finalizers"] = list(fin)
        else:
            spec.pop("finalizers", None)
        result["spec"] = spec
        return result


class FinalizeREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return frozenset({"update"})

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await update.update(self.scope, info, FinalizeStrategy(self.scope.strategies.for_resource(info)), req)
