"""Events expire as kube-apiserver's --event-ttl makes them (etcd leases, storage/etcd3/lease_manager.go)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import NotFound


def event(name: str, count: int = 1) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
            "reason": "Tested", "message": "m", "type": "Normal", "count": count}


async def exists(c: Cluster, name: str) -> bool:
    try:
        await c.client.get("events", name, namespace="default")
    except NotFound:
        return False
    return True


@pytest.mark.parametrize(("ttl", "window"), [(3600.0, 60.0), (600.0, 30.0), (60.0, 3.0)],
                         ids=["default-1h", "10m", "1m"])
async def test_event_expires_between_ttl_and_ttl_plus_lease_window(ttl: float, window: float) -> None:
    kw: dict[str, Any] = {} if ttl == 3600.0 else {"event_ttl": ttl}
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, **kw) as c:
        stream = await c.client.open_watch("events", namespace="default")
        await c.client.create(event("e"))
        await c.advance(ttl - 1)
        assert await exists(c, "e")
        await c.advance(window + 2)
        assert not await exists(c, "e")
        kinds = []
        while (ev := stream.poll()) is not None:
            kinds.append(ev[0])
        assert kinds == ["ADDED", "DELETED"]
        assert c.apiserver.event_ttl.expired == 1


async def test_update_restarts_the_ttl() -> None:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, event_ttl=600) as c:
        created = await c.client.create(event("e"))
        await c.advance(500)
        await c.client.replace({**created, "count": 2})  # the recorder's aggregation bumps count
        await c.advance(500)
        assert await exists(c, "e")  # 1000 s after creation, 500 s after the update
        await c.advance(200)
        assert not await exists(c, "e")


async def test_writes_within_the_reuse_window_share_a_lease() -> None:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, event_ttl=600) as c:
        for i in range(5):
            await c.client.create(event(f"e{i}"))
            await c.advance(5)
        assert len(c.apiserver.event_ttl._leases) == 1  # window min(60, 5% of 600) = 30 s
        await c.advance(30)
        await c.client.create(event("late"))
        assert len(c.apiserver.event_ttl._leases) == 2


async def test_no_ttl_keeps_events() -> None:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, event_ttl=None) as c:
        await c.client.create(event("e"))
        await c.advance(7 * 24 * 3600)
        assert await exists(c, "e")


async def test_other_kinds_never_expire() -> None:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, event_ttl=60) as c:
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}})
        await c.advance(3600)
        assert await c.client.get("configmaps", "x", namespace="default")


async def test_events_stop_growing_over_a_simulated_day() -> None:
    """A steady 60 events an hour for 24 h: with the default TTL the live count stays at about one hour's
    worth (60, plus what the one-minute lease window adds) instead of reaching 1,440."""
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False) as c:
        counts = []
        for i in range(24 * 60):
            await c.client.create(event(f"e{i}"))
            await c.advance(60)
            if i % 60 == 59:
                counts.append(len(await c.client.list("events", namespace="default")))
        assert counts[0] == 60  # nothing has expired in the first hour
        assert all(60 <= n <= 62 for n in counts[1:]), counts
        assert c.apiserver.event_ttl.expired >= 24 * 60 - 62
