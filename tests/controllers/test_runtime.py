"""controller-runtime behaviour on virtual time: outcome table, watches, predicates, workers, crashes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, cast

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
from kubelite.controllers.controller import Controller, _event_handler
from kubelite.controllers.expectations import EXPECTATIONS_TIMEOUT
from kubelite.controllers.handler import request_for
from kubelite.controllers.predicate import Funcs
from kubelite.informer import DeletedFinalStateUnknown


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    """A bare control plane (no scheduler, built-in controllers or network): the runtime under test is the only
    reader and writer, so reconcile counts and timings are exact."""
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c


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
            with pytest.warns(DeprecationWarning, match="requeue_after"):
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
    # jittered retry period behind it; acquiring then waits for the next retry after expiry. A jittered period
    # is wait.Jitter(2 s, 1.2): up to 2 s x (1 + 1.2) (the old bound, 2 x 1.2, held only for lucky draws)
    assert 15 - 2 <= cluster.now - crashed_at <= 15 + 2 * (2 * (1 + 1.2))
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


# --- the hot path pieces: request_for, the per-watch event handler, the inlined worker ---

@pytest.mark.parametrize(("obj", "expected"), [
    (ConfigMap(metadata=ObjectMeta(name="a", namespace="ns")), Request("ns", "a")),
    (ConfigMap(metadata=ObjectMeta(name="node-ish")), Request("", "node-ish")),
    (ConfigMap(), Request("", "")),
    ({"metadata": {"name": "a", "namespace": "ns"}}, Request("ns", "a")),
    ({"metadata": {"name": "a"}}, Request("", "a")),
    ({}, Request("", "")),
    (DeletedFinalStateUnknown("ns/a", ConfigMap(metadata=ObjectMeta(name="a", namespace="ns"))), Request("ns", "a")),
], ids=["struct", "cluster-scoped-struct", "no-metadata", "dict", "cluster-scoped-dict", "empty-dict", "tombstone"])
def test_request_for(obj: Any, expected: Request) -> None:
    r = request_for(obj)
    assert r == expected and type(r) is Request and hash(r) == hash(expected)
    assert (r.namespace, r.name) == (expected.namespace, expected.name)


class _Recording:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def create(self, obj: Any, enqueue: Any) -> None:
        self.calls.append(f"create {obj}")
        enqueue(obj)

    def update(self, old: Any, new: Any, enqueue: Any) -> None:
        self.calls.append(f"update {old}->{new}")
        enqueue(new)

    def delete(self, obj: Any, enqueue: Any) -> None:
        self.calls.append(f"delete {obj}")
        enqueue(obj)


def _only(allowed: str) -> Funcs:
    """A predicate letting through only the objects named ``allowed`` (the new object for updates)."""
    return Funcs(create=lambda o: o == allowed, update=lambda old, new: new == allowed, delete=lambda o: o == allowed)


@pytest.mark.parametrize(("preds", "expected"), [
    ((), ["x", "y", "y", "x"]),
    ((_only("x"),), ["x", "x"]),
    ((_only("x"), Funcs()), ["x", "x"]),
    ((Funcs(), _only("y")), ["y", "y"]),
    ((_only("x"), _only("y")), []),
], ids=["no-predicates", "one", "two-first-filters", "two-second-filters", "two-disjoint"])
def test_watch_handler_applies_every_predicate(preds: tuple[Any, ...], expected: list[str]) -> None:
    handler = _Recording()
    enqueued: list[Any] = []
    h = _event_handler(handler, preds, enqueued.append)
    h.on_add("x", True)
    h.on_add("y", False)
    h.on_update("x", "y")
    h.on_delete("x")
    assert enqueued == expected
    assert len(handler.calls) == len(expected)


async def test_cancelled_worker_finishes_its_item(cluster: Cluster) -> None:
    started_reconcile = asyncio.Event()

    async def reconcile(req: Request) -> None:
        started_reconcile.set()
        await asyncio.Event().wait()  # never returns: the controller is stopped mid-reconcile

    ctrl = Controller("c", reconcile, clock=cluster.clock, rng=cluster.rng)
    task = asyncio.get_running_loop().create_task(ctrl.run())
    await cluster.settle()
    queue = ctrl.queue
    queue.add(Request("ns", "a"))
    await started_reconcile.wait()
    assert ctrl.statistics().active_workers == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert queue.statistics().processing == 0  # done() ran for the item being reconciled
    assert ctrl.statistics().active_workers == 0


@pytest.mark.parametrize("as_object", [False, True], ids=["function", "reconciler-object"])
async def test_reconciler_can_be_replaced(cluster: Cluster, as_object: bool) -> None:
    seen: list[str] = []

    async def first(req: Request) -> None:
        seen.append(f"first {req}")

    class Second:
        async def reconcile(self, req: Request) -> Result:
            seen.append(f"second {req}")
            return Result()

    async def second(req: Request) -> None:
        seen.append(f"second {req}")

    ctrl = Controller("c", first, clock=cluster.clock, rng=cluster.rng)
    await ctrl.reconcile_handler(Request("ns", "a"))
    ctrl.reconciler = Second() if as_object else second  # type: ignore[assignment]
    await ctrl.reconcile_handler(Request("ns", "b"))
    assert seen == ["first ns/a", "second ns/b"]
    assert hasattr(ctrl.reconciler, "reconcile")
    assert ctrl.statistics().reconciles == 2


async def test_worker_maps_outcomes_like_reconcile_handler(cluster: Cluster) -> None:
    with pytest.warns(DeprecationWarning, match="requeue_after"):
        again = Result(requeue=True)
    outcomes: dict[str, Any] = {"ok": None, "after": Result(requeue_after=5), "again": again,
                                "fail": RuntimeError("boom"), "final": TerminalError("no")}
    calls: list[str] = []

    async def reconcile(req: Request) -> Result | None:
        calls.append(req.name)
        out = outcomes[req.name]
        if isinstance(out, Exception):
            raise out
        return cast(Result | None, out)

    ctrl = Controller("c", reconcile, clock=cluster.clock, rng=cluster.rng)
    task = asyncio.get_running_loop().create_task(ctrl.run())
    await cluster.settle()
    for name in outcomes:
        ctrl.queue.add(Request("", name))
    await cluster.settle()
    stats = ctrl.statistics()
    assert (stats.reconciles, stats.errors, stats.terminal_errors, stats.requeues, stats.requeues_after) == (5, 1, 1, 1, 1)
    assert ctrl.queue.num_requeues(Request("", "fail")) == 1 and ctrl.queue.num_requeues(Request("", "again")) == 1
    assert ctrl.queue.num_requeues(Request("", "ok")) == 0
    assert ctrl.queue.statistics().processing == 0
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


# --- waits_for: a cache read at reconcile time, with no handler (upstream WaitForNamedCacheSync) ---

async def test_waits_for_syncs_the_cache_first_and_registers_no_handler(cluster: Cluster) -> None:
    from kubelite.api.types import Secret

    await cluster.client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "default"}})
    await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    secrets = mgr.informers.informer_for(Secret)
    seen: list[tuple[str, list[str]]] = []

    async def reconcile(req: Request) -> None:
        seen.append((req.name, sorted(s.metadata.name for s in secrets.get_indexer().list())))

    mgr.controller("reader").for_(ConfigMap).waits_for(Secret).complete(reconcile)
    await started(cluster, mgr)
    # the first reconcile already saw the synced Secret cache
    assert seen == [("c", ["s"])]
    assert not secrets._listeners  # no handler: a Secret event reaches no controller
    await cluster.client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t", "namespace": "default"}})
    await cluster.settle()
    assert seen == [("c", ["s"])]
    assert [s.metadata.name for s in secrets.get_indexer().list()] == ["s", "t"]
    await mgr.stop()


async def test_pod_events_reach_only_the_controllers_upstream_registers_pod_handlers_for() -> None:
    """kube-controller-manager's HPA, PodGC controllers read pods through a lister with no handler; the
    node lifecycle controller reads Leases the same way. Every pod event costs a handler call per watcher,
    so a no-op watch is work that scales with the cluster."""
    from kubelite.api.types import Lease, Pod

    async with Cluster(seed=1, scheduler=False, network=False) as c:
        # the controllers that load with their kind's first object (kcm.LOAD_ON_FIRST): load them
        for obj in (
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "default"},
             "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}}},
            {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
             "metadata": {"name": "h", "namespace": "default"},
             "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                      "minReplicas": 1, "maxReplicas": 2}},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r", "namespace": "default"},
             "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "a"}},
                      "template": {"metadata": {"labels": {"app": "a"}},
                                   "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}},
        ):
            await c.client.create(obj)
        await c.settle()  # the manager's controllers have registered their handlers
        mgr = c.controller_manager
        assert mgr is not None
        watching = {res: sorted(ctl.name for ctl in mgr.controllers.values()
                                for w in ctl._watches if w.informer is mgr.informers.informer_for(res))
                    for res in (Pod, Lease)}
        assert "horizontal-pod-autoscaler" not in watching[Pod]
        assert "pod-garbage-collector" not in watching[Pod]
        assert "disruption-controller" in watching[Pod]  # upstream's addPod/updatePod/deletePod
        assert "replicaset" in watching[Pod]
        # the garbage collector's graph builder watches every deletable resource, as upstream's does
        assert watching[Lease] == ["garbage-collector-controller"]
        assert len(mgr.informers.informer_for(Pod)._listeners) == len(watching[Pod])
        assert mgr.informers.informer_for(Lease).has_synced()
