"""Each perturbation point (kubelite.perturb) does what its decision says, where the data flows, and
nothing without a decision."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.apiserver.auth.user import UserInfo
from kubelite.client import Client
from kubelite.clock import VirtualClock
from kubelite.cluster import Cluster
from kubelite.controllers import Manager, Request
from kubelite.errors import ServerTimeout, ServiceUnavailable
from kubelite.fuzz import Knobs
from kubelite.fuzz.perturber import SchedulePerturber
from kubelite.fuzz.trace import Trace
from kubelite.informer import DeletedFinalStateUnknown, ResourceEventHandlerFuncs, SharedIndexInformer

from .conftest import Scripted


def cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def client_for(cluster: Cluster, user: str, p: Scripted) -> Client:
    return Client(cluster.apiserver, user=UserInfo(name=user, groups=("system:masters",)), perturber=p)


async def start_informer(cluster: Cluster, p: Scripted) -> tuple[SharedIndexInformer, list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []
    inf = SharedIndexInformer(client_for(cluster, "op", p), "configmaps", clock=cluster.clock, rng=cluster.rng,
                              perturber=p)
    inf.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda o: seen.append(("add", o["metadata"]["name"])),
        on_update=lambda o, n: seen.append(("update", n["metadata"]["name"])),
        on_delete=lambda o: seen.append(("delete", o))))
    cluster.start_soon(inf.run, name="informer")
    await cluster.settle()
    return inf, seen


def cached(inf: SharedIndexInformer) -> list[str]:
    return sorted(o["metadata"]["name"] for o in inf.get_indexer().list())


async def test_watch_delay_keeps_the_cache_stale_then_applies_in_order(cluster: Cluster) -> None:
    p = Scripted(watch=[("delay", 2.0)])
    inf, _ = await start_informer(cluster, p)
    await cluster.client.create(cm("a"))
    await cluster.client.create(cm("b"))
    await cluster.settle()
    assert cached(inf) == []  # both wait behind the delayed first event
    assert p.held == 1
    await cluster.advance(2.0)
    await cluster.settle()
    assert cached(inf) == ["a", "b"]
    assert p.held == 0
    assert [a for a in p.asked if a[0] == "watch"] == [("watch", "op/configmaps ADDED default/a"),
                                                       ("watch", "op/configmaps ADDED default/b")]


async def test_watch_hold_delivers_a_batch_back_to_back(cluster: Cluster) -> None:
    p = Scripted(watch=[("hold", 2)])
    inf, seen = await start_informer(cluster, p)
    await cluster.client.create(cm("a"))
    await cluster.settle()
    assert cached(inf) == []
    await cluster.client.create(cm("b"))
    await cluster.settle()
    assert cached(inf) == []  # still one short of the batch
    await cluster.client.create(cm("c"))
    await cluster.settle()
    assert cached(inf) == ["a", "b", "c"]
    assert seen == [("add", "a"), ("add", "b"), ("add", "c")]


async def test_watch_hold_gives_up_after_a_second(cluster: Cluster) -> None:
    p = Scripted(watch=[("hold", 3)])
    inf, _ = await start_informer(cluster, p)
    await cluster.client.create(cm("a"))
    await cluster.advance(0.5)
    assert cached(inf) == []
    await cluster.advance(0.6)
    assert cached(inf) == ["a"]


@pytest.mark.parametrize("kind", ["relist", "expire"], ids=["relist", "expire-as-after-compaction"])
async def test_dropped_watch_misses_a_delete_which_comes_back_as_a_tombstone(cluster: Cluster, kind: str) -> None:
    # upstream DeltaFIFO.Replace: an object missing from the relist is deleted as DeletedFinalStateUnknown
    await cluster.client.create(cm("victim"))
    p = Scripted()
    inf, seen = await start_informer(cluster, p)
    p.scripts["watch"] = [(kind, 3.0)]
    await cluster.client.create(cm("trigger"))  # the event at which the watch is dropped
    await cluster.settle()
    await cluster.client.delete("configmaps", "victim", namespace="default")
    await cluster.advance(1.0)
    assert cached(inf) == ["victim"]  # the watch is down: the delete is not seen
    await cluster.advance(3.0)
    assert cached(inf) == ["trigger"]
    tombstones = [o for k, o in seen if k == "delete"]
    assert len(tombstones) == 1 and isinstance(tombstones[0], DeletedFinalStateUnknown)
    reflector = inf.reflector
    assert reflector is not None
    assert reflector.lists == 2
    assert reflector.relists_after_expired == (1 if kind == "expire" else 0)


async def test_api_fail_before_the_request_stores_nothing(cluster: Cluster) -> None:
    p = Scripted(before=[ServiceUnavailable.make("injected")])
    c = client_for(cluster, "op", p)
    with pytest.raises(ServiceUnavailable):
        await c.create(cm("a"))
    assert await cluster.client.list("configmaps", namespace="default") == []
    assert p.asked == [("before", "op create configmaps default/a")]


async def test_api_timeout_after_commit_stores_the_write_but_the_caller_sees_504(cluster: Cluster) -> None:
    p = Scripted(after=[ServerTimeout.make("lost")])
    c = client_for(cluster, "op", p)
    with pytest.raises(ServerTimeout):
        await c.create(cm("a"))
    assert [o["metadata"]["name"] for o in await cluster.client.list("configmaps", namespace="default")] == ["a"]


async def test_derived_clients_share_the_perturber_and_report_subresources(cluster: Cluster) -> None:
    p = Scripted()
    c = client_for(cluster, "op", p).with_field_manager("op-manager")
    await c.create(cm("a"))
    await c.patch("configmaps", "a", {"data": {"k": "v"}}, namespace="default", patch_type="merge")
    await c.get("namespaces", "default", subresource="status")
    assert [a for point, a in p.asked if point == "before"] == [
        "op create configmaps default/a", "op patch configmaps default/a", "op get namespaces/status default"]


async def _controller_order(cluster: Cluster, p: Scripted) -> list[str]:
    order: list[str] = []
    mgr = Manager(client_for(cluster, "op", p), clock=cluster.clock, rng=cluster.rng, name="op", perturber=p)

    async def reconcile(req: Request) -> None:
        order.append(req.name)

    mgr.controller("cms").for_("configmaps").complete(reconcile)
    for name in ("a", "b", "c"):
        await cluster.client.create(cm(name))
    await mgr.start()
    cluster.track(mgr)
    await cluster.quiesce()
    await mgr.stop()
    return order


async def test_queue_without_decisions_reconciles_in_order(cluster: Cluster) -> None:
    assert await _controller_order(cluster, Scripted()) == ["a", "b", "c"]


async def test_queue_defer_sends_a_request_to_the_back(cluster: Cluster) -> None:
    p = Scripted(defer=[True])
    assert await _controller_order(cluster, p) == ["b", "c", "a"]
    assert ("defer", "op/cms default/a") in p.asked


async def test_queue_duplicate_adds_the_request_again_right_after_its_reconcile(cluster: Cluster) -> None:
    # a duplicate is queued like a second event for the object: behind what is already ready
    p = Scripted(duplicate=[True])
    assert await _controller_order(cluster, p) == ["a", "b", "c", "a"]


async def test_no_perturber_no_questions(cluster: Cluster) -> None:
    # the plain fast paths: a Manager without a perturber builds plain workers and reflectors
    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    async def reconcile(req: Request) -> None:
        pass

    mgr.controller("cms").for_("configmaps").complete(reconcile)
    ctrl = mgr.controllers["cms"]
    assert ctrl.perturber is None
    assert mgr.informers.informer_for("configmaps").perturber is None


async def _start_order(cluster: Cluster) -> list[int]:
    order: list[int] = []

    async def step(i: int) -> None:
        order.append(i)

    for i in range(4):
        cluster.start_soon(step, i, name=f"step-{i}")
    await cluster.settle()
    return order


async def test_clock_ready_hook_can_reorder_ready_tasks(cluster: Cluster) -> None:
    assert await _start_order(cluster) == [0, 1, 2, 3]  # FIFO without a hook, as asyncio does

    def reverse(ready: Any) -> None:
        handles = list(ready)
        ready.clear()
        ready.extend(reversed(handles))

    assert isinstance(cluster.clock, VirtualClock)
    cluster.clock.ready_hook = reverse
    try:
        assert await _start_order(cluster) == [3, 2, 1, 0]
    finally:
        cluster.clock.ready_hook = None


async def test_perturber_shuffles_distinct_ready_tasks_and_records_it(cluster: Cluster) -> None:
    knobs = msgspec.structs.replace(Knobs.off(), ready_shuffle=1.0)
    p = SchedulePerturber(clock=cluster.clock, knobs=knobs, seed=3, trace=Trace(cluster.clock))
    assert isinstance(cluster.clock, VirtualClock)
    cluster.clock.ready_hook = p.reorder_ready
    try:
        order = await _start_order(cluster)
    finally:
        cluster.clock.ready_hook = None
    assert sorted(order) == [0, 1, 2, 3] and order != [0, 1, 2, 3]
    assert [d.point for d in p.taken] == ["ready:loop"] * len(p.taken) and p.taken
    # replaying the recorded decisions gives the same order
    q = SchedulePerturber(clock=cluster.clock, knobs=knobs, seed=99, trace=Trace(cluster.clock), schedule=p.taken)
    cluster.clock.ready_hook = q.reorder_ready
    try:
        assert await _start_order(cluster) == order
    finally:
        cluster.clock.ready_hook = None
