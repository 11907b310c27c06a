"""Events: what components did, recorded as core/v1 Events (client-go ``tools/record``).

``EventRecorder.event()`` is cheap and synchronous (it only queues); a broadcaster's writer task
correlates (de-duplicates, aggregates, spam-filters) and writes the events through the client.
See :mod:`kubelite.events.recorder` and :mod:`kubelite.events.correlator` for the guarantees.
"""

from kubelite.events.correlator import AGGREGATE_MESSAGE_PREFIX, CorrelateResult, EventCorrelator
from kubelite.events.recorder import (
    EVENT_TYPE_NORMAL,
    EVENT_TYPE_WARNING,
    EventBroadcaster,
    EventRecorder,
)

__all__ = [
    "AGGREGATE_MESSAGE_PREFIX",
    "EVENT_TYPE_NORMAL",
    "EVENT_TYPE_WARNING",
    "CorrelateResult",
    "EventBroadcaster",
    "EventCorrelator",
    "EventRecorder",
]
