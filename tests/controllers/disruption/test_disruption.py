"""PodDisruptionBudget status and the eviction subresource it gates."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.controllers.disruption import scaled_value
from kubelite.errors import TooManyRequests

CONTROLLERS = ["disruption", "nodelifecycle"]


@pytest.mark.parametrize(("value", "total", "up", "want"), [
    (3, 10, True, 3), ("25%", 10, True, 3), ("25%", 10, False, 2), ("100%", 7, True, 7), ("0%", 5, True, 0),
], ids=["int", "pct-up", "pct-down", "all", "zero"])
def test_scaled_value(value: int | str, total: int, up: bool, want: int) -> None:
    assert scaled_value(value, total, round_up=up) == want


def pod(name: str, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": "web"}}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner["metadata"]["name"],
                                    "uid": owner["metadata"]["uid"], "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "nginx"}]}}


def pdb(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


async def status(c: Cluster) -> dict[str, Any]:
    p: dict[str, Any] = await c.client.get("poddisruptionbudgets.policy", "web", namespace="default")
    return p["status"]


async def test_min_available_blocks_and_allows_evictions() -> None:
    async with Cluster(seed=1, nodes=1, controllers=CONTROLLERS) as c:
        for i in range(3):
            await c.client.create(pod(f"web-{i}"))
        await c.client.create(pdb(minAvailable=2))
        await c.advance(10)
        s = await status(c)
        assert (s["currentHealthy"], s["desiredHealthy"], s["expectedPods"], s["disruptionsAllowed"]) == (3, 2, 3, 1)
        assert s["observedGeneration"] == 1
        assert (s["conditions"][0]["type"], s["conditions"][0]["status"], s["conditions"][0]["reason"]) == (
            "DisruptionAllowed", "True", "SufficientPods")
        await c.client.evict("default", "web-0")
        with pytest.raises(TooManyRequests) as e:  # the apiserver already took the one allowed disruption
            await c.client.evict("default", "web-1")
        assert e.value.status.code == 429
        await c.advance(5)
        s = await status(c)
        assert (s["currentHealthy"], s["disruptionsAllowed"]) == (2, 0)
        assert s["conditions"][0]["reason"] == "InsufficientPods"
        assert "disruptedPods" not in s  # web-0 is being deleted: its entry is done
        with pytest.raises(TooManyRequests):
            await c.client.evict("default", "web-1")


async def test_max_unavailable_uses_the_controllers_scale() -> None:
    async with Cluster(seed=2, nodes=1, controllers=CONTROLLERS) as c:
        rs = await c.client.create({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                    "metadata": {"name": "web", "namespace": "default"},
                                    "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "nothing"}},
                                             "template": {"metadata": {"labels": {"app": "nothing"}},
                                                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        for i in range(3):
            await c.client.create(pod(f"web-{i}", rs))
        await c.client.create(pdb(maxUnavailable="25%"))
        await c.advance(10)
        s = await status(c)
        # expected = rs.spec.replicas = 4; 25% of 4 = 1 unavailable allowed; 3 healthy - 3 desired = 0
        assert (s["expectedPods"], s["desiredHealthy"], s["currentHealthy"], s["disruptionsAllowed"]) == (4, 3, 3, 0)


async def test_pods_without_controller_fail_safe_for_percentages() -> None:
    async with Cluster(seed=3, nodes=1, controllers=CONTROLLERS) as c:
        await c.client.create(pod("web-0"))
        await c.client.create(pdb(minAvailable="50%"))
        await c.advance(10)
        s = await status(c)
        assert s["disruptionsAllowed"] == 0
        assert (s["conditions"][0]["status"], s["conditions"][0]["reason"]) == ("False", "SyncFailed")
        events = [e["reason"] for e in await c.client.list("events", namespace="default")]
        assert "CalculateExpectedPodCountFailed" in events


async def test_disrupted_pod_entries_expire_after_two_minutes() -> None:
    async with Cluster(seed=4, nodes=1, controllers=CONTROLLERS) as c:
        for i in range(3):
            await c.client.create(pod(f"web-{i}"))
        await c.client.create(pdb(minAvailable=1))
        await c.advance(10)
        # an eviction that was admitted but whose pod was never deleted (say, a dry run elsewhere)
        p = await c.client.get("poddisruptionbudgets.policy", "web", namespace="default")
        p["status"]["disruptedPods"] = {"web-2": c.clock.timestamp()}
        await c.client.replace_status(p)
        await c.advance(5)
        s = await status(c)
        assert s["disruptedPods"] == {"web-2": p["status"]["disruptedPods"]["web-2"]}
        assert s["currentHealthy"] == 2
        await c.advance(120)
        s = await status(c)
        assert "disruptedPods" not in s and s["currentHealthy"] == 3
