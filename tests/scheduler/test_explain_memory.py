"""Scheduler explanations stay bounded whatever the cluster size (kube-scheduler keeps no such record; kubelite
keeps the latest attempt of recent pods, bounded by pods and by score cells, compactly)."""

from __future__ import annotations

from array import array
from typing import Any

import pytest

from kubelite.scheduler.explain import Explanations
from kubelite.scheduler.framework.status import UNSCHEDULABLE, Status
from kubelite.scheduler.schedule_one import ScheduleResult


class _Node:
    def __init__(self, name: str) -> None:
        self.name = name


def result(nodes: int, plugins: tuple[str, ...] = ("NodeResourcesFit", "TaintToleration")) -> ScheduleResult:
    r = ScheduleResult("node-0", nodes, nodes)
    r.nodes = [_Node(f"node-{i}") for i in range(nodes)]  # type: ignore[misc]
    r.per_plugin = {p: [(i * (k + 3)) % 101 for i in range(nodes)] for k, p in enumerate(plugins)}
    r.totals = [sum(v[i] for v in r.per_plugin.values()) for i in range(nodes)]
    return r


def test_an_explanation_reads_back_what_the_attempt_scored() -> None:
    ex = Explanations()
    sr = result(3)
    sr.statuses = {"node-9": Status(UNSCHEDULABLE, "Insufficient cpu", plugin="NodeResourcesFit")}
    ex.record("ns/p", attempt=1, time=5.0, result="Scheduled", node="node-0", schedule=sr)
    got = ex.get("ns/p")
    assert got is not None and got.node == "node-0" and got.time == 5.0
    assert got.scores == {p: dict(zip(["node-0", "node-1", "node-2"], v)) for p, v in sr.per_plugin.items()}
    assert got.totals == dict(zip(["node-0", "node-1", "node-2"], sr.totals))
    (rej,) = got.rejections.values()
    assert (rej.plugin, rej.code, rej.reasons) == ("NodeResourcesFit", "Unschedulable", ("Insufficient cpu",))
    raw: Any = ex._raw["ns/p"]
    assert isinstance(raw.totals, array) and all(isinstance(v, array) for v in raw.per_plugin.values())
    assert not hasattr(raw, "schedule")  # no reference to the cycle's NodeInfos or lists is kept


@pytest.mark.parametrize(("nodes", "pods", "max_cells", "kept"), [
    (10, 50, 1_000_000, 20),       # the pod bound (capacity 20) binds
    (5_000, 50, 150_000, 10),      # 5,000 nodes x (2 plugins + total) = 15,000 cells a pod: the cell bound binds
    (200_000, 3, 150_000, 1),      # one attempt above the whole budget: still the latest one is kept
], ids=["by-pods", "by-cells", "latest-always-kept"])
def test_explanations_are_bounded_by_pods_and_by_cells(nodes: int, pods: int, max_cells: int, kept: int) -> None:
    ex = Explanations(20, max_cells=max_cells)
    sr = result(nodes)
    for i in range(pods):
        ex.record(f"ns/p{i}", attempt=1, time=float(i), result="Scheduled", node="node-0", schedule=sr)
    assert len(ex) == kept
    assert ex.cells == kept * nodes * 3 and (ex.cells <= max_cells or kept == 1)
    assert ex.get(f"ns/p{pods - 1}") is not None and ex.get(f"ns/p{pods - kept - 1}") is None


def test_a_pod_attempted_again_replaces_its_record_and_its_cells() -> None:
    ex = Explanations(10, max_cells=1_000)
    ex.record("ns/a", attempt=1, time=0.0, result="Unschedulable", schedule=result(100))
    assert ex.cells == 300
    ex.record("ns/a", attempt=2, time=1.0, result="Scheduled", node="node-0", schedule=result(10))
    assert len(ex) == 1 and ex.cells == 30
    got = ex.get("ns/a")
    assert got is not None and got.attempt == 2 and len(got.totals) == 10
