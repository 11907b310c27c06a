"""Rate limiters (ports client-go ``default_rate_limiters_test.go``; the bucket follows x/time/rate)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Hashable

import pytest

from kubelite.clock import VirtualClock
from kubelite.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)

MS = 0.001

# A script is a list of steps: ("when", item, expected delay), ("requeues", item, expected count) or
# ("forget", item, None).
Step = tuple[str, str, float | None]


def run_script(limiter: RateLimiter[str], script: list[Step]) -> None:
    for n, (op, item, expected) in enumerate(script):
        if op == "when":
            assert limiter.when(item) == pytest.approx(expected), f"step {n}: when({item})"
        elif op == "requeues":
            assert limiter.num_requeues(item) == expected, f"step {n}: num_requeues({item})"
        else:
            limiter.forget(item)


@pytest.mark.parametrize(
    ("limiter", "script"),
    [
        (
            ItemExponentialFailureRateLimiter[str](1 * MS, 1.0),
            [
                ("when", "one", 1 * MS),
                ("when", "one", 2 * MS),
                ("when", "one", 4 * MS),
                ("when", "one", 8 * MS),
                ("when", "one", 16 * MS),
                ("requeues", "one", 5),
                ("when", "two", 1 * MS),
                ("when", "two", 2 * MS),
                ("requeues", "two", 2),
                ("forget", "one", None),
                ("requeues", "one", 0),
                ("when", "one", 1 * MS),
            ],
        ),
        (
            ItemFastSlowRateLimiter[str](5 * MS, 10.0, 3),
            [
                ("when", "one", 5 * MS),
                ("when", "one", 5 * MS),
                ("when", "one", 5 * MS),
                ("when", "one", 10.0),
                ("when", "one", 10.0),
                ("requeues", "one", 5),
                ("when", "two", 5 * MS),
                ("when", "two", 5 * MS),
                ("requeues", "two", 2),
                ("forget", "one", None),
                ("requeues", "one", 0),
                ("when", "one", 5 * MS),
            ],
        ),
        (
            MaxOfRateLimiter[str](
                ItemFastSlowRateLimiter[str](5 * MS, 3.0, 3),
                ItemExponentialFailureRateLimiter[str](1 * MS, 1.0),
            ),
            [
                ("when", "one", 5 * MS),
                ("when", "one", 5 * MS),
                ("when", "one", 5 * MS),
                ("when", "one", 3.0),
                ("when", "one", 3.0),
                ("requeues", "one", 5),
                ("when", "two", 5 * MS),
                ("when", "two", 5 * MS),
                ("requeues", "two", 2),
                ("forget", "one", None),
                ("requeues", "one", 0),
                ("when", "one", 5 * MS),
            ],
        ),
        (
            default_item_based_rate_limiter(),
            [("when", "x", 1 * MS), ("when", "x", 2 * MS), ("requeues", "x", 2)],
        ),
    ],
    ids=["item-exponential", "item-fast-slow", "max-of", "default-item-based"],
)
def test_per_item_sequences(limiter: RateLimiter[str], script: list[Step]) -> None:
    run_script(limiter, script)


def test_exponential_defaults_double_from_5ms_and_cap_at_1000s() -> None:
    limiter = ItemExponentialFailureRateLimiter[str]()
    delays = [limiter.when("x") for _ in range(20)]
    # 5ms * 2**17 = 655.36s is the last uncapped step.
    assert delays[:18] == [0.005 * 2**n for n in range(18)]
    assert delays[18:] == [1000.0, 1000.0]
    assert limiter.num_requeues("x") == 20
    limiter.forget("x")
    assert limiter.when("x") == 0.005


@pytest.mark.parametrize(
    ("base", "cap", "warmup", "expected"),
    [
        (1 * MS, 1000.0, 5, 32 * MS),
        (1 * MS, 1000.0, 1000, 1000.0),
        (60.0, 1000 * 3600.0, 2, 4 * 60.0),
        (60.0, 1000 * 3600.0, 1000, 1000 * 3600.0),
        (1 * MS, 1000.0, 5000, 1000.0),
    ],
    ids=["1ms-no-overflow", "1ms-overflow", "1m-no-overflow", "1m-overflow", "beyond-float-range"],
)
def test_exponential_never_overflows(base: float, cap: float, warmup: int, expected: float) -> None:
    # TestItemExponentialFailureRateLimiterOverFlow
    limiter = ItemExponentialFailureRateLimiter[str](base, cap)
    for _ in range(warmup):
        limiter.when("one")
    assert limiter.when("one") == expected


class StepRateLimiter:
    """``base_delay`` for the first ``threshold`` calls (any item), ``max_delay`` after: upstream's test helper."""

    def __init__(self, base_delay: float, max_delay: float, threshold: int) -> None:
        self.count = 0
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.threshold = threshold

    def when(self, item: object) -> float:
        self.count += 1
        return self.base_delay if self.count <= self.threshold else self.max_delay

    def num_requeues(self, item: object) -> int:
        return 0

    def forget(self, item: object) -> None:
        pass


def test_with_max_wait_caps_the_delay() -> None:  # TestWithMaxWaitRateLimiter
    limiter = WithMaxWaitRateLimiter[int](StepRateLimiter(5 * MS, 1000.0, 100), 500.0)
    assert [limiter.when(i) for i in range(100)] == [5 * MS] * 100
    assert [limiter.when(i) for i in range(100, 200)] == [500.0] * 100


def test_wrappers_delegate_forget_and_num_requeues() -> None:
    inner = ItemExponentialFailureRateLimiter[str](1 * MS, 1.0)
    capped = WithMaxWaitRateLimiter[str](inner, 0.5)
    combined = MaxOfRateLimiter[str](capped, ItemFastSlowRateLimiter[str](MS, 1.0, 1))
    for _ in range(3):
        combined.when("a")
    assert (inner.num_requeues("a"), capped.num_requeues("a"), combined.num_requeues("a")) == (3, 3, 3)
    combined.forget("a")
    assert (inner.num_requeues("a"), combined.num_requeues("a")) == (0, 0)
    assert MaxOfRateLimiter[str]().when("a") == 0.0
    assert MaxOfRateLimiter[str]().num_requeues("a") == 0


# --- token bucket --------------------------------------------------------------------------------


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    c = VirtualClock(start=0.0, autojump=False)
    async with c.running():
        yield c


def test_bucket_gives_the_burst_at_once_then_spaces_by_one_over_qps() -> None:
    bucket = BucketRateLimiter(clock=VirtualClock(), qps=10, burst=100)
    delays = [bucket.when(i) for i in range(103)]
    assert delays[:100] == [0.0] * 100
    # Reservations accumulate: each caller waits for the token after the previous caller's.
    assert delays[100:] == pytest.approx([0.1, 0.2, 0.3])
    assert bucket.tokens() == pytest.approx(-3.0)
    assert bucket.num_requeues(0) == 0
    bucket.forget(0)  # the bucket does not track items
    assert bucket.when("x") == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [
        (0.05, [0.25, 0.35]),  # half a token back: -2 + 0.5
        (0.2, [0.1, 0.2]),  # the two reservations are paid off exactly
        (0.3, [0.0, 0.1]),  # one token to spare
        (1.0, [0.0, 0.0, 0.0, 0.1]),  # refilled, but never beyond the burst
        (3600.0, [0.0, 0.0, 0.0, 0.1]),
    ],
    ids=["partial-refill", "paid-off", "one-spare", "full", "long-idle"],
)
async def test_bucket_refills_at_qps_up_to_burst(
    clock: VirtualClock, elapsed: float, expected: list[float]
) -> None:
    bucket = BucketRateLimiter(clock=clock, qps=10, burst=3)
    assert [bucket.when(i) for i in range(5)] == pytest.approx([0, 0, 0, 0.1, 0.2])
    await clock.advance(elapsed)
    assert [bucket.when(i) for i in range(len(expected))] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("qps", "burst", "expected"),
    [
        (math.inf, 0, [0.0, 0.0, 0.0]),  # an infinite rate ignores the burst
        (10.0, 0, [math.inf, math.inf]),  # no token can ever be granted, nothing is reserved
        (0.0, 2, [0.0, 0.0, math.inf, math.inf]),  # a zero rate never refills
    ],
    ids=["infinite-rate", "zero-burst", "zero-rate"],
)
def test_bucket_edge_rates(qps: float, burst: int, expected: list[float]) -> None:
    bucket = BucketRateLimiter(clock=VirtualClock(), qps=qps, burst=burst)
    assert [bucket.when(i) for i in range(len(expected))] == expected


async def test_default_controller_rate_limiter_is_max_of_exponential_and_bucket(clock: VirtualClock) -> None:
    limiter = default_controller_rate_limiter(clock=clock)
    # Per-item exponential from 5ms while the bucket has tokens.
    assert [limiter.when("a") for _ in range(4)] == pytest.approx([0.005, 0.01, 0.02, 0.04])
    assert limiter.num_requeues("a") == 4
    # Use up the rest of the 100-token burst: the bucket then dominates the 5ms of a fresh item.
    others: list[Hashable] = [f"o{i}" for i in range(96)]
    assert {limiter.when(o) for o in others} == {0.005}
    assert limiter.when("fresh") == pytest.approx(0.1)
    await clock.advance(10)  # refilled
    assert limiter.when("fresh2") == 0.005
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0
    assert limiter.when("a") == 0.005
