"""The HorizontalPodAutoscaler controller (autoscaling/v2, CPU utilization).

Follows ``pkg/controller/podautoscaler/horizontal.go`` (``reconcileAutoscaler``,
``computeReplicasForMetrics``, ``setCurrentReplicasAndMetricsInStatus``). Every 15 s
(``--horizontal-pod-autoscaler-sync-period``) per HPA:

1. read the target's ``scale`` subresource (``FailedGetScale`` event and AbleToScale=False on error);
2. a target at 0 replicas (with minReplicas > 0) is left alone (ScalingActive=False ``ScalingDisabled``);
   one outside [minReplicas, maxReplicas] is brought inside; otherwise the replica count comes from the
   metrics (:mod:`.replica_calculator`; only ``Resource`` ``cpu`` with a ``Utilization`` target is
   supported, the v2 default of 80% when no metric is given) and is then stabilized and rate limited
   (:mod:`.behavior`), with conditions ScalingActive and ScalingLimited as upstream words them;
3. a new count is written through the target's ``scale`` subresource, with the event
   ``SuccessfulRescale`` "New size: 4; reason: cpu resource utilization (percentage of request) above
   target" (``FailedRescale`` on error);
4. the HPA's status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime,
   observedGeneration, conditions) is written when it changed.

CPU usage is read through the API only: PodMetrics of ``metrics.k8s.io/v1beta1`` listed by the target's
selector (:mod:`.metrics_client`, upstream's REST metrics client), served by metrics-server behind the
apiserver. Without a metrics API (or without RBAC to list it) every HPA reports ``FailedGetResourceMetric``
with upstream's message. The per-HPA stabilization and scale-event memory is in process memory, as
upstream's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.labels import parse_selector
from kubelite.api.types import HorizontalPodAutoscaler
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.horizontal.behavior import (
    DEFAULT_SCALE_DOWN,
    DEFAULT_SCALE_UP,
    BehaviorState,
    normalize,
    rules_from,
)
from kubelite.controllers.horizontal.metrics_client import RESTMetricsClient
from kubelite.controllers.horizontal.replica_calculator import MetricsError, resource_replicas
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import NAMESPACE_INDEX, Indexer

__all__ = ["SYNC_PERIOD", "HorizontalController"]

SYNC_PERIOD = 15.0
CPU_METRIC = "cpu resource utilization (percentage of request)"
DEFAULT_CPU_UTILIZATION = 80


class HorizontalController:
    def __init__(self, *, client: Client, clock: Clock, hpas: Indexer, pods: Indexer,
                 recorder: EventRecorder) -> None:
        self.client, self.clock, self.recorder = client, clock, recorder
        self.metrics = RESTMetricsClient(client)
        self.hpas, self.pods = hpas, pods
        self.state: dict[str, BehaviorState] = {}

    async def reconcile(self, req: Request) -> Result | None:
        key = f"{req.namespace}/{req.name}"
        hpa: HorizontalPodAutoscaler | None = self.hpas.get_by_key(key)
        if hpa is None or hpa.spec is None or hpa.spec.scale_target_ref is None:
            self.state.pop(key, None)
            return None
        state = self.state.setdefault(key, BehaviorState())
        conds: dict[str, tuple[str, str, str]] = {}
        old = msgspec.to_builtins(hpa.status) if hpa.status is not None else {}
        status: dict[str, Any] = {"currentMetrics": old.get("currentMetrics"), "lastScaleTime": old.get("lastScaleTime")}
        await self._reconcile(hpa, state, conds, status)
        await self._write_status(hpa, old, status, conds)
        return Result(requeue_after=SYNC_PERIOD)

    async def _reconcile(self, hpa: HorizontalPodAutoscaler, state: BehaviorState,
                         conds: dict[str, tuple[str, str, str]], status: dict[str, Any]) -> None:
        spec, meta = hpa.spec, hpa.metadata
        assert spec is not None and spec.scale_target_ref is not None and meta is not None
        ref, ns = spec.scale_target_ref, meta.namespace or ""
        target = (ref.api_version or "", ref.kind or "")
        try:
            scale: dict[str, Any] = await self.client.get(target, ref.name or "", namespace=ns, subresource="scale")
        except ApiError as e:
            self.recorder.event(hpa, "Warning", "FailedGetScale", str(e))
            conds["AbleToScale"] = ("False", "FailedGetScale",
                                    f"the HPA controller was unable to get the target's current scale: {e}")
            return
        conds["AbleToScale"] = ("True", "SucceededGetScale",
                                "the HPA controller was able to get the target's current scale")
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        min_r = spec.min_replicas if spec.min_replicas is not None else 1
        max_r = spec.max_replicas or 0
        status["currentReplicas"] = current
        status["desiredReplicas"] = current
        reason = ""
        if current == 0 and min_r != 0:
            conds["ScalingActive"] = ("False", "ScalingDisabled",
                                      "scaling is disabled since the replica count of the target is zero")
            return
        if current > max_r:
            desired, reason = max_r, "Current number of replicas above Spec.MaxReplicas"
        elif current < min_r:
            desired, reason = min_r, "Current number of replicas below Spec.MinReplicas"
        else:
            metric = await self._metric_desired(hpa, scale, current, conds, status)
            if metric is None:
                return
            if metric > current:
                reason = f"{CPU_METRIC} above target"
            elif metric < current:
                reason = "All metrics below target"
            behavior = msgspec.to_builtins(spec.behavior) if spec.behavior is not None else {}
            up = rules_from(behavior.get("scaleUp"), DEFAULT_SCALE_UP)
            down = rules_from(behavior.get("scaleDown"), DEFAULT_SCALE_DOWN)
            desired, able, limited = normalize(state, self.clock.now(), current, metric, min_r, max_r, up, down)
            conds["AbleToScale"] = ("True", *able)
            conds["ScalingLimited"] = ("True", limited.reason, limited.message) if limited is not None else (
                "False", "DesiredWithinRange", "the desired count is within the acceptable range")
        status["desiredReplicas"] = desired
        if desired == current:
            return
        try:
            # upstream ``scaleNamespacer.Update``: a PUT of the Scale read above (its resourceVersion a precondition)
            await self.client.replace({**scale, "spec": {**(scale.get("spec") or {}), "replicas": desired}},
                                      name=ref.name or "", namespace=ns, subresource="scale", resource=target)
        except ApiError as e:
            self.recorder.event(hpa, "Warning", "FailedRescale", f"New size: {desired}; reason: {reason}; error: {e}")
            conds["AbleToScale"] = ("False", "FailedUpdateScale",
                                    f"the HPA controller was unable to update the target scale: {e}")
            status["desiredReplicas"] = current
            return
        self.recorder.event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
        conds["AbleToScale"] = ("True", "SucceededRescale",
                                f"the HPA controller was able to update the target scale to {desired}")
        state.record_scale(self.clock.now(), desired - current, *self._rules(hpa))
        status["lastScaleTime"] = self.clock.timestamp()

    def _rules(self, hpa: HorizontalPodAutoscaler) -> tuple[Any, Any]:
        behavior = msgspec.to_builtins(hpa.spec.behavior) if hpa.spec and hpa.spec.behavior is not None else {}
        return rules_from(behavior.get("scaleUp"), DEFAULT_SCALE_UP), rules_from(behavior.get("scaleDown"),
                                                                                 DEFAULT_SCALE_DOWN)

    async def _metric_desired(self, hpa: HorizontalPodAutoscaler, scale: dict[str, Any], current: int,
                        conds: dict[str, tuple[str, str, str]], status: dict[str, Any]) -> int | None:
        """``computeReplicasForMetrics`` for the one supported metric; None (conditions set) on failure."""
        spec = hpa.spec
        assert spec is not None and hpa.metadata is not None
        target = DEFAULT_CPU_UTILIZATION
        for m in spec.metrics or ():
            res = m.resource
            if m.type != "Resource" or res is None or res.name != "cpu" or res.target is None \
                    or res.target.type != "Utilization" or res.target.average_utilization is None:
                msg = f"the HPA was unable to compute the replica count: unsupported metric {m.type}"
                self.recorder.event(hpa, "Warning", "FailedComputeMetricsReplicas", msg)
                conds["ScalingActive"] = ("False", "InvalidMetricSourceType", msg)
                return None
            target = res.target.average_utilization
        ns = hpa.metadata.namespace or ""
        try:
            raw_selector = (scale.get("status") or {}).get("selector") or ""
            selector = parse_selector(raw_selector)
            try:
                metrics = await self.metrics.get_resource_metric("cpu", ns, raw_selector)
            except MetricsError as e:
                raise MetricsError(f"unable to get metrics for resource cpu: {e}") from None
            pods = [p for p in self.pods.by_index(NAMESPACE_INDEX, ns)
                    if selector.matches(p.metadata.labels if p.metadata is not None else None)]
            rec = resource_replicas(current, target, pods, metrics, self.clock.now())
        except (MetricsError, ValueError) as e:
            msg = f"failed to get cpu utilization: {e}"
            self.recorder.event(hpa, "Warning", "FailedGetResourceMetric", msg)
            conds["ScalingActive"] = ("False", "FailedGetResourceMetric",
                                      f"the HPA was unable to compute the replica count: {msg}")
            return None
        status["currentMetrics"] = [{"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": rec.utilization, "averageValue": f"{rec.average_millis}m"}}}]
        conds["ScalingActive"] = ("True", "ValidMetricFound",
                                  f"the HPA was able to successfully calculate a replica count from {CPU_METRIC}")
        return rec.replicas

    async def _write_status(self, hpa: HorizontalPodAutoscaler, old: dict[str, Any], status: dict[str, Any],
                            conds: dict[str, tuple[str, str, str]]) -> None:
        prev = {c.get("type"): c for c in old.get("conditions") or ()}
        ts = self.clock.timestamp()
        conditions = []
        for typ in ("AbleToScale", "ScalingActive", "ScalingLimited"):
            if typ not in conds:
                if typ in prev:
                    conditions.append(prev[typ])
                continue
            st, reason, message = conds[typ]
            p = prev.get(typ)
            conditions.append({"type": typ, "status": st, "reason": reason, "message": message,
                               "lastTransitionTime": p["lastTransitionTime"] if p and p.get("status") == st
                               and p.get("lastTransitionTime") else ts})
        new = {k: v for k, v in status.items() if v is not None}
        new["desiredReplicas"] = new.get("desiredReplicas", old.get("desiredReplicas", 0))
        new["conditions"] = conditions
        if hpa.metadata is not None and hpa.metadata.generation is not None:
            new["observedGeneration"] = hpa.metadata.generation
        if new == old:
            return
        body = msgspec.to_builtins(hpa)
        body["status"] = new
        try:
            await self.client.replace_status(body)
        except NotFound:
            return
