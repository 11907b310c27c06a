"""Pure taint and toleration logic shared by the node lifecycle and taint-eviction controllers.

Follows ``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` (``nodeConditionToTaintKeyStatusMap``,
``doNoScheduleTaintingPass``), ``pkg/util/taints`` (``TaintSetDiff``) and
``staging/src/k8s.io/api/core/v1/toleration.go`` (``ToleratesTaint``) plus
``pkg/controller/tainteviction/taint_eviction.go`` (``getMinTolerationTime``). No I/O: every function
takes plain values and returns new ones; nothing passed in is mutated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kubelite.api.types import Node
from kubelite.api.types.core_v1 import Taint, Toleration

__all__ = [
    "NOT_READY",
    "NO_EXECUTE",
    "NO_SCHEDULE",
    "UNREACHABLE",
    "condition_taints",
    "get_matching_tolerations",
    "min_toleration_seconds",
    "no_execute_taints",
    "tolerates",
]

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"

#: condition type -> {status: taint key} (upstream ``nodeConditionToTaintKeyStatusMap``).
CONDITION_TAINTS: dict[str, dict[str, str]] = {
    "Ready": {"False": NOT_READY, "Unknown": UNREACHABLE},
    "MemoryPressure": {"True": "node.kubernetes.io/memory-pressure"},
    "DiskPressure": {"True": "node.kubernetes.io/disk-pressure"},
    "NetworkUnavailable": {"True": "node.kubernetes.io/network-unavailable"},
    "PIDPressure": {"True": "node.kubernetes.io/pid-pressure"},
}
#: every key the NoSchedule pass owns (upstream ``taintKeyToNodeConditionMap`` plus unschedulable).
CONDITION_TAINT_KEYS = frozenset(
    [k for m in CONDITION_TAINTS.values() for k in m.values()] + [UNSCHEDULABLE])


def condition_taints(node: Node) -> list[str]:
    """Keys of the NoSchedule taints ``node``'s conditions and ``spec.unschedulable`` call for, in
    upstream's order (``doNoScheduleTaintingPass``)."""
    keys: list[str] = []
    status = node.status
    for c in (status.conditions if status is not None else None) or ():
        key = CONDITION_TAINTS.get(c.type or "", {}).get(c.status or "")
        if key is not None:
            keys.append(key)
    if node.spec is not None and node.spec.unschedulable:
        keys.append(UNSCHEDULABLE)
    return keys


def no_execute_taints(node: Node | None) -> list[Taint]:
    if node is None or node.spec is None:
        return []
    return [t for t in node.spec.taints or () if t.effect == NO_EXECUTE]


def tolerates(tol: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: effect (empty matches all), key (empty + Exists matches all),
    then operator Exists, or Equal/empty with equal values."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key != taint.key and not (not tol.key and tol.operator == "Exists"):
        return False
    if tol.operator == "Exists":
        return True
    if tol.operator in (None, "", "Equal"):
        return (tol.value or "") == (taint.value or "")
    return False


def get_matching_tolerations(taints: Sequence[Taint], tolerations: Iterable[Toleration]
                             ) -> tuple[bool, list[Toleration]]:
    """``v1helper.GetMatchingTolerations``: whether every taint is tolerated, and the tolerations used."""
    tols = list(tolerations)
    used: list[Toleration] = []
    for taint in taints:
        match = next((t for t in tols if tolerates(t, taint)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


def min_toleration_seconds(tolerations: Iterable[Toleration]) -> float:
    """``getMinTolerationTime``: the smallest ``tolerationSeconds`` (negative ones count as 0); ``-1``
    (forever) when none of them sets it; 0 for no tolerations at all."""
    tols = list(tolerations)
    if not tols:
        return 0.0
    best = -1.0
    for t in tols:
        if t.toleration_seconds is None:
            continue
        secs = max(0.0, float(t.toleration_seconds))
        if best < 0 or secs < best:
            best = secs
    return best
