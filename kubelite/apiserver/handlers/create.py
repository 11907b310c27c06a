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
    store = scope.store
    # a pod stamped out of a template the apiserver has seen: decode its metadata only (registry/templates.py)
    key = store.templates.key(info, strategy, req, track_managed_fields=store.track_managed_fields)
    template = store.templates.get(key) if key is not None else None
    body = scope.decoder.decode_metadata(info, req.body) if template is not None else None
    if body is None:
        template = None
        body = scope.decoder.decode(info, req.body, opts.field_validation, warnings, version=req.version)
    else:
        store.templates.served += 1
    w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=opts.dry_run,
              manager=opts.field_manager or "kubelite", warnings=warnings)
    data = await store.create(w, strategy, body, template=template, template_key=key)
    return Response(data=data, warnings=list(dict.fromkeys(warnings)))
