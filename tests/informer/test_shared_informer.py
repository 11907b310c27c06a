"""SharedIndexInformer against a real cluster on virtual time (client-go ``shared_informer_test.go``,
``processor_listener_test.go`` themes): delivery, tombstones, handler isolation, per-handler resync,
removal, has_synced per registration."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from kubelite.api.types import ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, PodSpec
from kubelite.client import Client
from kubelite.clock import VirtualClock
from kubelite.cluster import Cluster
from kubelite.informer import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    DeltaFIFO,
    FilteringResourceEventHandler,
    ProcessorListener,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    meta_namespace_index_func,
    wait_for_cache_sync,
)


def make_pod(name: str, ns: str = "default", **labels: str) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, namespace=ns, labels=dict(labels) or None),
               spec=PodSpec(containers=[Container(name="c", image="nginx:1.25")]))


def name_of(obj: Any) -> str:
    if isinstance(obj, DeletedFinalStateUnknown):
        return f"tombstone:{obj.key}"
    if isinstance(obj, dict):
        return str(obj["metadata"]["name"])
    return str(obj.metadata.name)


def rv_of(obj: Any) -> str:
    return str(obj["metadata"]["resourceVersion"] if isinstance(obj, dict) else obj.metadata.resource_version)


class Recorder:
    """A synchronous handler recording ("add"|"update"|"sync"|"delete", name)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.initial: list[bool] = []
        self.deleted: list[Any] = []

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self.events.append(("add", name_of(obj)))
        self.initial.append(is_in_initial_list)

    def on_update(self, old: Any, new: Any) -> None:
        self.events.append(("sync" if rv_of(old) == rv_of(new) else "update", name_of(new)))

    def on_delete(self, obj: Any) -> None:
        self.events.append(("delete", name_of(obj)))
        self.deleted.append(obj)

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.events if k == kind)


class Blocking(Recorder):
    """An async handler that blocks on ``gate`` before recording each notification."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered = 0

    async def on_add(self, obj: Any, is_in_initial_list: bool) -> None:  # type: ignore[override]
        self.entered += 1
        await self.gate.wait()
        super().on_add(obj, is_in_initial_list)

    async def on_update(self, old: Any, new: Any) -> None:  # type: ignore[override]
        await self.gate.wait()
        super().on_update(old, new)

    async def on_delete(self, obj: Any) -> None:  # type: ignore[override]
        await self.gate.wait()
        super().on_delete(obj)


@contextlib.asynccontextmanager
async def running(informer: SharedIndexInformer) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.get_running_loop().create_task(informer.run())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def informer(cluster: Cluster, resource: Any = Pod, **kw: Any) -> SharedIndexInformer:
    return SharedIndexInformer(cluster.client, resource, clock=cluster.clock, rng=cluster.rng, **kw)


async def test_initial_list_then_live_events(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    inf = informer(cluster)
    rec = Recorder()
    inf.add_event_handler(rec)
    async with running(inf):
        assert await wait_for_cache_sync(inf, clock=cluster.clock, timeout=5)
        await cluster.client.create(make_pod("b"))
        await cluster.client.patch(Pod, "b", {"metadata": {"labels": {"x": "1"}}}, patch_type="merge")
        await cluster.client.delete(Pod, "a")
        await cluster.settle()
        assert inf.get_indexer().list_keys() == ["default/b"]
        assert inf.last_sync_resource_version() == str(cluster.store.revision)
    assert rec.events == [("add", "a"), ("add", "b"), ("update", "b"), ("delete", "a")]
    assert rec.initial == [True, False]
    assert inf.is_stopped()


async def test_handlers_get_the_cache_objects(cluster: Cluster) -> None:
    inf = informer(cluster)
    seen: list[Any] = []
    inf.add_event_handler(ResourceEventHandlerFuncs(on_add=seen.append))
    async with running(inf):
        await cluster.client.create(make_pod("a"))
        await cluster.wait_for(lambda: seen)
        assert seen[0] is inf.get_indexer().get_by_key("default/a")


async def test_dict_resources_deliver_dicts(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    inf = informer(cluster, "pods")
    rec = Recorder()
    inf.add_event_handler(rec)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        obj = inf.get_indexer().get_by_key("default/a")
    assert isinstance(obj, dict) and obj["kind"] == "Pod" and rec.events == [("add", "a")]


async def test_relist_delivers_tombstone_with_last_known_state(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    inf = informer(cluster)
    rec = Recorder()
    inf.add_event_handler(rec)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        await cluster.settle()
        cluster.faults.inject(429, verb="watch", resource="pods", times=1)  # the re-watch backs off ...
        cluster.close_watches()
        await cluster.client.delete(Pod, "a")  # ... so it misses this ...
        cluster.compact()  # ... and then finds its revision compacted (410): relist
        await cluster.wait_for(lambda: rec.deleted, timeout=10)
    assert inf.reflector is not None and inf.reflector.relists_after_expired == 1
    (tomb,) = rec.deleted
    assert isinstance(tomb, DeletedFinalStateUnknown) and tomb.key == "default/a"
    assert tomb.obj.metadata.name == "a"
    assert len(inf.get_indexer()) == 0


async def test_slow_handler_does_not_delay_others(cluster: Cluster) -> None:
    inf = informer(cluster)
    fast, slow = Recorder(), Blocking()
    inf.add_event_handler(slow)
    reg_fast = inf.add_event_handler(fast)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        for name in ("a", "b", "c"):
            await cluster.client.create(make_pod(name))
        await cluster.settle()
        assert fast.events == [("add", "a"), ("add", "b"), ("add", "c")]
        assert slow.events == [] and slow.entered == 1
        assert reg_fast.pending == 0
        slow.gate.set()
        await cluster.settle()
    assert slow.events == fast.events


async def test_registration_has_synced_waits_for_its_handler(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    inf = informer(cluster)
    slow, fast = Blocking(), Recorder()
    reg_slow = inf.add_event_handler(slow)
    reg_fast = inf.add_event_handler(fast)
    assert not inf.has_synced() and not reg_fast.has_synced()
    async with running(inf):
        assert await wait_for_cache_sync(inf, reg_fast, clock=cluster.clock, timeout=5)
        assert not reg_slow.has_synced()
        assert not await wait_for_cache_sync(reg_slow, clock=cluster.clock, timeout=2)
        slow.gate.set()
        assert await wait_for_cache_sync(reg_slow, clock=cluster.clock, timeout=2)


async def test_handler_added_after_start_gets_the_cache_as_initial_adds(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    await cluster.client.create(make_pod("b"))
    inf = informer(cluster)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        late = Recorder()
        reg = inf.add_event_handler(late)
        assert not reg.has_synced()  # two initial adds outstanding
        await cluster.settle()
        assert reg.has_synced()
        await cluster.client.create(make_pod("c"))
        await cluster.settle()
    assert late.events == [("add", "a"), ("add", "b"), ("add", "c")]
    assert late.initial == [True, True, False]


async def test_remove_event_handler_stops_deliveries(cluster: Cluster) -> None:
    inf = informer(cluster)
    keep, gone = Recorder(), Recorder()
    inf.add_event_handler(keep)
    reg = inf.add_event_handler(gone)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        await cluster.client.create(make_pod("a"))
        await cluster.settle()
        inf.remove_event_handler(reg)
        inf.remove_event_handler(reg)  # idempotent
        await cluster.client.create(make_pod("b"))
        await cluster.settle()
        assert reg.stopped
    assert keep.events == [("add", "a"), ("add", "b")]
    assert gone.events == [("add", "a")]


async def test_per_handler_resync_periods(cluster: Cluster) -> None:
    for name in ("a", "b"):
        await cluster.client.create(make_pod(name))
    inf = informer(cluster, resync=10)
    every10, every30, never = Recorder(), Recorder(), Recorder()
    inf.add_event_handler(every10)
    inf.add_event_handler(every30, resync_period=30)
    inf.add_event_handler(never, resync_period=0)
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        await cluster.advance(65)
    assert every10.count("sync") == 2 * 6
    assert every30.count("sync") == 2 * 2
    assert never.count("sync") == 0
    assert every10.count("update") == every30.count("update") == 0


async def test_resync_period_clamping(cluster: Cluster) -> None:
    inf = informer(cluster, resync=10)
    early = inf.add_event_handler(Recorder(), resync_period=0.2)  # raised to the 1 s minimum ...
    assert early.resync_period == 1.0 and inf.resync_check_period == 1.0  # ... which lowers the check period
    no_resync = informer(cluster)
    assert no_resync.add_event_handler(Recorder(), resync_period=30).resync_period == 0  # unsupported
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        late = inf.add_event_handler(Recorder(), resync_period=0.5)
    assert late.resync_period == 1.0  # a started informer keeps its check period


async def test_crashing_handler_is_logged_and_keeps_receiving(cluster: Cluster) -> None:
    inf = informer(cluster)
    seen: list[str] = []

    def on_add(obj: Any) -> None:
        seen.append(name_of(obj))
        if len(seen) == 1:
            raise RuntimeError("handler bug")

    inf.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
    async with running(inf):
        await cluster.client.create(make_pod("a"))
        await cluster.client.create(make_pod("b"))
        await cluster.wait_for(lambda: len(seen) == 2, timeout=5)
    assert seen == ["a", "b"]


async def test_filtering_handler(cluster: Cluster) -> None:
    inf = informer(cluster)
    rec = Recorder()
    inf.add_event_handler(FilteringResourceEventHandler(
        lambda o: (o.metadata.labels or {}).get("app") == "web", rec))
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        await cluster.client.create(make_pod("a", app="web"))
        await cluster.client.create(make_pod("b", app="db"))
        await cluster.client.patch(Pod, "b", {"metadata": {"labels": {"app": "web"}}}, patch_type="merge")
        await cluster.client.patch(Pod, "a", {"metadata": {"labels": {"app": "db"}}}, patch_type="merge")
        await cluster.settle()
    # The four writes reach the DeltaFIFO together, which groups them per key in first-queued order.
    assert rec.events == [("add", "a"), ("delete", "a"), ("add", "b")]


async def test_custom_index_is_maintained(cluster: Cluster) -> None:
    def by_label(obj: Any) -> list[str]:
        return [v for v in [(obj.metadata.labels or {}).get("app")] if v]

    inf = informer(cluster, indexers={NAMESPACE_INDEX: meta_namespace_index_func, "app": by_label})
    await cluster.client.create(make_pod("a", app="web"))
    async with running(inf):
        await wait_for_cache_sync(inf, clock=cluster.clock)
        await cluster.client.create(make_pod("b", app="web"))
        await cluster.client.create(make_pod("c", "kube-system", app="dns"))
        await cluster.settle()
        idx = inf.get_indexer()
        assert idx.index_keys("app", "web") == ["default/a", "default/b"]
        assert idx.index_keys(NAMESPACE_INDEX, "kube-system") == ["kube-system/c"]


async def test_run_twice_is_an_error(cluster: Cluster) -> None:
    inf = informer(cluster)
    async with running(inf):
        await cluster.settle()
        with pytest.raises(RuntimeError, match="already been started"):
            await inf.run()
    with pytest.raises(RuntimeError, match="stopped already"):
        inf.add_event_handler(Recorder())


async def test_wait_for_cache_sync_times_out_on_clock(cluster: Cluster) -> None:
    inf = informer(cluster)
    start = cluster.now
    assert not await wait_for_cache_sync(inf, lambda: True, clock=cluster.clock, timeout=3)
    assert cluster.now - start == pytest.approx(3)


# --- the keyed hot path is upstream's processDeltas + distribute, notification for notification ---

def _twin(resource: Any) -> tuple[SharedIndexInformer, DeltaFIFO, list[ProcessorListener]]:
    inf = SharedIndexInformer(cast(Client, None), resource, clock=VirtualClock(), rng=random.Random(0),
                              indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    listeners = [inf.add_event_handler(Recorder()) for _ in range(2)]
    # the first listener takes part in the resync being delivered, the second does not
    inf._processor.listeners[listeners[0]] = True
    fifo = DeltaFIFO(key_func=inf._key_func, known_objects=inf.get_indexer(), emit_delta_type_replaced=True)
    return inf, fifo, listeners


def _random_ops(rng: random.Random, dicts: bool, n: int) -> list[tuple[str, Any]]:
    def obj(name: str, rv: int) -> Any:
        if dicts:
            return {"metadata": {"name": name, "namespace": f"ns{rv % 2}", "resourceVersion": str(rv)}}
        return Pod(metadata=ObjectMeta(name=name, namespace=f"ns{rv % 2}", resource_version=str(rv)))

    names = ["a", "b", "c", "d"]
    ops: list[tuple[str, Any]] = []
    for _ in range(n):
        op = rng.choice(["add", "update", "update-same-rv", "delete", "replace", "resync", "process"])
        name, rv = rng.choice(names), rng.randrange(1, 4)
        if op == "replace":
            ops.append((op, [obj(x, rng.randrange(1, 4)) for x in names if rng.random() < 0.5]))
        elif op == "update-same-rv":
            ops.append(("update", obj(name, 1)))
        elif op in ("resync", "process"):
            ops.append((op, None))
        else:
            ops.append((op, obj(name, rv)))
    return ops


@pytest.mark.parametrize("dicts", [False, True], ids=["structs", "dicts"])
@pytest.mark.parametrize("seed", range(8), ids=[f"seed-{s}" for s in range(8)])
def test_keyed_processing_matches_process_deltas(seed: int, dicts: bool) -> None:
    legacy, legacy_fifo, legacy_listeners = _twin("pods" if dicts else Pod)
    keyed, keyed_fifo, keyed_listeners = _twin("pods" if dicts else Pod)
    errors: list[BaseException] = []
    for op, arg in _random_ops(random.Random(seed), dicts, 60):
        for fifo in (legacy_fifo, keyed_fifo):
            if op == "replace":
                fifo.replace(arg, "0")
            elif op == "resync":
                fifo.resync()
            elif op != "process":
                getattr(fifo, op)(arg)
        if op == "process":  # the consumers run between batches of changes, as in a real informer
            while len(legacy_fifo):
                legacy_fifo.pop(legacy._handle_deltas)
            keyed_fifo.drain(keyed._process_keyed, errors.append)
        assert legacy_fifo.list_keys() == keyed_fifo.list_keys()
    while len(legacy_fifo):
        legacy_fifo.pop(legacy._handle_deltas)
    keyed_fifo.drain(keyed._process_keyed, errors.append)
    assert errors == []
    for a, b in zip(legacy_listeners, keyed_listeners, strict=True):
        assert list(a._pending) == list(b._pending)
        assert a._initial_outstanding == b._initial_outstanding
    assert legacy.get_indexer().list_keys() == keyed.get_indexer().list_keys()
    assert legacy.get_indexer().list() == keyed.get_indexer().list()
    assert legacy.get_indexer().list_index_func_values(NAMESPACE_INDEX) == \
        keyed.get_indexer().list_index_func_values(NAMESPACE_INDEX)
    assert legacy_fifo.has_synced() is keyed_fifo.has_synced()
