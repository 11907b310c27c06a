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
