"""Subresources other than ``/status``: ``/scale``, ``pods/binding`` and ``pods/eviction``.

- ``/scale`` (pkg/registry/apps/deployment/storage ScaleREST, and the CRD scale subresource) reads
  and writes ``spec.replicas`` of the parent as an ``autoscaling/v1`` Scale; ``status.selector`` is
  the parent's selector in string form.
- ``pods/binding`` (pkg/registry/core/pod/storage BindingREST.assignPod) sets ``spec.nodeName``
  exactly once, copies the binding's annotations and sets ``PodScheduled=True``; a pod already
  assigned or being deleted gets 409.
- ``pods/eviction`` (pkg/registry/core/pod/storage/eviction.go) deletes a pod only if every
  PodDisruptionBudget covering it allows a disruption, decrementing ``disruptionsAllowed``;
  otherwise 429 TooManyRequests with cause ``DisruptionBudget``. Terminal pods are deleted directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from kubelite.api.labels import selector_from_label_selector
from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.request import Response
from kubelite.errors import (
    BadRequest,
    Conflict,
    FieldError,
    InternalError,
    MethodNotAllowed,
    NotFound,
    StatusCause,
    TooManyRequests,
    invalid,
)

if TYPE_CHECKING:
    from kubelite.apiserver.auth.user import UserInfo
    from kubelite.apiserver.server import ApiServer

__all__ = ["Subresources"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _get_path(obj: dict[str, Any], path: str) -> Any:
    cur: Any = obj
    for part in path.strip(".").split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def _set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = path.strip(".").split(".")
    cur = obj
    for part in parts[:-1]:
        cur = cur.setdefault(part, {})
    cur[parts[-1]] = value


class Subresources:
    def __init__(self, server: ApiServer) -> None:
        self.server = server

    # --- scale ---
    def _scale_paths(self, info: ResourceInfo) -> tuple[str, str, str | None]:
        if info.struct is not None:
            if "scale" not in info.subresources:
                raise NotFound.make("the server could not find the requested resource")
            return ".spec.replicas", ".status.replicas", ".spec.selector"
        paths = self.server.crs.scale_paths(info)
        if paths is None:
            raise NotFound.make("the server could not find the requested resource")
        return paths

    def _scale_of(self, info: ResourceInfo, obj: dict[str, Any]) -> dict[str, Any]:
        spec_path, status_path, selector_path = self._scale_paths(info)
        meta = obj["metadata"]
        selector = ""
        if selector_path:
            raw = _get_path(obj, selector_path)
            if isinstance(raw, dict):
                selector = str(selector_from_label_selector(raw))
            elif isinstance(raw, str):
                selector = raw
        status: dict[str, Any] = {"replicas": _get_path(obj, status_path) or 0}
        if selector:
            status["selector"] = selector
        return {
            "apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": _get_path(obj, spec_path) or 0},
            "status": status,
        }

    async def get(self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, sub: str) -> Response:
        srv = self.server
        stored = srv.store.get(srv.table(info), namespace, name)
        if stored is None:
            raise NotFound.for_object(info.group, info.plural, name)
        if sub == "status" and "status" in info.subresources:
            return Response(data=srv.crs.serve(info, stored.data))
        if sub == "scale":
            return Response(data=_encode(self._scale_of(info, stored.decode())))
        raise NotFound.make("the server could not find the requested resource")

    async def update(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, sub: str, body: dict[str, Any], *,
        dry_run: bool, field_manager: str | None,
    ) -> Response:
        if sub != "scale":
            raise NotFound.make("the server could not find the requested resource")
        spec_path, _, _ = self._scale_paths(info)
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        replicas = (body.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise invalid("Scale", name, [FieldError.invalid(
                "spec.replicas", replicas, "must be greater than or equal to 0")], group="autoscaling")
        expect = self.server._parse_expected_rv((body.get("metadata") or {}).get("resourceVersion"))

        def mutate(live: dict[str, Any]) -> dict[str, Any]:
            new: dict[str, Any] = _decode(_encode(live))
            _set_path(new, spec_path, replicas)
            return new

        data = await self.server._update_loop(
            user, info, namespace, name, mutate, subresource="", expect_rv=expect, dry_run=dry_run,
            manager=field_manager or "kubelite",
        )
        return Response(data=_encode(self._scale_of(info, _decode(data))))

    async def patch(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, sub: str, patch: Any, patch_type: str,
        *, dry_run: bool, field_manager: str | None,
    ) -> Response:
        if sub != "scale":
            raise NotFound.make("the server could not find the requested resource")
        from kubelite.apiserver.patch import apply_json_patch, apply_merge_patch

        current = await self.get(user, info, namespace, name, "scale")
        scale = _decode(current.data)
        if patch_type == "json":
            scale = apply_json_patch(scale, patch)
        elif patch_type in ("merge", "strategic", "apply"):
            scale = apply_merge_patch(scale, patch)
        return await self.update(user, info, namespace, name, "scale", scale, dry_run=dry_run,
                                 field_manager=field_manager)

    # --- create-only subresources of pods ---
    async def create(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, sub: str, body: dict[str, Any], *,
        dry_run: bool, field_manager: str | None,
    ) -> Response:
        srv = self.server
        if (info.group, info.plural) != ("", "pods") or sub not in ("binding", "eviction"):
            raise MethodNotAllowed.make(f"create is not supported on {info.group_resource}/{sub}")
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        name = name or (body.get("metadata") or {}).get("name", "")
        srv._preflight(user, "create", info, sub, namespace, name)
        if sub == "binding":
            return await self._bind(user, info, namespace, name, body, dry_run=dry_run, field_manager=field_manager)
        return await self._evict(user, info, namespace, name, body, dry_run=dry_run)

    async def _bind(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, binding: dict[str, Any], *,
        dry_run: bool, field_manager: str | None,
    ) -> Response:
        srv = self.server
        target = binding.get("target") or {}
        node = target.get("name") or ""
        if not node:
            raise invalid("Binding", name, [FieldError.required("target.name")])
        if target.get("kind") not in (None, "", "Node"):
            raise invalid("Binding", name, [FieldError.not_supported("target.kind", target.get("kind"), ["Node"])])
        now = srv.clock.timestamp()

        def mutate(old: dict[str, Any]) -> dict[str, Any]:
            live: dict[str, Any] = _decode(_encode(old))
            meta = live["metadata"]
            if meta.get("deletionTimestamp"):
                raise Conflict.for_object("", "pods/binding", name,
                                          f"pod {name} is being deleted, cannot be assigned to a host")
            spec = live.setdefault("spec", {})
            if spec.get("nodeName"):
                raise Conflict.for_object("", "pods/binding", name,
                                          f'pod {name} is already assigned to node "{spec["nodeName"]}"')
            spec["nodeName"] = node
            ann = (binding.get("metadata") or {}).get("annotations")
            if ann:
                meta["annotations"] = {**(meta.get("annotations") or {}), **ann}
            status = live.setdefault("status", {})
            conds = [c for c in status.get("conditions") or () if c.get("type") != "PodScheduled"]
            conds.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": now})
            status["conditions"] = conds
            return live

        await srv._update_loop(
            user, info, namespace, name, mutate, subresource="binding", expect_rv=None, dry_run=dry_run,
            manager=field_manager or "kubelite",
        )
        return Response(data=_encode({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                      "code": 201}))

    async def _evict(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, eviction: dict[str, Any], *,
        dry_run: bool,
    ) -> Response:
        srv = self.server
        stored = srv.store.get(srv.table(info), namespace, name)
        if stored is None:
            raise NotFound.for_object("", "pods", name)
        pod = stored.decode()
        opts = eviction.get("deleteOptions") or {}
        phase = (pod.get("status") or {}).get("phase")
        if phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp"):
            pdbs = [
                p for p in srv.read_all("policy", "poddisruptionbudgets", namespace)
                if selector_from_label_selector((p.get("spec") or {}).get("selector")).matches(
                    pod["metadata"].get("labels") or {})
            ]
            if len(pdbs) > 1:
                raise InternalError.make(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                )
            if pdbs:
                self._check_budget(pdbs[0], pod, dry_run)
            if not dry_run:
                self._add_disruption_target(info, pod)
        await srv.delete(
            user, "", "pods", namespace, name, grace_period_seconds=opts.get("gracePeriodSeconds"),
            propagation_policy=opts.get("propagationPolicy"), preconditions=opts.get("preconditions"),
            dry_run=dry_run,
        )
        return Response(data=_encode({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                      "code": 201}))

    def _add_disruption_target(self, info: ResourceInfo, pod: dict[str, Any]) -> None:
        """eviction.go ``addConditionAndDeletePod``: a pod evicted through the API gets the DisruptionTarget
        condition (reason EvictionByEvictionAPI) before it is deleted."""
        srv = self.server
        status = pod.setdefault("status", {})
        conds = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionTarget"]
        conds.append({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                      "message": "Eviction API: evicting", "lastTransitionTime": srv.clock.timestamp()})
        status["conditions"] = conds
        srv.store.update(srv.table(info), pod)

    def _check_budget(self, pdb: dict[str, Any], pod: dict[str, Any], dry_run: bool) -> None:
        srv = self.server
        status = pdb.get("status") or {}
        name = pdb["metadata"]["name"]
        if status.get("observedGeneration", 0) < pdb["metadata"].get("generation", 0) or "disruptionsAllowed" not in status:
            raise TooManyRequests.make(
                "Cannot evict pod as it would violate the pod's disruption budget.",
                causes=[StatusCause(reason="DisruptionBudget",
                                    message=f"The disruption budget {name} is still being processed by the server.")],
            )
        allowed = int(status.get("disruptionsAllowed", 0))
        if allowed <= 0:
            raise TooManyRequests.make(
                "Cannot evict pod as it would violate the pod's disruption budget.",
                causes=[StatusCause(
                    reason="DisruptionBudget",
                    message=f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods and "
                            f"has {status.get('currentHealthy', 0)} currently",
                )],
            )
        if dry_run:
            return
        status["disruptionsAllowed"] = allowed - 1
        disrupted = dict(status.get("disruptedPods") or {})
        disrupted[pod["metadata"]["name"]] = srv.clock.timestamp()
        status["disruptedPods"] = disrupted
        pdb["status"] = status
        table = srv.table(srv.registry.by_resource("policy", "poddisruptionbudgets"))
        srv.store.update(table, pdb)
