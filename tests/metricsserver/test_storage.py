"""metrics-server's storage rules (``pkg/storage/pod.go``, ``node.go``, ``types.go``), ported as table cases:
usage needs two points of one container run, fresh containers get a synthetic first point, restarts and
decreasing counters yield nothing."""

from __future__ import annotations

import pytest

from kubelite.api.resource_metrics import ContainerPoint, NodePoint, ResourceMetrics
from kubelite.metricsserver.api import go_duration
from kubelite.metricsserver.storage import MetricsStorage

MI = 1024 * 1024
SEC = 10**9  # one second of one core, in CPU nanoseconds


def batch(*containers: tuple[str, float, float, int], node_cpu: int = 0, ts: float | None = None
          ) -> dict[str, ResourceMetrics]:
    """(pod, timestamp, start time, cumulative cpu ns) per container "c" of pods in "default"."""
    at = ts if ts is not None else (containers[0][1] if containers else 0.0)
    return {"n1": ResourceMetrics(
        node=NodePoint(timestamp=at, start_time=0.0, cumulative_cpu_used=node_cpu, memory_usage=100 * MI),
        containers=tuple(ContainerPoint(namespace="default", pod=pod, container="c", timestamp=t, start_time=start,
                                        cumulative_cpu_used=cpu, memory_usage=10 * MI)
                         for pod, t, start, cpu in containers))}


@pytest.mark.parametrize(("scrapes", "want"), [
    # (timestamp, container start, cumulative cpu) per scrape of pod "p"
    ([(100.0, 0.0, 10 * SEC)], None),                                   # one point of an old container: none
    ([(100.0, 0.0, 10 * SEC), (115.0, 0.0, 13 * SEC)], ("200m", 15.0)),  # 3 s of CPU over 15 s
    ([(100.0, 88.0, 6 * SEC)], ("500m", 12.0)),                         # fresh (12 s old): start is the prev point
    ([(100.0, 95.0, 1 * SEC)], None),                                   # started 5 s ago: too fresh to judge
    ([(100.0, 0.0, 10 * SEC), (115.0, 110.0, 1 * SEC)], None),          # restarted 5 s before the new point
    ([(100.0, 0.0, 10 * SEC), (115.0, 0.0, 9 * SEC)], None),            # counter went down: skipped
    ([(100.0, 0.0, 10 * SEC), (100.0, 0.0, 10 * SEC)], None),           # same point again: no window
    ([(100.0, 0.0, 0), (115.0, 0.0, 15 * SEC), (130.0, 0.0, 45 * SEC)], ("2", 15.0)),  # the last two points
], ids=["one-point", "two-points", "fresh-container", "too-fresh", "restarted", "counter-reset",
        "duplicate-point", "last-two"])
def test_pod_usage(scrapes: list[tuple[float, float, int]], want: tuple[str, float] | None) -> None:
    s = MetricsStorage(resolution=15.0)
    for ts, start, cpu in scrapes:
        s.store(batch(("p", ts, start, cpu)))
    got = s.pod_metrics("default", "p")
    if want is None:
        assert got is None
        return
    assert got is not None
    timestamp, window, containers = got
    assert (timestamp, window) == (scrapes[-1][0], want[1])
    assert [(n, u.cpu, u.memory) for n, u in containers] == [("c", want[0], "10Mi")]


def test_a_pod_missing_from_a_batch_loses_its_metrics() -> None:
    """A kubelet that did not answer: its pods are not in the batch, so they have no metrics any more."""
    s = MetricsStorage(resolution=15.0)
    s.store(batch(("p", 100.0, 0.0, 0)))
    s.store(batch(("p", 115.0, 0.0, SEC)))
    assert s.pod_metrics("default", "p") is not None
    s.store({})
    assert s.pod_metrics("default", "p") is None
    assert s.node_metrics("n1") is None


def test_node_usage_is_the_rate_between_the_last_two_scrapes() -> None:
    s = MetricsStorage(resolution=15.0)
    s.store(batch(node_cpu=0, ts=100.0))
    assert s.node_metrics("n1") is None
    s.store(batch(node_cpu=30 * SEC, ts=115.0))
    u = s.node_metrics("n1")
    assert u is not None
    assert (u.cpu, u.memory, u.window) == ("2", "100Mi", 15.0)


@pytest.mark.parametrize(("seconds", "want"), [
    (15.0, "15s"), (14.5, "14.5s"), (60.0, "1m0s"), (75.25, "1m15.25s"), (3600.0, "1h0m0s"), (0.5, "500ms"),
    (0.0, "0s"), (1.000000001, "1.000000001s"),
], ids=["15s", "fraction", "minute", "minute-fraction", "hour", "millis", "zero", "nanos"])
def test_window_is_a_go_duration(seconds: float, want: str) -> None:
    assert go_duration(seconds) == want
