"""TaintToleration (upstream ``plugins/tainttoleration``).

Filter: a node whose NoSchedule/NoExecute taint the pod does not tolerate is rejected (unresolvable,
preemption cannot remove taints) with "node(s) had untolerated taint {key: value}". Score: fewer
intolerable PreferNoSchedule taints is better (reverse-normalised)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from kubelite.api.scheduling import find_untolerated_taint, tolerates_taint
from kubelite.scheduler.framework.cycle_state import CycleState, feasible_facts
from kubelite.scheduler.framework.interface import (
    ADD,
    MAX_NODE_SCORE,
    UPDATE_NODE_TAINT,
    UPDATE_POD_TOLERATIONS,
    ClusterEvent,
    ClusterEventWithHint,
)
from kubelite.scheduler.framework.status import UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo
from kubelite.scheduler.plugins.helper import default_normalize_score

__all__ = ["FILTER_EFFECTS", "NAME", "TaintToleration", "new"]

NAME = "TaintToleration"
_TAINTS = attrgetter("taints")
FILTER_EFFECTS = ("NoSchedule", "NoExecute")
_KEY = "PreScore" + NAME


def _tolerations(pod: PodInfo) -> list[Any]:
    spec = pod.pod.spec
    return list((spec.tolerations if spec is not None else None) or ())


class TaintToleration:
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.taints:
            return None
        taint = find_untolerated_taint(node.taints, _tolerations(pod), FILTER_EFFECTS)
        if taint is None:
            return None
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                      f"node(s) had untolerated taint {{{taint.key}: {taint.value or ''}}}")

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_KEY, [t for t in _tolerations(pod) if not t.effect or t.effect == "PreferNoSchedule"])
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """``[score(n) for n in nodes]`` without a call per untainted node."""
        if type(self).score is not TaintToleration.score:  # a subclass may score untainted nodes
            return [self.score(state, pod, ni) for ni in nodes]
        facts = feasible_facts(state, nodes)
        if not (facts.tainted if facts is not None else any(map(_TAINTS, nodes))):
            return [0] * len(nodes)
        score = self.score
        return [score(state, pod, ni) if ni.taints else 0 for ni in nodes]

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        if not node.taints:
            return 0
        tols = state.read(_KEY)
        return sum(1 for t in node.taints if t.effect == "PreferNoSchedule"
                   and not any(tolerates_taint(tol, t) for tol in tols))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_TAINT), self._node_hint),
                ClusterEventWithHint(ClusterEvent("UnscheduledPod", UPDATE_POD_TOLERATIONS))]

    @staticmethod
    def _node_hint(pod: Any, old: Any, new: Any) -> bool:
        if new is None:
            return False
        taints = (new.spec.taints if new.spec is not None else None) or ()
        tols = list((pod.spec.tolerations if pod.spec is not None else None) or ())
        return find_untolerated_taint(taints, tols, FILTER_EFFECTS) is None


def new(args: Mapping[str, Any], handle: Any) -> TaintToleration:
    return TaintToleration()
