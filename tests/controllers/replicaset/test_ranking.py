"""Deletion ranking (controller.ActivePodsWithRanks via replica_set.go getPodsToDelete): table tests."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import Pod
from kubelite.clock import EPOCH, format_time
from kubelite.controllers.podutil import is_pod_available, pods_to_delete, sort_pods_for_deletion

NOW = EPOCH + 100_000.0


def pod(name: str, *, node: str = "n1", phase: str = "Running", ready: bool = True, ready_at: float = 0.0,
        created: float = 0.0, restarts: int = 0, cost: int | None = None) -> Pod:
    d: dict[str, Any] = {
        "metadata": {"name": name, "namespace": "default", "uid": name,
                     "creationTimestamp": format_time(EPOCH + created)},
        "spec": {"nodeName": node} if node else {},
        "status": {"phase": phase, "containerStatuses": [{"name": "c", "restartCount": restarts}]},
    }
    if cost is not None:
        d["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
    if phase == "Running":
        d["status"]["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                                      "lastTransitionTime": format_time(EPOCH + ready_at)}]
    return msgspec.convert(d, Pod)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (pod("a", node=""), pod("b")),
        (pod("a", phase="Pending", ready=False), pod("b")),
        (pod("a", phase="Unknown", ready=False), pod("b", ready=False)),
        (pod("a", ready=False), pod("b")),
        (pod("a", cost=-5), pod("b")),
        (pod("a", ready_at=90_000), pod("b", ready_at=10)),  # ready for less time (different log2 bucket)
        (pod("a", restarts=3), pod("b")),
        (pod("a", created=90_000), pod("b", created=10)),  # newer first
    ],
    ids=["unscheduled-first", "pending-before-running", "unknown-before-running", "not-ready-before-ready",
         "lower-deletion-cost", "ready-less-time", "more-restarts", "newer-first"],
)
def test_deletion_order_pairs(first: Pod, second: Pod) -> None:
    assert sort_pods_for_deletion([second, first], [0, 0], NOW)[0] is first
    assert sort_pods_for_deletion([first, second], [0, 0], NOW)[0] is first


def test_doubled_up_pods_go_first() -> None:
    filtered = [pod("alone", node="n1"), pod("crowded", node="n2")]
    related = [*filtered, pod("x", node="n2"), pod("y", node="n2")]
    assert [p.metadata.name for p in pods_to_delete(filtered, related, 1, NOW)] == ["crowded"]


def test_same_log_bucket_ties_break_by_uid() -> None:
    # ready 1000 s and 1001 s ago: the same power-of-two bucket, so the smaller uid goes first
    a, b = pod("b-pod", ready_at=NOW - EPOCH - 1000), pod("a-pod", ready_at=NOW - EPOCH - 1001)
    assert sort_pods_for_deletion([a, b], [0, 0], NOW)[0] is b


def test_diff_at_least_all_returns_all_unsorted() -> None:
    pods = [pod("a"), pod("b", node="")]
    assert pods_to_delete(pods, pods, 5, NOW) == pods


@pytest.mark.parametrize(("min_ready", "ready_at", "expected"),
                         [(0, 0.0, True), (10, NOW - EPOCH - 5, False), (10, NOW - EPOCH - 11, True)],
                         ids=["no-min-ready", "not-long-enough", "long-enough"])
def test_is_pod_available(min_ready: int, ready_at: float, expected: bool) -> None:
    assert is_pod_available(pod("a", ready_at=ready_at), min_ready, NOW) is expected
