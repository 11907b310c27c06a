"""``namespaces/finalize`` (``pkg/registry/core/namespace/storage`` FinalizeREST): PUT a Namespace whose
``spec.finalizers`` replace the stored ones; nothing else changes. The namespace controller empties them
once the namespace's content is gone, and the store then removes a namespace being deleted."""

from __future__ import annotations

from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.handlers import update
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import FieldError

__all__ = ["FinalizeREST", "FinalizeStrategy"]


class FinalizeStrategy:
    subresource = "finalize"

    def __init__(self, main: Strategy) -> None:
        self.main = main
        self.info = main.info

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

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        pass

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return []

    def canonicalize(self, obj: dict[str, Any]) -> None:
        self.main.canonicalize(obj)

    def reset_fields(self) -> dict[str, Any] | None:
        return self.main.reset_fields()

    def ssa_schema(self) -> Any:
        return self.main.ssa_schema()

    def authorize_write(self, user: Any, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        pass

    def allocate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        return None

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        self.main.after_write(obj, old)

    def spec_finalizers(self, obj: dict[str, Any]) -> list[str]:
        return self.main.spec_finalizers(obj)


class FinalizeREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return frozenset({"update"})

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await update.update(self.scope, info, FinalizeStrategy(self.scope.strategies.for_resource(info)), req)
