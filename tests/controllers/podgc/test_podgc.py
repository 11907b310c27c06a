"""PodGC: pods on nodes that are gone (after the 40 s quarantine), terminated pods over the threshold,
terminating pods on out-of-service nodes."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster


def pod(name: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


async def pod_names(c: Cluster) -> list[str]:
    return sorted(p["metadata"]["name"] for p in await c.client.list("pods", namespace="default"))


async def test_pods_on_a_deleted_node_go_after_the_quarantine() -> None:
    async with Cluster(seed=1, nodes=2, controllers=["podgc", "nodelifecycle"]) as c:
        await c.client.create(pod("on-lost", "node-1"))
        await c.client.create(pod("on-live", "node-0"))
        await c.advance(5)
        await c.kubelet("node-1").stop()
        await c.client.delete("nodes", "node-1")
        deleted_at = c.now
        await c.advance(39)
        assert await pod_names(c) == ["on-live", "on-lost"]
        await c.wait_for(lambda: _without(c, "on-lost"), timeout=30)
        assert 40 <= c.now - deleted_at <= 61  # quarantine, then the next 20 s pass


async def _without(c: Cluster, name: str) -> bool:
    return name not in await pod_names(c)


async def test_pods_bound_to_a_node_that_never_existed() -> None:
    async with Cluster(seed=2, controllers=["podgc"]) as c:
        await c.client.create(pod("ghostly", "ghost"))
        await c.wait_for(lambda: _without(c, "ghostly"), timeout=90)


async def test_terminated_pods_over_the_threshold_oldest_first() -> None:
    async with Cluster(seed=3, controllers=["podgc"],
                       controller_options={"podgc": {"terminated_pod_gc_threshold": 2}}) as c:
        for i in range(4):
            await c.client.create(pod(f"done-{i}"))
            await c.client.patch_status("pods", f"done-{i}", {"status": {"phase": "Succeeded"}},
                                        namespace="default", patch_type="merge")
            await c.advance(1)
        await c.client.create(pod("pending"))
        await c.advance(25)
        assert await pod_names(c) == ["done-2", "done-3", "pending"]


async def test_terminating_pods_on_an_out_of_service_node_are_force_deleted() -> None:
    async with Cluster(seed=4, nodes=3, controllers=["podgc", "nodelifecycle"]) as c:
        await c.client.create(pod("stuck", "node-0"))
        await c.advance(5)
        await c.kubelet("node-0").stop()
        await c.advance(60)
        await c.client.delete("pods", "stuck", namespace="default")
        await c.advance(30)
        assert await pod_names(c) == ["stuck"]  # nobody confirms the deletion on a dead node
        await c.client.patch("nodes", "node-0", {"spec": {"taints": [
            {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}]}},
            patch_type="merge")
        await c.advance(21)
        assert await pod_names(c) == []
