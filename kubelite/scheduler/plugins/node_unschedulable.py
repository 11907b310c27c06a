"""NodeUnschedulable (upstream ``plugins/nodeunschedulable``): a cordoned node (``spec.unschedulable``)
accepts only pods tolerating ``node.kubernetes.io/unschedulable:NoSchedule``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.scheduling import tolerates_taint
from kubelite.api.types.core_v1 import Taint
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import ADD, UPDATE_NODE_TAINT, ClusterEvent, ClusterEventWithHint
from kubelite.scheduler.framework.status import UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_REASON_UNSCHEDULABLE", "NAME", "NodeUnschedulable", "new", "tolerates_unschedulable"]

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule")


def _node_schedulable(pod: Any, old: Any, new: Any) -> bool:
    return new is not None and not (new.spec is not None and new.spec.unschedulable)


def tolerates_unschedulable(tolerations: Any) -> bool:
    """Whether the tolerations admit a cordoned node (the filter's only pod-side input)."""
    return any(tolerates_taint(tol, _TAINT) for tol in tolerations or ())


class NodeUnschedulable:
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.unschedulable:
            return None
        spec = pod.pod.spec
        if tolerates_unschedulable(spec.tolerations if spec is not None else None):
            return None
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_TAINT), _node_schedulable)]


def new(args: Mapping[str, Any], handle: Any) -> NodeUnschedulable:
    return NodeUnschedulable()
