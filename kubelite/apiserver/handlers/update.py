"""PUT of one object (``handlers/update.go``), for the resource and its ``/status`` and ``/finalize``.

The body must name the object of the URL (name and namespace); its ``metadata.resourceVersion``, if set,
is a precondition. Kinds whose strategy allows create-on-update (Services, Endpoints, Events, Leases, the
RBAC kinds) are created by a PUT of a missing object without a resourceVersion, which needs ``create``
permission as well.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.registry.store import Write, parse_resource_version
from kubelite.apiserver.registry.strategy import Strategy, UpdateStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest

__all__ = ["copy_json", "update"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def copy_json(obj: Any) -> Any:
    """A deep copy of JSON data (the fastest one in CPython is a msgspec round trip)."""
    return _decode(_encode(obj))


async def update(scope: Scope, info: ResourceInfo, strategy: UpdateStrategy, req: Request) -> Response:
    opts = req.options
    name, namespace = req.name, req.namespace
    warnings: list[str] = []
    body = scope.decoder.decode(info, req.body, opts.field_validation, warnings, version=req.version)
    meta = body["metadata"]
    if meta.get("name") and meta["name"] != name:
        raise BadRequest.make(f"the name of the object ({meta['name']}) does not match the name on the URL ({name})")
    meta["name"] = name
    if info.namespaced:
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise BadRequest.make(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        meta["namespace"] = namespace
    expect = parse_resource_version(meta.get("resourceVersion"))
    create = strategy if isinstance(strategy, Strategy) and strategy.allow_create_on_update and expect is None else None

    # The decoded body is the request's private copy, so the first attempt takes it as it is: a PUT decodes
    # its body once and copies nothing. A retry (someone wrote while admission hooks ran) needs it
    # unmutated: it decodes the request's body again, or, for a custom resource (whose decoded body is the
    # request's own, mutated by the first attempt), copies the one kept for that.
    fresh = [body]
    pristine = None if info.builtin else copy_json(body)

    def mutate(_live: dict[str, Any]) -> dict[str, Any]:
        if fresh:
            return fresh.pop()
        if pristine is not None:
            return copy_json(pristine)  # type: ignore[no-any-return]
        return scope.decoder.decode(info, req.body, opts.field_validation, [], version=req.version)

    w = Write(user=req.user, info=info, namespace=namespace, dry_run=opts.dry_run,
              manager=opts.field_manager or "kubelite", warnings=warnings)
    data = await scope.store.update(w, strategy, name, mutate, expect_rv=expect, create_strategy=create)
    return Response(data=data, warnings=list(dict.fromkeys(warnings)))
