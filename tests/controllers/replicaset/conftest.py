"""A cluster running the replicaset controller (and the deployment controller) on a few nodes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubelite.cluster import Cluster


async def untaint(cluster: Cluster) -> None:
    """Remove the admission-added not-ready taint (the node lifecycle controller's job)."""
    await cluster.settle()
    for n in await cluster.client.list("nodes"):
        if n["spec"].get("taints"):
            await cluster.client.patch("nodes", n["metadata"]["name"], {"spec": {"taints": None}}, patch_type="merge")
    await cluster.advance(1)  # controllers start once their caches have synced


@pytest.fixture
async def rs_cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=3, nodes=3, controllers=["replicaset", "deployment"]) as c:
        await untaint(c)
        yield c
