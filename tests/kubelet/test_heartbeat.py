"""Node heartbeats: the Lease renewed every 10 s (recreated when deleted), the
Node status written when it changes or every 5 min with only what changed, and MicroTime formatting."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.clock import EPOCH, format_time
from kubelite.cluster import Cluster
from kubelite.kubelet import Kubelet, NodePool
from kubelite.kubelet.heartbeat import micro_time

LEASES = "kube-node-lease"


@pytest.mark.parametrize("t", [
    EPOCH, EPOCH + 0.5, EPOCH + 10.123456, EPOCH + 59.9999995, EPOCH + 59.9999994, EPOCH + 86399.999999,
    EPOCH + 3600.0000005, EPOCH + 1e-7,
], ids=["whole", "half", "micros", "carry", "no-carry", "end-of-day", "half-even", "tiny"])
def test_micro_time_matches_datetime(t: float) -> None:
    assert micro_time(t) == format_time(t, micro=True)


def bare_cluster() -> Cluster:
    """Kubelets only: no scheduler, controllers or data plane writing beside the heartbeats."""
    return Cluster(seed=1, scheduler=False, controllers=False, network=False)


@contextlib.asynccontextmanager
async def kubelets(n: int) -> AsyncIterator[tuple[Cluster, NodePool]]:
    """A bare cluster with a pool of ``n`` kubelets (``node-0`` ...), without Events."""
    async with bare_cluster() as cluster:
        pool = await cluster.add_nodes(n, events=False)
        assert pool is not None
        yield cluster, pool


async def _lease(cluster: Cluster) -> dict[str, Any]:
    lease: dict[str, Any] = await cluster.client.get("leases", "node-0", namespace=LEASES)
    return lease


async def test_lease_renewed_every_ten_seconds_by_update() -> None:
    async with kubelets(1) as (cluster, pool):
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
    async with kubelets(1) as (cluster, pool):
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
    async with kubelets(1) as (cluster, pool):
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


async def test_a_pool_beats_on_one_timer_per_instant() -> None:
    async with kubelets(20) as (cluster, pool):
        wheel = pool.heartbeats
        assert len(wheel) == 20 and wheel.instants == 1  # 20 nodes, one timer
        await cluster.advance(35)
        assert [k.heartbeat.renewals for k in pool] == [3] * 20
        leases = (await cluster.client.list("leases", namespace=LEASES))
        assert {lease["spec"]["renewTime"] for lease in leases} == {format_time(cluster.now - 5, micro=True)}
        assert wheel.instants == 1


async def test_a_stopped_kubelet_stops_beating_and_a_restarted_one_beats_from_its_start() -> None:
    async with kubelets(2) as (cluster, pool):
        start = cluster.now
        await cluster.advance(3)
        await pool["node-1"].stop()  # node failure: nothing more is written
        assert len(pool.heartbeats) == 1
        await cluster.advance(30)
        lease0 = await cluster.client.get("leases", "node-0", namespace=LEASES)
        lease1 = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease0["spec"]["renewTime"] == format_time(start + 30, micro=True)
        assert lease1["spec"]["renewTime"] == format_time(start, micro=True)  # the beat at start only
        await pool["node-1"].start()  # recovery at start + 33: its lease is renewed at once
        restarted = cluster.now
        await cluster.settle()
        lease1 = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease1["spec"]["renewTime"] == format_time(restarted, micro=True)
        assert pool.heartbeats.instants == 2  # node-1 beats on its own phase now
        await cluster.advance(12)
        lease0 = await cluster.client.get("leases", "node-0", namespace=LEASES)
        lease1 = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease0["spec"]["renewTime"] == format_time(start + 40, micro=True)
        assert lease1["spec"]["renewTime"] == format_time(restarted + 10, micro=True)


async def test_a_failed_renewal_is_retried_at_once_and_the_other_nodes_renew() -> None:
    async with kubelets(3) as (cluster, pool):
        start = cluster.now
        cluster.faults.inject(500, verb="update", resource="leases", name="node-1", times=1)
        await cluster.advance(15)
        # retryUpdateLease: the second attempt of the same beat went through
        assert [k.heartbeat.renewals for k in pool] == [1, 1, 1]
        lease = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease["spec"]["renewTime"] == format_time(start + 10, micro=True)


async def test_a_lease_that_cannot_be_read_is_ensured_again_after_a_backoff() -> None:
    async with kubelets(2) as (cluster, pool):
        start = cluster.now
        # every update of the beat at +10 s fails (5 attempts), and so does the GET that ensures the lease:
        # backoffEnsureLease tries again 200 ms later, re-reads the lease and renews it
        cluster.faults.inject(500, verb="update", resource="leases", name="node-1", times=5)
        cluster.faults.inject(500, verb="get", resource="leases", name="node-1", times=1)
        await cluster.advance(15)
        lease = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease["spec"]["renewTime"] == format_time(start + 10.2, micro=True)
        assert [k.heartbeat.renewals for k in pool] == [1, 1]
        await cluster.advance(10)  # node-1 beats on its new phase, 10 s after the one that worked
        lease = await cluster.client.get("leases", "node-1", namespace=LEASES)
        assert lease["spec"]["renewTime"] == format_time(start + 20.2, micro=True)


async def test_a_node_status_report_keeps_conditions_other_components_own() -> None:
    # PatchNodeStatus is a strategic merge patch: conditions merge by type, so node-problem-detector's
    # condition survives the kubelet's next report
    async with kubelets(1) as (cluster, pool):
        npd = {"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock",
               "lastHeartbeatTime": "2025-01-01T00:00:00Z", "lastTransitionTime": "2025-01-01T00:00:00Z"}
        await cluster.client.patch_status("nodes", "node-0", {"status": {"conditions": [npd]}},
                                          patch_type="strategic")
        pool["node-0"].break_cni()  # a change: reported at the next beat
        await cluster.advance(10)
        node = await cluster.client.get("nodes", "node-0")
        conds = {c["type"]: c for c in node["status"]["conditions"]}
        assert conds["Ready"]["status"] == "False" and conds["KernelDeadlock"]["reason"] == "KernelHasNoDeadlock"


async def test_a_kubelet_outside_a_pool_beats_on_a_wheel_of_its_own() -> None:
    async with bare_cluster() as cluster:
        k = Kubelet(cluster.client, node_name="solo", clock=cluster.clock, rng=cluster.rng, pod_cidr="10.244.9.0/24")
        cluster.start_soon(k.run)
        await cluster.advance(21)
        assert k.heartbeat.renewals == 2 and len(k.heartbeats) == 1
        lease = await cluster.client.get("leases", "solo", namespace=LEASES)
        assert lease["spec"]["renewTime"] == format_time(cluster.now - 1, micro=True)
        await k.stop()
        assert len(k.heartbeats) == 0
        await cluster.advance(20)
        assert k.heartbeat.renewals == 2


def _stale(lease: dict[str, Any]) -> None:
    lease["metadata"]["resourceVersion"] = "1"


def _invalid(lease: dict[str, Any]) -> None:
    lease["spec"]["leaseDurationSeconds"] = -1


@pytest.mark.parametrize(("change", "fault", "code"), [
    (None, None, 200), (_stale, None, 409), (_invalid, None, 422), (None, 500, 500),
], ids=["renewed", "conflict", "invalid", "server-error"])
async def test_a_lease_put_without_a_copy_leaves_the_body_as_sent(change: Any, fault: int | None, code: int) -> None:
    """``Client.replace_owned`` (the kubelet's renewal) sends its body uncopied: the apiserver decodes a
    built-in kind's body into an object of its own, so the body comes back as sent whatever the outcome,
    which is what retryUpdateLease's retries of the same lease rely on."""
    from kubelite.errors import ApiError

    async with kubelets(1) as (cluster, pool):
        await cluster.advance(1)
        await pool["node-0"].stop()
        lease = await _lease(cluster)
        lease["spec"]["renewTime"] = micro_time(cluster.now + 0.25)
        if change is not None:
            change(lease)
        if fault is not None:
            cluster.faults.inject(fault, verb="update", resource="leases", name="node-0", times=1)
        sent = copy.deepcopy(lease)
        if code == 200:
            out = await cluster.client.replace_owned(lease, namespace=LEASES)
            assert out["spec"]["renewTime"] == sent["spec"]["renewTime"]
            assert out is not lease
        else:
            with pytest.raises(ApiError) as err:
                await cluster.client.replace_owned(lease, namespace=LEASES)
            assert err.value.code == code
        assert lease == sent


@pytest.mark.parametrize(("name", "patch", "fault", "code"), [
    ("node-0", {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}, None, 200),
    ("node-0", {"capacity": {"cpu": "lots"}}, None, 400),
    ("node-0", {"conditions": [{"type": "Ready", "status": "True"}]}, 500, 500),
    ("node-9", {"conditions": [{"type": "Ready", "status": "True"}]}, None, 404),
], ids=["written", "invalid", "server-error", "not-found"])
async def test_a_status_patch_left_unread_is_the_same_request(name: str, patch: dict[str, Any], fault: int | None,
                                                              code: int) -> None:
    """``Client.patch_status_unread`` (the kubelet's Node status reports and pod status writes, whose answers
    its informers bring anyway) makes the request ``patch_status`` makes: the same stored result, or the same
    ``ApiError``; it only skips decoding the answer."""
    from kubelite.errors import ApiError

    outcomes = []
    for unread in (False, True):
        async with kubelets(1) as (cluster, pool):
            await cluster.advance(1)
            await pool["node-0"].stop()
            if fault is not None:
                cluster.faults.inject(fault, verb="patch", resource="nodes", name="node-0", times=1)
            client = pool["node-0"].client
            call = client.patch_status_unread if unread else client.patch_status
            try:
                out = await call("nodes", name, {"status": patch}, patch_type="strategic")
                got: Any = 200
                assert (out is None) is unread
            except ApiError as e:
                got = (e.code, e.status.message)
            node = await cluster.client.get("nodes", "node-0")
            outcomes.append((got, node["metadata"]["resourceVersion"], node["status"]["conditions"]))
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0][0] if code == 200 else outcomes[0][0][0]) == code
