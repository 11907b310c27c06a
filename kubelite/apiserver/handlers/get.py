"""GET of one object, LIST and WATCH (``handlers/get.go``, ``handlers/watch.go``).

With ``Options.as_table`` a GET or LIST answers with a ``meta.k8s.io/v1`` Table from the kind's
strategy (server-side printing), for the page the list selected.
Label and field selectors are parsed once per request; field selectors must name fields the resource
supports (upstream's per-kind field label conversion, a CRD's ``selectableFields``). A watch with
``timeoutSeconds`` is closed by the server after that much cluster time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.fields import FieldSelector, check_supported, parse_field_selector
from kubelite.api.labels import Selector, parse_selector
from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.request import ListResponse, Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, NotFound
from kubelite.store import ListResult, StoredObject, Watcher

__all__ = ["bookmark_fn", "get", "list_", "predicate", "select", "watch"]

_encode = msgspec.json.Encoder().encode


async def get(scope: Scope, info: ResourceInfo, req: Request) -> Response:
    stored = scope.tables.store.get(scope.tables.table(info), req.namespace, req.name)
    if stored is None:
        raise NotFound.for_object(info.group, info.plural, req.name)
    if req.options.as_table:
        return _table(scope, info, [stored.decode()], str(stored.rv))
    return Response(data=stored.data)


def _table(scope: Scope, info: ResourceInfo, objs: list[dict[str, Any]], rv: str,
           continue_: str | None = None, remaining: int | None = None) -> Response:
    table = scope.strategies.for_resource(info).convert_to_table(objs, scope.clock.now())
    meta: dict[str, Any] = {"resourceVersion": rv}
    if continue_:
        meta["continue"] = continue_
    if remaining is not None:
        meta["remainingItemCount"] = remaining
    table["metadata"] = meta
    return Response(data=_encode(table))


def predicate(
    scope: Scope, info: ResourceInfo, label_selector: str | None, field_selector: str | None,
) -> tuple[Callable[[StoredObject], bool] | None, FieldSelector | None]:
    lsel: Selector | None = None
    fsel: FieldSelector | None = None
    try:
        if label_selector:
            lsel = parse_selector(label_selector)
            if lsel.empty():
                lsel = None
        if field_selector:
            fsel = parse_field_selector(field_selector)
            if fsel.empty():
                fsel = None
    except ValueError as e:
        raise BadRequest.make(str(e)) from None
    if fsel is not None:
        check_supported(
            info.group, info.plural, fsel,
            scope.crs.selectable_fields(info) if not info.builtin else None, namespaced=info.namespaced,
        )
    if lsel is None and fsel is None:
        return None, None

    def matches(obj: StoredObject) -> bool:
        if lsel is not None and not lsel.matches(obj.labels):
            return False
        if fsel is not None:
            fields = obj.fields
            if fields is None:
                fields = {"metadata.name": obj.name, "metadata.namespace": obj.namespace}
            if not fsel.matches(fields):
                return False
        return True

    return matches, fsel


def select(scope: Scope, info: ResourceInfo, req: Request) -> ListResult:
    """The objects a list request selects (selectors, namespace, resourceVersion semantics, one page)."""
    opts = req.options
    pred, _ = predicate(scope, info, opts.label_selector, opts.field_selector)
    limit = opts.limit if opts.limit is not None and opts.limit > 0 else None
    return scope.tables.store.list(
        scope.tables.table(info), namespace=req.namespace or None, predicate=pred,
        resource_version=opts.resource_version, resource_version_match=opts.resource_version_match, limit=limit,
        continue_=opts.continue_,
    )


async def list_(scope: Scope, info: ResourceInfo, req: Request) -> ListResponse | Response:
    """A ListResponse, or with ``as_table`` a Response holding one Table of the page."""
    result = select(scope, info, req)
    if req.options.as_table:
        return _table(scope, info, [o.decode() for o in result.items], str(result.rv), result.continue_,
                      result.remaining)
    return ListResponse(
        items=[o.data for o in result.items], resource_version=str(result.rv), continue_=result.continue_,
        remaining_item_count=result.remaining, api_version=info.api_version,
        kind=info.list_kind or f"{info.kind}List",
    )


async def watch(scope: Scope, info: ResourceInfo, req: Request) -> Watcher:
    opts = req.options
    pred, fsel = predicate(scope, info, opts.label_selector, opts.field_selector)
    table = scope.tables.table(info)
    trigger = fsel.single_value(table.trigger_field) if (fsel is not None and table.trigger_field) else None
    kwargs: dict[str, Any] = {}
    if opts.capacity is not None:
        kwargs["capacity"] = opts.capacity
    w = scope.tables.store.watch(
        table, namespace=req.namespace or None, predicate=pred, resource_version=opts.resource_version,
        send_initial_events=opts.send_initial_events, allow_bookmarks=opts.allow_bookmarks, trigger=trigger,
        bookmark_data=bookmark_fn(info), **kwargs,
    )
    if opts.timeout_seconds:
        handle = scope.clock.call_later(opts.timeout_seconds, lambda: w.close("timeout"))
        w.add_close_callback(lambda _w: handle.cancel())
    return w


def bookmark_fn(info: ResourceInfo) -> Callable[[int, bool], bytes]:
    """The BOOKMARK event object of a resource: its kind with only a resourceVersion (and the
    ``k8s.io/initial-events-end`` annotation at the end of the initial events)."""

    def data(rv: int, initial_end: bool) -> bytes:
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return _encode({"apiVersion": info.api_version, "kind": info.kind, "metadata": meta})

    return data
