"""ReplicaSet status (pkg/controller/replicaset/replica_set_utils.go ``calculateStatus``,
``updateReplicaSetStatus``, ``NewReplicaSetCondition``, ``SetCondition``, ``RemoveCondition``).

Contract: :func:`calculate_status` is pure (it reads the cached ReplicaSet and pods, never mutates them);
:func:`update_status` writes ``status`` only when something changed or ``observedGeneration`` lags, retrying
once on a conflict with a fresh read, as upstream's ``statusUpdateRetries = 1``.
"""

from __future__ import annotations

import msgspec

from kubelite.api.labels import selector_from_set
from kubelite.api.types import Pod, ReplicaSet
from kubelite.api.types.apps_v1 import ReplicaSetCondition, ReplicaSetStatus
from kubelite.client import Client
from kubelite.controllers.podutil import is_pod_available, is_pod_ready
from kubelite.errors import Conflict

__all__ = ["REPLICA_FAILURE", "calculate_status", "update_status"]

REPLICA_FAILURE = "ReplicaFailure"


def calculate_status(
    rs: ReplicaSet, active_pods: list[Pod], manage_error: Exception | None, *, now: float, timestamp: str,
) -> ReplicaSetStatus:
    """The status ``active_pods`` (claimed, active) imply; a ReplicaFailure condition reflects ``manage_error``."""
    spec = rs.spec
    assert spec is not None
    min_ready = spec.min_ready_seconds or 0
    tmpl_labels = spec.template.metadata.labels if spec.template and spec.template.metadata else None
    template_selector = selector_from_set(tmpl_labels)
    matches = template_selector.matches
    fully = ready = available = 0
    for p in active_pods:
        if matches(p.metadata.labels if p.metadata is not None else None):
            fully += 1
        if is_pod_ready(p):
            ready += 1
            if is_pod_available(p, min_ready, now):
                available += 1
    old = rs.status
    conditions = list(old.conditions or ()) if old is not None else []
    failure = next((c for c in conditions if c.type == REPLICA_FAILURE), None)
    if manage_error is not None and failure is None:
        diff = len(active_pods) - (spec.replicas if spec.replicas is not None else 1)
        reason = "FailedCreate" if diff < 0 else "FailedDelete"
        conditions.append(ReplicaSetCondition(type=REPLICA_FAILURE, status="True", reason=reason,
                                              message=str(manage_error), last_transition_time=timestamp))
    elif manage_error is None and failure is not None:
        conditions = [c for c in conditions if c.type != REPLICA_FAILURE]
    return ReplicaSetStatus(
        replicas=len(active_pods), fully_labeled_replicas=fully, ready_replicas=ready, available_replicas=available,
        observed_generation=old.observed_generation if old is not None else None,
        conditions=conditions or None,
    )


def _same(a: ReplicaSetStatus | None, b: ReplicaSetStatus) -> bool:
    if a is None:
        return False
    return ((a.replicas or 0) == (b.replicas or 0) and (a.fully_labeled_replicas or 0) == (b.fully_labeled_replicas or 0)
            and (a.ready_replicas or 0) == (b.ready_replicas or 0)
            and (a.available_replicas or 0) == (b.available_replicas or 0)
            and (a.conditions or None) == (b.conditions or None))


async def update_status(client: Client, rs: ReplicaSet, new: ReplicaSetStatus) -> ReplicaSet:
    """Write ``new`` (with observedGeneration = generation) unless nothing would change."""
    meta = rs.metadata
    assert meta is not None
    if _same(rs.status, new) and (rs.status and rs.status.observed_generation) == meta.generation:
        return rs
    for attempt in range(2):
        status = msgspec.structs.replace(new, observed_generation=meta.generation)
        try:
            return await client.replace_status(msgspec.structs.replace(rs, status=status))  # type: ignore[no-any-return]
        except Conflict:
            if attempt == 1:
                raise
            # statusUpdateRetries: read the latest version and try once more
            rs = await client.get(type(rs), meta.name or "", namespace=meta.namespace)
            meta = rs.metadata
            assert meta is not None
    raise AssertionError("unreachable")
