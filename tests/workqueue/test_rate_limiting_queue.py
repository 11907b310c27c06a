"""RateLimitingQueue: retries paced by the rate limiter (ports client-go ``rate_limiting_queue_test.go``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from kubelite.clock import VirtualClock
from kubelite.workqueue import (
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimitingQueue,
    ShutDown,
)

MS = 0.001


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    c = VirtualClock(start=0.0)  # autojump: time moves to the next deadline once all tasks are idle
    async with c.running():
        yield c


async def retry_delay(clock: VirtualClock, q: RateLimitingQueue[str], item: str) -> float:
    """Rate-limit ``item`` and measure how long it takes to come back; finishes it."""
    start = clock.now()
    q.add_rate_limited(item)
    got = await clock.wait_for(q.get(), 3600)
    assert got == item
    q.done(got)
    return clock.now() - start


async def test_rate_limiting_queue(clock: VirtualClock) -> None:  # TestRateLimitingQueue
    q: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, rate_limiter=ItemExponentialFailureRateLimiter[str](1 * MS, 1.0)
    )
    assert await retry_delay(clock, q, "one") == pytest.approx(1 * MS)
    assert await retry_delay(clock, q, "one") == pytest.approx(2 * MS)
    assert q.num_requeues("one") == 2

    assert await retry_delay(clock, q, "two") == pytest.approx(1 * MS)
    assert await retry_delay(clock, q, "two") == pytest.approx(2 * MS)

    q.forget("one")
    assert q.num_requeues("one") == 0
    assert await retry_delay(clock, q, "one") == pytest.approx(1 * MS)
    assert q.statistics().retries == 5


async def test_default_rate_limiter_is_the_controller_default(clock: VirtualClock) -> None:
    q: RateLimitingQueue[str] = RateLimitingQueue(clock=clock, name="default")
    assert isinstance(q.rate_limiter, MaxOfRateLimiter)
    # 101 distinct items fail at once: the first 100 take the bucket's burst and wait 5ms (per-item
    # backoff); the 101st waits for a token, 1/10s.
    for i in range(101):
        q.add_rate_limited(f"i{i}")
    assert q.statistics().waiting == 101
    await clock.sleep(0.005)
    assert len(q) == 100
    await clock.sleep(0.095)
    assert len(q) == 101
    assert q.statistics().waiting == 0


async def test_a_failing_item_backs_off_exponentially_until_it_succeeds(clock: VirtualClock) -> None:
    """The controller-runtime pattern: error → add_rate_limited, success → forget; always done."""
    q: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
    attempts: list[float] = []

    async def worker() -> None:
        while True:
            try:
                item = await q.get()
            except ShutDown:
                return
            attempts.append(clock.now())
            if len(attempts) <= 4:
                q.add_rate_limited(item)  # failed
            else:
                q.forget(item)  # succeeded
            q.done(item)

    task = asyncio.create_task(worker())
    q.add("ns/obj")
    await clock.sleep(10)
    assert attempts == pytest.approx([0.0, 0.005, 0.015, 0.035, 0.075])
    assert q.num_requeues("ns/obj") == 0
    s = q.statistics()
    assert (s.adds, s.retries, s.depth, s.waiting) == (5, 4, 0, 0)
    q.shutdown()
    await clock.wait_for(task, 1)


async def test_a_retry_collapses_with_a_pending_add(clock: VirtualClock) -> None:
    q: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, rate_limiter=ItemExponentialFailureRateLimiter[str](1.0, 10.0)
    )
    q.add_rate_limited("a")
    q.add("a")  # an event arrives meanwhile
    assert await q.get() == "a"
    assert clock.now() == 0.0
    q.done("a")
    await clock.sleep(2)  # the retry comes due and is processed once more, no more
    assert len(q) == 1
    assert q.statistics().adds == 2


async def test_add_rate_limited_after_shutdown_still_asks_the_limiter(clock: VirtualClock) -> None:
    # Upstream's AddRateLimited calls When before AddAfter notices the shutdown.
    q: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
    q.shutdown()
    q.add_rate_limited("a")
    assert q.num_requeues("a") == 1
    s = q.statistics()
    assert (s.waiting, s.retries, len(q)) == (0, 0, 0)
    assert clock.pending_timers == 0
