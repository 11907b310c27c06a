"""controller-runtime behaviour on virtual time: outcome table, watches, predicates, workers, crashes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.api.types import ConfigMap, ObjectMeta
from kubelite.cluster import Cluster
from kubelite.controllers import (
    ControllerExpectations,
    GenerationChangedPredicate,
    Manager,
    Request,
    Result,
    TerminalError,
    UIDTrackingControllerExpectations,
)
from kubelite.controllers.expectations import EXPECTATIONS_TIMEOUT


def deployment(name: str, replicas: int = 1) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


async def started(cluster: Cluster, mgr: Manager) -> None:
    await mgr.start()
    assert await mgr.wait_for_cache_sync(timeout=30)
    await cluster.settle()


@pytest.mark.parametrize(
    ("outcome", "expected_times"),
    [
        # success: reconciled once, never again
        ("ok", [0.0]),
        # requeue_after: forget, then exactly 30 s later (and again, since it keeps asking)
        ("after", [0.0, 30.0, 60.0]),
        # error: rate-limited retries 5 ms, 10 ms, 20 ms after each failure (ItemExponentialFailureRateLimiter)
        ("error", [0.0, 0.005, 0.015, 0.035]),
        # terminal error: forgotten, not retried
        ("terminal", [0.0]),
        # requeue=True: rate limited like an error
        ("requeue", [0.0, 0.005, 0.015, 0.035]),
    ],
    ids=["success", "requeue-after", "error-backoff", "terminal", "requeue"],
)
async def test_reconcile_outcome_table(cluster: Cluster, outcome: str, expected_times: list[float]) -> None:
    times: list[float] = []
    start = cluster.now

    async def reconcile(req: Request) -> Result | None:
        times.append(round(cluster.now - start, 6))
        if outcome == "after":
            return Result(requeue_after=30)
        if outcome == "error":
            raise RuntimeError("boom")
        if outcome == "terminal":
            raise TerminalError("cannot fix")
        if outcome == "requeue":
            return Result(requeue=True)
        return None

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("t").for_(ConfigMap).complete(reconcile)
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="a")))
    start = cluster.now
    await started(cluster, mgr)
    await cluster.advance(65)
    await mgr.stop()
    n = len(expected_times)
    assert times[:n] == pytest.approx(expected_times, abs=0.11)  # +0.1 s: cache-sync polling before the first
    if outcome in ("ok", "terminal"):
        assert len(times) == 1
    stats = mgr.controllers["t"].statistics()
    assert stats.reconciles == len(times)


async def test_owned_objects_map_to_their_controller(cluster: Cluster) -> None:
    seen: list[str] = []

    async def reconcile(req: Request) -> None:
        seen.append(str(req))

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("d").for_("deployments").owns(ConfigMap).complete(reconcile)
    d = await cluster.client.create(deployment("web"))
    await started(cluster, mgr)
    seen.clear()
    owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": d["metadata"]["uid"],
             "controller": True}
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="owned", owner_references=[owner])))  # type: ignore[list-item]
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="orphan")))
    await cluster.settle()
    await mgr.stop()
    assert seen == ["default/web"]


async def test_generation_changed_predicate_skips_status_writes(cluster: Cluster) -> None:
    seen: list[int] = []

    async def reconcile(req: Request) -> None:
        d = await cluster.client.get("deployments", req.name)
        seen.append(d["metadata"]["generation"])

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("d").for_("deployments", GenerationChangedPredicate()).complete(reconcile)
    d = await cluster.client.create(deployment("web"))
    await started(cluster, mgr)
    await cluster.client.patch_status("deployments", "web", {"status": {"replicas": 1}}, patch_type="merge")
    await cluster.settle()
    await cluster.client.patch("deployments", "web", {"spec": {"replicas": 3}}, patch_type="merge")
    await cluster.settle()
    await mgr.stop()
    assert d["metadata"]["generation"] == 1
    assert seen == [1, 2]


async def test_one_key_never_reconciled_concurrently_and_coalesced(cluster: Cluster) -> None:
    active: dict[str, int] = {}
    overlap = 0
    runs: list[str] = []

    async def reconcile(req: Request) -> None:
        nonlocal overlap
        active[req.name] = active.get(req.name, 0) + 1
        overlap = max(overlap, active[req.name])
        runs.append(req.name)
        await cluster.clock.sleep(1)
        active[req.name] -= 1

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("c").for_(ConfigMap).with_max_concurrent_reconciles(4).complete(reconcile)
    for n in ("a", "b"):
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name=n)))
    await started(cluster, mgr)
    # five updates of "a" while it is being reconciled coalesce into one more reconcile
    for i in range(5):
        await cluster.client.patch(ConfigMap, "a", {"data": {"i": str(i)}}, patch_type="merge")
    await cluster.advance(5)
    await mgr.stop()
    assert overlap == 1
    assert runs.count("a") == 2 and runs.count("b") == 1


async def test_crash_and_restart_loses_memory_but_converges(cluster: Cluster) -> None:
    instances: list[object] = []

    class Counter:
        def __init__(self) -> None:
            self.seen: list[str] = []
            instances.append(self)

        async def reconcile(self, req: Request) -> None:
            self.seen.append(req.name)

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("c").for_(ConfigMap).complete(Counter)  # a factory: rebuilt on crash
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="a")))
    await started(cluster, mgr)
    await mgr.crash()
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="b")))  # happens while "down"
    await mgr.restart()
    await cluster.advance(1)
    await mgr.stop()
    assert len(instances) == 2
    assert instances[0].seen == ["a"]  # type: ignore[attr-defined]
    assert sorted(instances[1].seen) == ["a", "b"]  # type: ignore[attr-defined]


async def test_leader_failover_between_managers(cluster: Cluster) -> None:
    runs: dict[str, int] = {"one": 0, "two": 0}

    def make(who: str) -> Manager:
        async def reconcile(req: Request) -> None:
            runs[who] += 1

        m = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng, leader_election=("kube-system", "ctrl"),
                    identity=who)
        m.controller("c").for_(ConfigMap).complete(reconcile)
        return m

    one, two = make("one"), make("two")
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="a")))
    await one.start()
    await cluster.advance(3)
    await two.start()
    await cluster.advance(10)
    assert one.is_leader() and not two.is_leader()
    assert runs == {"one": 1, "two": 0}
    crashed_at = cluster.now
    await one.crash()  # stops renewing the lease
    await cluster.wait_for(two.is_leader, timeout=60)
    # upstream measures expiry from the follower's own observation of the last renewal, which can lag one
    # jittered retry period (2 s x 1.2) behind it; acquiring then waits for the next retry after expiry
    assert 15 - 2 <= cluster.now - crashed_at <= 15 + 2 * (2 * 1.2)
    await cluster.advance(1)
    assert runs["two"] == 1
    await two.stop()
    lease = await cluster.client.get("leases", "ctrl", namespace="kube-system")
    assert lease["spec"]["holderIdentity"] == "two"
    assert lease["spec"]["leaseTransitions"] == 1


def test_expectations_gate_until_observed_or_expired() -> None:
    class FakeClock:
        t = 0.0

        def now(self) -> float:
            return self.t

    clock = FakeClock()
    e = ControllerExpectations(clock=clock)  # type: ignore[arg-type]
    assert e.satisfied("rs")  # nothing recorded: act
    e.expect_creations("rs", 2)
    assert not e.satisfied("rs")
    e.creation_observed("rs")
    assert not e.satisfied("rs")
    e.creation_observed("rs")
    assert e.satisfied("rs")
    e.expect_deletions("rs", 1)
    clock.t += EXPECTATIONS_TIMEOUT + 1
    assert e.satisfied("rs")  # expired: a lost event cannot wedge the controller
    u = UIDTrackingControllerExpectations(clock=clock)  # type: ignore[arg-type]
    u.expect_deletions_of("rs", ["p1", "p2"])
    u.deletion_observed_uid("rs", "p1")
    u.deletion_observed_uid("rs", "p1")  # seen twice (update with deletionTimestamp, then delete): counted once
    assert not u.satisfied("rs")
    u.deletion_observed_uid("rs", "p2")
    assert u.satisfied("rs")


async def test_manager_shares_one_informer_per_resource(cluster: Cluster) -> None:
    async def noop(req: Request) -> None:
        return None

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("a").for_(ConfigMap).complete(noop)
    mgr.controller("b").for_(ConfigMap).complete(noop)
    ws = [w.informer for c in mgr.controllers.values() for w in c._watches]
    assert ws[0] is ws[1]
    await started(cluster, mgr)
    await mgr.stop()
    assert not any(t for t in asyncio.all_tasks() if t.get_name() in ("controller-a", "controller-b"))
