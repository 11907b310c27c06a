"""Every active namespace gets a default ServiceAccount, recreated if deleted."""

from __future__ import annotations

from kubelite.cluster import Cluster
from kubelite.errors import NotFound


async def has_default(c: Cluster, ns: str) -> bool:
    try:
        await c.client.get("serviceaccounts", "default", namespace=ns)
    except NotFound:
        return False
    return True


async def test_default_service_account_in_every_namespace() -> None:
    async with Cluster(seed=1, controllers=["serviceaccount"]) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        await c.advance(1)
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease", "team"):
            assert await has_default(c, ns), ns
        await c.client.delete("serviceaccounts", "default", namespace="team")
        await c.advance(1)
        assert await has_default(c, "team")


async def test_terminating_namespace_gets_none() -> None:
    async with Cluster(seed=2, controllers=["serviceaccount"]) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        await c.advance(1)
        await c.client.delete("namespaces", "team")
        await c.client.delete("serviceaccounts", "default", namespace="team")
        await c.advance(1)
        assert not await has_default(c, "team")
