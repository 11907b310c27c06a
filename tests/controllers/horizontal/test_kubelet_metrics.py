"""HPA end to end: CPU comes from the kubelets' workload model (no fake metrics source)."""

from __future__ import annotations

from kubelite.cluster import Cluster
from kubelite.workload import ImageProfile, ImageRegistry


async def test_hpa_scales_on_cpu_reported_by_kubelets() -> None:
    reg = ImageRegistry()
    reg.add("busy:1", ImageProfile(size="1Mi", cpu="400m"))  # twice its request below: 200% utilization
    async with Cluster(seed=4, nodes=4, image_registry=reg) as cluster:
        c = cluster.client
        await c.create({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "busy", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "busy"}},
                     "template": {"metadata": {"labels": {"app": "busy"}}, "spec": {"containers": [{
                         "name": "c", "image": "busy:1", "resources": {"requests": {"cpu": "200m"}}}]}}},
        })
        await c.create({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "busy", "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "busy"},
                     "minReplicas": 1, "maxReplicas": 3,
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                         "type": "Utilization", "averageUtilization": 50}}}]},
        })

        async def replicas() -> int:
            d = await c.get("deployments", "busy")
            return int(d["spec"]["replicas"])

        async def scaled() -> bool:
            return await replicas() == 3

        await cluster.wait_for(scaled, timeout=300)
        hpa = await c.get("horizontalpodautoscalers", "busy")
        assert hpa["status"]["desiredReplicas"] == 3
        cpu = hpa["status"]["currentMetrics"][0]["resource"]["current"]
        assert cpu["averageUtilization"] >= 100
