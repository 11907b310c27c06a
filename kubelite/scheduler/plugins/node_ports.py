"""NodePorts (upstream ``plugins/nodeports``): a pod's hostPorts must be free on the node (same
protocol and port, and the same hostIP or either side 0.0.0.0)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    UPDATE,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
)
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_REASON", "NAME", "NodePorts", "new"]

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_SKIP = Status(SKIP)
_ANY = "0.0.0.0"


def ports_conflict(want: list[tuple[str, str, int]], used: Mapping[tuple[str, str, int], int]) -> bool:
    for ip, proto, port in want:
        if (ip, proto, port) in used:
            return True
        if ip == _ANY:
            if any(p == port and pr == proto for (_, pr, p) in used):
                return True
        elif (_ANY, proto, port) in used:
            return True
    return False


class NodePorts:
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        return None, (None if pod.host_ports else _SKIP)

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if node.used_ports and ports_conflict(pod.host_ports, node.used_ports):
            return Status(UNSCHEDULABLE, ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Pod", DELETE)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE))]


def new(args: Mapping[str, Any], handle: Any) -> NodePorts:
    return NodePorts()
