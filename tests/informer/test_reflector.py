"""Reflector behaviour against a real cluster on virtual time (client-go ``reflector_test.go`` themes):
resume after a closed watch, relist after 410, backoff on errors, bookmarks, watch rotation, resync."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from kubelite.api.types import ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, PodSpec
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import InternalError
from kubelite.informer import DeletedFinalStateUnknown, DeltaFIFO, Indexer, Reflector


def make_pod(name: str, **labels: str) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, labels=dict(labels) or None),
               spec=PodSpec(containers=[Container(name="c", image="nginx:1.25")]))


class RecordingStore:
    """A ReflectorStore that logs every call (and keeps an Indexer as the current state)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.state = Indexer()
        self.resyncs = 0

    def add(self, obj: Any) -> None:
        self.calls.append(("add", obj.metadata.name))
        self.state.add(obj)

    def update(self, obj: Any) -> None:
        self.calls.append(("update", obj.metadata.name))
        self.state.update(obj)

    def delete(self, obj: Any) -> None:
        self.calls.append(("delete", obj.metadata.name))
        self.state.delete(obj)

    def replace(self, items: list[Any], resource_version: str) -> None:
        self.calls.append(("replace", sorted(o.metadata.name for o in items)))
        self.state.replace(items, resource_version)

    def resync(self) -> None:
        self.resyncs += 1


class TimedClient:
    """Wraps the cluster's client and records the clock time of every list_page call."""

    def __init__(self, cluster: Cluster) -> None:
        self._client = cluster.client
        self._clock = cluster.clock
        self.list_times: list[float] = []

    async def list_page(self, *args: Any, **kwargs: Any) -> Any:
        self.list_times.append(self._clock.now())
        return await self._client.list_page(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@contextlib.asynccontextmanager
async def running(reflector: Reflector) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.get_running_loop().create_task(reflector.run())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def reflector_for(cluster: Cluster, store: Any, client: Any = None, **kw: Any) -> Reflector:
    return Reflector(cast(Client, client or cluster.client), Pod, store, clock=cluster.clock, rng=cluster.rng, **kw)


async def test_list_then_watch_applies_events_in_order(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        await cluster.client.create(make_pod("b"))
        await cluster.client.patch(Pod, "b", {"metadata": {"labels": {"x": "y"}}}, patch_type="merge")
        await cluster.client.delete(Pod, "a")
        await cluster.settle()
    assert store.calls == [("replace", ["a"]), ("add", "b"), ("update", "b"), ("delete", "a")]
    assert r.last_sync_resource_version() == str(cluster.store.revision)
    assert (r.lists, r.watches, r.errors) == (1, 1, 0)


async def test_resume_after_closed_watch_loses_nothing_and_does_not_relist(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        await cluster.client.create(make_pod("a"))
        await cluster.settle()
        assert cluster.close_watches() == 1
        # Changes while the reflector is away; the resumed watch replays them from its last revision.
        await cluster.client.create(make_pod("b"))
        await cluster.client.delete(Pod, "a")
        await cluster.settle()
    assert store.calls == [("replace", []), ("add", "a"), ("add", "b"), ("delete", "a")]
    assert (r.lists, r.watches, r.relists_after_expired, r.errors) == (1, 2, 0, 0)


async def test_relist_after_410_turns_missed_deletes_into_tombstones(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    await cluster.client.create(make_pod("keep"))
    fifo = DeltaFIFO(known_objects=Indexer(), emit_delta_type_replaced=True)
    known = cast(Indexer, fifo.known_objects)
    r = reflector_for(cluster, fifo)

    def drain() -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []

        def apply(deltas: Any, initial: bool) -> None:
            for d in deltas:
                out.append((str(d.type), d.object))
                if d.type == "Deleted":
                    known.delete(d.object)
                else:
                    known.update(d.object)

        while fifo.pop(apply) is not None:
            pass
        return out

    async with running(r):
        await cluster.wait_for(lambda: len(fifo) == 2)
        drain()
        # Keep the reflector away (its re-watch gets a 429 and backs off on the clock) ...
        cluster.faults.inject(429, verb="watch", resource="pods", times=1)
        cluster.close_watches()
        await cluster.client.delete(Pod, "a")  # ... while "a" is deleted ...
        await cluster.client.create(make_pod("b"))
        cluster.compact()  # ... and history is compacted: resuming gets 410 Expired and relists
        await cluster.wait_for(lambda: r.lists == 2, timeout=10)
        await cluster.settle()
        deltas = drain()
    assert r.relists_after_expired == 1 and r.errors == 2 and type(r.last_error).__name__ == "Expired"
    by_name = {(t, o.key if isinstance(o, DeletedFinalStateUnknown) else o.metadata.name): o for t, o in deltas}
    assert set(by_name) == {("Replaced", "keep"), ("Replaced", "b"), ("Deleted", "default/a")}
    tomb = by_name[("Deleted", "default/a")]
    assert isinstance(tomb, DeletedFinalStateUnknown) and tomb.obj.metadata.name == "a"  # last known state
    assert known.list_keys() == ["default/keep", "default/b"]


async def test_list_errors_back_off_exponentially_with_jitter(cluster: Cluster) -> None:
    cluster.faults.inject(500, verb="list", resource="pods", times=3)
    client = TimedClient(cluster)
    store = RecordingStore()
    # Predict the jitter: the reflector draws from the cluster RNG and nothing else does meanwhile.
    twin = random.Random()
    twin.setstate(cluster.rng.getstate())
    r = reflector_for(cluster, store, client)
    async with running(r):
        await cluster.wait_for(lambda: store.calls, timeout=30)
    t = client.list_times
    gaps = [b - a for a, b in itertools.pairwise(t)]
    expected = [base * (1 + twin.random()) for base in (0.8, 1.6, 3.2)]
    assert gaps == pytest.approx(expected)
    for gap, base in zip(gaps, (0.8, 1.6, 3.2)):
        assert base <= gap < 2 * base
    assert r.errors == 3 and isinstance(r.last_error, InternalError) and r.lists == 4


async def test_backoff_resets_after_two_minutes(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store)
    delays = [r.backoff.step() for _ in range(8)]
    assert delays[-1] >= 30.0  # capped at 30 s plus jitter
    await cluster.advance(121)
    assert 0.8 <= r.backoff.step() < 1.6


async def test_watch_429_backs_off_and_rewatches_without_relisting(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        cluster.faults.inject(429, verb="watch", resource="pods", times=2)
        cluster.close_watches()
        await cluster.client.create(make_pod("a"))
        await cluster.wait_for(lambda: ("add", "a") in store.calls, timeout=10)
    assert (r.lists, r.watches, r.errors) == (1, 2, 2)


async def test_other_watch_errors_relist(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        cluster.faults.inject(503, verb="watch", resource="pods", times=1)
        cluster.close_watches()
        await cluster.wait_for(lambda: r.lists == 2, timeout=10)
    assert r.errors == 1 and r.relists_after_expired == 0


async def test_bookmarks_advance_last_sync_resource_version(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store, labels="app=none")  # sees no events at all
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        before = r.last_sync_resource_version()
        await cluster.client.create(make_pod("a"))  # filtered out, but moves the revision
        await cluster.advance(61)  # the cluster sends bookmarks every minute
    assert store.calls == [("replace", [])]
    assert int(r.last_sync_resource_version()) > int(before)
    assert r.last_sync_resource_version() == str(cluster.store.revision)


async def test_watches_rotate_on_virtual_time_without_relisting(cluster: Cluster) -> None:
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        for i in range(6):
            await cluster.client.create(make_pod(f"p{i}"))
            await cluster.advance(600)
    # every watch lasts [5, 10) minutes: one hour needs at least 6 of them, at most 12
    assert 7 <= r.watches <= 13
    assert r.lists == 1 and r.errors == 0
    assert [c for c in store.calls if c[0] == "add"] == [("add", f"p{i}") for i in range(6)]


async def test_resync_period_calls_store_resync_when_should_resync(cluster: Cluster) -> None:
    store = RecordingStore()
    answers = iter([True, False, True, True])
    r = reflector_for(cluster, store, resync_period=10, should_resync=lambda: next(answers, False))
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        await cluster.advance(45)
    assert r.resyncs == store.resyncs == 3


@pytest.mark.parametrize("page_size", [1, 2, 500], ids=["page-1", "page-2", "one-page"])
async def test_paginated_list_is_complete(cluster: Cluster, page_size: int) -> None:
    for i in range(5):
        await cluster.client.create(make_pod(f"p{i}"))
    store = RecordingStore()
    r = reflector_for(cluster, store, page_size=page_size)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
    assert store.calls == [("replace", [f"p{i}" for i in range(5)])]


async def test_watch_list_mode_syncs_from_the_stream(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a"))
    store = RecordingStore()
    r = reflector_for(cluster, store, use_watch_list=True)
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        await cluster.client.create(make_pod("b"))
        await cluster.settle()
    assert store.calls == [("replace", ["a"]), ("add", "b")]
    assert (r.lists, r.watches) == (0, 1)  # the initial list came through the watch itself


async def test_namespace_and_label_scoping(cluster: Cluster) -> None:
    await cluster.client.create(make_pod("a", app="web"))
    await cluster.client.create(make_pod("b", app="db"))
    store = RecordingStore()
    r = reflector_for(cluster, store, namespace="default", labels={"app": "web"})
    async with running(r):
        await cluster.wait_for(lambda: store.calls)
        await cluster.client.create(make_pod("c", app="web"))
        await cluster.client.create(make_pod("d", app="db"))
        await cluster.settle()
    assert store.calls == [("replace", ["a"]), ("add", "c")]


def _store_bad_pod(cluster: Cluster, name: str) -> None:
    """A pod whose stored form the typed decoder rejects (a non-string annotation), written past the
    apiserver as a corrupt or foreign write would be."""
    table = cluster.store.table("", "pods")
    cluster.store.create(table, {"apiVersion": "v1", "kind": "Pod",
                                 "metadata": {"name": name, "namespace": "default", "annotations": {"a": 1}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}})


@pytest.mark.parametrize("when", ["listed", "watched"])
async def test_undecodable_object_is_skipped_not_fatal(cluster: Cluster, when: str) -> None:
    if when == "listed":
        _store_bad_pod(cluster, "bad")
    await cluster.client.create(make_pod("good"))
    store = RecordingStore()
    r = reflector_for(cluster, store)
    async with running(r) as task:
        await cluster.wait_for(lambda: store.calls)
        if when == "watched":
            _store_bad_pod(cluster, "bad")
        await cluster.client.create(make_pod("later"))
        await cluster.settle()
        assert not task.done()
    names = sorted(o.metadata.name for o in store.state.list())
    assert names == ["good", "later"]
    assert r.undecodable == 1
    assert r.errors == 0
