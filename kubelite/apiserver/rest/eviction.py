"""``pods/eviction`` (``pkg/registry/core/pod/storage/eviction.go``): delete a pod only if every
PodDisruptionBudget covering it allows a disruption.

- ``create pods/eviction`` is the permission an eviction needs (the pod is deleted by the eviction's own
  storage, not by a second request), as upstream.
- A pod that is terminal or already being deleted is deleted without consulting budgets. Otherwise more
  than one matching budget is a 500, an unobserved or exhausted budget a 429 TooManyRequests with cause
  ``DisruptionBudget``.
- A pod that is not terminal first gets the ``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``,
  upstream's ``addConditionAndDeletePod``).
- **The budget is spent only with the deletion.** ``status.disruptionsAllowed`` is decremented (and the pod
  recorded in ``disruptedPods``) after every check of the delete has passed (preconditions, admission),
  in the same synchronous step as the store write; a rejected eviction changes nothing.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.labels import selector_from_label_selector
from kubelite.api.resources import CREATE_ONLY, ResourceInfo
from kubelite.apiserver.handlers.delete import check_propagation
from kubelite.apiserver.registry.store import Write, check_preconditions
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.rest.binding import SUCCESS
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, InternalError, NotFound, StatusCause, TooManyRequests
from kubelite.store import StoredObject

__all__ = ["EvictionREST"]


class EvictionREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        scope, namespace, name = self.scope, req.namespace, req.name
        eviction = scope.decoder.decode_subresource(scope.tables.registry.subresource(info, "eviction"), req.body, [])
        ename = eviction["metadata"].get("name")
        if ename and name and ename != name:
            raise BadRequest.make("name in URL does not match name in Eviction object")
        name = name or ename or ""
        opts = eviction.get("deleteOptions") or {}
        check_propagation(opts.get("propagationPolicy"))
        dry_run = req.options.dry_run or bool(opts.get("dryRun"))
        stored = scope.tables.store.get(scope.tables.table(info), namespace, name)
        if stored is None:
            raise NotFound.for_object("", "pods", name)
        pod = stored.decode()
        preconditions = opts.get("preconditions")
        # eviction.go checks the delete's preconditions in the DisruptionTarget update too, so a failed
        # precondition rejects the eviction before anything is written
        check_preconditions(info, name, pod, preconditions)
        spend = None
        phase = (pod.get("status") or {}).get("phase")
        if phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp"):
            pdb = self._budget(pod, namespace)
            if pdb is not None:
                _check_budget(pdb)
                if not dry_run:
                    def spend(_old: dict[str, Any]) -> None:
                        self._spend(pod, namespace, pdb["metadata"]["name"])
            if not dry_run:
                updated = self._add_disruption_target(info, pod, stored.rv)
                if preconditions and preconditions.get("resourceVersion"):
                    # the condition update moved the pod's resourceVersion on; the delete checks the pod the
                    # precondition already approved (upstream swaps in the updated resourceVersion likewise)
                    preconditions = {**preconditions, "resourceVersion": str(updated.rv)}
        w = Write(user=req.user, info=info, namespace=namespace, dry_run=dry_run)
        await scope.store.delete(
            w, scope.strategies.for_resource(info), name, grace_period_seconds=opts.get("gracePeriodSeconds"),
            propagation_policy=opts.get("propagationPolicy"), preconditions=preconditions,
            before_write=spend,
        )
        return Response(data=SUCCESS)

    def _add_disruption_target(self, info: ResourceInfo, pod: dict[str, Any], rv: int) -> StoredObject:
        """eviction.go ``addConditionAndDeletePod``: the pod gets the DisruptionTarget condition (reason
        EvictionByEvictionAPI) in a status write before it is deleted."""
        status = pod.setdefault("status", {})
        conds = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionTarget"]
        conds.append({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                      "message": "Eviction API: evicting", "lastTransitionTime": self.scope.clock.timestamp()})
        status["conditions"] = conds
        tables = self.scope.tables
        return tables.store.update(tables.table(info), pod, expect_rv=rv)

    def _budget(self, pod: dict[str, Any], namespace: str) -> dict[str, Any] | None:
        labels = pod["metadata"].get("labels") or {}
        pdbs = [
            p for p in self.scope.tables.read_all("policy", "poddisruptionbudgets", namespace)
            if selector_from_label_selector((p.get("spec") or {}).get("selector")).matches(labels)
        ]
        if len(pdbs) > 1:
            raise InternalError.make(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
            )
        return pdbs[0] if pdbs else None

    def _spend(self, pod: dict[str, Any], namespace: str, pdb_name: str) -> None:
        """Decrement the budget, re-checked against its latest state (it may have changed while admission
        ran); raising here aborts the deletion before anything is written."""
        tables = self.scope.tables
        table = tables.table(tables.resource("policy", "poddisruptionbudgets"))
        current = tables.store.get(table, namespace, pdb_name)
        if current is None:
            return  # the budget is gone: nothing left to protect
        pdb = current.decode()
        _check_budget(pdb)
        status = pdb["status"]
        status["disruptionsAllowed"] = int(status.get("disruptionsAllowed", 0)) - 1
        disrupted = dict(status.get("disruptedPods") or {})
        disrupted[pod["metadata"]["name"]] = self.scope.clock.timestamp()
        status["disruptedPods"] = disrupted
        tables.store.update(table, pdb, expect_rv=current.rv)


def _check_budget(pdb: dict[str, Any]) -> None:
    status = pdb.get("status") or {}
    name = pdb["metadata"]["name"]
    if status.get("observedGeneration", 0) < pdb["metadata"].get("generation", 0) or "disruptionsAllowed" not in status:
        raise TooManyRequests.make(
            "Cannot evict pod as it would violate the pod's disruption budget.",
            causes=[StatusCause(reason="DisruptionBudget",
                                message=f"The disruption budget {name} is still being processed by the server.")],
        )
    if int(status.get("disruptionsAllowed", 0)) <= 0:
        raise TooManyRequests.make(
            "Cannot evict pod as it would violate the pod's disruption budget.",
            causes=[StatusCause(
                reason="DisruptionBudget",
                message=f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods and "
                        f"has {status.get('currentHealthy', 0)} currently",
            )],
        )
