"""``componentstatuses`` (``pkg/registry/core/componentstatus/rest.go``): the health of the control plane's
components as the apiserver probes them, computed on each request and never stored (v1, deprecated since 1.19;
the HTTP layer adds upstream's deprecation warning).

Contract:
- ``get`` and ``list`` only (cluster-scoped). The components are kube-apiserver's ``GetServersToValidate``:
  ``scheduler``, ``controller-manager`` and ``etcd-0``. Each is one ``Healthy`` condition: ``True`` with
  message ``ok`` when the component answers, else ``False`` with the error a refused connection to its
  ``/healthz`` gives (kube-scheduler's port 10259, kube-controller-manager's 10257). etcd is the store: always
  healthy. Upstream lists them in the order its probes finish; here sorted by name, so output replays.
- A component's health is asked of the owner (the cluster) through ``probes``: name -> () -> bool. A
  component with no probe is not running.
- Label and field selectors (``metadata.name``) filter the list as upstream's ``componentStatusPredicate``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.fields import parse_field_selector
from kubelite.api.labels import parse_selector
from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.request import ListResponse, Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, NotFound

__all__ = ["COMPONENTS", "ComponentStatusREST"]

_encode = msgspec.json.Encoder().encode

#: name -> the /healthz address kube-apiserver probes (None: the storage backend, checked directly)
COMPONENTS: dict[str, str | None] = {
    "controller-manager": "https://127.0.0.1:10257/healthz",
    "etcd-0": None,
    "scheduler": "https://127.0.0.1:10259/healthz",
}
_GET_LIST = frozenset({"get", "list"})


class ComponentStatusREST:
    def __init__(self, scope: Scope, probes: dict[str, Callable[[], bool]]) -> None:
        self.scope = scope
        #: component name -> whether it is running (the cluster that runs the components fills it)
        self.probes = probes

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return _GET_LIST

    def status(self, name: str) -> dict[str, Any]:
        url = COMPONENTS[name]
        probe = self.probes.get(name)
        if url is None or (probe is not None and probe()):
            cond = {"type": "Healthy", "status": "True", "message": "ok"}
        else:
            port = url.split(":")[2].split("/")[0]
            cond = {"type": "Healthy", "status": "False",
                    "error": f'Get "{url}": dial tcp 127.0.0.1:{port}: connect: connection refused'}
        return {"kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name, "creationTimestamp": None},
                "conditions": [cond]}

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        if req.name not in COMPONENTS:
            raise NotFound.make(f'Component not found: {req.name}', kind="componentstatuses", name=req.name)
        return Response(data=_encode(self.status(req.name)))

    async def list_(self, info: ResourceInfo, req: Request) -> ListResponse:
        opts = req.options
        try:
            lsel = parse_selector(opts.label_selector) if opts.label_selector else None
            fsel = parse_field_selector(opts.field_selector) if opts.field_selector else None
        except ValueError as e:
            raise BadRequest.make(str(e)) from None
        items = []
        for name in sorted(COMPONENTS):
            if lsel is not None and not lsel.matches({}):
                continue
            if fsel is not None and not fsel.matches({"metadata.name": name}):
                continue
            items.append(_encode(self.status(name)))
        return ListResponse(items=items, resource_version="", api_version="v1", kind="ComponentStatusList")
