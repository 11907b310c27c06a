"""A work queue that rate-limits retries (client-go ``util/workqueue/rate_limiting_queue.go``).

Guarantees, on top of :class:`~kubelite.workqueue.delaying_queue.DelayingQueue`'s:

- ``add_rate_limited(item)`` asks the rate limiter once and adds the item after the delay it returns;
  each call counts as one requeue of the item.
- ``forget(item)`` clears the limiter's memory of the item, so its next failure starts the backoff
  afresh. It does not touch the queue: the consumer still calls ``done``. Forget an item when it is
  processed successfully (or dropped for good), or the limiter tracks its failures forever.
- The rate limiter is owned by the queue: nobody else should call its ``when``.

The usual consumer (controller-runtime's reconcile handler): on error ``add_rate_limited(item)``; on a
requested requeue after ``d`` ``forget(item)`` then ``add_after(item, d)``; on success ``forget(item)``;
then always ``done(item)``.
"""

from __future__ import annotations

from kubelite.clock import Clock
from kubelite.workqueue.default_rate_limiters import RateLimiter, default_controller_rate_limiter
from kubelite.workqueue.delaying_queue import DelayingQueue
from kubelite.workqueue.queue import T

__all__ = ["RateLimitingQueue"]


class RateLimitingQueue(DelayingQueue[T]):
    """A :class:`DelayingQueue` with a per-queue rate limiter (upstream ``TypedRateLimitingInterface``).

    ``rate_limiter`` defaults to :func:`default_controller_rate_limiter` on the same clock.
    """

    __slots__ = ("rate_limiter",)

    def __init__(self, *, clock: Clock, rate_limiter: RateLimiter[T] | None = None, name: str = "") -> None:
        super().__init__(clock=clock, name=name)
        self.rate_limiter: RateLimiter[T] = (
            rate_limiter if rate_limiter is not None else default_controller_rate_limiter(clock=clock)
        )

    def add_rate_limited(self, item: T) -> None:
        """Add ``item`` after the delay the rate limiter gives it."""
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """The item is finished being retried; its backoff starts over next time."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        """How many times the item was rate-limited since it was last forgotten."""
        return self.rate_limiter.num_requeues(item)
