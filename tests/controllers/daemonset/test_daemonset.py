"""The DaemonSet controller end to end on virtual time: one pod per eligible node (node selectors,
taints and default tolerations, nodes added later), status, ControllerRevisions and rolling updates."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster

CTRL = ["daemonset", "nodelifecycle"]


def ds(name: str = "agent", image: str = "nginx", **spec: Any) -> dict[str, Any]:
    pod_spec = {"containers": [{"name": "agent", "image": image}], **spec.pop("pod", {})}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec}, **spec}}


async def ds_pods(c: Cluster, name: str = "agent") -> list[dict[str, Any]]:
    return [p for p in await c.client.list("pods", namespace="default", labels={"app": name})
            if not p["metadata"].get("deletionTimestamp")]


def ready(p: dict[str, Any]) -> bool:
    return any(x["type"] == "Ready" and x["status"] == "True" for x in p["status"].get("conditions") or ())


async def status(c: Cluster, name: str = "agent") -> dict[str, Any]:
    d: dict[str, Any] = await c.client.get("daemonsets", name, namespace="default")
    return d.get("status") or {}


async def all_ready(c: Cluster, n: int, name: str = "agent") -> bool:
    st = await status(c, name)
    return st.get("desiredNumberScheduled") == n and st.get("numberAvailable") == n and \
        st.get("updatedNumberScheduled") == n


async def test_one_pod_per_node_including_nodes_added_later() -> None:
    async with Cluster(seed=1, nodes=3, controllers=CTRL) as c:
        await c.client.create(ds())
        await c.wait_for(lambda: all_ready(c, 3), timeout=60)
        pods = await ds_pods(c)
        assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-0", "node-1", "node-2"]
        p = pods[0]
        terms = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [p["spec"]["nodeName"]]
        tols = {(t["key"], t["effect"]) for t in p["spec"]["tolerations"]}
        assert ("node.kubernetes.io/not-ready", "NoExecute") in tols
        assert ("node.kubernetes.io/unschedulable", "NoSchedule") in tols
        assert ("node.kubernetes.io/network-unavailable", "NoSchedule") not in tols
        st = await status(c)
        assert (st["currentNumberScheduled"], st["numberMisscheduled"], st["numberAvailable"]) == (3, 0, 3)
        revs = await c.client.list("controllerrevisions", namespace="default")
        assert len(revs) == 1 and revs[0]["revision"] == 1
        assert p["metadata"]["labels"]["controller-revision-hash"] == \
            revs[0]["metadata"]["labels"]["controller-revision-hash"]
        assert revs[0]["metadata"]["name"] == "agent-" + revs[0]["metadata"]["labels"]["controller-revision-hash"]
        await c.add_nodes(2)
        await c.wait_for(lambda: all_ready(c, 5), timeout=60)
        assert len(await ds_pods(c)) == 5


async def test_node_selector_and_taints_choose_the_nodes() -> None:
    pools = [{"count": 2, "labels": {"disk": "ssd"}},
             {"count": 1, "prefix": "gpu", "labels": {"disk": "ssd"},
              "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]},
             {"count": 1, "prefix": "hdd", "labels": {"disk": "hdd"}}]
    async with Cluster(seed=2, nodes=pools, controllers=CTRL) as c:
        await c.client.create(ds(pod={"nodeSelector": {"disk": "ssd"}}))
        await c.wait_for(lambda: all_ready(c, 2), timeout=60)
        assert sorted(p["spec"]["nodeName"] for p in await ds_pods(c)) == ["node-0", "node-1"]
        tolerant = ds("tolerant", pod={"tolerations": [{"key": "gpu", "operator": "Exists"}]})
        await c.client.create(tolerant)
        await c.wait_for(lambda: all_ready(c, 4, "tolerant"), timeout=60)
        # a node whose labels stop matching loses its pod
        await c.client.patch("nodes", "node-1", {"metadata": {"labels": {"disk": "hdd"}}}, patch_type="merge")

        async def moved() -> bool:
            pods = await ds_pods(c)
            return sorted(p["spec"]["nodeName"] for p in pods) == ["node-0"]
        await c.wait_for(moved, timeout=60)
        st = await status(c)
        assert st["desiredNumberScheduled"] == 1


async def test_rolling_update_respects_max_unavailable() -> None:
    async with Cluster(seed=3, nodes=4, controllers=CTRL) as c:
        await c.client.create(ds(minReadySeconds=2))
        await c.wait_for(lambda: all_ready(c, 4), timeout=60)
        old_hash = (await ds_pods(c))[0]["metadata"]["labels"]["controller-revision-hash"]
        await c.client.patch("daemonsets", "agent", {"spec": {"template": {"spec": {"containers": [
            {"name": "agent", "image": "nginx:1.27"}]}}}}, namespace="default")
        worst = 4

        async def updated() -> bool:
            nonlocal worst
            pods = await ds_pods(c)
            worst = min(worst, sum(1 for p in pods if ready(p)))
            return await all_ready(c, 4) and all(p["spec"]["containers"][0]["image"] == "nginx:1.27" for p in pods)

        await c.wait_for(updated, timeout=120, interval=0.2)
        assert worst >= 3  # maxUnavailable defaults to 1
        pods = await ds_pods(c)
        assert len(pods) == 4 and {p["metadata"]["labels"]["controller-revision-hash"] for p in pods} != {old_hash}
        revs = sorted(await c.client.list("controllerrevisions", namespace="default"), key=lambda r: r["revision"])
        assert [r["revision"] for r in revs] == [1, 2]


async def test_rolling_update_with_surge_keeps_every_node_served() -> None:
    async with Cluster(seed=4, nodes=3, controllers=CTRL) as c:
        strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
        await c.client.create(ds(updateStrategy=strategy))
        await c.wait_for(lambda: all_ready(c, 3), timeout=60)
        await c.client.patch("daemonsets", "agent", {"spec": {"template": {"metadata": {"labels": {"v": "2"}}}}},
                             namespace="default")
        worst = 3

        async def updated() -> bool:
            nonlocal worst
            pods = await ds_pods(c)
            worst = min(worst, len({p["spec"].get("nodeName") for p in pods if ready(p)}))
            return await all_ready(c, 3) and len(pods) == 3 and all(p["metadata"]["labels"].get("v") == "2"
                                                                    for p in pods)

        await c.wait_for(updated, timeout=120, interval=0.2)
        assert worst == 3


async def test_on_delete_replaces_only_deleted_pods() -> None:
    async with Cluster(seed=5, nodes=2, controllers=CTRL) as c:
        await c.client.create(ds(updateStrategy={"type": "OnDelete"}))
        await c.wait_for(lambda: all_ready(c, 2), timeout=60)
        await c.client.patch("daemonsets", "agent", {"spec": {"template": {"metadata": {"labels": {"v": "2"}}}}},
                             namespace="default")
        await c.advance(20)
        pods = await ds_pods(c)
        assert all("v" not in p["metadata"]["labels"] for p in pods)
        assert (await status(c)).get("updatedNumberScheduled", 0) == 0
        victim = pods[0]
        await c.client.delete("pods", victim["metadata"]["name"], namespace="default")

        async def replaced() -> bool:
            ps = await ds_pods(c)
            return any(p["metadata"]["labels"].get("v") == "2" and p["spec"].get("nodeName") ==
                       victim["spec"]["nodeName"] and ready(p) for p in ps)
        await c.wait_for(replaced, timeout=60)
        assert (await status(c)).get("updatedNumberScheduled") == 1
