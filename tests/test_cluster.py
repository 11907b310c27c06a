"""The Cluster lifecycle: components start with it and every task it started ends with it."""

from __future__ import annotations

import asyncio

from kubelite.cluster import Cluster


async def test_exit_leaves_no_tasks_behind() -> None:
    before = set(asyncio.all_tasks())
    async with Cluster(seed=1, nodes=2) as cluster:
        await cluster.advance(5)
        assert cluster.scheduler is not None and cluster.network is not None
        assert len(set(asyncio.all_tasks()) - before) > 10  # informers, kubelets, controllers are running
    await asyncio.sleep(0)
    assert set(asyncio.all_tasks()) - before == set()


async def test_components_can_be_turned_off() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        assert cluster.scheduler is None and cluster.controller_manager is None and cluster.network is None
        assert cluster.controllers_started == []


async def test_controller_manager_crash_and_restart_converges_from_the_api() -> None:
    async with Cluster(seed=5, nodes=2) as cluster:
        c = cluster.client
        await c.create({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}},
        })

        async def pods() -> list[str]:
            return sorted(p["metadata"]["name"] for p in await c.list("pods", labels="app=web")
                          if not p["metadata"].get("deletionTimestamp"))

        async def three() -> bool:
            return len(await pods()) == 3

        await cluster.wait_for(three, timeout=120)
        await cluster.crash_controller_manager()
        victim = (await pods())[0]
        await c.delete("pods", victim, grace_period=0)
        await cluster.advance(60)
        assert len(await pods()) == 2  # nobody is reconciling while the controller manager is down
        await cluster.restart_controller_manager()
        await cluster.wait_for(three, timeout=120)
        assert victim not in await pods()
