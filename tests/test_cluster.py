"""The Cluster lifecycle: components start with it and every task it started ends with it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

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


@pytest.mark.parametrize("how", ["cluster-switch", "manager-crash"], ids=["cluster-switch", "manager-crash"])
async def test_crashing_kube_controller_manager_leaves_user_managers_running(how: str) -> None:
    """Any manager crashes and restarts (``cluster.managers``): the built-in one through the cluster's switch or
    its own ``crash()``/``restart()`` (its controllers are built again on the new informers); a user's
    manager is another process and keeps reconciling meanwhile."""
    from kubelite.controllers import Manager, Request

    async with Cluster(seed=3, nodes=1, controllers=["replicaset", "deployment"], network=False) as cluster:
        c = cluster.client
        seen: list[str] = []

        async def reconcile(req: Request) -> None:
            seen.append(req.name)

        mine = Manager(c, clock=cluster.clock, rng=cluster.rng, name="mine")
        mine.controller("cms").for_("configmaps").complete(reconcile)
        await mine.start()
        kcm = cluster.controller_manager
        assert kcm is not None and cluster.managers == [kcm, mine]
        await c.create({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
                        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "rs"}},
                                 "template": {"metadata": {"labels": {"app": "rs"}},
                                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})

        async def pods() -> int:
            return len([p for p in await c.list("pods", labels="app=rs") if not p["metadata"].get("deletionTimestamp")])

        await cluster.wait_for(lambda: _eq(pods(), 2), timeout=60)
        if how == "cluster-switch":
            await cluster.crash_controller_manager()
        else:
            await kcm.crash()
        await c.delete("pods", (await c.list("pods", labels="app=rs"))[0]["metadata"]["name"], grace_period=0)
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}})
        await cluster.advance(30)
        assert await pods() == 1 and seen == ["cm"]  # the built-in controllers are down; mine is not
        if how == "cluster-switch":
            await cluster.restart_controller_manager()
        else:
            await kcm.restart()
        await cluster.wait_for(lambda: _eq(pods(), 2), timeout=60)
        await mine.stop()


async def _eq(aw: Any, value: Any) -> bool:
    return bool(await aw == value)


def test_the_first_cluster_does_not_load_what_it_does_not_use() -> None:
    """Issue #17 cold start: CEL (cel-python and its lark grammar), the HTTP server, kubectl printers, the
    scenario and fuzz layers and the CLI load when first used, not with the first cluster (CEL used to be
    imported, and its environment built, with the apiserver: about a second of a cold start)."""
    import subprocess
    import sys

    code = (
        "import asyncio, sys\n"
        "from kubelite import Cluster\n"
        "async def main():\n"
        "    async with Cluster(seed=1):\n"
        "        pass\n"
        "asyncio.run(main())\n"
        "heavy = ('celpy', 'lark', 'uvicorn', 'kubelite.http', 'kubelite.kubectl', 'kubelite.scenario',\n"
        "         'kubelite.fuzz', 'kubelite.cli', 'kubelite.apiserver.crd.cel')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
