"""The HPA: upstream's replica calculation, rate limits and the 5-minute scale-down stabilization."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.metrics import POD_METRICS
from kubelite.api.types import Pod
from kubelite.cluster import Cluster
from kubelite.controllers.horizontal.behavior import (
    DEFAULT_SCALE_DOWN,
    DEFAULT_SCALE_UP,
    BehaviorState,
    normalize,
)
from kubelite.controllers.horizontal.replica_calculator import MetricsError, PodMetric, resource_replicas

START = "2025-01-01T00:00:00Z"
NOW = 1735689600.0 + 600  # 10 min after START


def sample(usage: dict[str, int | None]) -> dict[str, PodMetric]:
    """Metrics taken just now over a 15 s window (None: the pod has no metric)."""
    return {name: PodMetric(NOW - 1, 15.0, v) for name, v in usage.items() if v is not None}


def mkpod(name: str, *, ready: bool = True, phase: str = "Running", request: str | None = "100m") -> Pod:
    res = {"requests": {"cpu": request}} if request else {}
    return msgspec.convert({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": res}]},
        "status": {"phase": phase, "startTime": START,
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}, Pod)


@pytest.mark.parametrize(("usage", "current", "want"), [
    ({"a": 100, "b": 100}, 2, 2),      # 100% of a 100% target
    ({"a": 105, "b": 108}, 2, 2),      # within the 0.1 tolerance
    ({"a": 200, "b": 200}, 2, 4),      # ceil(2.0 * 2)
    ({"a": 30, "b": 30}, 2, 1),        # ceil(0.3 * 2)
    ({"a": 200, "b": None}, 2, 2),     # scale-up: the missing pod counts as 0% -> ratio 1.0
    ({"a": 10, "b": None}, 2, 2),      # scale-down: the missing pod counts as 100% -> 0.55*2 -> 2
], ids=["at-target", "tolerance", "up", "down", "missing-up", "missing-down"])
def test_resource_replicas(usage: dict[str, int | None], current: int, want: int) -> None:
    pods = [mkpod(n) for n in usage]
    rec = resource_replicas(current, 100, pods, sample(usage), NOW)
    assert rec.replicas == want


def test_unready_pods_count_as_idle_on_scale_up() -> None:
    pods = [mkpod("a"), mkpod("b", phase="Pending")]
    rec = resource_replicas(2, 50, pods, sample({"a": 100, "b": 100}), NOW)
    # ready: 200% of 50% -> ratio 2 (utilization 100); with b at 0: 50/50 -> ratio 1.0 -> no change
    assert (rec.replicas, rec.utilization) == (2, 100)


def test_missing_requests_are_an_error() -> None:
    with pytest.raises(MetricsError, match="missing request for cpu in container c of Pod a"):
        resource_replicas(1, 50, [mkpod("a", request=None)], sample({"a": 10}), NOW)


@pytest.mark.parametrize(("current", "desired", "want", "reason"), [
    (2, 20, 6, "ScaleUpLimit"),        # max(+4 pods, +100%) per 15 s
    (10, 40, 20, "ScaleUpLimit"),
    (5, 12, 10, "TooManyReplicas"),   # maxReplicas 10 binds first
    (5, 0, 1, "TooFewReplicas"),
    (5, 6, 6, None),
], ids=["pods-policy", "percent-policy", "max", "min", "within"])
def test_normalize_limits(current: int, desired: int, want: int, reason: str | None) -> None:
    max_r = 10 if reason == "TooManyReplicas" else 100
    got, _, limited = normalize(BehaviorState(), NOW, current, desired, 1, max_r, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN)
    assert got == want
    assert (limited.reason if limited else None) == reason


def test_scale_down_is_stabilized_over_five_minutes() -> None:
    state = BehaviorState()
    assert normalize(state, 0, 4, 4, 1, 10, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN)[0] == 4
    got, able, _ = normalize(state, 100, 4, 1, 1, 10, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN)
    assert (got, able[0]) == (4, "ScaleDownStabilized")
    assert normalize(state, 301, 4, 1, 1, 10, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN)[0] == 1


class FakeMetrics:
    """A metrics.k8s.io backend in place of metrics-server (as upstream's HPA tests use a fake metrics
    clientset): every pod of the namespace uses ``per_pod`` millicores over a 15 s window ending now."""

    group, version = "metrics.k8s.io", "v1beta1"

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.per_pod = 100

    def resources(self) -> tuple[Any, ...]:
        return (POD_METRICS,)

    def get(self, info: Any, namespace: str, name: str) -> dict[str, Any]:
        raise AssertionError("the HPA lists")

    def list(self, info: Any, namespace: str, label_selector: str | None, field_selector: str | None
             ) -> list[dict[str, Any]]:
        now = self.cluster.clock.timestamp()
        return [{"metadata": {"name": p["metadata"]["name"], "namespace": namespace}, "timestamp": now,
                 "window": "15s", "containers": [{"name": "c", "usage": {"cpu": f"{self.per_pod}m",
                                                                          "memory": "10Mi"}}]}
                for p in self.cluster.apiserver.read_all("", "pods", namespace)]


def with_metrics(c: Cluster) -> FakeMetrics:
    fake = FakeMetrics(c)
    c.apiserver.aggregator.register(fake)
    return fake


async def _setup(c: Cluster, replicas: int) -> None:
    await c.client.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                                    "template": {"metadata": {"labels": {"app": "web"}},
                                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    for i in range(replicas):
        name = f"web-{i}"
        await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]}})
        await c.client.patch_status("pods", name, {"status": {"phase": "Running", "startTime": c.clock.timestamp(),
                                                              "conditions": [{"type": "Ready", "status": "True"}]}},
                                    namespace="default", patch_type="merge")
    await c.client.create({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                           "metadata": {"name": "web", "namespace": "default"},
                           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                    "minReplicas": 1, "maxReplicas": 10, "metrics": [{
                                        "type": "Resource", "resource": {"name": "cpu", "target": {
                                            "type": "Utilization", "averageUtilization": 50}}}]}})


async def replicas(c: Cluster) -> int:
    d: dict[str, Any] = await c.client.get("deployments.apps", "web", namespace="default")
    return int(d["spec"]["replicas"])


async def test_hpa_scales_up_with_events_and_status() -> None:
    async with Cluster(seed=1, controllers=["horizontalpodautoscaling"], metrics_server=False) as c:
        metrics = with_metrics(c)
        metrics.per_pod = 100  # 100% of request, target 50% -> ratio 2
        await _setup(c, 2)
        await c.advance(1)
        assert await replicas(c) == 4
        evs = [e["message"] for e in await c.client.list("events", namespace="default")
               if e["reason"] == "SuccessfulRescale"]
        assert evs == ["New size: 4; reason: cpu resource utilization (percentage of request) above target"]
        h = await c.client.get("horizontalpodautoscalers.autoscaling", "web", namespace="default")
        s = h["status"]
        assert (s["currentReplicas"], s["desiredReplicas"]) == (2, 4)
        assert s["currentMetrics"][0]["resource"]["current"] == {"averageUtilization": 100, "averageValue": "100m"}
        conds = {x["type"]: (x["status"], x["reason"]) for x in s["conditions"]}
        assert conds == {"AbleToScale": ("True", "SucceededRescale"), "ScalingActive": ("True", "ValidMetricFound"),
                         "ScalingLimited": ("False", "DesiredWithinRange")}


async def test_hpa_scale_down_waits_for_the_stabilization_window() -> None:
    async with Cluster(seed=2, controllers=["horizontalpodautoscaling"], metrics_server=False) as c:
        metrics = with_metrics(c)
        metrics.per_pod = 50  # at target
        await _setup(c, 4)
        await c.advance(60)
        assert await replicas(c) == 4
        metrics.per_pod = 20  # 20% of a 50% target -> ceil(0.4 * 4) = 2
        dropped = c.now
        await c.advance(280)
        assert await replicas(c) == 4
        await c.wait_for(lambda: _replicas_are(c, 2), timeout=60)
        # 300 s after the last recommendation of 4, which came at most one 15 s sync before the drop
        assert 285 <= c.now - dropped <= 316


async def _replicas_are(c: Cluster, n: int) -> bool:
    return await replicas(c) == n


async def test_no_metrics_api_reports_failed_get_resource_metric() -> None:
    async with Cluster(seed=3, controllers=["horizontalpodautoscaling"], metrics_server=False) as c:
        await _setup(c, 2)
        await c.advance(1)
        h = await c.client.get("horizontalpodautoscalers.autoscaling", "web", namespace="default")
        conds = {x["type"]: (x["status"], x["reason"], x["message"]) for x in h["status"]["conditions"]}
        assert conds["ScalingActive"] == (
            "False", "FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu "
            "utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics "
            "API: the server could not find the requested resource")
        assert await replicas(c) == 2
