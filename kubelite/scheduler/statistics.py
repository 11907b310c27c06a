"""Scheduler statistics as a frozen record (trio-style ``statistics()``, instead of a metrics registry).

``attempts`` counts scheduling attempts by result ("scheduled", "unschedulable", "error"), like
upstream's ``scheduler_schedule_attempts_total``. ``e2e_latency`` is measured on the cluster clock from
a pod's first entry into the queue to its successful bind (upstream ``pod_scheduling_sli_duration``).
"""

from __future__ import annotations

import msgspec

from kubelite.scheduler.queue.scheduling_queue import QueueDepths

__all__ = ["LatencySummary", "SchedulerStatistics", "StatsRecorder"]


class LatencySummary(msgspec.Struct, frozen=True, kw_only=True):
    """A latency distribution in seconds: count, mean, median, 99th percentile and maximum."""

    count: int = 0
    mean: float = 0.0
    p50: float = 0.0
    p99: float = 0.0
    max: float = 0.0


class SchedulerStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """The scheduler's counters (attempts by result, scheduled, preemptions), e2e latency and queue depths, a frozen
    record."""

    attempts: dict[str, int]
    scheduled: int
    preemption_attempts: int
    preemption_victims: int
    e2e_latency: LatencySummary
    active: int
    backoff: int
    unschedulable: int
    gated: int
    in_flight: int
    waiting_on_permit: int
    assumed: int


def _summary(values: list[float]) -> LatencySummary:
    if not values:
        return LatencySummary()
    v = sorted(values)
    n = len(v)
    return LatencySummary(count=n, mean=sum(v) / n, p50=v[(n - 1) // 2], p99=v[min(n - 1, (n * 99) // 100)],
                          max=v[-1])


class StatsRecorder:
    def __init__(self) -> None:
        self.attempts: dict[str, int] = {"scheduled": 0, "unschedulable": 0, "error": 0}
        self.latencies: list[float] = []
        self.preemption_attempts = 0
        self.preemption_victims = 0

    def attempt(self, result: str) -> None:
        self.attempts[result] = self.attempts.get(result, 0) + 1

    def snapshot(self, depths: QueueDepths, waiting: int, assumed: int) -> SchedulerStatistics:
        return SchedulerStatistics(
            attempts=dict(self.attempts), scheduled=len(self.latencies),
            preemption_attempts=self.preemption_attempts, preemption_victims=self.preemption_victims,
            e2e_latency=_summary(self.latencies), active=depths.active, backoff=depths.backoff,
            unschedulable=depths.unschedulable, gated=depths.gated, in_flight=depths.in_flight,
            waiting_on_permit=waiting, assumed=assumed)
