"""The scheduling algorithm of one cycle: filter, score, pick (upstream ``schedule_one.go``
``schedulePod``, ``findNodesThatFitPod``, ``prioritizeNodes``, ``selectHost``).

Contract: :func:`schedule_pod` is synchronous and reads the cache as it is at the call (see
:mod:`kubelite.scheduler.cache`); it changes nothing but the CycleState and the round-robin start index
it returns. It returns a :class:`ScheduleResult` or raises :class:`FitError` (no node fits) /
``Exception`` (a plugin failed). Node order, the round-robin start and the seeded tie-break (one draw
among the top-scoring nodes) make the choice a pure function of the cache, the pod and the rng state.
"""

from __future__ import annotations

import random
from itertools import compress, count, islice

from kubelite.scheduler.cache import Cache
from kubelite.scheduler.fast_path import find_feasible_nodes
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.fit_error import FitError
from kubelite.scheduler.framework.runtime import RESTRICTING_PLUGINS, Framework
from kubelite.scheduler.framework.status import ERROR, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = [
    "DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NO_NODES_AVAILABLE",
    "ScheduleResult",
    "num_feasible_nodes_to_find",
    "schedule_pod",
    "select_host",
]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0  # 0 = adaptive
NO_NODES_AVAILABLE = "no nodes available to schedule pods"


class ScheduleResult:
    __slots__ = ("all_nodes", "begin", "evaluated_nodes", "feasible_nodes", "nodes", "per_plugin", "statuses",
                 "suggested_host", "totals")

    def __init__(self, suggested_host: str, evaluated_nodes: int, feasible_nodes: int) -> None:
        self.suggested_host = suggested_host
        self.evaluated_nodes = evaluated_nodes
        self.feasible_nodes = feasible_nodes
        # For explanations: the filtered nodes, the per-plugin weighted scores and totals, the rejections.
        self.nodes: list[NodeInfo] = []
        self.per_plugin: dict[str, list[int]] = {}
        self.totals: list[int] = []
        self.statuses: dict[str, Status] = {}
        # The cache's node list the scan went round and where it began: ``nodes`` is often a run of it, so an
        # explanation can slice the names instead of reading every node's (explain.py).
        self.all_nodes: list[NodeInfo] | None = None
        self.begin = 0


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """Upstream ``numFeasibleNodesToFind``: all nodes below 100; else ``50 - nodes/125`` percent
    (at least 5%) unless configured, and never fewer than 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct >= 100:
        return num_all_nodes
    if pct <= 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


def select_host(totals: list[int], rng: random.Random) -> int:
    """The index of a highest total, drawn uniformly among the nodes that share it: one
    ``rng.randrange(ties)`` when several do, no draw when one does.

    Upstream ``selectHost`` reservoir-samples the ties (one ``rand.Intn(cntOfMaxScore)`` per tie, in heap
    order since 1.27, in list order before): each of the ``ties`` top-scoring nodes is picked with
    probability ``1/ties``. One draw over the ties in list order picks from the same distribution; with
    ``percentageOfNodesToScore`` scoring ~500 alike nodes at 5,000 nodes, the reservoir's ~500 draws a
    cycle were ~3% of a SchedulingBasic run (py-spy, bench/RESULTS.md "#17 scale, stop 23")."""
    top = max(totals)
    ties = totals.count(top)
    if ties == 1:
        return totals.index(top)
    k = rng.randrange(ties)
    # the k-th index (0-based) holding ``top``, found with C-level passes
    return next(islice(compress(count(), map(top.__eq__, totals)), k, None))


def _fit_error(pod: PodInfo, n: int, statuses: dict[str, Status], pre_filter_msg: str = "") -> FitError:
    plugins = {st.plugin for st in statuses.values() if st.plugin}
    return FitError(pod.key, n, statuses, pre_filter_msg=pre_filter_msg, unschedulable_plugins=plugins)


def schedule_pod(fwk: Framework, cache: Cache, state: CycleState, pod: PodInfo, *, percentage: int | None,
                 start: int, rng: random.Random) -> tuple[ScheduleResult, int]:
    """Returns (result, next round-robin start); raises FitError or RuntimeError."""
    all_nodes = cache.node_list()
    n_all = len(all_nodes)
    if n_all == 0:
        raise FitError(pod.key, 0, {}, pre_filter_msg=NO_NODES_AVAILABLE)
    pre_res, st = fwk.run_pre_filter_plugins(state, pod, all_nodes)
    if st is not None:
        if st.code == ERROR:
            raise RuntimeError(st.message)
        statuses = {ni.name: st for ni in all_nodes}
        fe = _fit_error(pod, n_all, statuses, st.message)
        if st.plugin:
            fe.unschedulable_plugins = {st.plugin}
        raise fe
    statuses: dict[str, Status] = {}  # type: ignore[no-redef]
    nodes = all_nodes
    if pre_res is not None and pre_res.node_names is not None:
        names = pre_res.node_names
        nodes = [ni for ni in all_nodes if ni.name in names]
        absent = Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(state.get(RESTRICTING_PLUGINS, [])))}]")
        for ni in all_nodes:
            if ni.name not in names:
                statuses[ni.name] = absent

    feasible: list[NodeInfo] = []
    begin = 0
    # A nominated node (set by an earlier preemption) is tried first, alone (upstream evaluateNominatedNode).
    pst = pod.pod.status
    nominated = pst.nominated_node_name if pst is not None else None
    if nominated:
        nni = cache.nodes.get(nominated)
        if (nni is not None and nni.node is not None
                and (pre_res is None or pre_res.node_names is None or nominated in pre_res.node_names)
                and fwk.run_filter_plugins_with_nominated_pods(state, pod, nni) is None):
            feasible.append(nni)
    n = len(nodes)
    next_start = start
    if not feasible:
        to_find = num_feasible_nodes_to_find(percentage, n) if nodes is all_nodes else n
        begin = start % n if n else 0
        feasible, processed = find_feasible_nodes(
            fwk, state, pod, nodes, begin=begin, to_find=to_find, statuses=statuses,
            nominated_nodes=cache.nominator.node_names(), restricted=cache.restricted)
        if nodes is all_nodes:
            next_start = (start + processed) % n_all
    if not feasible:
        raise _fit_error(pod, n_all, statuses)
    if len(feasible) == 1:
        r = ScheduleResult(feasible[0].name, len(statuses) + 1, 1)
        r.nodes = feasible
        r.statuses = statuses
        return r, next_start
    pst2 = fwk.run_pre_score_plugins(state, pod, feasible)
    if pst2 is not None:
        raise RuntimeError(pst2.message)
    per_plugin, totals = fwk.run_score_plugins(state, pod, feasible)
    best = select_host(totals, rng)
    r = ScheduleResult(feasible[best].name, len(feasible) + len(statuses), len(feasible))
    r.nodes = feasible
    r.per_plugin = per_plugin
    r.totals = totals
    r.statuses = statuses
    r.all_nodes = nodes
    r.begin = begin
    return r, next_start
