"""Node heartbeats: the Lease renewed every 10 s (recreated when deleted), the
Node status written when it changes or every 5 min with only what changed, and MicroTime formatting."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.clock import EPOCH, format_time
from kubelite.cluster import Cluster
from kubelite.kubelet import NodePool
from kubelite.kubelet.heartbeat import micro_time

LEASES = "kube-node-lease"


@pytest.mark.parametrize("t", [
    EPOCH, EPOCH + 0.5, EPOCH + 10.123456, EPOCH + 59.9999995, EPOCH + 59.9999994, EPOCH + 86399.999999,
    EPOCH + 3600.0000005, EPOCH + 1e-7,
], ids=["whole", "half", "micros", "carry", "no-carry", "end-of-day", "half-even", "tiny"])
def test_micro_time_matches_datetime(t: float) -> None:
    assert micro_time(t) == format_time(t, micro=True)


async def _pool(cluster: Cluster) -> NodePool:
    pool = await cluster.add_nodes(1, events=False)
    assert pool is not None
    return pool


async def _lease(cluster: Cluster) -> dict[str, Any]:
    lease: dict[str, Any] = await cluster.client.get("leases", "node-0", namespace=LEASES)
    return lease


async def test_lease_renewed_every_ten_seconds_by_update() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        pool = await _pool(cluster)
        first = await _lease(cluster)
        assert first["spec"]["leaseDurationSeconds"] == 40 and first["spec"]["holderIdentity"] == "node-0"
        assert first["metadata"]["ownerReferences"][0]["kind"] == "Node"
        await cluster.advance(35)
        lease = await _lease(cluster)
        assert lease["spec"]["renewTime"] == format_time(cluster.now - 5, micro=True)
        assert pool["node-0"].heartbeat.renewals == 3
        # each renewal is a write: a new revision
        assert int(lease["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])


async def test_lease_renewal_keeps_other_writes_and_recreates_a_deleted_lease() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        pool = await _pool(cluster)
        hb = pool["node-0"].heartbeat
        await cluster.advance(1)
        other = await _lease(cluster)
        other["metadata"].setdefault("labels", {})["touched"] = "yes"
        await cluster.client.replace(other, namespace=LEASES)
        await cluster.advance(10)
        lease = await _lease(cluster)
        assert lease["spec"]["renewTime"] == format_time(cluster.now - 1, micro=True)
        assert lease["metadata"]["labels"] == {"touched": "yes"}  # renewed on top of the other write
        await cluster.client.delete("leases", "node-0", namespace=LEASES)
        await cluster.advance(10)
        lease = await _lease(cluster)  # recreated, owned by the node
        assert lease["spec"]["renewTime"] == format_time(cluster.now - 1, micro=True)
        assert lease["metadata"]["ownerReferences"][0]["name"] == "node-0"
        assert hb.renewals == 1


async def test_node_status_written_on_change_or_every_five_minutes() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        pool = await _pool(cluster)
        k = pool["node-0"]
        await cluster.advance(1)
        node = await cluster.client.get("nodes", "node-0")
        rv = node["metadata"]["resourceVersion"]
        beat = node["status"]["conditions"][0]["lastHeartbeatTime"]
        await cluster.advance(290)
        node = await cluster.client.get("nodes", "node-0")
        assert node["metadata"]["resourceVersion"] == rv  # no change, no report before 5 min
        await cluster.advance(20)
        node = await cluster.client.get("nodes", "node-0")
        assert node["status"]["conditions"][0]["lastHeartbeatTime"] > beat
        assert node["status"]["allocatable"]["cpu"] == "7900m"
        k.break_cni()  # a change is reported at the next heartbeat
        await cluster.advance(10)
        node = await cluster.client.get("nodes", "node-0")
        ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
        assert ready["status"] == "False" and ready["reason"] == "KubeletNotReady"
