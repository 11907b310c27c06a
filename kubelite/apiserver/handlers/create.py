"""POST on a collection (``handlers/create.go``): decode, then the store's create."""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope

__all__ = ["create"]

_decode = msgspec.json.Decoder().decode


async def create(scope: Scope, info: ResourceInfo, strategy: Strategy, req: Request) -> Response:
    """``req.body`` is decoded JSON (HTTP) or the JSON bytes of the in-process client's copy, which a
    create from a template the apiserver has seen never decodes beyond its metadata, and any other create
    parses once (the memo key's spec text is decoded straight into the typed spec; any other body of a
    built-in kind straight into its typed Struct, ``Decoder.decode_json``). A spec text never seen before
    is a first sight: its create skips the memo tables keyed on encodings (``templates.first_sight``)."""
    opts = req.options
    warnings: list[str] = []
    store = scope.store
    templates = store.templates
    body = req.body
    # a pod stamped out of a template the apiserver has seen: decode its metadata only (registry/templates.py)
    meta: dict[str, Any] | None = None
    if type(body) is bytes:
        found = templates.key_of_json(info, strategy, req, track_managed_fields=store.track_managed_fields)
        key, meta = found if found is not None else (None, None)
    else:
        key = templates.key(info, strategy, req, track_managed_fields=store.track_managed_fields)
        meta = body["metadata"] if key is not None else None
    template = templates.get(key) if key is not None else None
    obj = scope.decoder.decode_metadata(info, meta) if template is not None and meta is not None else None
    first_sight = False
    if obj is None:
        template = None
        if key is not None:
            first_sight = templates.first_sight(key)
            if meta is not None and type(body) is bytes:  # the spec's text (the key's) decoded once, typed
                obj = scope.decoder.decode_parts(info, meta, strategy.template_field, key[-1])  # type: ignore[arg-type]
        if obj is None and type(body) is bytes and (not req.version or req.version == info.version):
            obj = scope.decoder.decode_json(info, body, opts.field_validation)  # (None: not a clean decode)
        if obj is None:
            if type(body) is bytes:
                body = _decode(body)
            obj = scope.decoder.decode(info, body, opts.field_validation, warnings, version=req.version)
    else:
        templates.served += 1
    w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=opts.dry_run,
              manager=opts.field_manager or "kubelite", warnings=warnings)
    data = await store.create(w, strategy, obj, template=template, template_key=key, first_sight=first_sight)
    return Response(data=data, warnings=list(dict.fromkeys(warnings)))
