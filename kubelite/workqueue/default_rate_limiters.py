"""Rate limiters: how long an item waits before it is retried (client-go ``default_rate_limiters.go``).

Contract:
- :meth:`RateLimiter.when` is asked once per retry and returns the delay in seconds. Per-item limiters
  count the call as a failure of that item; the token bucket reserves a token for it. Either way the
  call has an effect: ask only when you will act on the answer.
- :meth:`RateLimiter.forget` ends the tracking of an item (after success or a permanent failure); until
  then per-item limiters remember its failures and keep backing off.
- :meth:`RateLimiter.num_requeues` is the number of failures tracked for the item.
- Delays are plain floats in seconds. The token bucket reads time from the ``clock=`` it is given; the
  per-item limiters do not read time at all. ``math.inf`` means "never" (a bucket that can never hold a
  token); the delaying queue drops such an item.

Limiters are single-threaded state machines: no locks, since nothing here awaits.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

from kubelite.clock import Clock

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
]

K = TypeVar("K", bound=Hashable)
K_contra = TypeVar("K_contra", bound=Hashable, contravariant=True)


class RateLimiter(Protocol[K_contra]):
    """Upstream ``TypedRateLimiter[T]``."""

    def when(self, item: K_contra) -> float:
        """Seconds ``item`` should wait before it is added again; counts as one more requeue."""
        ...

    def forget(self, item: K_contra) -> None:
        """Stop tracking ``item``, whether it finally succeeded or failed for good."""
        ...

    def num_requeues(self, item: K_contra) -> int:
        """How many failures are tracked for ``item``."""
        ...


class ItemExponentialFailureRateLimiter(Generic[K]):
    """``base_delay * 2**failures`` per item, capped at ``max_delay``; the first failure waits ``base_delay``.

    Upstream ``TypedItemExponentialFailureRateLimiter``. Dealing with a maximum number of failures or
    with expiry is up to the caller. The computation cannot overflow: any exponent too large for a
    float yields ``max_delay``.
    """

    __slots__ = ("_failures", "base_delay", "max_delay")

    def __init__(self, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._failures: dict[K, int] = {}

    def when(self, item: K) -> float:
        """How long ``item`` should wait before it is added again (upstream ``When``)."""
        exp = self._failures.get(item, 0)
        self._failures[item] = exp + 1
        try:
            backoff = self.base_delay * 2.0**exp
        except OverflowError:  # 2.0**exp beyond the float range: upstream caps at max_delay too
            return self.max_delay
        return backoff if backoff < self.max_delay else self.max_delay

    def num_requeues(self, item: K) -> int:
        """How many times ``item`` has been rate limited since it was last forgotten (upstream ``NumRequeues``)."""
        return self._failures.get(item, 0)

    def forget(self, item: K) -> None:
        """Stop tracking ``item``: its next failure starts from the first delay (upstream ``Forget``)."""
        self._failures.pop(item, None)


class ItemFastSlowRateLimiter(Generic[K]):
    """``fast_delay`` for the first ``max_fast_attempts`` failures of an item, ``slow_delay`` after that.

    Upstream ``TypedItemFastSlowRateLimiter``.
    """

    __slots__ = ("_failures", "fast_delay", "max_fast_attempts", "slow_delay")

    def __init__(self, fast_delay: float, slow_delay: float, max_fast_attempts: int) -> None:
        self.fast_delay = fast_delay
        self.slow_delay = slow_delay
        self.max_fast_attempts = max_fast_attempts
        self._failures: dict[K, int] = {}

    def when(self, item: K) -> float:
        """How long ``item`` should wait before it is added again (upstream ``When``)."""
        failures = self._failures.get(item, 0) + 1
        self._failures[item] = failures
        return self.fast_delay if failures <= self.max_fast_attempts else self.slow_delay

    def num_requeues(self, item: K) -> int:
        """How many times ``item`` has been rate limited since it was last forgotten (upstream ``NumRequeues``)."""
        return self._failures.get(item, 0)

    def forget(self, item: K) -> None:
        """Stop tracking ``item``: its next failure starts from the first delay (upstream ``Forget``)."""
        self._failures.pop(item, None)


class BucketRateLimiter:
    """An overall token bucket, shared by all items (upstream ``TypedBucketRateLimiter``).

    The bucket holds at most ``burst`` tokens, starts full and refills at ``qps`` tokens per second on
    ``clock``. Each :meth:`when` reserves one token, as ``golang.org/x/time/rate``'s
    ``Limiter.Reserve().Delay()`` does: it returns 0 while tokens are left, otherwise the time until
    the token it took on credit will have accrued. Reservations accumulate, so after the burst the
    delays grow by ``1/qps`` per call. ``qps=math.inf`` never delays; ``burst < 1`` (with a finite
    ``qps``) can never grant a token and returns ``math.inf`` without reserving anything.
    """

    __slots__ = ("_clock", "_last", "_tokens", "burst", "qps")

    def __init__(self, *, clock: Clock, qps: float = 10.0, burst: int = 100) -> None:
        self.qps = qps
        self.burst = burst
        self._clock = clock
        # Token count as of `_last`; negative once reservations run ahead of the refill.
        self._tokens = float(burst)
        self._last = clock.now()

    def _advance(self, now: float) -> float:
        """Tokens at ``now`` (rate.Limiter.advance); a clock that went backwards adds nothing."""
        elapsed = now - self._last if now > self._last else 0.0
        tokens = self._tokens + elapsed * self.qps if self.qps > 0 else self._tokens
        return tokens if tokens < self.burst else float(self.burst)

    def tokens(self) -> float:
        """Tokens available now (negative while reservations are outstanding): ``Limiter.Tokens``."""
        return self._advance(self._clock.now())

    def when(self, item: object) -> float:
        """How long ``item`` should wait before it is added again (upstream ``When``)."""
        if self.qps == math.inf:
            return 0.0
        if self.burst < 1:
            return math.inf  # upstream: the reservation is not ok, and its Delay() is InfDuration
        now = self._clock.now()
        tokens = self._advance(now) - 1.0
        self._last = now
        self._tokens = tokens
        if tokens >= 0:
            return 0.0
        return -tokens / self.qps if self.qps > 0 else math.inf

    def num_requeues(self, item: object) -> int:
        """How many times ``item`` has been rate limited since it was last forgotten (upstream ``NumRequeues``)."""
        return 0

    def forget(self, item: object) -> None:
        """Stop tracking ``item``: its next failure starts from the first delay (upstream ``Forget``)."""
        pass


class MaxOfRateLimiter(Generic[K]):
    """Asks every limiter and returns the longest delay (upstream ``TypedMaxOfRateLimiter``).

    Every limiter is asked on every call, so each one counts the failure (or reserves its token) even
    when another one decides. Combined with a token bucket, the burst can appear exceeded when some
    items were separately delayed longer by a per-item limiter.
    """

    __slots__ = ("limiters",)

    def __init__(self, *limiters: RateLimiter[K]) -> None:
        self.limiters = limiters

    def when(self, item: K) -> float:
        """How long ``item`` should wait before it is added again (upstream ``When``)."""
        delay = 0.0
        for limiter in self.limiters:
            d = limiter.when(item)
            if d > delay:
                delay = d
        return delay

    def num_requeues(self, item: K) -> int:
        """How many times ``item`` has been rate limited since it was last forgotten (upstream ``NumRequeues``)."""
        return max((limiter.num_requeues(item) for limiter in self.limiters), default=0)

    def forget(self, item: K) -> None:
        """Stop tracking ``item``: its next failure starts from the first delay (upstream ``Forget``)."""
        for limiter in self.limiters:
            limiter.forget(item)


class WithMaxWaitRateLimiter(Generic[K]):
    """Caps the delay of another limiter at ``max_delay`` (upstream ``TypedWithMaxWaitRateLimiter``)."""

    __slots__ = ("limiter", "max_delay")

    def __init__(self, limiter: RateLimiter[K], max_delay: float) -> None:
        self.limiter = limiter
        self.max_delay = max_delay

    def when(self, item: K) -> float:
        """How long ``item`` should wait before it is added again (upstream ``When``)."""
        delay = self.limiter.when(item)
        return delay if delay < self.max_delay else self.max_delay

    def num_requeues(self, item: K) -> int:
        """How many times ``item`` has been rate limited since it was last forgotten (upstream ``NumRequeues``)."""
        return self.limiter.num_requeues(item)

    def forget(self, item: K) -> None:
        """Stop tracking ``item``: its next failure starts from the first delay (upstream ``Forget``)."""
        self.limiter.forget(item)


def default_controller_rate_limiter(*, clock: Clock) -> MaxOfRateLimiter[Hashable]:
    """Per-item exponential backoff (5ms doubling up to 1000s) and an overall 10 qps / 100 burst bucket.

    Upstream ``DefaultTypedControllerRateLimiter``. The bucket only paces retries: first adds of an item
    do not go through the rate limiter.
    """
    return MaxOfRateLimiter[Hashable](
        ItemExponentialFailureRateLimiter[Hashable](0.005, 1000.0),
        BucketRateLimiter(clock=clock, qps=10.0, burst=100),
    )


def default_item_based_rate_limiter() -> ItemExponentialFailureRateLimiter[Hashable]:
    """Per-item exponential backoff from 1ms up to 1000s (upstream ``DefaultTypedItemBasedRateLimiter``)."""
    return ItemExponentialFailureRateLimiter[Hashable](0.001, 1000.0)
