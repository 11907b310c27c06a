"""kube-aggregator: group/versions served by another API server (``APIService`` with ``spec.service``).

Contract:
- :meth:`Aggregator.register` adds a backend's resources to the resource registry (so discovery, the client's
  names and RBAC see them, as an available APIService adds them to discovery) and routes
  ``<group>/<resource>`` to an :class:`AggregatedREST`; :meth:`unregister` removes both (the APIService going
  away: requests get 404 again).
- Requests pass the whole kube-apiserver pipeline up to the REST object (faults, resource resolution,
  RBAC on the aggregated resource, verb check), then are answered by the backend (the proxy step). Only the
  backend's read verbs are served; anything else is 405 before the backend is asked.
- Backends hold no store table: nothing can be written or watched through them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.aggregation import APIBackend
from kubelite.api.resources import Registry, ResourceInfo
from kubelite.apiserver.request import ListResponse, Request, Response
from kubelite.apiserver.rest import REST

__all__ = ["AggregatedREST", "Aggregator"]

_encode = msgspec.json.Encoder().encode


class AggregatedREST:
    """The proxy to one backend."""

    def __init__(self, backend: APIBackend) -> None:
        self.backend = backend

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return info.verbs & {"get", "list"}

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        obj = self.backend.get(info, req.namespace, req.name)
        if req.options.as_table:
            return Response(data=_encode(self.backend.table(info, [obj])))
        return Response(data=_encode(obj))

    async def list_(self, info: ResourceInfo, req: Request) -> ListResponse | Response:
        opts = req.options
        items = self.backend.list(info, req.namespace, opts.label_selector, opts.field_selector)
        if opts.as_table:
            return Response(data=_encode(self.backend.table(info, items)))
        return ListResponse(items=[_encode(o) for o in items], resource_version="",
                            api_version=info.api_version, kind=info.list_kind or f"{info.kind}List")


class Aggregator:
    """See the module docstring. ``routes`` is the apiserver's REST table, keyed (group, plural, subresource)."""

    def __init__(self, registry: Registry, routes: dict[tuple[str, str, str], Any]) -> None:
        self.registry = registry
        self.routes = routes
        self.backends: dict[tuple[str, str], APIBackend] = {}

    def register(self, backend: APIBackend) -> None:
        key = (backend.group, backend.version)
        if key in self.backends:
            raise ValueError(f"{backend.version}.{backend.group} is already served by another backend")
        rest: REST = AggregatedREST(backend)
        for info in backend.resources():
            self.registry.register(info)
            self.routes[(info.group, info.plural, "")] = rest
        self.backends[key] = backend

    def unregister(self, group: str, version: str) -> None:
        backend = self.backends.pop((group, version))
        for info in backend.resources():
            self.routes.pop((info.group, info.plural, ""), None)
            self.registry.unregister(info.group, info.plural)
