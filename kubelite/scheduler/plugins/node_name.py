"""NodeName (upstream ``plugins/nodename``): a pod with ``spec.nodeName`` fits only that node."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import ADD, ClusterEvent, ClusterEventWithHint, PreFilterResult
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_REASON", "NAME", "NodeName", "new"]

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"
_SKIP = Status(SKIP)


class NodeName:
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.node_name:
            return None, _SKIP
        return PreFilterResult({pod.node_name}), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if pod.node_name and pod.node_name != node.name:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", ADD))]


def new(args: Mapping[str, Any], handle: Any) -> NodeName:
    return NodeName()
