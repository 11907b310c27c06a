"""NodeAffinity (upstream ``plugins/nodeaffinity``).

Filter: ``spec.nodeSelector`` and required node affinity must match the node's labels (fields:
``metadata.name``), else unresolvable "node(s) didn't match Pod's node affinity/selector".
Score: sum of the weights of matching preferred terms, normalised to [0, 100]. Both are skipped
for pods that set neither."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.api.scheduling import node_selector_term_matches, pod_matches_node_selector_and_affinity
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    MAX_NODE_SCORE,
    UPDATE_NODE_LABEL,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
)
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo
from kubelite.scheduler.plugins.helper import default_normalize_score

__all__ = ["ERR_REASON_POD", "NAME", "NodeAffinity", "new"]

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
_SKIP = Status(SKIP)
_KEY = "PreScore" + NAME


def _node_affinity(pod: PodInfo) -> Any:
    spec = pod.pod.spec
    aff = spec.affinity if spec is not None else None
    return aff.node_affinity if aff is not None else None


class NodeAffinity:
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        spec = pod.pod.spec
        na = _node_affinity(pod)
        req = na.required_during_scheduling_ignored_during_execution if na is not None else None
        if not (spec is not None and spec.node_selector) and req is None:
            return None, _SKIP
        # Upstream narrows the nodes when every term pins metadata.name with In.
        if req is not None and req.node_selector_terms:
            names: set[str] = set()
            for t in req.node_selector_terms:
                pinned = [f for f in t.match_fields or () if f.key == "metadata.name" and f.operator == "In"]
                if not pinned:
                    return None, None
                names.update(pinned[0].values or ())
            return PreFilterResult(names), None
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        spec = pod.pod.spec
        if spec is None or pod_matches_node_selector_and_affinity(spec, node.labels, node.name):
            return None
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        na = _node_affinity(pod)
        pref = na.preferred_during_scheduling_ignored_during_execution if na is not None else None
        if not pref:
            return _SKIP
        state.write(_KEY, [(t.weight or 0, t.preference) for t in pref if t.preference is not None])
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        total = 0
        for weight, term in state.read(_KEY):
            if weight and node_selector_term_matches(term, node.labels, node.name):
                total += weight
        return total

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_LABEL), self._hint)]

    @staticmethod
    def _hint(pod: Any, old: Any, new: Any) -> bool:
        if new is None or pod.spec is None:
            return False
        labels = (new.metadata.labels if new.metadata is not None else None) or {}
        name = (new.metadata.name if new.metadata is not None else None) or ""
        return pod_matches_node_selector_and_affinity(pod.spec, labels, name)


def new(args: Mapping[str, Any], handle: Any) -> NodeAffinity:
    return NodeAffinity()
