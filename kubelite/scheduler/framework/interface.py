"""The extension points: one Protocol per point, as upstream ``framework/interface.go``.

Contract for plugin authors (in-tree and out-of-tree alike):

- A plugin is any object with a ``name`` attribute and one or more of the methods below; the
  framework finds its extension points by the methods it has (upstream's type assertions). A
  profile enables it per point (see :mod:`kubelite.scheduler.framework.profile`).
- Everything up to and including Permit runs synchronously inside one scheduling cycle: a plugin
  must not ``await`` there, and it sees the cluster state of the scheduler cache at that instant.
  PreBind and Bind are coroutines and run in the binding cycle, concurrently with later cycles.
- Returning ``None`` means Success. Filter/Reserve/Permit/PreEnqueue return ``Status | None``;
  Score returns an ``int`` in ``[0, MAX_NODE_SCORE]`` after normalisation (raise to fail the cycle).
- Plugins must not mutate the Pod or Node objects they receive (they are the informer's).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kubelite.clock import Clock
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.status import Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo

if TYPE_CHECKING:
    from kubelite.scheduler.framework.waiting_pods import WaitingPods

__all__ = [
    "ADD",
    "ALL",
    "DELETE",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "QUEUE",
    "QUEUE_SKIP",
    "UPDATE",
    "UPDATE_NODE_ALLOCATABLE",
    "UPDATE_NODE_CONDITION",
    "UPDATE_NODE_LABEL",
    "UPDATE_NODE_TAINT",
    "UPDATE_POD_LABEL",
    "UPDATE_POD_SCALE_DOWN",
    "UPDATE_POD_SCHEDULING_GATES_ELIMINATED",
    "UPDATE_POD_TOLERATIONS",
    "BindPlugin",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EnqueueExtensions",
    "FilterPlugin",
    "Handle",
    "PermitPlugin",
    "Plugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScorePlugin",
    "ScoreNormalizer",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

# ActionType bits (upstream framework/events.go).
ADD = 1
DELETE = 1 << 1
UPDATE_NODE_ALLOCATABLE = 1 << 2
UPDATE_NODE_LABEL = 1 << 3
UPDATE_NODE_TAINT = 1 << 4
UPDATE_NODE_CONDITION = 1 << 5
UPDATE_POD_LABEL = 1 << 6
UPDATE_POD_SCALE_DOWN = 1 << 7
UPDATE_POD_TOLERATIONS = 1 << 8
UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 9
_UPDATE_OTHER = 1 << 10
UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION | UPDATE_POD_LABEL
          | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATIONS | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | _UPDATE_OTHER)
ALL = ADD | DELETE | UPDATE

#: QueueingHint values: does this event make the rejected pod worth retrying?
QUEUE = True
QUEUE_SKIP = False


class ClusterEvent:
    """A kind of change the scheduler observes: ``resource`` ("Node", "Pod" for assigned pods,
    "UnscheduledPod", "PersistentVolumeClaim", "PodDisruptionBudget", "*") and an action bitmask."""

    __slots__ = ("action", "label", "resource")

    def __init__(self, resource: str, action: int, label: str = "") -> None:
        self.resource = resource
        self.action = action
        self.label = label or f"{resource}/{action}"

    def matches(self, other: ClusterEvent) -> bool:
        """Whether this registered event covers the incoming ``other`` (upstream ``Match``)."""
        if self.resource == "*":
            return True
        return self.resource == other.resource and bool(self.action & other.action)

    def __repr__(self) -> str:
        return f"ClusterEvent({self.label})"


#: hint(pod, old_obj, new_obj) -> QUEUE / QUEUE_SKIP (upstream ``QueueingHintFn``).
QueueingHintFn = Callable[[Any, Any, Any], bool]


class ClusterEventWithHint:
    """A cluster event a plugin registers for, with its optional queueing hint (``ClusterEventWithHint``)."""

    __slots__ = ("event", "hint")

    def __init__(self, event: ClusterEvent, hint: QueueingHintFn | None = None) -> None:
        self.event = event
        self.hint = hint


class PreFilterResult:
    """Restricts the nodes to evaluate (upstream ``PreFilterResult.NodeNames``); ``None`` = all."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: set[str] | None) -> None:
        self.node_names = node_names

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two PreFilter results' node sets (None means all nodes), as upstream
        ``PreFilterResult.Merge``."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


class PostFilterResult:
    """What a PostFilter plugin (preemption) decided: the node the pod is nominated to, or ""."""

    __slots__ = ("nominated_node_name",)

    def __init__(self, nominated_node_name: str) -> None:
        self.nominated_node_name = nominated_node_name


class Handle(Protocol):
    """What a plugin may use (upstream ``framework.Handle``), given to its factory."""

    client: Any
    clock: Clock
    rng: random.Random
    informers: Any

    def node_infos(self) -> Sequence[NodeInfo]:
        """Every node's NodeInfo in this cycle's snapshot (``SnapshotSharedLister().NodeInfos().List()``)."""

    def node_info(self, name: str) -> NodeInfo | None:
        """The scheduler cache's NodeInfo of node ``name`` in this cycle's snapshot, or None."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """Pods nominated to ``node_name`` by preemption (``PodNominator.NominatedPodsForNode``)."""

    @property
    def waiting_pods(self) -> WaitingPods:
        """Pods held at Permit (``IterateOverWaitingPods`` / ``GetWaitingPod``)."""

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo,
                                               node: NodeInfo) -> Status | None:
        """Run the Filter plugins with higher-priority nominated pods added, as upstream
        ``RunFilterPluginsWithNominatedPods``."""

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: PodInfo, add: PodInfo,
                                         node: NodeInfo) -> Status | None:
        """Tell the PreFilter extensions that ``add`` is placed on ``node`` (``RunPreFilterExtensionAddPod``)."""

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: PodInfo, remove: PodInfo,
                                            node: NodeInfo) -> Status | None:
        """Tell the PreFilter extensions that ``remove`` leaves ``node`` (``RunPreFilterExtensionRemovePod``)."""

    def spawn(self, coro_fn: Callable[..., Any], *args: Any) -> None:
        """Run an async API action in the background (preemption's victim deletions)."""


@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    name: str

    def pre_enqueue(self, pod: PodInfo) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Protocol):
    name: str

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    name: str

    def events_to_register(self) -> list[ClusterEventWithHint]: ...


class PreFilterExtensions(Protocol):
    def add_pod(self, state: CycleState, pod: PodInfo, add: PodInfo, node: NodeInfo) -> Status | None: ...

    def remove_pod(self, state: CycleState, pod: PodInfo, remove: PodInfo, node: NodeInfo) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]: ...


@runtime_checkable
class FilterPlugin(Protocol):
    name: str

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None: ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: str

    def post_filter(self, state: CycleState, pod: PodInfo,
                    statuses: dict[str, Status]) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Protocol):
    name: str

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Protocol):
    name: str

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int: ...


@runtime_checkable
class ScoreNormalizer(Protocol):
    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> None:
        """Rescale ``scores`` (one per filtered node, in order) in place into [0, MAX_NODE_SCORE]."""


@runtime_checkable
class ReservePlugin(Protocol):
    name: str

    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Protocol):
    name: str

    def permit(self, state: CycleState, pod: PodInfo, node_name: str) -> tuple[Status | None, float]:
        """``(None, 0)`` allows; ``(Status(WAIT), timeout)`` holds the pod until some plugin allows or
        rejects it through ``handle.waiting_pods`` or ``timeout`` seconds pass (then it is rejected)."""


@runtime_checkable
class PreBindPlugin(Protocol):
    name: str

    async def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Protocol):
    name: str

    async def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        """Bind, or return ``Status(SKIP)`` to let the next Bind plugin do it."""


@runtime_checkable
class PostBindPlugin(Protocol):
    name: str

    def post_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> None: ...
