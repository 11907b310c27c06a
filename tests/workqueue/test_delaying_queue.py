"""DelayingQueue: add_after on the clock, earliest deadline wins (ports client-go ``delaying_queue_test.go``)."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import AsyncIterator

import pytest

from kubelite.clock import VirtualClock
from kubelite.workqueue import DelayingQueue, ShutDown


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    """Manual time, like upstream's FakeClock: it moves only on ``advance``."""
    c = VirtualClock(start=0.0, autojump=False)
    async with c.running():
        yield c


def get_done(q: DelayingQueue[str]) -> str | None:
    item = q.get_nowait()
    if item is not None:
        q.done(item)
    return item


async def test_simple_queue(clock: VirtualClock) -> None:  # TestSimpleQueue
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", 0.050)
    await clock.settle()
    assert len(q) == 0
    assert q.statistics().waiting == 1

    await clock.advance(0.060)
    assert len(q) == 1
    assert get_done(q) == "foo"

    await clock.advance(10)  # past upstream's heartbeat: nothing more
    assert len(q) == 0
    assert q.statistics().waiting == 0


async def test_deduping(clock: VirtualClock) -> None:  # TestDeduping
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", 0.050)
    q.add_after("foo", 0.070)  # later: ignored
    assert len(q) == 0
    await clock.advance(0.060)
    assert len(q) == 1
    assert get_done(q) == "foo"
    await clock.advance(0.020)  # past the second request
    assert len(q) == 0

    # again, but this time the earlier request overrides
    q.add_after("foo", 0.050)
    q.add_after("foo", 0.030)
    assert q.statistics().waiting == 1
    assert clock.pending_timers == 1
    await clock.advance(0.040)
    assert len(q) == 1
    assert get_done(q) == "foo"
    await clock.advance(0.020)
    assert len(q) == 0


@pytest.mark.parametrize(
    ("delays", "fires_at"),
    [
        ([0.05, 0.07], [0.05]),
        ([0.05, 0.03], [0.03]),
        ([0.05, 0.05], [0.05]),
        ([0.03, 0.05, 0.01, 0.02], [0.01]),
        # A delay <= 0 is a plain add and leaves the pending deadline alone, as upstream's AddAfter does.
        ([0.05, 0.0], [0.0, 0.05]),
        ([0.05, -1.0], [0.0, 0.05]),
    ],
    ids=["later-ignored", "earlier-wins", "same", "earliest-of-many", "zero-adds-now", "negative-adds-now"],
)
async def test_an_item_is_added_at_its_earliest_deadline(delays: list[float], fires_at: list[float]) -> None:
    clock = VirtualClock(start=0.0)  # autojump: time moves to each deadline
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    seen: list[float] = []
    async with clock.running():
        for d in delays:
            q.add_after("foo", d)
        while True:
            with clock.move_on_after(10) as scope:
                item = await q.get()
            if scope.cancelled_caught:
                break
            assert item == "foo"
            seen.append(clock.now())
            q.done(item)
    assert seen == fires_at
    assert q.statistics().retries == len(delays)


async def test_add_two_fire_early(clock: VirtualClock) -> None:  # TestAddTwoFireEarly
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", 1)
    q.add_after("bar", 0.050)
    assert len(q) == 0

    await clock.advance(0.060)
    assert len(q) == 1
    assert q.get_nowait() == "bar"

    q.add_after("baz", 2)
    await clock.advance(1)
    assert len(q) == 1
    assert q.get_nowait() == "foo"

    await clock.advance(2)
    assert len(q) == 1
    assert q.get_nowait() == "baz"


async def test_copy_shifting(clock: VirtualClock) -> None:  # TestCopyShifting
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", 1)
    q.add_after("bar", 0.5)
    q.add_after("baz", 0.25)
    assert len(q) == 0
    await clock.advance(2)
    assert len(q) == 3
    assert [q.get_nowait() for _ in range(3)] == ["baz", "bar", "foo"]


async def test_ties_come_out_in_the_order_they_were_scheduled(clock: VirtualClock) -> None:
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("a", 1)
    q.add_after("b", 1)
    q.add_after("c", 0.5)
    q.add_after("d", 1)
    await clock.advance(1)
    assert [get_done(q) for _ in range(4)] == ["c", "a", "b", "d"]


@pytest.mark.parametrize("seed", [1, 2, 3], ids=lambda s: f"seed-{s}")
async def test_many_random_delays_come_out_in_deadline_order(clock: VirtualClock, seed: int) -> None:
    # BenchmarkDelayingQueue_AddAfter, as an ordering test
    rng = random.Random(seed)
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    deadlines = {}
    for n in range(500):
        item = str(n)
        delay = rng.uniform(0.001, 600)
        q.add_after(item, delay)
        deadlines[item] = delay
    assert q.statistics().waiting == 500
    await clock.advance(660)
    got = [get_done(q) for _ in range(500)]
    assert got == sorted(deadlines, key=deadlines.__getitem__)
    assert q.statistics().waiting == 0


@pytest.mark.parametrize("delay", [0.0, -1.0], ids=["zero", "negative"])
def test_a_non_positive_delay_adds_at_once(delay: float) -> None:
    clock = VirtualClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", delay)
    assert len(q) == 1
    assert clock.pending_timers == 0
    assert q.statistics().retries == 1


def test_an_infinite_delay_is_never_scheduled() -> None:
    clock = VirtualClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("foo", math.inf)
    assert len(q) == 0
    assert clock.pending_timers == 0
    assert q.statistics().waiting == 0
    assert q.statistics().retries == 1


async def test_a_due_item_waits_for_the_consumer_processing_it(clock: VirtualClock) -> None:
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add("foo")
    item = q.get_nowait()
    q.add_after("foo", 1)
    await clock.advance(1)
    assert len(q) == 0, "handed to a second consumer while being processed"
    assert q.statistics().depth == 1
    q.done("foo")
    assert item == "foo"
    assert q.get_nowait() == "foo"


async def test_a_waiting_consumer_is_woken_when_the_deadline_passes() -> None:
    clock = VirtualClock(start=0.0)
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    async with clock.running():
        getter = asyncio.create_task(q.get())
        q.add_after("foo", 5)
        assert await getter == "foo"
        assert clock.now() == 5


@pytest.mark.parametrize("drain", [False, True], ids=["shutdown", "shutdown_with_drain"])
async def test_shutdown_drops_pending_deadlines(clock: VirtualClock, drain: bool) -> None:
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("a", 1)
    q.add_after("b", 2)
    assert clock.pending_timers == 2
    if drain:
        await q.shutdown_with_drain()
    else:
        q.shutdown()
    assert clock.pending_timers == 0
    assert q.statistics().waiting == 0

    q.add_after("c", 1)  # ignored, and not counted as a retry
    q.add_after("d", 0)
    assert clock.pending_timers == 0
    assert q.statistics().retries == 2
    await clock.advance(5)
    assert len(q) == 0
    with pytest.raises(ShutDown):
        q.get_nowait()
