"""Scheduler explanations stay bounded whatever the cluster size (kube-scheduler keeps no such record; kubelite
keeps the latest attempt of recent pods, bounded by pods and by score cells, compactly)."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
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
    assert all(v is not sr.per_plugin[p] and v == sr.per_plugin[p] for p, v in raw.per_plugin.items())
    # no reference to the cycle's NodeInfos is kept
    node = weakref.ref(sr.nodes[0])
    del sr, got
    gc.collect()
    assert node() is None


def weighted(nodes: int, weight: int, k: int) -> list[int]:
    """A plugin's weighted scores as ``Framework.run_score_plugins`` makes them (one int per distinct value)."""
    scores = [(i * (k + 3)) % 101 for i in range(nodes)]
    return list(map({v: v * weight for v in set(scores)}.__getitem__, scores))


def test_a_kept_attempt_costs_about_8_bytes_a_cell() -> None:
    """What one kept attempt holds, measured: a pointer per node per plugin (scores are shared ints), the
    names a slice of one shared tuple, no totals; at 5,000 nodes x 4 plugins."""
    nodes = 5_000
    every = [_Node(f"node-{i:05d}") for i in range(nodes)]
    ex = Explanations(100, max_cells=10**9)

    def attempt(b: int) -> ScheduleResult:
        r = ScheduleResult("node-0", 500, 500)
        r.all_nodes, r.begin = every, b  # type: ignore[assignment]
        r.nodes = (every[b:] + every[:b])[:500]  # type: ignore[assignment]
        r.per_plugin = {p: weighted(500, w, k) for k, (p, w) in enumerate(
            (("NodeResourcesFit", 1), ("TaintToleration", 3), ("PodTopologySpread", 2), ("ImageLocality", 1)))}
        r.totals = [sum(v[i] for v in r.per_plugin.values()) for i in range(500)]
        return r

    ex.record("ns/warm", attempt=1, time=0.0, result="Scheduled", schedule=attempt(0))
    ex.record("ns/warm2", attempt=1, time=0.0, result="Scheduled", schedule=attempt(1))  # the shared names
    results = [attempt((i * 499) % nodes) for i in range(40)]  # (runs that wrap around the end too)
    tracemalloc.start()
    before, cells = tracemalloc.get_traced_memory()[0], ex.cells
    for i, r in enumerate(results):
        ex.record(f"ns/p{i}", attempt=1, time=float(i), result="Scheduled", schedule=r)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    cells = ex.cells - cells
    assert cells == 40 * 500 * 5  # (a cell per node per plugin, plus one per node for its total)
    assert held / cells < 10, held / cells  # (the arrays and the names tuple before: 9.6)
    got = ex.get("ns/p39")
    assert got is not None and list(got.totals) == [n.name for n in results[39].nodes]  # type: ignore[attr-defined]
    assert list(got.totals.values()) == results[39].totals


@pytest.mark.parametrize(("begin", "pick", "same_list"), [
    (0, "run", True), (4_990, "run", True), (7, "run", False), (3, "every-other", True), (0, "nominated", True),
], ids=["run-from-start", "run-wrapping", "list-changed", "filtered", "one-node"])
def test_names_read_back_whatever_nodes_were_evaluated(begin: int, pick: str, same_list: bool) -> None:
    every = [_Node(f"node-{i:05d}") for i in range(5_000)]
    ex = Explanations(10)
    first = ScheduleResult("node-0", 2, 2)
    first.nodes, first.all_nodes = every[:2], every  # type: ignore[assignment]
    ex.record("ns/a", attempt=1, time=0.0, result="Scheduled", schedule=first)
    if not same_list:
        every = list(every)
    rotated = every[begin:] + every[:begin]
    nodes = {"run": rotated[:100], "every-other": rotated[:200:2], "nominated": rotated[:1]}[pick]
    r = ScheduleResult(nodes[0].name, len(nodes), len(nodes))
    r.nodes, r.all_nodes, r.begin = nodes, every, begin  # type: ignore[assignment]
    r.per_plugin = {"NodeResourcesFit": [i % 101 for i in range(len(nodes))]}
    r.totals = list(r.per_plugin["NodeResourcesFit"])
    ex.record("ns/b", attempt=1, time=1.0, result="Scheduled", schedule=r)
    got = ex.get("ns/b")
    assert got is not None and list(got.totals) == [n.name for n in nodes]
    assert list(got.scores["NodeResourcesFit"].values()) == r.totals


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
