"""``Cluster.quiesce``: every queue empty, every informer synced and caught up, the loop idle, no retry due
within the horizon; later timers may stay pending."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster, NotQuiescent
from kubelite.controllers import Manager, Request, Result

from .conftest import Scripted


async def manager_with(cluster: Cluster, reconcile: Any) -> Manager:
    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng, name="op")
    mgr.controller("cms").for_("configmaps").complete(reconcile)
    await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a",
                                                                                        "namespace": "default"}})
    await mgr.start()
    cluster.track(mgr)
    return mgr


async def test_waits_for_slow_reconciles(cluster: Cluster) -> None:
    done: list[float] = []

    async def reconcile(req: Request) -> None:
        await cluster.clock.sleep(5)
        done.append(cluster.now)

    mgr = await manager_with(cluster, reconcile)
    start = cluster.now
    await cluster.quiesce()
    assert len(done) == 1 and done[0] - start >= 5
    await mgr.stop()


async def test_waits_for_retries_due_within_the_horizon(cluster: Cluster) -> None:
    attempts: list[float] = []

    async def reconcile(req: Request) -> None:
        attempts.append(cluster.now)
        if len(attempts) < 3:
            raise RuntimeError("not yet")

    mgr = await manager_with(cluster, reconcile)
    await cluster.quiesce()
    assert len(attempts) == 3  # 5 ms and 10 ms backoffs (upstream's per-item exponential limiter)
    await mgr.stop()


async def test_a_periodic_requeue_beyond_the_horizon_does_not_block(cluster: Cluster) -> None:
    calls: list[float] = []

    async def reconcile(req: Request) -> Result:
        calls.append(cluster.now)
        return Result(requeue_after=300)

    mgr = await manager_with(cluster, reconcile)
    await cluster.quiesce(horizon=60)
    assert len(calls) == 1
    await mgr.stop()


async def test_a_controller_that_never_rests_is_not_quiescent(cluster: Cluster) -> None:
    async def reconcile(req: Request) -> Result:
        return Result(requeue_after=1)

    mgr = await manager_with(cluster, reconcile)
    with pytest.raises(NotQuiescent, match="did not quiesce within 30s: a retry is due"):
        await cluster.quiesce(timeout=30)
    await mgr.stop()


async def test_work_held_back_by_a_perturber_is_not_quiescent(cluster: Cluster) -> None:
    class Holder:
        def __init__(self) -> None:
            self.p = Scripted()

        def busy(self) -> str | None:
            return "held" if self.p.held else None

    h = Holder()
    cluster.track(h)
    with h.p.holding(), pytest.raises(NotQuiescent, match="held"):
        await cluster.quiesce(timeout=1)
    await cluster.quiesce(timeout=1)
    cluster.untrack(h)
