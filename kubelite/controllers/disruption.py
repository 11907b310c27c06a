"""The disruption controller: PodDisruptionBudget status, which the eviction subresource enforces.

Follows ``pkg/controller/disruption/disruption.go`` (``trySync``, ``getExpectedPodCount``,
``getExpectedScale``, ``countHealthyPods``, ``buildDisruptedPodMap``, ``updatePdbStatus``,
``failSafe``). For each PDB:

- **Pods**: those in its namespace matched by ``spec.selector`` (an empty selector matches every pod, a
  missing one none). No pods: event ``NoPods`` "No matching pods found".
- **expectedPods / desiredHealthy**: ``minAvailable`` as a number: desired = that number, expected = the
  pod count. ``maxUnavailable`` (number or percent) or ``minAvailable`` as a percent: expected = the
  sum of ``spec.replicas`` of the pods' controllers (a ReplicaSet owned by a Deployment counts as the
  Deployment; ReplicaSets, Deployments and StatefulSets from informers, any other controller through
  its ``scale`` subresource), desired = expected - maxUnavailable (percent rounded up), or
  ceil(minAvailable% x expected). A pod without a controller, or a controller without a scale, makes
  the count fail: event ``CalculateExpectedPodCountFailed``, and the fail-safe status (0 disruptions
  allowed, condition ``DisruptionAllowed`` False with reason ``SyncFailed``).
- **currentHealthy**: matched pods that are Ready, not being deleted and not in ``disruptedPods``.
- **disruptedPods**: entries the eviction subresource added are dropped once their pod is gone or
  being deleted, or after 2 minutes (``DeletionTimeout``); the PDB is looked at again when the oldest
  entry expires.
- **disruptionsAllowed** = max(0, currentHealthy - desiredHealthy), 0 when expectedPods is 0; condition
  ``DisruptionAllowed`` True/``SufficientPods`` or False/``InsufficientPods``; ``observedGeneration``.

The status is written with the resourceVersion it was computed from (a PUT of ``/status``), so an
eviction that decremented ``disruptionsAllowed`` meanwhile is never overwritten: the write fails with
409 and the PDB is synced again from the new state. Nothing is written when nothing changed.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from kubelite.api.labels import label_selector_matches
from kubelite.api.types import Deployment, ObjectMeta, Pod, PodDisruptionBudget, ReplicaSet, StatefulSet
from kubelite.clock import parse_time
from kubelite.controllers.controller_utils import controller_ref, resolve_controller_ref
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.informer import NAMESPACE_INDEX, Indexer

__all__ = ["NAME", "DisruptionController", "register", "scaled_value"]

NAME = "disruption"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})
DELETION_TIMEOUT = 120.0


class _CountError(Exception):
    pass


def scaled_value(value: int | str, total: int, *, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is, ``"N%"`` of ``total`` rounded."""
    if isinstance(value, int):
        return value
    if value.endswith("%") and value[:-1].isdigit():
        x = int(value[:-1]) * total / 100
        return math.ceil(x) if round_up else math.floor(x)
    if value.isdigit():
        return int(value)
    raise _CountError(f"invalid value for IntOrString: invalid value {value!r}")


def _selector(pdb: PodDisruptionBudget) -> dict[str, Any] | None:
    sel = pdb.spec.selector if pdb.spec is not None else None
    return None if sel is None else msgspec.to_builtins(sel)


def _meta(obj: Any) -> ObjectMeta:
    """Objects from the API always have metadata."""
    m: ObjectMeta | None = obj.metadata
    assert m is not None
    return m


def _ready(pod: Pod) -> bool:
    conds = pod.status.conditions if pod.status is not None else None
    return any(c.type == "Ready" and c.status == "True" for c in conds or ())


class DisruptionController:
    def __init__(self, ctx: ControllerContext, *, pods: Indexer, pdbs: Indexer, replicasets: Indexer,
                 deployments: Indexer, statefulsets: Indexer) -> None:
        self.client, self.clock, self.recorder = ctx.client, ctx.clock, ctx.recorder("controllermanager")
        self.pods, self.pdbs = pods, pdbs
        self.replicasets, self.deployments, self.statefulsets = replicasets, deployments, statefulsets

    # --- pod -> PDBs (``getPdbForPod``) ---
    def pdbs_for_pod(self, pod: Pod) -> list[Request]:
        meta = pod.metadata
        if meta is None:
            return []
        out = []
        for pdb in self.pdbs.by_index(NAMESPACE_INDEX, meta.namespace or ""):
            sel = _selector(pdb)
            if sel is not None and label_selector_matches(sel, meta.labels):
                out.append(Request(meta.namespace or "", pdb.metadata.name or ""))
        return out

    # --- the sync ---
    async def reconcile(self, req: Request) -> Result | None:
        pdb: PodDisruptionBudget | None = self.pdbs.get_by_key(f"{req.namespace}/{req.name}")
        if pdb is None:
            return None
        sel = _selector(pdb)
        pods: list[Pod] = [] if sel is None else [
            p for p in self.pods.by_index(NAMESPACE_INDEX, req.namespace)
            if label_selector_matches(sel, p.metadata.labels if p.metadata is not None else None)]
        if not pods:
            self.recorder.event(pdb, "Normal", "NoPods", "No matching pods found")
        try:
            expected, desired = await self._expected_and_desired(pdb, pods)
        except (_CountError, ApiError) as e:
            self.recorder.event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                                f"Failed to calculate the number of expected pods: {e}")
            await self._write(pdb, self._fail_safe(pdb, str(e)))
            return None
        now = self.clock.now()
        disrupted, recheck = self._disrupted_pods(pdb, pods, now)
        healthy = sum(1 for p in pods if _ready(p) and not _meta(p).deletion_timestamp
                      and _meta(p).name not in disrupted)
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        status = self._status(pdb, healthy=healthy, desired=desired, expected=expected, allowed=allowed,
                              disrupted=disrupted)
        await self._write(pdb, status)
        return Result(requeue_after=max(recheck - now, 0.001)) if recheck is not None else None

    async def _expected_and_desired(self, pdb: PodDisruptionBudget, pods: list[Pod]) -> tuple[int, int]:
        """``getExpectedPodCount``."""
        spec = pdb.spec
        assert spec is not None
        if spec.max_unavailable is not None:
            expected = await self._expected_scale(pods)
            max_unavailable = scaled_value(spec.max_unavailable, expected, round_up=True)
            return expected, max(0, expected - max_unavailable)
        if spec.min_available is not None:
            if isinstance(spec.min_available, int):
                return len(pods), spec.min_available
            expected = await self._expected_scale(pods)
            return expected, scaled_value(spec.min_available, expected, round_up=True)
        return len(pods), 0

    async def _expected_scale(self, pods: list[Pod]) -> int:
        """``getExpectedScale``: the replicas of every controller of the pods, each counted once."""
        scales: dict[str, int] = {}
        for pod in pods:
            ref = controller_ref(pod)
            if ref is None:
                raise _CountError(f"found no controller ref for pod {_meta(pod).name!r}")
            if ref.uid in scales:
                continue
            uid, replicas = await self._find_scale(_meta(pod).namespace or "", ref)
            scales[uid] = replicas
        return sum(scales.values())

    async def _find_scale(self, namespace: str, ref: Any) -> tuple[str, int]:
        """The finders: ReplicaSet (or its Deployment), StatefulSet, then any ``scale`` subresource."""
        # the finders verify the group too (``verifyGroupKind``), then resolve by Kind and UID
        group = (ref.api_version or "").rpartition("/")[0]
        if group in ("apps", "extensions") and ref.kind == "ReplicaSet":
            rs: ReplicaSet | None = resolve_controller_ref(self.replicasets, namespace, ref, "ReplicaSet")
            if rs is not None:
                d: Deployment | None = resolve_controller_ref(self.deployments, namespace, controller_ref(rs),
                                                              "Deployment")
                if d is not None:
                    return _meta(d).uid or "", (d.spec.replicas if d.spec and d.spec.replicas is not None else 1)
                return ref.uid or "", (rs.spec.replicas if rs.spec and rs.spec.replicas is not None else 1)
        if group == "apps" and ref.kind == "StatefulSet":
            ss: StatefulSet | None = resolve_controller_ref(self.statefulsets, namespace, ref, "StatefulSet")
            if ss is not None:
                return ref.uid or "", (ss.spec.replicas if ss.spec and ss.spec.replicas is not None else 1)
        try:
            scale: dict[str, Any] = await self.client.get((ref.api_version or "", ref.kind or ""), ref.name or "",
                                                          namespace=namespace, subresource="scale")
        except (NotFound, ApiError) as e:
            raise _CountError(f"no scale for {ref.kind} {namespace}/{ref.name}: {e}") from None
        if (scale.get("metadata") or {}).get("uid") not in (None, ref.uid):
            raise _CountError(f"{ref.kind} {namespace}/{ref.name} has another uid")
        return ref.uid or "", int((scale.get("spec") or {}).get("replicas") or 0)

    def _disrupted_pods(self, pdb: PodDisruptionBudget, pods: list[Pod], now: float
                        ) -> tuple[dict[str, str], float | None]:
        """``buildDisruptedPodMap``: the entries still pending, and when the oldest one expires."""
        entries = (pdb.status.disrupted_pods if pdb.status is not None else None) or {}
        if not entries:
            return {}, None
        by_name = {_meta(p).name: p for p in pods}
        kept: dict[str, str] = {}
        recheck: float | None = None
        for name, ts in entries.items():
            pod = by_name.get(name)
            if pod is None or _meta(pod).deletion_timestamp:
                continue
            expires = parse_time(ts) + DELETION_TIMEOUT
            if expires <= now:
                continue
            kept[name] = ts
            recheck = expires if recheck is None else min(recheck, expires)
        return kept, recheck

    def _condition(self, pdb: PodDisruptionBudget, status: str, reason: str, message: str) -> dict[str, Any]:
        prev = next((c for c in (pdb.status.conditions if pdb.status else None) or ()
                     if c.type == "DisruptionAllowed"), None)
        ltt = prev.last_transition_time if prev is not None and prev.status == status else None
        gen = pdb.metadata.generation if pdb.metadata is not None else None
        cond: dict[str, Any] = {"type": "DisruptionAllowed", "status": status, "reason": reason, "message": message,
                "lastTransitionTime": ltt or self.clock.timestamp()}
        if gen is not None:
            cond["observedGeneration"] = gen
        return cond

    def _status(self, pdb: PodDisruptionBudget, *, healthy: int, desired: int, expected: int, allowed: int,
                disrupted: dict[str, str]) -> dict[str, Any]:
        cond = (self._condition(pdb, "True", "SufficientPods", "") if allowed > 0
                else self._condition(pdb, "False", "InsufficientPods", ""))
        status: dict[str, Any] = {"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
                                  "disruptionsAllowed": allowed, "conditions": [cond],
                                  "observedGeneration": pdb.metadata.generation if pdb.metadata else None}
        if disrupted:
            status["disruptedPods"] = disrupted
        return status

    def _fail_safe(self, pdb: PodDisruptionBudget, message: str) -> dict[str, Any]:
        """``failSafe``: keep the counts, allow nothing, say why."""
        old = msgspec.to_builtins(pdb.status) if pdb.status is not None else {}
        return {**old, "disruptionsAllowed": 0,
                "observedGeneration": pdb.metadata.generation if pdb.metadata else None,
                "conditions": [self._condition(pdb, "False", "SyncFailed", message)]}

    async def _write(self, pdb: PodDisruptionBudget, status: dict[str, Any]) -> None:
        old = msgspec.to_builtins(pdb.status) if pdb.status is not None else {}
        status = {k: v for k, v in status.items() if v is not None}
        if old == status:
            return
        body = msgspec.to_builtins(pdb)
        body["status"] = status
        try:
            await self.client.replace_status(body)
        except NotFound:
            return
        except Conflict:
            raise  # an eviction (or another writer) got there first: retry from the new state


def register(ctx: ControllerContext) -> None:
    inf = ctx.informers
    pods = inf.informer_for(Pod).get_indexer()
    ctrl = DisruptionController(
        ctx, pods=pods, pdbs=inf.informer_for(PodDisruptionBudget).get_indexer(),
        replicasets=inf.informer_for(ReplicaSet).get_indexer(), deployments=inf.informer_for(Deployment).get_indexer(),
        statefulsets=inf.informer_for(StatefulSet).get_indexer())

    # Upstream registers handlers on PDBs and pods only; the workload listers are read when a PDB syncs.
    (ctx.manager.controller("disruption-controller").for_(PodDisruptionBudget)
        .watches(Pod, ctrl.pdbs_for_pod).waits_for(ReplicaSet).waits_for(Deployment)
        .waits_for(StatefulSet).with_max_concurrent_reconciles(int(ctx.option(NAME, "workers", 5)))
        .complete(ctrl))
