"""SchedulingGates: PreEnqueue keeps a pod with ``spec.schedulingGates`` out of activeQ (upstream
``plugins/schedulinggates``); it is requeued when an update removes the last gate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.scheduler.framework.interface import (
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED,
    ClusterEvent,
    ClusterEventWithHint,
)
from kubelite.scheduler.framework.status import UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import PodInfo

__all__ = ["NAME", "SchedulingGates", "new"]

NAME = "SchedulingGates"


class SchedulingGates:
    name = NAME

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        spec = pod.pod.spec
        gates = spec.scheduling_gates if spec is not None else None
        if not gates:
            return None
        names = " ".join(g.name or "" for g in gates)
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, f"waiting for scheduling gates: [{names}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("UnscheduledPod", UPDATE_POD_SCHEDULING_GATES_ELIMINATED))]


def new(args: Mapping[str, Any], handle: Any) -> SchedulingGates:
    return SchedulingGates()
