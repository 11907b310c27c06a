"""NodeResourcesBalancedAllocation (upstream ``plugins/noderesources/balanced_allocation.go``): prefer
nodes whose resource fractions (requested / allocatable, pod included) stay close to each other:
``(1 - stddev) * 100``. Skipped for pods without requests (upstream's best-effort skip).
The score reads only resource aggregates, so :meth:`score_nodes` computes it once per ``res_key``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    UPDATE_NODE_ALLOCATABLE,
    ClusterEvent,
    ClusterEventWithHint,
)
from kubelite.scheduler.framework.status import SKIP, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo
from kubelite.scheduler.plugins.node_resources_fit import memo_resource_scores

__all__ = ["NAME", "NodeResourcesBalancedAllocation", "new"]

NAME = "NodeResourcesBalancedAllocation"
_SKIP = Status(SKIP)


class NodeResourcesBalancedAllocation:
    name = NAME

    def __init__(self, args: Mapping[str, Any]) -> None:
        self.resources = [str(r["name"]) for r in args.get("resources") or ()] or ["cpu", "memory"]

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        if not any(pod.requests.get(r, 0) for r in self.resources):
            return _SKIP
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        if type(self).score is not NodeResourcesBalancedAllocation.score:  # may read more than resources
            return [self.score(state, pod, ni) for ni in nodes]
        return memo_resource_scores(self.score, state, pod, nodes)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        fractions: list[float] = []
        alloc, used, want = node.allocatable, node.requested, pod.requests
        for r in self.resources:
            a = alloc.get(r, 0)
            if a == 0:
                continue
            f = (used.get(r, 0) + want.get(r, 0)) / a
            fractions.append(1.0 if f > 1 else f)
        n = len(fractions)
        if n < 2:
            std = 0.0
        elif n == 2:
            std = abs(fractions[0] - fractions[1]) / 2
        else:
            mean = sum(fractions) / n
            std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / n)
        return int((1 - std) * 100)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Pod", DELETE)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_ALLOCATABLE))]


def new(args: Mapping[str, Any], handle: Any) -> NodeResourcesBalancedAllocation:
    return NodeResourcesBalancedAllocation(args)
