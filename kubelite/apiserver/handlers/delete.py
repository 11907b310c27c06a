"""DELETE of one object and of a collection (``handlers/delete.go``).

``propagationPolicy`` must be Orphan, Background or Foreground (or absent); a negative grace period means
"immediately" and is stored as 1, as upstream does. DELETE of a collection lists the matching objects and
deletes each one through the same path as a single DELETE (admission included), skipping objects that are
gone meanwhile.
"""

from __future__ import annotations

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.handlers.get import select
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.request import ListResponse, Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import FieldError, NotFound, invalid

__all__ = ["check_propagation", "delete", "delete_collection"]

def check_propagation(policy: str | None) -> None:
    if policy not in (None, "Orphan", "Background", "Foreground"):
        raise invalid("DeleteOptions", "", [FieldError.not_supported(
            "propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"])])


async def delete(scope: Scope, info: ResourceInfo, strategy: Strategy, req: Request) -> Response:
    opts = req.options
    check_propagation(opts.propagation_policy)
    w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=opts.dry_run)
    data = await scope.store.delete(
        w, strategy, req.name, grace_period_seconds=opts.grace_period_seconds,
        propagation_policy=opts.propagation_policy, preconditions=opts.preconditions,
    )
    return Response(data=data, warnings=list(dict.fromkeys(w.warnings)))


async def delete_collection(scope: Scope, info: ResourceInfo, strategy: Strategy, req: Request) -> ListResponse:
    opts = req.options
    check_propagation(opts.propagation_policy)
    out: list[bytes] = []
    for stored in select(scope, info, req).items:
        meta = stored.decode()["metadata"]
        w = Write(user=req.user, info=info, namespace=meta.get("namespace") or "", dry_run=opts.dry_run)
        try:
            out.append(await scope.store.delete(
                w, strategy, meta["name"], grace_period_seconds=opts.grace_period_seconds,
                propagation_policy=opts.propagation_policy,
            ))
        except NotFound:
            continue
    return ListResponse(items=out, resource_version=str(scope.tables.store.revision), api_version=info.api_version,
                        kind=info.list_kind or f"{info.kind}List")
