"""NodeResourcesFit (upstream ``plugins/noderesources/fit.go`` and its scorers).

Filter: every requested resource (cpu, memory, ephemeral-storage, extended ones such as
``nvidia.com/gpu``, and one pod slot) must fit in ``allocatable - requested``; each shortfall is a
reason ("Insufficient cpu", "Too many pods"). A request larger than the node's whole allocatable is
unresolvable (preemption cannot help there), as upstream marks it.

Score (``scoringStrategy.type``, resources default cpu and memory with weight 1):
``LeastAllocated`` (default, spreads) ``(alloc - req) * 100 / alloc``; ``MostAllocated`` (bin packing)
``req * 100 / alloc``; ``RequestedToCapacityRatio`` a piecewise-linear ``shape`` over utilisation.
cpu and memory are counted with upstream's non-zero defaults (100m, 200Mi) for pods without requests.

Both Filter and Score read only the node's resource aggregates, which ``NodeInfo.res_key`` determines:
:meth:`NodeResourcesFit.filter_memo` and :meth:`NodeResourcesFit.score_nodes` compute each once per
distinct key in a cycle (nodes of one shape share results), with the same outcome as per node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState, feasible_facts
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    MAX_NODE_SCORE,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_POD_SCALE_DOWN,
    ClusterEvent,
    ClusterEventWithHint,
)
from kubelite.scheduler.framework.status import UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["LEAST_ALLOCATED", "MOST_ALLOCATED", "NAME", "REQUESTED_TO_CAPACITY_RATIO", "NodeResourcesFit",
           "memo_resource_scores", "new", "resource_scorer"]

NAME = "NodeResourcesFit"
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))


def _least(req: int, alloc: int) -> int:
    return 0 if req > alloc else (alloc - req) * MAX_NODE_SCORE // alloc


def _most(req: int, alloc: int) -> int:
    return MAX_NODE_SCORE if req > alloc else req * MAX_NODE_SCORE // alloc


def _shape_fn(shape: Sequence[Mapping[str, Any]]) -> Callable[[int, int], int]:
    # Upstream scales the 0-10 shape scores to 0-100 and interpolates linearly (helper.BuildBrokenLinearFunction).
    pts = sorted((int(p["utilization"]), int(p["score"]) * (MAX_NODE_SCORE // 10)) for p in shape)

    def f(req: int, alloc: int) -> int:
        util = MAX_NODE_SCORE if req > alloc else req * 100 // alloc
        for i, (u, s) in enumerate(pts):
            if util <= u:
                if i == 0:
                    return s
                u0, s0 = pts[i - 1]
                return s0 + (s - s0) * (util - u0) // (u - u0)
        return pts[-1][1]

    return f


def resource_scorer(strategy: Mapping[str, Any] | None) -> tuple[list[tuple[str, int]], Callable[[int, int], int]]:
    strategy = strategy or {}
    typ = strategy.get("type") or LEAST_ALLOCATED
    res = [(str(r["name"]), int(r.get("weight", 1))) for r in strategy.get("resources") or ()] \
        or list(DEFAULT_RESOURCES)
    if typ == LEAST_ALLOCATED:
        return res, _least
    if typ == MOST_ALLOCATED:
        return res, _most
    if typ == REQUESTED_TO_CAPACITY_RATIO:
        shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or (
            {"utilization": 0, "score": 10}, {"utilization": 100, "score": 0})
        return res, _shape_fn(shape)
    raise ValueError(f"scoring strategy {typ} is not supported")


_RES_KEY = attrgetter("res_key")


def _is_extended(name: str) -> bool:
    return "/" in name and not name.startswith("kubernetes.io/")


class NodeResourcesFit:
    name = NAME

    def __init__(self, args: Mapping[str, Any]) -> None:
        self.ignored = frozenset(args.get("ignoredResources") or ())
        self.ignored_groups = frozenset(args.get("ignoredResourceGroups") or ())
        self.resources, self.scorer = resource_scorer(args.get("scoringStrategy"))
        self.strategy = (args.get("scoringStrategy") or {}).get("type") or LEAST_ALLOCATED

    def _skip(self, name: str) -> bool:
        if name in self.ignored:
            return True
        return bool(self.ignored_groups) and _is_extended(name) and name.split("/", 1)[0] in self.ignored_groups

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        reasons: list[str] | None = None
        unresolvable = False
        if len(node.pods) + 1 > node.allowed_pods:
            reasons = ["Too many pods"]
        alloc, used = node.allocatable, node.requested
        for name, want in pod.requests.items():
            if want <= 0:
                continue
            have = alloc.get(name, 0)
            if want > have - used.get(name, 0):
                if (self.ignored or self.ignored_groups) and self._skip(name):
                    continue
                if reasons is None:
                    reasons = []
                reasons.append(f"Insufficient {name}")
                unresolvable = unresolvable or want > have
        if reasons is None:
            return None
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE, *reasons)

    def filter_memo(self, state: CycleState, pod: PodInfo, node: NodeInfo,
                    memo: dict[str, Status | None]) -> Status | None:
        """:meth:`filter` tagged with the plugin name, memoised by ``node.res_key`` for one pod."""
        key = node.res_key
        if key in memo:
            return memo[key]
        st = self.filter(state, pod, node)
        if st is not None:
            st = st.with_plugin(NAME)
        memo[key] = st
        return st

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """``[score(n) for n in nodes]``, computed once per distinct ``res_key``."""
        if type(self).score is not NodeResourcesFit.score:  # a subclass may read more than resources
            return [self.score(state, pod, ni) for ni in nodes]
        return _memo_scores(self.score, state, pod, nodes)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        total = weights = 0
        alloc = node.allocatable
        scorer = self.scorer
        for name, w in self.resources:
            a = alloc.get(name, 0)
            if a == 0:
                continue
            if name == "cpu":
                req = node.non_zero_cpu + pod.non_zero_cpu
            elif name == "memory":
                req = node.non_zero_mem + pod.non_zero_mem
            else:
                req = node.requested.get(name, 0) + pod.requests.get(name, 0)
            total += scorer(req, a) * w
            weights += w
        return total // weights if weights else 0

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Pod", DELETE | UPDATE_POD_SCALE_DOWN)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_ALLOCATABLE))]


def _memo_scores(score: Callable[[CycleState, PodInfo, NodeInfo], int], state: CycleState, pod: PodInfo,
                 nodes: Sequence[NodeInfo]) -> list[int]:
    # One score per distinct key (any node of a key stands for all of them), then C-level passes.
    facts = feasible_facts(state, nodes)
    keys = facts.res_keys if facts is not None else list(map(_RES_KEY, nodes))
    by_key = {key: score(state, pod, ni) for key, ni in dict(zip(keys, nodes)).items()}
    return list(map(by_key.__getitem__, keys))


memo_resource_scores = _memo_scores


def new(args: Mapping[str, Any], handle: Any) -> NodeResourcesFit:
    return NodeResourcesFit(args)
