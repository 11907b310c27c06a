"""Node lifecycle and taint eviction end to end on virtual time: a lost node goes Unknown after the grace
period, is tainted, its pods are marked not ready and evicted after tolerationSeconds; a node that comes
back loses its taints; new nodes lose admission's not-ready:NoSchedule taint."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster

NL = ["nodelifecycle"]


def pod(name: str, node: str, tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": node, "containers": [{"name": "app", "image": "nginx"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


async def node(c: Cluster, name: str) -> dict[str, Any]:
    n: dict[str, Any] = await c.client.get("nodes", name)
    return n


def taints(n: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((t["key"], t["effect"]) for t in n["spec"].get("taints") or ())


def ready(obj: dict[str, Any]) -> str:
    return next(c["status"] for c in obj["status"]["conditions"] if c["type"] == "Ready")


async def events(c: Cluster, reason: str) -> list[str]:
    return [e["message"] for e in await c.client.list("events", namespace="*") if e["reason"] == reason]


async def test_new_nodes_lose_the_not_ready_no_schedule_taint() -> None:
    async with Cluster(seed=1, nodes=2, controllers=NL) as c:
        await c.advance(1)
        for name in ("node-0", "node-1"):
            assert taints(await node(c, name)) == []
        assert "Node node-0 event: Registered Node node-0 in Controller" in await events(c, "RegisteredNode")


async def test_lost_node_goes_unknown_after_the_grace_period_and_is_tainted() -> None:
    async with Cluster(seed=1, nodes=3, controllers=NL) as c:
        await c.client.create(pod("web", "node-0"))
        await c.wait_for(lambda: c.client.get("pods", "web", namespace="default"), timeout=5)
        await c.advance(10)
        assert ready(await c.client.get("pods", "web", namespace="default")) == "True"
        await c.kubelet("node-0").stop()
        start = c.now
        # last lease renewal was at t=10; 50 s grace (upstream default since 1.32)
        await c.advance(45 - (start % 10))
        assert ready(await node(c, "node-0")) == "True"
        n = await c.wait_for(lambda: _unknown(c, "node-0"), timeout=20)
        cond = next(x for x in n["status"]["conditions"] if x["type"] == "Ready")
        assert (cond["reason"], cond["message"]) == ("NodeStatusUnknown", "Kubelet stopped posting node status.")
        assert {x["status"] for x in n["status"]["conditions"]} == {"Unknown"}
        await c.advance(1)
        assert taints(await node(c, "node-0")) == [("node.kubernetes.io/unreachable", "NoExecute"),
                                                    ("node.kubernetes.io/unreachable", "NoSchedule")]
        assert "Node node-0 status is now: NodeNotReady" in await events(c, "NodeNotReady")
        p = await c.client.get("pods", "web", namespace="default")
        assert ready(p) == "False"
        # the other nodes are untouched
        assert taints(await node(c, "node-1")) == [] and ready(await node(c, "node-1")) == "True"


async def _unknown(c: Cluster, name: str) -> dict[str, Any] | None:
    n = await node(c, name)
    return n if ready(n) == "Unknown" else None


async def test_taint_eviction_honours_toleration_seconds() -> None:
    async with Cluster(seed=2, nodes=3, controllers=NL) as c:
        forever = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}]
        short = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                  "tolerationSeconds": 20}]
        await c.client.create(pod("default-300", "node-0"))
        await c.client.create(pod("forever", "node-0", forever))
        await c.client.create(pod("short", "node-0", short))
        await c.advance(10)
        await c.kubelet("node-0").stop()
        await c.wait_for(lambda: _unknown(c, "node-0"), timeout=70)
        tainted_at = c.now

        async def deleting(name: str) -> bool:
            p = await c.client.get("pods", name, namespace="default")
            return bool(p["metadata"].get("deletionTimestamp"))

        await c.wait_for(lambda: deleting("short"), timeout=30)
        assert 19 <= c.now - tainted_at <= 22
        assert not await deleting("default-300")
        await c.wait_for(lambda: deleting("default-300"), timeout=300)
        assert 299 <= c.now - tainted_at <= 302
        p = await c.client.get("pods", "default-300", namespace="default")
        dt = next(x for x in p["status"]["conditions"] if x["type"] == "DisruptionTarget")
        assert (dt["status"], dt["reason"]) == ("True", "DeletionByTaintManager")
        assert "Marking for deletion Pod default/default-300" in await events(c, "TaintManagerEviction")
        await c.advance(600)
        assert not await deleting("forever")


async def test_untolerated_taint_evicts_at_once() -> None:
    async with Cluster(seed=3, nodes=2, controllers=NL) as c:
        await c.client.create(pod("web", "node-0", []))
        await c.advance(5)
        await c.client.patch("nodes", "node-0", {"spec": {"taints": [
            {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}]}}, patch_type="merge")
        await c.advance(1)
        p = await c.client.get("pods", "web", namespace="default")
        assert p["metadata"].get("deletionTimestamp")


async def test_node_coming_back_loses_its_taints_and_cancels_evictions() -> None:
    async with Cluster(seed=4, nodes=3, controllers=NL) as c:
        await c.client.create(pod("web", "node-0"))
        await c.advance(10)
        await c.kubelet("node-0").stop()
        await c.wait_for(lambda: _unknown(c, "node-0"), timeout=70)
        await c.advance(30)
        assert taints(await node(c, "node-0"))
        await c.kubelet("node-0").start()
        await c.advance(2)
        n = await node(c, "node-0")
        assert ready(n) == "True"
        assert taints(n) == []
        assert "Cancelling deletion of Pod default/web" in await events(c, "TaintManagerEviction")
        await c.advance(400)
        p = await c.client.get("pods", "web", namespace="default")
        assert not p["metadata"].get("deletionTimestamp")


async def test_no_execute_taints_are_rate_limited_per_zone() -> None:
    async with Cluster(seed=5, nodes=[{"count": 5, "zones": ["z1"]}], controllers=NL) as c:
        await c.advance(10)
        await c.kubelet("node-0").stop()
        await c.kubelet("node-1").stop()
        await c.wait_for(lambda: _unknown(c, "node-1"), timeout=70)
        await c.advance(1)

        def no_execute(n: dict[str, Any]) -> bool:
            return ("node.kubernetes.io/unreachable", "NoExecute") in taints(n)

        first = [no_execute(await node(c, n)) for n in ("node-0", "node-1")]
        assert first.count(True) == 1  # 0.1 nodes/s, burst 1
        await c.advance(10)
        assert all([no_execute(await node(c, n)) for n in ("node-0", "node-1")])


async def test_all_zones_fully_disrupted_stops_no_execute_tainting() -> None:
    async with Cluster(seed=6, nodes=1, controllers=NL) as c:
        await c.advance(10)
        await c.kubelet("node-0").stop()
        await c.wait_for(lambda: _unknown(c, "node-0"), timeout=70)
        await c.advance(20)
        # NoSchedule still follows the condition; NoExecute waits (upstream "master disruption mode")
        assert taints(await node(c, "node-0")) == [("node.kubernetes.io/unreachable", "NoSchedule")]


async def test_pressure_conditions_become_no_schedule_taints() -> None:
    async with Cluster(seed=7, nodes=2, controllers=NL) as c:
        await c.advance(1)
        n = await node(c, "node-1")
        conds = [dict(x, status="True") if x["type"] == "DiskPressure" else x for x in n["status"]["conditions"]]
        await c.client.patch_status("nodes", "node-1", {"status": {"conditions": conds}}, patch_type="merge")
        await c.advance(1)
        assert taints(await node(c, "node-1")) == [("node.kubernetes.io/disk-pressure", "NoSchedule")]
        await c.client.patch("nodes", "node-1", {"spec": {"unschedulable": True}}, patch_type="merge")
        await c.advance(1)
        assert ("node.kubernetes.io/unschedulable", "NoSchedule") in taints(await node(c, "node-1"))


async def test_node_loss_is_healed_by_the_replica_set_within_upstream_timings() -> None:
    async with Cluster(seed=8, nodes=3, controllers=["nodelifecycle", "replicaset"]) as c:
        await c.client.create({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                               "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                                        "template": {"metadata": {"labels": {"app": "web"}},
                                                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        await c.advance(30)
        pods = await c.client.list("pods", namespace="default")
        lost = pods[0]["spec"]["nodeName"]
        await c.kubelet(lost).stop()
        stopped = c.now

        async def healed() -> bool:
            live = [p for p in await c.client.list("pods", namespace="default")
                    if not p["metadata"].get("deletionTimestamp")]
            return len(live) == 3 and all(p["spec"].get("nodeName") != lost for p in live) and all(
                ready(p) == "True" for p in live if p.get("status", {}).get("conditions"))

        await c.advance(300)
        assert not await healed()  # the pod still tolerates unreachable for 300 s after the taint
        await c.wait_for(healed, timeout=120)
        # grace period (<= 50 s after the last lease renewal) + 300 s toleration + start-up
        assert 340 <= c.now - stopped <= 380
