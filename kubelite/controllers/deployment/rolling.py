"""The RollingUpdate strategy (pkg/controller/deployment/rolling.go).

Invariant (what the tests check continuously): the pods of all the Deployment's ReplicaSets never exceed
``replicas + maxSurge``, and the available ones never drop below ``replicas - maxUnavailable``. The new RS only
grows into the surge budget (``NewRSNewReplicas``), and old RSs only shrink by what is available beyond the
minimum, after discounting the new RS's unavailable pods (``reconcileOldReplicaSets``); unhealthy old pods go
first (``cleanupUnhealthyReplicas``), oldest ReplicaSets first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubelite.api.types import Deployment, ReplicaSet
from kubelite.controllers.deployment import util
from kubelite.controllers.deployment.progress import sync_rollout_status
from kubelite.controllers.deployment.sync import (
    cleanup_deployment,
    get_all_replica_sets_and_sync_revision,
    new_rs_new_replicas,
    scale_replica_set_and_record_event,
)

if TYPE_CHECKING:
    from kubelite.controllers.deployment.controller import DeploymentController

__all__ = ["rollout_rolling"]


def _replicas(d: Deployment) -> int:
    return (d.spec.replicas or 0) if d.spec is not None else 0


async def rollout_rolling(dc: DeploymentController, d: Deployment, rss: list[ReplicaSet]) -> None:
    """``rolloutRolling``: scale up the new RS, else scale down old ones, else clean up; then status."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(dc, d, rss, True)
    assert new_rs is not None
    all_rss = [*old_rss, new_rs]
    if await _reconcile_new_replica_set(dc, all_rss, new_rs, d):
        await sync_rollout_status(dc, all_rss, new_rs, d)
        return
    if await _reconcile_old_replica_sets(dc, all_rss, util.filter_active(old_rss), new_rs, d):
        await sync_rollout_status(dc, all_rss, new_rs, d)
        return
    if d.status is not None and util.deployment_complete(d, d.status):
        await cleanup_deployment(dc, old_rss, d)
    await sync_rollout_status(dc, all_rss, new_rs, d)


async def _reconcile_new_replica_set(dc: DeploymentController, all_rss: list[ReplicaSet], new_rs: ReplicaSet,
                                     d: Deployment) -> bool:
    """``reconcileNewReplicaSet``."""
    replicas = _replicas(d)
    if util.replicas_of(new_rs) == replicas:
        return False
    if util.replicas_of(new_rs) > replicas:
        scaled, _ = await scale_replica_set_and_record_event(dc, new_rs, replicas, d)
        return scaled
    scaled, _ = await scale_replica_set_and_record_event(dc, new_rs, new_rs_new_replicas(d, all_rss, new_rs), d)
    return scaled


async def _reconcile_old_replica_sets(dc: DeploymentController, all_rss: list[ReplicaSet], old_rss: list[ReplicaSet],
                                      new_rs: ReplicaSet, d: Deployment) -> bool:
    """``reconcileOldReplicaSets``."""
    if util.replica_count(old_rss) == 0:
        return False
    all_pods = util.replica_count(all_rss)
    min_available = _replicas(d) - util.max_unavailable(d)
    new_unavailable = util.replicas_of(new_rs) - ((new_rs.status.available_replicas or 0) if new_rs.status else 0)
    max_scaled_down = all_pods - min_available - new_unavailable
    if max_scaled_down <= 0:
        return False
    old_rss, cleaned = await _cleanup_unhealthy_replicas(dc, old_rss, d, max_scaled_down)
    scaled = await _scale_down_old_for_rolling_update(dc, [*old_rss, new_rs], old_rss, d)
    return cleaned + scaled > 0


async def _cleanup_unhealthy_replicas(dc: DeploymentController, old_rss: list[ReplicaSet], d: Deployment,
                                      max_cleanup: int) -> tuple[list[ReplicaSet], int]:
    """``cleanupUnhealthyReplicas``: drop old RSs' unavailable pods first, oldest RS first."""
    total = 0
    out: list[ReplicaSet] = []
    for rs in util.by_creation(old_rss):
        if total >= max_cleanup:
            out.append(rs)
            continue
        avail = (rs.status.available_replicas or 0) if rs.status else 0
        if util.replicas_of(rs) == 0 or util.replicas_of(rs) == avail:
            out.append(rs)
            continue
        down = min(max_cleanup - total, util.replicas_of(rs) - avail)
        _, updated = await scale_replica_set_and_record_event(dc, rs, util.replicas_of(rs) - down, d)
        total += down
        out.append(updated)
    return out, total


async def _scale_down_old_for_rolling_update(dc: DeploymentController, all_rss: list[ReplicaSet],
                                             old_rss: list[ReplicaSet], d: Deployment) -> int:
    """``scaleDownOldReplicaSetsForRollingUpdate``: only what is available above the minimum."""
    min_available = _replicas(d) - util.max_unavailable(d)
    available = util.available_replica_count(all_rss)
    if available <= min_available:
        return 0
    budget = available - min_available
    total = 0
    for rs in util.by_creation(old_rss):
        if total >= budget:
            break
        if util.replicas_of(rs) == 0:
            continue
        down = min(util.replicas_of(rs), budget - total)
        await scale_replica_set_and_record_event(dc, rs, util.replicas_of(rs) - down, d)
        total += down
    return total
