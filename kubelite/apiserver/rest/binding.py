"""``pods/binding`` and the legacy core/v1 ``bindings`` resource (``pkg/registry/core/pod/storage``
BindingREST and LegacyBindingREST).

- The body is decoded as a core/v1 Binding (so annotation values are strings, as the Go decoder
  requires) and validated (``ValidatePodBinding``: ``target.name`` required, ``target.kind`` Node).
- ``assignPod`` sets ``spec.nodeName`` exactly once, merges the binding's annotations and sets
  ``PodScheduled=True``, through the pod store's update (admission sees subresource ``binding``). A pod
  already assigned or being deleted gets 409. Because the Binding was decoded first, a binding can never
  store a pod its readers cannot decode.
- POST ``bindings`` (the legacy resource) binds the pod the Binding names; nothing else is stored.
The response is a ``Status`` Success.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.resources import CREATE_ONLY, ResourceInfo
from kubelite.apiserver.handlers.update import copy_json
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.registry.strategy import SubresourceStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, Conflict, FieldError, invalid

__all__ = ["BindingREST", "BindingStrategy", "LegacyBindingREST"]

_encode = msgspec.json.Encoder().encode
SUCCESS = _encode({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})


class BindingStrategy(SubresourceStrategy):
    """The pod update a binding makes: only ``spec.nodeName``, annotations and the PodScheduled condition
    change, past the pod's update rules (``spec`` is otherwise immutable) as upstream's
    setPodHostAndAnnotations writes them; the Binding's decode checked the types."""

    subresource = "binding"

    def canonicalize(self, obj: dict[str, Any]) -> None:
        pass  # assignPod stores past the strategy

    def ssa_schema(self) -> None:
        """None: no managedFields entry. Upstream's BindingREST writes the pod with a storage GuaranteedUpdate
        past the field manager (which only sees the Binding body), so a bound pod's managedFields name no
        scheduler: only its creator, and the kubelet for ``status``."""
        return None


class BindingREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        sub = self.scope.tables.registry.subresource(info, "binding")
        binding = self.scope.decoder.decode_subresource(sub, req.body, [])
        return await self.bind(info, req, req.name or binding["metadata"].get("name") or "", binding)

    async def bind(self, pods: ResourceInfo, req: Request, name: str, binding: dict[str, Any]) -> Response:
        """assignPod: bind pod ``name`` to the binding's target."""
        bname = binding["metadata"].get("name")
        if bname and bname != name:
            raise BadRequest.make("name in URL does not match name in Binding object")
        target = binding.get("target") or {}
        node = target.get("name") or ""
        if not node:
            raise invalid("Binding", name, [FieldError.required("target.name")])
        if target.get("kind") not in (None, "", "Node"):
            raise invalid("Binding", name, [FieldError.not_supported("target.kind", target.get("kind"), ["Node"])])
        scope = self.scope
        now = scope.clock.timestamp()
        annotations = binding["metadata"].get("annotations")

        def mutate(old: dict[str, Any]) -> dict[str, Any]:
            live: dict[str, Any] = copy_json(old)
            meta = live["metadata"]
            if meta.get("deletionTimestamp"):
                raise Conflict.for_object("", "pods/binding", name,
                                          f"pod {name} is being deleted, cannot be assigned to a host")
            spec = live.setdefault("spec", {})
            if spec.get("nodeName"):
                raise Conflict.for_object("", "pods/binding", name,
                                          f'pod {name} is already assigned to node "{spec["nodeName"]}"')
            spec["nodeName"] = node
            if annotations:
                meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
            status = live.setdefault("status", {})
            conds = [c for c in status.get("conditions") or () if c.get("type") != "PodScheduled"]
            conds.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": now})
            status["conditions"] = conds
            return live

        w = Write(user=req.user, info=pods, namespace=req.namespace, dry_run=req.options.dry_run,
                  manager=req.options.field_manager or "kubelite")
        strategy = BindingStrategy(scope.strategies.for_resource(pods))
        await scope.store.update(w, strategy, name, mutate, expect_rv=None)
        return Response(data=SUCCESS)


class LegacyBindingREST:
    """POST ``/api/v1/namespaces/{ns}/bindings``: the Binding names the pod to bind."""

    def __init__(self, binding: BindingREST) -> None:
        self.binding = binding

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        scope = self.binding.scope
        pods = scope.tables.resource("", "pods")
        binding = scope.decoder.decode_subresource(scope.tables.registry.subresource(pods, "binding"), req.body, [])
        name = binding["metadata"].get("name") or ""
        if not name:
            raise invalid("Binding", "", [FieldError.required("metadata.name", "name or generateName is required")])
        return await self.binding.bind(pods, req, name, binding)
