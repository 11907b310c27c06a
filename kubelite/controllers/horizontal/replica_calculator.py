"""How many replicas the CPU utilization calls for: ``pkg/controller/podautoscaler/replica_calculator.go``
(``GetResourceReplicas``, ``groupPods``, ``calculatePodRequests``) and ``metrics/utilization.go``
(``GetResourceUtilizationRatio``). Pure: pods, usage and time go in, a recommendation comes out.

Pod grouping (``groupPods``): a pod being deleted or Failed is ignored; a Pending pod is *unready*; a pod
without a metric is *missing*; a pod without a Ready condition or start time is unready; within the CPU
initialization period (5 min after it started) a pod is unready if it is not Ready or its sample does not
cover one whole window since the Ready condition last changed (``timestamp < lastTransitionTime + window``);
after it, only a pod that is not Ready and has never been Ready (its condition changed within 30 s of the
start, ``delayOfInitialReadinessStatus``) is unready; the rest are ready. Then, as upstream: the ratio of the
ready pods' usage to their requests over the target decides; within the tolerance (0.1) nothing changes; on a
scale-up unready pods count as using 0% and missing ones 0%; on a scale-down missing ones count as using 100%
(or the target, if above 100%); if that flips the direction or lands within tolerance, nothing changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.api.types import Pod
from kubelite.clock import parse_time

__all__ = ["CPU_INITIALIZATION_PERIOD", "DELAY_OF_INITIAL_READINESS_STATUS", "TOLERANCE", "MetricsError",
           "PodMetric", "Recommendation", "resource_replicas"]

TOLERANCE = 0.1
CPU_INITIALIZATION_PERIOD = 300.0
#: ``--horizontal-pod-autoscaler-initial-readiness-delay``
DELAY_OF_INITIAL_READINESS_STATUS = 30.0


class PodMetric(NamedTuple):
    """``PodMetric``: when the sample was taken, over which window, and the value (milli-units)."""

    timestamp: float
    window: float
    value: int


class MetricsError(Exception):
    """The replica count cannot be computed (no pods, no metrics, a container without a request)."""


class Recommendation(msgspec.Struct, frozen=True, kw_only=True):
    replicas: int
    utilization: int  # current average utilization, percent of request
    average_millis: int  # current average usage, millicores


def _requests(pod: Pod) -> int:
    """``calculatePodRequests``: the sum of the containers' CPU requests, in millicores."""
    total = 0
    spec = pod.spec
    assert spec is not None and pod.metadata is not None
    for c in spec.containers or ():
        req = (c.resources.requests if c.resources is not None else None) or {}
        if "cpu" not in req:
            raise MetricsError(f"missing request for cpu in container {c.name} of Pod {pod.metadata.name}")
        total += parse_quantity(req["cpu"]).milli_value()
    return total


def _unready(pod: Pod, metric: PodMetric, now: float) -> bool:
    """The CPU part of ``groupPods`` for a pod with a metric."""
    status = pod.status
    assert status is not None
    ready = next((c for c in status.conditions or () if c.type == "Ready"), None)
    if ready is None or not status.start_time:
        return True
    started = parse_time(status.start_time)
    transition = parse_time(ready.last_transition_time) if ready.last_transition_time else 0.0
    if started + CPU_INITIALIZATION_PERIOD > now:
        return ready.status == "False" or metric.timestamp < transition + metric.window
    return ready.status == "False" and started + DELAY_OF_INITIAL_READINESS_STATUS > transition


def resource_replicas(current_replicas: int, target_utilization: int, pods: Sequence[Pod],
                      usage: Mapping[str, PodMetric], now: float) -> Recommendation:
    """``GetResourceReplicas`` for cpu. ``usage`` is the pods' metrics by pod name (millicores)."""
    if not pods:
        raise MetricsError("no pods returned by selector while calculating replica count")
    metrics: dict[str, int] = {}
    requests = {pod.metadata.name or "": _requests(pod) for pod in pods if pod.metadata is not None}
    unready: list[str] = []
    missing: list[str] = []
    for pod in pods:
        meta = pod.metadata
        assert meta is not None
        name = meta.name or ""
        if meta.deletion_timestamp or (pod.status is not None and pod.status.phase == "Failed"):
            continue
        if pod.status is None or pod.status.phase == "Pending":
            unready.append(name)
            continue
        metric = usage.get(name)
        if metric is None:
            missing.append(name)
        elif _unready(pod, metric, now):
            unready.append(name)
        else:
            metrics[name] = metric.value
    if not metrics:
        raise MetricsError("did not receive metrics for targeted pods (pods might be unready)")
    ratio, utilization, average = _ratio(metrics, requests, target_utilization)
    ready_count = len(metrics)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if abs(1.0 - ratio) <= TOLERANCE:
            return Recommendation(replicas=current_replicas, utilization=utilization, average_millis=average)
        return Recommendation(replicas=math.ceil(ratio * ready_count), utilization=utilization,
                              average_millis=average)
    if missing:
        if ratio < 1.0:
            fallback = max(100, target_utilization)
            for name in missing:
                metrics[name] = requests[name] * fallback // 100
        elif ratio > 1.0:
            for name in missing:
                metrics[name] = 0
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = 0
    new_ratio, _, _ = _ratio(metrics, requests, target_utilization)
    if abs(1.0 - new_ratio) <= TOLERANCE or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return Recommendation(replicas=current_replicas, utilization=utilization, average_millis=average)
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current_replicas) or (new_ratio > 1.0 and replicas < current_replicas):
        replicas = current_replicas
    return Recommendation(replicas=replicas, utilization=utilization, average_millis=average)


def _ratio(metrics: dict[str, int], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """``GetResourceUtilizationRatio``: (usage ratio, utilization %, average millicores)."""
    used = requested = counted = 0
    for name, value in metrics.items():
        request = requests.get(name)
        if request is None:
            continue
        used += value
        requested += request
        counted += 1
    if requested == 0:
        raise MetricsError("no metrics returned matched known pods")
    utilization = int(used * 100 / requested)
    return utilization / target, utilization, used // counted
