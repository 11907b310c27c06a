"""Queue: fair, stingy, multiple consumers, shutdown, statistics (ports client-go ``queue_test.go``)."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from collections import Counter
from collections.abc import AsyncIterator

import pytest

import kubelite.workqueue as workqueue
from kubelite.clock import VirtualClock
from kubelite.workqueue import DurationStatistics, Queue, ShutDown


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    c = VirtualClock(start=0.0)
    async with c.running():
        yield c


def test_public_api_is_guarded_by_all() -> None:
    assert sorted(workqueue.__all__) == [
        "BucketRateLimiter",
        "DelayingQueue",
        "DurationStatistics",
        "ItemExponentialFailureRateLimiter",
        "ItemFastSlowRateLimiter",
        "MaxOfRateLimiter",
        "Queue",
        "QueueStatistics",
        "RateLimiter",
        "RateLimitingQueue",
        "ShutDown",
        "WithMaxWaitRateLimiter",
        "default_controller_rate_limiter",
        "default_item_based_rate_limiter",
    ]
    for name in workqueue.__all__:
        assert getattr(workqueue, name) is not None


def drain_nowait(q: Queue[str]) -> list[str]:
    """Get and finish everything that is queued, in order."""
    out: list[str] = []
    while (item := q.get_nowait()) is not None:
        out.append(item)
        q.done(item)
    return out


@pytest.mark.parametrize(
    ("adds", "expected"),
    [
        (["a", "b", "c"], ["a", "b", "c"]),
        (["c", "b", "a"], ["c", "b", "a"]),
        (["a", "b", "a", "c", "b"], ["a", "b", "c"]),
        (["a", "a", "a"], ["a"]),
        ([], []),
    ],
    ids=["in-order", "reverse", "duplicates-keep-first-position", "all-duplicates", "empty"],
)
def test_items_come_out_in_the_order_they_became_dirty(adds: list[str], expected: list[str]) -> None:
    q: Queue[str] = Queue(clock=VirtualClock())
    for item in adds:
        q.add(item)
    assert len(q) == len(expected)
    assert drain_nowait(q) == expected
    assert len(q) == 0


def test_len_counts_distinct_queued_items() -> None:  # TestLen
    q: Queue[str] = Queue(clock=VirtualClock())
    q.add("foo")
    assert len(q) == 1
    q.add("bar")
    assert len(q) == 2
    q.add("foo")  # should not increase the queue length
    assert len(q) == 2


def test_item_added_while_processing_is_processed_again_after_done() -> None:  # TestReinsert
    q: Queue[str] = Queue(clock=VirtualClock())
    q.add("foo")
    item = q.get_nowait()
    assert item == "foo"
    q.add(item)  # back while processing: not handed out yet
    assert len(q) == 0
    assert q.get_nowait() is None
    q.done(item)
    assert len(q) == 1
    again = q.get_nowait()
    assert again == "foo"
    q.done(again)
    assert len(q) == 0


def test_duplicates_collapse() -> None:  # TestCollapse
    q: Queue[str] = Queue(clock=VirtualClock())
    q.add("bar")
    q.add("bar")
    assert q.get_nowait() == "bar"
    q.done("bar")
    assert len(q) == 0
    assert q.get_nowait() is None


async def test_collapse_while_processing_never_hands_an_item_to_two_consumers(clock: VirtualClock) -> None:
    # TestCollapseWhileProcessing
    q: Queue[str] = Queue(clock=clock)
    q.add("foo")
    first = await q.get()
    q.add("foo")
    q.add("foo")
    other = asyncio.create_task(q.get())  # another worker
    await clock.settle()
    assert not other.done(), "worker should be blocked until we are done"
    q.done(first)
    assert await clock.wait_for(other, 1) == "foo"
    q.done("foo")
    assert len(q) == 0
    assert q.statistics().depth == 0


def test_done_for_an_item_not_being_processed_changes_nothing() -> None:
    q: Queue[str] = Queue(clock=VirtualClock())
    q.done("never-added")
    q.add("a")
    q.done("a")  # queued, not processing: must not queue a duplicate
    assert len(q) == 1
    assert drain_nowait(q) == ["a"]


def test_get_returns_without_suspending_when_an_item_is_queued() -> None:
    q: Queue[str] = Queue(clock=VirtualClock())
    q.add("a")
    coro = q.get()
    with pytest.raises(StopIteration) as stop:
        coro.send(None)  # runs to completion on the first step: no future, no event loop
    assert stop.value.value == "a"


@pytest.mark.parametrize("drain", [False, True], ids=["shutdown", "shutdown_with_drain"])
async def test_basic_producers_and_consumers(clock: VirtualClock, drain: bool) -> None:  # TestBasic
    q: Queue[int | str] = Queue(clock=clock)
    in_flight: set[int | str] = set()
    processed: Counter[int | str] = Counter()

    async def producer(i: int) -> None:
        for _ in range(50):
            q.add(i)
            await clock.sleep(0.001)

    async def consumer() -> None:
        while True:
            try:
                item = await q.get()
            except ShutDown:
                return
            assert item != "added after shutdown!"
            assert item not in in_flight, f"{item} processed by two consumers at once"
            in_flight.add(item)
            await clock.sleep(0.003)
            in_flight.discard(item)
            processed[item] += 1
            q.done(item)

    consumers = [asyncio.create_task(consumer()) for _ in range(10)]
    await asyncio.gather(*(producer(i) for i in range(50)))
    if drain:
        await q.shutdown_with_drain()
        assert q.statistics().processing == 0
    else:
        q.shutdown()
    q.add("added after shutdown!")
    await clock.wait_for(asyncio.gather(*consumers), 60)
    assert len(q) == 0
    assert set(processed) == set(range(50))
    assert q.statistics().depth == 0


@pytest.mark.parametrize("drain", [False, True], ids=["shutdown", "shutdown_with_drain"])
async def test_add_while_processing(clock: VirtualClock, drain: bool) -> None:  # TestAddWhileProcessing
    q: Queue[int] = Queue(clock=clock)
    processed: Counter[int] = Counter()

    async def consumer() -> None:
        # Every consumer re-adds every item it sees up to two times: the dirty-while-processing case.
        counters: Counter[int] = Counter()
        while True:
            try:
                item = await q.get()
            except ShutDown:
                return
            counters[item] += 1
            processed[item] += 1
            if counters[item] < 2:
                q.add(item)
            await clock.sleep(0.001)
            q.done(item)

    consumers = [asyncio.create_task(consumer()) for _ in range(10)]
    for i in range(50):
        q.add(i)
    await clock.sleep(1)  # let the re-adds settle before shutting down
    if drain:
        await q.shutdown_with_drain()
    else:
        q.shutdown()
    await clock.wait_for(asyncio.gather(*consumers), 60)
    assert len(q) == 0
    assert set(processed) == set(range(50))
    assert all(n >= 2 for n in processed.values())


async def test_waiting_consumers_are_woken_one_per_item_in_arrival_order(clock: VirtualClock) -> None:
    q: Queue[int] = Queue(clock=clock)
    got: dict[int, int] = {}

    async def consumer(cid: int) -> None:
        item = await q.get()
        got[cid] = item
        await clock.sleep(1)  # hold it, so nobody takes a second item
        q.done(item)

    tasks = [asyncio.create_task(consumer(c)) for c in range(10)]
    await clock.settle()
    for item in range(10):
        q.add(item)
    await clock.wait_for(asyncio.gather(*tasks), 10)
    assert got == {c: c for c in range(10)}


async def test_a_cancelled_consumer_passes_its_wake_up_on(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    first = asyncio.create_task(q.get())
    second = asyncio.create_task(q.get())
    await clock.settle()
    q.add("x")  # wakes `first` ...
    first.cancel()  # ... which leaves before it runs
    assert await clock.wait_for(second, 1) == "x"
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_a_cancelled_waiting_consumer_does_not_swallow_items(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    gone = asyncio.create_task(q.get())
    await clock.settle()
    gone.cancel()
    await clock.settle()
    q.add("x")
    assert await clock.wait_for(q.get(), 1) == "x"
    assert gone.cancelled()


# --- shutdown ------------------------------------------------------------------------------------


async def test_shutdown_hands_out_queued_items_then_raises(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    q.add("a")
    q.add("b")
    assert not q.shutting_down()
    q.shutdown()
    assert q.shutting_down()
    q.add("c")  # ignored
    assert await q.get() == "a"
    assert q.get_nowait() == "b"
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)
    with pytest.raises(ShutDown):
        q.get_nowait()
    assert q.statistics().adds == 2


async def test_shutdown_wakes_every_waiting_consumer(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    waiting = [asyncio.create_task(q.get()) for _ in range(3)]
    await clock.settle()
    q.shutdown()
    results = await clock.wait_for(asyncio.gather(*waiting, return_exceptions=True), 1)
    assert all(isinstance(r, ShutDown) for r in results)


async def test_done_after_shutdown_still_requeues_a_dirty_item(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    q.add("a")
    item = await q.get()
    q.add("a")
    q.shutdown()
    q.done(item)
    assert await q.get() == "a"
    q.done("a")
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)


async def test_shutdown_with_drain_waits_for_items_being_processed(clock: VirtualClock) -> None:
    # TestQueueDrainageUsingShutDownWithDrain
    q: Queue[str] = Queue(clock=clock)
    q.add("foo")
    q.add("bar")
    first = await q.get()
    second = await q.get()
    drain = asyncio.create_task(q.shutdown_with_drain())
    await clock.settle()
    assert q.shutting_down()
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)
    q.done(first)
    await clock.settle()
    assert not drain.done()
    q.done(second)
    await clock.wait_for(drain, 1)


async def test_shutdown_does_not_wait_for_items_being_processed(clock: VirtualClock) -> None:
    # TestNoQueueDrainageUsingShutDown
    q: Queue[str] = Queue(clock=clock)
    q.add("foo")
    q.add("bar")
    await q.get()
    await q.get()
    q.shutdown()  # returns at once although nothing is done
    assert q.statistics().processing == 2
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)


async def test_shutdown_forces_a_pending_shutdown_with_drain_to_return(clock: VirtualClock) -> None:
    # TestForceQueueShutdownUsingShutDown
    q: Queue[str] = Queue(clock=clock)
    q.add("foo")
    q.add("bar")
    await q.get()
    await q.get()
    drain = asyncio.create_task(q.shutdown_with_drain())
    await clock.settle()
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)
    assert not drain.done()
    q.shutdown()  # a second SIGTERM
    await clock.wait_for(drain, 1)
    assert q.statistics().processing == 2


async def test_shutdown_with_drain_and_a_dirty_item(clock: VirtualClock) -> None:
    # TestQueueDrainageUsingShutDownWithDrainWithDirtyItem
    q: Queue[str] = Queue(clock=clock)
    q.add("foo")
    gotten = await q.get()
    q.add("foo")
    drain = asyncio.create_task(q.shutdown_with_drain())
    await clock.settle()
    with pytest.raises(ShutDown):  # foo is dirty but held, so nothing is queued
        await clock.wait_for(q.get(), 1)
    q.done(gotten)
    again = await q.get()  # done() queued it again: not shut down yet for this consumer
    assert again == "foo"
    q.done(again)
    with pytest.raises(ShutDown):
        await clock.wait_for(q.get(), 1)
    await clock.wait_for(drain, 1)


@pytest.mark.parametrize("queued", [0, 2], ids=["empty", "queued-but-not-got"])
async def test_shutdown_with_drain_returns_at_once_when_nothing_is_processing(
    clock: VirtualClock, queued: int
) -> None:
    q: Queue[int] = Queue(clock=clock)
    for i in range(queued):
        q.add(i)
    await clock.wait_for(q.shutdown_with_drain(), 0.001)
    assert q.shutting_down()
    assert len(q) == queued


async def test_cancelled_shutdown_with_drain_leaves_the_queue_shut_down(clock: VirtualClock) -> None:
    q: Queue[str] = Queue(clock=clock)
    q.add("a")
    await q.get()
    with clock.move_on_after(1) as scope:
        await q.shutdown_with_drain()
    assert scope.cancelled_caught
    assert q.shutting_down()
    q.done("a")  # no waiter left to release: must not fail
    assert q.statistics().processing == 0


# --- invariants ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5], ids=lambda s: f"seed-{s}")
def test_random_operations_match_the_upstream_model(seed: int) -> None:
    """A reference model of queue.go; every get must match and the counts must agree after each step."""
    rng = random.Random(seed)
    q: Queue[str] = Queue(clock=VirtualClock())
    queue: list[str] = []
    dirty: set[str] = set()
    processing: set[str] = set()
    shut = False
    for _ in range(2000):
        op = rng.random()
        item = f"k{rng.randrange(8)}"
        if op < 0.45:
            q.add(item)
            if not shut and item not in dirty:
                dirty.add(item)
                if item not in processing:
                    queue.append(item)
        elif op < 0.7:
            try:
                got = q.get_nowait()
            except ShutDown:
                assert shut
                assert not queue
                continue
            expected = queue.pop(0) if queue else None
            assert got == expected
            if got is not None:
                assert got not in processing, "handed out an item that is being processed"
                processing.add(got)
                dirty.discard(got)
        elif op < 0.995:
            held = sorted(processing)
            if held:
                done = rng.choice(held)
                q.done(done)
                processing.discard(done)
                if done in dirty:
                    queue.append(done)
        else:
            q.shutdown()
            shut = True
        stats = q.statistics()
        assert len(q) == len(queue)
        assert stats.depth == len(dirty)
        assert stats.processing == len(processing)
        assert set(queue) == dirty - processing


def test_finished_items_are_not_kept_alive() -> None:  # TestGarbageCollection
    class Big:
        __slots__ = ("__weakref__", "data")

        def __init__(self) -> None:
            self.data = b"hello"

    q: Queue[Big] = Queue(clock=VirtualClock())
    obj = Big()
    ref = weakref.ref(obj)
    q.add(obj)
    got = q.get_nowait()
    assert got is obj
    q.done(obj)
    del obj, got
    gc.collect()
    assert ref() is None


# --- statistics ----------------------------------------------------------------------------------


async def test_statistics_follow_upstream_metrics_test() -> None:  # metrics_test.go TestMetrics
    clock = VirtualClock(start=0.0, autojump=False)
    async with clock.running():
        q: Queue[str] = Queue(clock=clock, name="test")
        q.add("foo")
        s = q.statistics()
        assert (s.name, s.adds, s.depth) == ("test", 1, 1)

        await clock.advance(50e-6)
        item = await q.get()
        s = q.statistics()
        assert s.queue_latency.count == 1
        assert s.queue_latency.last == pytest.approx(50e-6)

        # Added back while processing; the repeats collapse.
        for _ in range(5):
            q.add(item)
        s = q.statistics()
        assert (s.adds, s.depth, len(q)) == (2, 1, 0)

        await clock.advance(25e-6)
        q.done(item)
        s = q.statistics()
        assert s.work_duration.count == 1
        assert s.work_duration.last == pytest.approx(25e-6)
        assert s.depth == 1

        item = await q.get()  # back on the queue
        s = q.statistics()
        assert s.queue_latency.count == 2
        assert s.queue_latency.last == pytest.approx(25e-6)

        await clock.advance(0.001)
        s = q.statistics()
        assert s.unfinished_work_seconds == pytest.approx(0.001)
        assert s.longest_running_processor_seconds == pytest.approx(0.001)

        q.done(item)
        s = q.statistics()
        assert s.work_duration.count == 2
        assert s.work_duration.last == pytest.approx(0.001)
        assert (s.unfinished_work_seconds, s.longest_running_processor_seconds) == (0.0, 0.0)


async def test_statistics_after_a_scripted_sequence() -> None:
    clock = VirtualClock(start=0.0, autojump=False)
    async with clock.running():
        q: Queue[str] = Queue(clock=clock, name="script")
        q.add("a")  # t=0
        await clock.advance(1)
        q.add("b")  # t=1
        await clock.advance(1)
        a = await q.get()  # t=2: waited 2s
        await clock.advance(2)
        b = await q.get()  # t=4: waited 3s
        await clock.advance(4)  # t=8: a held 6s, b held 4s
        s = q.statistics()
        assert s.unfinished_work_seconds == 10.0
        assert s.longest_running_processor_seconds == 6.0
        q.done(a)  # worked 6s
        await clock.advance(1)
        q.done(b)  # worked 5s
        s = q.statistics()
    assert s == workqueue.QueueStatistics(
        name="script",
        depth=0,
        processing=0,
        waiting=0,
        adds=2,
        retries=0,
        queue_latency=DurationStatistics(count=2, last=3.0, avg=2.5, max=3.0),
        work_duration=DurationStatistics(count=2, last=5.0, avg=5.5, max=6.0),
        unfinished_work_seconds=0.0,
        longest_running_processor_seconds=0.0,
    )
