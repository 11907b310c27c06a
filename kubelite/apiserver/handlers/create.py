"""POST on a collection (``handlers/create.go``): decode, then the store's create."""

from __future__ import annotations

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope

__all__ = ["create"]


async def create(scope: Scope, info: ResourceInfo, strategy: Strategy, req: Request) -> Response:
    opts = req.options
    warnings: list[str] = []
    body = scope.decoder.decode(info, req.body, opts.field_validation, warnings, version=req.version)
    w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=opts.dry_run,
              manager=opts.field_manager or "kubelite")
    return Response(data=await scope.store.create(w, strategy, body), warnings=warnings)
