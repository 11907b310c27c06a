"""Work queues for controllers: client-go's ``util/workqueue``, file for file.

The queue is (upstream ``doc.go``):

- **Fair:** items are processed in the order in which they are added.
- **Stingy:** a single item is not processed by more than one consumer at a time, and if an item is
  added several times before it can be processed, it is processed only once.
- **Multiple consumers and producers.** In particular, an item may be added again while it is being
  processed; it is then processed again after the consumer calls ``done``.
- **Shutdown notifications:** once shut down, consumers drain what is queued and then get
  :class:`ShutDown`.

Each module adds one capability to the one before, as upstream's files do:
``queue`` (:class:`Queue`) → ``delaying_queue`` (:class:`DelayingQueue`, ``add_after``) →
``rate_limiting_queue`` (:class:`RateLimitingQueue`, ``add_rate_limited``/``forget``), with the rate
limiters in ``default_rate_limiters``.

All bookkeeping is synchronous and therefore atomic under asyncio; only ``get`` and
``shutdown_with_drain`` wait. Time comes from the ``clock=`` each queue is given (virtual in tests and
scenarios), and metrics are a :meth:`Queue.statistics` snapshot instead of a metrics provider.
"""

from kubelite.workqueue.default_rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)
from kubelite.workqueue.delaying_queue import DelayingQueue
from kubelite.workqueue.queue import DurationStatistics, Queue, QueueStatistics, ShutDown
from kubelite.workqueue.rate_limiting_queue import RateLimitingQueue

__all__ = [
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
