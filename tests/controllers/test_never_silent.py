"""Never silent (issue #15): every failure of the controller framework is logged, counted and raised where
someone will see it. Each case here was silent before: a reconcile returning ``True`` killed its controller
with nothing logged, reconcile errors were logged at INFO (below the default level), a handler exception
dropped the event, a ``recover_panic=False`` controller died with neither ``Manager.stop()`` nor the cluster
reporting it, and background tasks were gathered with ``return_exceptions=True``."""

from __future__ import annotations

import gc
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from kubelite.api.types import ConfigMap, ObjectMeta
from kubelite.cluster import GC_GEN0_THRESHOLD, Cluster
from kubelite.controllers import Manager, Request, Result, TransientError
from kubelite.controllers.controller import Controller
from kubelite.controllers.endpointslice import StaleInformerCacheError
from kubelite.errors import Conflict, NotFound
from kubelite.informer import ResourceEventHandlerFuncs, SharedInformerFactory


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c


async def configmap(cluster: Cluster, name: str = "a") -> None:
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name=name, namespace="default")))


async def test_reconcile_returning_a_wrong_type_is_a_reported_error(cluster: Cluster) -> None:
    calls: list[str] = []

    async def reconcile(req: Request) -> Any:
        calls.append(req.name)
        return True  # a common slip: "reconciled successfully"

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("wrong").for_(ConfigMap).complete(reconcile)
    await configmap(cluster)
    with structlog.testing.capture_logs() as logs:
        await mgr.start()
        await cluster.settle()
        await cluster.advance(0.05)
    health = mgr.health().controllers["wrong"]
    assert health.running  # the controller is alive and retrying, not dead
    assert health.errors >= 2 and len(calls) >= 2
    assert health.last_error is not None and "returned True" in health.last_error
    assert health.last_error_request == "default/a"
    errors = [e for e in logs if e["event"] == "reconcile_error"]
    assert errors and errors[0]["log_level"] == "error" and errors[0]["request"] == "default/a"
    assert any("returned True" in e.error for e in cluster.errors.errors)
    await mgr.stop()


async def test_reconcile_exception_logged_at_error_with_request_and_traceback(cluster: Cluster) -> None:
    async def reconcile(req: Request) -> None:
        raise KeyError("spec")

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("buggy").for_(ConfigMap).complete(reconcile)
    await configmap(cluster)
    with structlog.testing.capture_logs() as logs:
        async with mgr:
            await cluster.settle()
    (first, *_) = [e for e in logs if e["event"] == "reconcile_error"]
    assert first["log_level"] == "error"
    assert first["request"] == "default/a" and first["component"] == "controller/buggy"
    assert isinstance(first["exc_info"], KeyError)  # rendered as a traceback by the console renderer
    assert cluster.errors.errors[0].component == "controller/buggy"
    assert mgr.health().controllers["buggy"].errors >= 1


@pytest.mark.parametrize(("error", "event", "level"), [
    (Conflict.make("the object has been modified"), "reconcile_conflict", "info"),  # below the default level
    (NotFound.make('configmaps "b" not found'), "reconcile_error", "error"),
    (TransientError("cache behind"), "reconcile_error", "error"),
    (StaleInformerCacheError("EndpointSlice x in the cache is older than written"), "reconcile_retry", "info"),
], ids=["conflict", "not-found", "transient", "transient-at-info"])
async def test_api_errors_are_retried_and_logged_but_not_unexpected(cluster: Cluster, error: Exception, event: str,
                                                                    level: str) -> None:
    attempts: list[float] = []

    async def reconcile(req: Request) -> None:
        attempts.append(cluster.now)
        if len(attempts) < 3:
            raise error

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("c").for_(ConfigMap).complete(reconcile)
    await configmap(cluster)
    with structlog.testing.capture_logs() as logs:
        async with mgr:
            await cluster.advance(1)
    assert len(attempts) == 3
    errors = [(e["event"], e["log_level"]) for e in logs if e["log_level"] == "error"]
    assert errors == ([] if level == "info" else [(event, level)] * 2)
    assert mgr.health().controllers["c"].errors == 2
    assert cluster.errors.errors == []  # the ordinary retried path, not an unexpected component error


async def test_handler_exception_is_logged_counted_and_later_events_still_arrive(cluster: Cluster) -> None:
    seen: list[str] = []

    def on_add(obj: Any, initial: bool) -> None:
        if obj.metadata.name == "bad":
            raise ValueError("handler bug")
        seen.append(obj.metadata.name)

    factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
    informer = factory.informer_for(ConfigMap)
    reg = informer.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
    factory.start()
    await cluster.settle()
    with structlog.testing.capture_logs() as logs:
        await configmap(cluster, "bad")
        await configmap(cluster, "good")
        await cluster.advance(2)  # the listener pauses 1 s after a handler error (upstream wait.Until)
    assert seen == ["good"]
    assert reg.errors == 1 and reg.last_error == "ValueError: handler bug"
    (line,) = [e for e in logs if e["event"] == "event_handler_failed"]
    assert line["log_level"] == "error" and line["object"] == "default/bad" and line["notification"] == "add"
    assert [e.error for e in cluster.errors.errors] == ["ValueError: handler bug"]
    await factory.shutdown()


async def test_recover_panic_false_death_is_raised_by_manager_stop(cluster: Cluster) -> None:
    async def reconcile(req: Request) -> None:
        raise RuntimeError("panic")

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    ctrl = Controller("fragile", reconcile, clock=cluster.clock, rng=cluster.rng, recover_panic=False)
    ctrl.watch(mgr.informers.informer_for(ConfigMap), __import__("kubelite.controllers", fromlist=["x"])
               .EnqueueRequestForObject())
    mgr.add(ctrl)
    await configmap(cluster)
    await mgr.start()
    with pytest.raises(RuntimeError, match="panic"):
        await cluster.settle()  # the cluster's time-driving calls raise it at once
    assert mgr.health().failure == "RuntimeError: panic"
    assert not ctrl.running
    with pytest.raises(RuntimeError, match="panic"):
        await mgr.stop()


async def test_recover_panic_false_death_fails_the_cluster_exit() -> None:
    async def reconcile(req: Request) -> None:
        raise RuntimeError("panic")

    from kubelite.controllers import EnqueueRequestForObject

    async def run() -> None:
        async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
            mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
            ctrl = Controller("fragile", reconcile, clock=cluster.clock, rng=cluster.rng, recover_panic=False)
            ctrl.watch(mgr.informers.informer_for(ConfigMap), EnqueueRequestForObject())
            mgr.add(ctrl)
            await configmap(cluster)
            await mgr.start()
            assert cluster.managers == [mgr]
            await cluster.clock.settle()  # the clock itself does not check; the exit must

    with pytest.raises(RuntimeError, match="panic"):
        await run()


async def test_a_dying_background_task_fails_the_cluster() -> None:
    async def component(clock: Any) -> None:
        await clock.sleep(5)
        raise OSError("component died")

    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        cluster.start_soon(component, cluster.clock, name="doomed")
        with pytest.raises(OSError, match="component died"):
            await cluster.advance(10)
        assert cluster.errors.errors[-1].fatal
    # raised once, to the time-driving call: the exit does not raise it again

    async def unnoticed() -> None:
        async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
            c.start_soon(component, c.clock, name="doomed")
            await c.clock.advance(10)  # the clock itself does not check; the exit must

    with pytest.raises(OSError, match="component died"):
        await unnoticed()


async def test_settle_after_start_runs_the_first_reconcile(cluster: Cluster) -> None:
    seen: list[str] = []

    async def reconcile(req: Request) -> None:
        seen.append(req.name)

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    mgr.controller("c").for_(ConfigMap).complete(reconcile)
    await configmap(cluster)
    start = cluster.now
    await mgr.start()
    await cluster.settle()  # cache sync is event-driven: no 100 ms poll to wait out
    assert seen == ["a"] and cluster.now == start
    await mgr.stop()


async def test_sync_reconcile_is_a_type_error_at_registration(cluster: Cluster) -> None:
    def reconcile(req: Request) -> None:
        return None

    class Sync:
        def reconcile(self, req: Request) -> Result | None:
            return None

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    with pytest.raises(TypeError, match=r"async def reconcile\(request\)"):
        mgr.controller("f").for_(ConfigMap).complete(reconcile)
    with pytest.raises(TypeError, match=r"Sync.reconcile must be a coroutine"):
        mgr.controller("o").for_(ConfigMap).complete(Sync())


def test_result_requeue_true_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="requeue_after"):
        Result(requeue=True)
    with pytest.raises(ValueError, match="requeue_after"):
        Result(requeue_after=-1)


async def test_cluster_without_async_with_is_a_clear_error() -> None:
    cluster = Cluster(seed=1)
    with pytest.raises(RuntimeError, match="async with"):
        cluster.client  # noqa: B018
    with pytest.raises(RuntimeError, match="async with"):
        await cluster.advance(1)
    with pytest.raises(RuntimeError, match="async with"):
        await cluster.settle()
    with pytest.raises(RuntimeError, match="async with"):
        await cluster.wait_for(lambda: True)


async def test_gc_is_untouched_by_default_and_restored_when_a_cluster_fails_to_start() -> None:
    before = gc.get_threshold()
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False):
        assert gc.get_threshold() == before
    bad = Cluster(seed=1, tune_gc=True, nodes=[{"count": 1, "no_such_option": 1}], scheduler=False,
                  controllers=False, network=False)
    with pytest.raises(TypeError):
        async with bad:
            pass
    assert gc.get_threshold() == before
    async with Cluster(seed=1, tune_gc=True, scheduler=False, controllers=False, network=False):
        assert gc.get_threshold()[0] == max(GC_GEN0_THRESHOLD, before[0])
    assert gc.get_threshold() == before


def test_no_gather_with_return_exceptions_left() -> None:
    root = Path(__file__).resolve().parents[2] / "kubelite"
    hits = [f"{p.relative_to(root.parent)}:{i}" for p in sorted(root.rglob("*.py"))
            for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"return_exceptions\s*=\s*True", line)]
    assert hits == []


async def test_a_cluster_is_entered_once_and_its_tasks_need_it_running() -> None:
    cluster = Cluster(seed=1, scheduler=False, controllers=False, network=False)

    async def nothing() -> None:
        return None

    with pytest.raises(RuntimeError, match="async with"):
        cluster.start_soon(nothing)
    async with cluster:
        cluster.start_soon(nothing)
    with pytest.raises(RuntimeError, match="entered only once"):
        await cluster.__aenter__()


async def test_a_dead_manager_cannot_be_started_again(cluster: Cluster) -> None:
    from kubelite.controllers import EnqueueRequestForObject

    async def reconcile(req: Request) -> None:
        raise RuntimeError("panic")

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    ctrl = Controller("fragile", reconcile, clock=cluster.clock, rng=cluster.rng, recover_panic=False)
    ctrl.watch(mgr.informers.informer_for(ConfigMap), EnqueueRequestForObject())
    mgr.add(ctrl)
    await configmap(cluster)
    await mgr.start()
    await cluster.clock.settle()
    with pytest.raises(RuntimeError, match="panic"):
        await mgr.stop()
    with pytest.raises(RuntimeError, match="has failed"):
        await mgr.start()
    await cluster.settle()  # already raised by stop(): the cluster does not raise it a second time
