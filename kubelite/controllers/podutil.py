"""Pod helpers shared by the workload controllers (pkg/api/v1/pod/util.go, pkg/controller/controller_utils.go).

Contract: every function here only *reads* the objects it is given (typed ``Pod`` Structs or any Struct with
``metadata``); they never mutate informer-cache objects and never do I/O. They sit on hot paths (one call per
pod per sync), so each is a handful of attribute lookups; timestamps are parsed once per distinct string.

- :func:`is_pod_ready`, :func:`pod_ready_time`, :func:`is_pod_available` (``podutil.IsPodAvailable``).
- :func:`is_pod_active` (``controller.IsPodActive``): not Succeeded/Failed and not being deleted.
- :data:`POD_NODE_INDEX` and :func:`pod_node_index`: the pod informer's index by ``spec.nodeName`` (node
  lifecycle, taint eviction and the pod GC share it).
- :func:`sort_pods_for_deletion` (``controller.ActivePodsWithRanks.Less`` with the LogarithmicScaleDown and
  PodDeletionCost gates on, as they are upstream by default).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from kubelite.api.types import Pod
from kubelite.clock import parse_time
from kubelite.memo import memoize

__all__ = [
    "POD_NODE_INDEX",
    "POD_DELETION_COST_ANNOTATION",
    "deletion_cost",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "max_container_restarts",
    "pod_node_index",
    "parse_timestamp",
    "pod_ready_time",
    "pods_to_delete",
    "sort_pods_for_deletion",
]

#: the pod informer's index of pods by ``spec.nodeName`` (upstream's ``nodeNameKeyIndex``)
POD_NODE_INDEX = "spec.nodeName"


def pod_node_index(pod: Any) -> list[str]:
    spec = pod.spec
    return [spec.node_name] if spec is not None and spec.node_name else []


POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"

# podPhaseToOrdinal in controller_utils.go: Pending < Unknown < Running (others sort with Pending)
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


# bound: distinct RFC 3339 seconds seen in object timestamps; 65,536 covers 18 h of distinct seconds
@memoize("controllers.podutil.parse_timestamp", maxsize=65536)
def parse_timestamp(s: str) -> float:
    """RFC 3339 -> seconds since the epoch, cached: thousands of pods share a few distinct seconds."""
    return parse_time(s)


def _ready_condition(pod: Pod) -> Any:
    st = pod.status
    if st is None or not st.conditions:
        return None
    for c in st.conditions:
        if c.type == "Ready":
            return c
    return None


def is_pod_ready(pod: Pod) -> bool:
    """The pod's Ready condition is True (``podutil.IsPodReady``)."""
    c = _ready_condition(pod)
    return c is not None and c.status == "True"


def pod_ready_time(pod: Pod) -> float | None:
    """When the pod became Ready (its Ready condition's lastTransitionTime), or None if not ready."""
    c = _ready_condition(pod)
    if c is None or c.status != "True" or not c.last_transition_time:
        return None
    return parse_timestamp(c.last_transition_time)


def is_pod_available(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """Ready for at least ``min_ready_seconds`` (``podutil.IsPodAvailable``: ready time + min < now)."""
    c = _ready_condition(pod)
    if c is None or c.status != "True":
        return False
    if not min_ready_seconds:
        return True
    if not c.last_transition_time:
        return False
    return parse_timestamp(c.last_transition_time) + min_ready_seconds < now


def is_pod_active(pod: Pod) -> bool:
    """``controller.IsPodActive``: not Succeeded, not Failed, no deletionTimestamp."""
    st = pod.status
    phase = st.phase if st is not None else None
    return phase != "Succeeded" and phase != "Failed" and (pod.metadata is None or pod.metadata.deletion_timestamp is None)


def max_container_restarts(pod: Pod) -> int:
    """The highest restartCount among the pod's containers (and restartable init containers)."""
    st = pod.status
    if st is None:
        return 0
    best = 0
    for cs in st.container_statuses or ():
        if (cs.restart_count or 0) > best:
            best = cs.restart_count or 0
    for cs in st.init_container_statuses or ():
        if (cs.restart_count or 0) > best:
            best = cs.restart_count or 0
    return best


def deletion_cost(pod: Pod) -> int:
    """``controller.kubernetes.io/pod-deletion-cost`` (0 when absent or not an int32)."""
    ann = pod.metadata.annotations if pod.metadata is not None else None
    if not ann:
        return 0
    v = ann.get(POD_DELETION_COST_ANNOTATION)
    if v is None:
        return 0
    try:
        n = int(v)
    except ValueError:
        return 0
    return n if -(2**31) <= n < 2**31 else 0


def _log_rank(t: float, now: float) -> int:
    """``logarithmicRankDiff``'s bucket: floor(log2(age in nanoseconds)), -1 for a non-positive age."""
    d = round((now - t) * 1e9)
    return int(math.log2(d)) if d > 0 else -1


class _Ranked:
    """One pod with everything ``Less`` compares, computed once (sorting calls the comparison n log n times)."""

    __slots__ = ("cost", "created", "node", "phase", "rank", "ready", "ready_time", "restarts", "uid")

    def __init__(self, pod: Pod, rank: int) -> None:
        m = pod.metadata
        st = pod.status
        self.node = bool(pod.spec is not None and pod.spec.node_name)
        self.phase = _PHASE_ORDINAL.get((st.phase if st is not None else None) or "", 0)
        self.ready_time = pod_ready_time(pod)
        self.ready = is_pod_ready(pod)
        self.cost = deletion_cost(pod)
        self.rank = rank
        self.restarts = max_container_restarts(pod)
        ts = m.creation_timestamp if m is not None else None
        self.created = parse_timestamp(ts) if ts else None
        self.uid = (m.uid or "") if m is not None else ""


def _after_or_zero(t1: float | None, t2: float | None) -> bool:
    """``afterOrZero``: an unset time sorts first, then the later time."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _time_less(t1: float | None, t2: float | None, uid1: str, uid2: str, now: float) -> bool:
    if t1 is None or t2 is None:
        return _after_or_zero(t1, t2)
    diff = _log_rank(t1, now) - _log_rank(t2, now)
    if diff == 0:
        return uid1 < uid2
    return diff < 0


def _less(a: _Ranked, b: _Ranked, now: float) -> bool:
    """``ActivePodsWithRanks.Less``: True when ``a`` should be deleted before ``b``."""
    if a.node != b.node:  # 1. unassigned < assigned
        return not a.node
    if a.phase != b.phase:  # 2. Pending < Unknown < Running
        return a.phase < b.phase
    if a.ready != b.ready:  # 3. not ready < ready
        return not a.ready
    if a.cost != b.cost:  # 4. lower pod-deletion-cost < higher
        return a.cost < b.cost
    if a.rank != b.rank:  # 5. doubled up (more related pods on its node) < not doubled up
        return a.rank > b.rank
    if a.ready and b.ready and a.ready_time != b.ready_time:  # 6. ready for less time < more time
        return _time_less(a.ready_time, b.ready_time, a.uid, b.uid, now)
    if a.restarts != b.restarts:  # 7. more restarts < fewer restarts
        return a.restarts > b.restarts
    if a.created != b.created:  # 8. empty creation time < newer < older
        return _time_less(a.created, b.created, a.uid, b.uid, now)
    return False


def sort_pods_for_deletion(pods: Sequence[Pod], ranks: Sequence[int], now: float) -> list[Pod]:
    """``pods`` ordered most-deletable first (``sort.Sort(ActivePodsWithRanks{pods, ranks, now})``)."""
    items = [(_Ranked(p, r), p) for p, r in zip(pods, ranks, strict=True)]

    def cmp(x: tuple[_Ranked, Pod], y: tuple[_Ranked, Pod]) -> int:
        if _less(x[0], y[0], now):
            return -1
        if _less(y[0], x[0], now):
            return 1
        return 0

    items.sort(key=functools.cmp_to_key(cmp))
    return [p for _, p in items]


def pods_to_delete(filtered: Sequence[Pod], related: Sequence[Pod], diff: int, now: float) -> list[Pod]:
    """The ``diff`` pods a ReplicaSet scales down first (replica_set.go ``getPodsToDelete``): ranked by how
    many active related pods (of the same owner's ReplicaSets) share their node."""
    if diff >= len(filtered):
        return list(filtered[:diff])
    on_node: dict[str, int] = {}
    for p in related:
        if is_pod_active(p):
            n = (p.spec.node_name if p.spec is not None else None) or ""
            on_node[n] = on_node.get(n, 0) + 1
    ranks = [on_node.get((p.spec.node_name if p.spec is not None else None) or "", 0) for p in filtered]
    return sort_pods_for_deletion(filtered, ranks, now)[:diff]
