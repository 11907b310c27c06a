"""The HPA reads metrics only through the API (upstream's REST metrics client), as its own service account."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.controllers.horizontal.metrics_client import parse_go_duration, pod_metrics
from kubelite.controllers.horizontal.replica_calculator import PodMetric
from kubelite.workload import ImageProfile, ImageRegistry

TS = "2025-01-01T00:00:00Z"
T0 = 1735689600.0


@pytest.mark.parametrize(("text", "want"), [
    ("15s", 15.0), ("1m0s", 60.0), ("1m15.5s", 75.5), ("500ms", 0.5), ("1h0m0s", 3600.0), ("0", 0.0),
    ("2us", 2e-6),
], ids=["seconds", "minute", "minute-fraction", "millis", "hour", "zero", "micros"])
def test_parse_go_duration(text: str, want: float) -> None:
    assert parse_go_duration(text) == pytest.approx(want)


@pytest.mark.parametrize("text", ["", "15", "s", "1x"], ids=["empty", "no-unit", "no-number", "bad-unit"])
def test_parse_go_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_go_duration(text)


def item(name: str, *containers: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "timestamp": TS, "window": "15s", "containers": list(containers)}


@pytest.mark.parametrize(("items", "container", "want"), [
    ([item("a", {"name": "x", "usage": {"cpu": "100m"}}, {"name": "y", "usage": {"cpu": "250m"}})], "",
     {"a": 350}),
    ([item("a", {"name": "x", "usage": {"cpu": "100m"}}, {"name": "y", "usage": {"cpu": "250m"}})], "y",
     {"a": 250}),
    ([item("a", {"name": "x", "usage": {"memory": "1Mi"}})], "", {}),
    ([item("a")], "", {}),
    ([item("a", {"name": "x", "usage": {"cpu": "1500000n"}})], "", {"a": 2}),
], ids=["sum-containers", "one-container", "missing-resource", "no-containers", "milli-rounds-up"])
def test_pod_metrics(items: list[dict[str, Any]], container: str, want: dict[str, int]) -> None:
    """``getPodMetrics``/``getContainerMetrics``: the sum of the containers' MilliValue()."""
    got = pod_metrics(items, "cpu", container)
    assert got == {k: PodMetric(T0, 15.0, v) for k, v in want.items()}


def busy_registry() -> ImageRegistry:
    reg = ImageRegistry()
    reg.add("busy:1", ImageProfile(size="1Mi", cpu="400m"))
    return reg


async def start_hpa(c: Cluster) -> None:
    await c.client.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "busy", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "busy"}},
                 "template": {"metadata": {"labels": {"app": "busy"}}, "spec": {"containers": [{
                     "name": "c", "image": "busy:1", "resources": {"requests": {"cpu": "200m"}}}]}}},
    })
    await c.client.create({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "busy", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "busy"},
                 "minReplicas": 1, "maxReplicas": 3,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                     "type": "Utilization", "averageUtilization": 50}}}]},
    })


async def test_hpa_without_metrics_permission_is_forbidden() -> None:
    """Take ``list pods.metrics.k8s.io`` out of system:controller:horizontal-pod-autoscaler: the HPA's metrics
    read fails with upstream's Forbidden message for its service account, and nothing scales."""
    async with Cluster(seed=4, nodes=2, image_registry=busy_registry()) as c:
        role = await c.client.get("clusterroles", "system:controller:horizontal-pod-autoscaler")
        role["rules"] = [r for r in role["rules"] if "metrics.k8s.io" not in r["apiGroups"]]
        await c.client.replace(role)
        await start_hpa(c)
        await c.advance(120)
        hpa = await c.client.get("horizontalpodautoscalers", "busy", namespace="default")
        active = next(x for x in hpa["status"]["conditions"] if x["type"] == "ScalingActive")
        assert (active["status"], active["reason"]) == ("False", "FailedGetResourceMetric")
        assert ('User "system:serviceaccount:kube-system:horizontal-pod-autoscaler" cannot list resource "pods" in '
                'API group "metrics.k8s.io" in the namespace "default"') in active["message"]
        d = await c.client.get("deployments", "busy", namespace="default")
        assert d["spec"]["replicas"] == 1


async def test_hpa_reads_the_metrics_api_that_kubectl_top_reads() -> None:
    """End to end, no fake: kubelets report 400m for pods requesting 200m (200% of a 50% target), metrics-server
    serves it, the HPA scales to its maximum, and what it reports as current utilization is what PodMetrics
    say (kubectl top's numbers)."""
    async with Cluster(seed=4, nodes=2, image_registry=busy_registry()) as c:
        await start_hpa(c)

        async def scaled() -> bool:
            d = await c.client.get("deployments", "busy", namespace="default")
            return bool(d["spec"]["replicas"] == 3)

        await c.wait_for(scaled, timeout=300)
        await c.advance(60)
        metrics = await c.client.list("pods.metrics.k8s.io", namespace="default", labels="app=busy")
        assert [m["containers"][0]["usage"]["cpu"] for m in metrics] == ["400m"] * 3
        hpa = await c.client.get("horizontalpodautoscalers", "busy", namespace="default")
        assert hpa["status"]["currentMetrics"][0]["resource"]["current"] == {
            "averageUtilization": 200, "averageValue": "400m"}


async def test_the_old_metrics_option_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"unknown horizontalpodautoscaling controller options \['metrics'\]"):
        async with Cluster(seed=1, controllers=["horizontalpodautoscaling"],
                           controller_options={"horizontalpodautoscaling": {"metrics": object()}}):
            pass
