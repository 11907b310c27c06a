"""``pods/binding`` and the legacy core/v1 ``bindings`` resource (``pkg/registry/core/pod/storage``
BindingREST and LegacyBindingREST).

- The body is decoded as a core/v1 Binding (so annotation values are strings, as the Go decoder
  requires) and validated (``ValidatePodBinding``: ``target.name`` required, ``target.kind`` Node).
- Admission sees what upstream's create handler hands it: a CREATE of ``pods/binding`` whose object is
  the Binding (mutating, then validating: BindingREST's ``createValidation``). No admission sees the pod.
- ``assignPod`` is upstream's ``setPodHostAndAnnotations``: one storage ``GuaranteedUpdate`` of the pod,
  past the pod strategy, its validation and the field manager. It sets ``spec.nodeName`` exactly once,
  merges the binding's annotations and sets ``PodScheduled=True``. A pod already assigned, being deleted,
  still gated (``spec.schedulingGates``) or not the one the Binding's ``metadata.uid`` /
  ``resourceVersion`` preconditions name gets 409 (``pods/binding``). Because the Binding was decoded
  first, a binding can never store a pod its readers cannot decode. ``dryRun`` runs every check and
  writes nothing.
- The pod's managedFields name no scheduler (the field manager only ever sees the Binding body) and its
  ``metadata.generation`` does not move (the strategy that bumps it is not on this path), as upstream.
- POST ``bindings`` (the legacy resource) binds the pod the Binding names (admission sees a create of
  ``bindings``, the resource its URL names); nothing else is stored.
The response is a ``Status`` Success.

Cost (issue #17; ``python bench/binding.py``): one decode of the stored pod, the mutation in place, one
encode and one store write; nothing else per bind.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.resources import CREATE_ONLY, ResourceInfo
from kubelite.apiserver.request import AdmissionRequest, Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import ApiError, BadRequest, Conflict, FieldError, NotFound, invalid

__all__ = ["BindingREST", "LegacyBindingREST"]

_encode = msgspec.json.Encoder().encode
SUCCESS = _encode({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})
#: GuaranteedUpdate retries a write another writer beat (none can while nothing awaits between read and write)
_MAX_RETRIES = 5


class BindingREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        sub = self.scope.tables.registry.subresource(info, "binding")
        binding = self.scope.decoder.decode_subresource(sub, req.body, [])
        return await self.bind(info, req, req.name or binding["metadata"].get("name") or "", binding)

    async def bind(self, pods: ResourceInfo, req: Request, name: str, binding: dict[str, Any], *,
                   admitted_as: tuple[str, str] = ("pods", "binding")) -> Response:
        """BindingREST.Create: check the Binding, admit it (as a create of ``admitted_as``: resource and
        subresource of the request's URL), then assignPod."""
        bname = binding["metadata"].get("name")
        if bname and bname != name:
            raise BadRequest.make("name in URL does not match name in Binding object")
        _validate(name, binding)
        scope = self.scope
        admission = scope.store.admission
        areq = AdmissionRequest(
            operation="CREATE", group=pods.group, version=pods.version, kind="Binding", resource=admitted_as[0],
            subresource=admitted_as[1], namespace=req.namespace, name=name, object=binding, old_object=None,
            user=req.user, dry_run=req.options.dry_run,
        )
        if admission.sees(areq):
            await admission.admit(areq)
            binding = areq.object or binding
            _validate(name, binding)  # a mutating hook's result is checked again, as the handler re-validates
            await admission.validate(areq)
        self._assign(pods, req, name, binding)
        return Response(data=SUCCESS, warnings=list(dict.fromkeys(areq.warnings)))

    def _assign(self, pods: ResourceInfo, req: Request, name: str, binding: dict[str, Any]) -> None:
        """setPodHostAndAnnotations: GuaranteedUpdate of the pod in storage (nothing awaits between the read
        and the write, so the write cannot lose a race; the loop is GuaranteedUpdate's retry all the same)."""
        scope = self.scope
        store = scope.tables.store
        table = scope.tables.table(pods)
        meta_b = binding["metadata"]
        node: str = binding["target"]["name"]
        annotations = meta_b.get("annotations")
        uid, rv = meta_b.get("uid"), meta_b.get("resourceVersion")
        for _ in range(_MAX_RETRIES):
            current = store.get(table, req.namespace, name)
            if current is None:
                raise NotFound.for_object(pods.group, pods.plural, name)
            pod = current.decode()  # a private decode: mutated in place, then written
            meta = pod["metadata"]
            spec = pod.setdefault("spec", {})
            if meta.get("deletionTimestamp"):
                raise _conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
            if spec.get("nodeName"):
                raise _conflict(name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
            if spec.get("schedulingGates"):
                raise _conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
            # the Binding's uid and resourceVersion are storage preconditions on the pod (a failed one is
            # InterpretUpdateError's Conflict on "pods")
            if uid and meta.get("uid") != uid:
                raise Conflict.for_object(pods.group, pods.plural, name, "Precondition failed: UID in precondition: "
                                          f"{uid}, UID in object meta: {meta.get('uid') or ''}")
            if rv and meta.get("resourceVersion") != rv:
                raise Conflict.for_object(pods.group, pods.plural, name, "Precondition failed: ResourceVersion in "
                                          f"precondition: {rv}, ResourceVersion in object meta: "
                                          f"{meta.get('resourceVersion') or ''}")
            spec["nodeName"] = node
            if annotations:
                meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
            _set_scheduled(pod.setdefault("status", {}), scope.clock.timestamp())
            if req.options.dry_run:
                return
            try:
                store.update(table, pod, expect_rv=current.rv)
            except Conflict:
                continue
            return
        raise _conflict(name, "too many concurrent updates; try again")


def _validate(name: str, binding: dict[str, Any]) -> None:
    """ValidatePodBinding."""
    target = binding.get("target") or {}
    if not target.get("name"):
        raise invalid("Binding", name, [FieldError.required("target.name")])
    if target.get("kind") not in (None, "", "Node"):
        raise invalid("Binding", name, [FieldError.not_supported("target.kind", target.get("kind"), ["Node"])])


def _set_scheduled(status: dict[str, Any], now: str) -> None:
    """``podutil.UpdatePodCondition`` with ``{Type: PodScheduled, Status: True}``: a new condition is
    appended; an earlier one is replaced where it stands (reason and message cleared), keeping its
    ``lastTransitionTime`` only when its status was already True."""
    cond: dict[str, Any] = {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                            "lastTransitionTime": now}
    conds = list(status.get("conditions") or ())
    for i, c in enumerate(conds):
        if c.get("type") == "PodScheduled":
            if c.get("status") == "True" and c.get("lastTransitionTime"):
                cond["lastTransitionTime"] = c["lastTransitionTime"]
            conds[i] = cond
            break
    else:
        conds.append(cond)
    status["conditions"] = conds


def _conflict(name: str, message: str) -> ApiError:
    """assignPod: an error that is no API status becomes a 409 for ``pods/binding``."""
    return Conflict.for_object("", "pods/binding", name, message)


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
        # admission sees what the URL names: a create of ``bindings`` (upstream's LegacyBindingREST is that resource)
        return await self.binding.bind(pods, req, name, binding, admitted_as=("bindings", ""))
