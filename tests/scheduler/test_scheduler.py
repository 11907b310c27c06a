"""The scheduler in a running cluster (virtual time, no kubelets)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.types import Event, Pod
from kubelite.cluster import Cluster
from kubelite.events import EventRecorder
from kubelite.scheduler import Scheduler
from kubelite.scheduler.framework import WAIT, CycleState, PodInfo, Status
from tests.scheduler.helpers import create_node, create_pod, node_of, running_scheduler


async def bound(cluster: Cluster, *names: str) -> dict[str, str | None]:
    return {n: await node_of(cluster, n) for n in names}


async def fake_kubelet(cluster: Cluster) -> None:
    """Finish graceful deletions at once, as a kubelet would after killing the containers."""
    while True:
        for p in await cluster.client.list(Pod, namespace="*"):
            if p.metadata.deletion_timestamp:
                await cluster.client.delete(Pod, p.metadata.name, namespace=p.metadata.namespace, grace_period=0)
        await cluster.clock.sleep(0.5)


async def test_pod_that_fits_nowhere_gets_upstream_message_condition_and_event(cluster: Cluster) -> None:
    await create_node(cluster, "n1", taints=[{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}])
    await create_node(cluster, "n2", gpu=1)
    await create_node(cluster, "n3")
    recorder = EventRecorder(cluster.client, component="default-scheduler", clock=cluster.clock)
    cluster.start_soon(recorder.run)
    async with running_scheduler(cluster, recorder=recorder) as sched:
        await create_pod(cluster, "train", gpu=2)
        want = ("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, "
                "2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: "
                "3 Preemption is not helpful for scheduling.")

        async def condition() -> Any:
            pod = await cluster.client.get(Pod, "train")
            return [c for c in (pod.status.conditions or []) if c.type == "PodScheduled"]

        conds = await cluster.wait_for(condition, timeout=30)
        assert (conds[0].status, conds[0].reason, conds[0].message) == ("False", "Unschedulable", want)
        events = await cluster.wait_for(lambda: _events(cluster, "FailedScheduling"), timeout=30)
        assert events[0].message == want and events[0].type == "Warning"
        exp = sched.explain("default", "train")
        assert exp is not None and exp.result == "Unschedulable" and exp.message == want
        assert exp.rejections["n1"].plugin == "TaintToleration"
        assert exp.rejections["n2"].reasons == ("Insufficient nvidia.com/gpu",)
        assert sched.statistics().unschedulable == 1


async def _events(cluster: Cluster, reason: str) -> list[Event]:
    return [e for e in await cluster.client.list(Event, namespace="default") if e.reason == reason]


async def test_gpu_pods_fill_gpu_nodes_then_wait_for_a_new_node(cluster: Cluster) -> None:
    await create_node(cluster, "cpu-only")
    await create_node(cluster, "gpu-a", gpu=2)
    await create_node(cluster, "gpu-b", gpu=4)
    recorder = EventRecorder(cluster.client, component="default-scheduler", clock=cluster.clock)
    cluster.start_soon(recorder.run)
    async with running_scheduler(cluster, recorder=recorder) as sched:
        for i in range(4):
            await create_pod(cluster, f"g{i}", gpu=2, cpu="100m")
        await cluster.wait_for(lambda: sched.statistics().scheduled == 3, timeout=30)
        placed = await bound(cluster, "g0", "g1", "g2", "g3")
        assert sorted(v for v in placed.values() if v) == ["gpu-a", "gpu-b", "gpu-b"]
        # the fourth pod may first land in backoffQ (a binding event arrived during its cycle), then
        # in the unschedulable pool once its retry fails again
        await cluster.wait_for(lambda: sched.statistics().unschedulable == 1, timeout=30)
        await create_node(cluster, "gpu-c", gpu=8)
        await cluster.wait_for(lambda: sched.statistics().scheduled == 4, timeout=30)
        waiting = next(n for n, v in placed.items() if v is None)
        assert await node_of(cluster, waiting) == "gpu-c"
        scheduled = await cluster.wait_for(lambda: _events(cluster, "Scheduled"), timeout=30)
        assert f"Successfully assigned default/{waiting} to gpu-c" in {e.message for e in scheduled}
        assert sched.statistics().e2e_latency.count == 4


async def test_preemption_evicts_lowest_priority_and_nominates(cluster: Cluster) -> None:
    await create_node(cluster, "n1", cpu="2")
    cluster.start_soon(fake_kubelet, cluster)
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "low", cpu="1", priority=1)
        await create_pod(cluster, "mid", cpu="1", priority=5)
        await cluster.wait_for(lambda: sched.statistics().scheduled == 2, timeout=30)
        await create_pod(cluster, "high", cpu="1", priority=10)

        async def nominated() -> Any:
            p = await cluster.client.get(Pod, "high")
            return p.status.nominated_node_name if p.status else None

        assert await cluster.wait_for(nominated, timeout=30) == "n1"
        await cluster.wait_for(lambda: sched.statistics().scheduled == 3, timeout=60)
        assert await node_of(cluster, "high") == "n1"
        names = {p.metadata.name for p in await cluster.client.list(Pod)}
        assert names == {"mid", "high"}  # the lowest-priority pod was the only victim
        assert sched.statistics().preemption_victims == 1


async def test_preemption_prefers_node_without_pdb_violation(cluster: Cluster) -> None:
    await create_node(cluster, "a", cpu="1")
    await create_node(cluster, "b", cpu="1")
    cluster.start_soon(fake_kubelet, cluster)
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "guarded", cpu="1", priority=1, labels={"app": "guarded"},
                         nodeSelector={"kubernetes.io/hostname": "a"})
        await create_pod(cluster, "free", cpu="1", priority=1, nodeSelector={"kubernetes.io/hostname": "b"})
        await cluster.wait_for(lambda: sched.statistics().scheduled == 2, timeout=30)
        await cluster.client.create({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}})
        await cluster.client.patch("poddisruptionbudgets", "pdb", {"status": {
            "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1,
            "observedGeneration": 1}}, subresource="status", patch_type="merge")
        await cluster.advance(1)
        await create_pod(cluster, "vip", cpu="1", priority=100)
        await cluster.wait_for(lambda: sched.statistics().scheduled == 3, timeout=60)
        assert await node_of(cluster, "vip") == "b"
        assert {p.metadata.name for p in await cluster.client.list(Pod)} == {"guarded", "vip"}


async def test_preemption_policy_never_does_not_preempt(cluster: Cluster) -> None:
    await create_node(cluster, "n1", cpu="1")
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "low", cpu="1", priority=1)
        await cluster.wait_for(lambda: sched.statistics().scheduled == 1, timeout=30)
        await create_pod(cluster, "polite", cpu="1", priority=10, preemptionPolicy="Never")
        await cluster.wait_for(lambda: sched.statistics().unschedulable == 1, timeout=30)
        exp = sched.explain("default", "polite")
        assert exp is not None
        assert exp.message == ("0/1 nodes are available: 1 Insufficient cpu. "
                               "preemption: not eligible due to preemptionPolicy=Never.")


class Gang:
    """A coscheduling Permit plugin: pods labelled ``gang=<name>`` with ``gang-size=<n>`` wait at Permit
    until ``n`` of them are reserved, then are allowed together."""

    name = "Gang"

    def __init__(self, handle: Any, timeout: float) -> None:
        self.handle = handle
        self.timeout = timeout

    def permit(self, state: CycleState, pod: PodInfo, node_name: str) -> tuple[Status | None, float]:
        gang = pod.labels.get("gang")
        if not gang:
            return None, 0
        size = int(pod.labels["gang-size"])
        waiting = [w for w in self.handle.waiting_pods if w.pod.labels.get("gang") == gang]
        if len(waiting) + 1 < size:
            return Status(WAIT, "waiting for the gang"), self.timeout
        for w in waiting:
            w.allow(self.name)
        return None, 0


def gang_setup(timeout: float) -> Any:
    def setup(s: Scheduler) -> None:
        def factory(args: Mapping[str, Any], handle: Any) -> Gang:
            return Gang(handle, float(args.get("timeout", timeout)))

        s.register_plugin("Gang", factory)

    return setup


GANG_PROFILE = [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": "Gang"}]}}}]


async def test_gang_is_held_at_permit_until_all_members_fit(cluster: Cluster) -> None:
    await create_node(cluster, "n1", cpu="2")
    await create_node(cluster, "n2", cpu="2")
    async with running_scheduler(cluster, profiles=GANG_PROFILE, setup=gang_setup(60)) as sched:
        labels = {"gang": "train", "gang-size": "3"}
        await create_pod(cluster, "w0", cpu="1", labels=labels)
        await create_pod(cluster, "w1", cpu="1", labels=labels)
        await cluster.advance(10)
        assert await bound(cluster, "w0", "w1") == {"w0": None, "w1": None}
        assert sched.statistics().waiting_on_permit == 2
        await create_pod(cluster, "w2", cpu="1", labels=labels)
        await cluster.wait_for(lambda: sched.statistics().scheduled == 3, timeout=30)
        assert all(await bound(cluster, "w0", "w1", "w2"))


async def test_gang_that_cannot_fit_times_out_and_binds_nothing(cluster: Cluster) -> None:
    await create_node(cluster, "n1", cpu="2")
    async with running_scheduler(cluster, profiles=GANG_PROFILE, setup=gang_setup(30)) as sched:
        labels = {"gang": "big", "gang-size": "3"}
        for i in range(3):
            await create_pod(cluster, f"w{i}", cpu="1", labels=labels)
        await cluster.advance(30.5)
        assert sched.statistics().scheduled == 0
        assert await bound(cluster, "w0", "w1", "w2") == {"w0": None, "w1": None, "w2": None}
        # the members that waited at Permit are rejected at t=30 (which ones waited depends on arrival order)
        messages = [e.message for e in (sched.explain("default", f"w{i}") for i in range(3)) if e is not None]
        assert any("rejected due to timeout after waiting 30s at plugin Gang" in m for m in messages)


async def test_node_affinity_and_scores_are_explained(cluster: Cluster) -> None:
    await create_node(cluster, "ssd", labels={"disk": "ssd"})
    await create_node(cluster, "hdd", labels={"disk": "hdd"})
    async with running_scheduler(cluster) as sched:
        pref = [{"weight": 50, "preference": {"matchExpressions": [
            {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]
        await create_pod(cluster, "db", cpu="100m",
                         affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pref}})
        await cluster.wait_for(lambda: sched.statistics().scheduled == 1, timeout=30)
        assert await node_of(cluster, "db") == "ssd"
        exp = sched.explain("default", "db")
        assert exp is not None and exp.result == "Scheduled" and exp.node == "ssd"
        assert exp.scores["NodeAffinity"] == {"ssd": 200, "hdd": 0}  # weight 2 x normalised 100
        assert exp.totals["ssd"] > exp.totals["hdd"]


async def test_schedulers_with_same_seed_make_same_choices() -> None:
    async def run() -> dict[str, str | None]:
        async with Cluster(seed=7, scheduler=False, controllers=False) as c:
            for i in range(5):
                await create_node(c, f"n{i}")
            async with running_scheduler(c) as sched:
                for i in range(12):
                    await create_pod(c, f"p{i}", cpu="100m")
                await c.wait_for(lambda: sched.statistics().scheduled == 12, timeout=30)
                return await bound(c, *(f"p{i}" for i in range(12)))

    first, second = await run(), await run()
    assert first == second and all(first.values())
