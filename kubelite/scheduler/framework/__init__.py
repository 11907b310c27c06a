"""The scheduling framework: what plugin authors program against (upstream ``pkg/scheduler/framework``).

A plugin is an object with ``name`` and the methods of the extension points it implements (see
:mod:`.interface`); register a factory ``factory(args, handle) -> plugin`` with
``Scheduler.register_plugin`` and enable it in a profile (:mod:`.profile`).
"""

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.fit_error import FitError
from kubelite.scheduler.framework.interface import (
    ADD,
    ALL,
    DELETE,
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    QUEUE,
    QUEUE_SKIP,
    UPDATE,
    ClusterEvent,
    ClusterEventWithHint,
    Handle,
    PostFilterResult,
    PreFilterResult,
)
from kubelite.scheduler.framework.registry import PluginFactory, Registry
from kubelite.scheduler.framework.status import (
    ERROR,
    PENDING,
    SKIP,
    SUCCESS,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    WAIT,
    Status,
)
from kubelite.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from kubelite.scheduler.framework.waiting_pods import WaitingPod, WaitingPods

__all__ = [
    "ADD",
    "ALL",
    "DELETE",
    "ERROR",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "PENDING",
    "QUEUE",
    "QUEUE_SKIP",
    "SKIP",
    "SUCCESS",
    "UNSCHEDULABLE",
    "UNSCHEDULABLE_AND_UNRESOLVABLE",
    "UPDATE",
    "WAIT",
    "ClusterEvent",
    "ClusterEventWithHint",
    "CycleState",
    "FitError",
    "Handle",
    "NodeInfo",
    "PluginFactory",
    "PodInfo",
    "PostFilterResult",
    "PreFilterResult",
    "QueuedPodInfo",
    "Registry",
    "Status",
    "WaitingPod",
    "WaitingPods",
]
