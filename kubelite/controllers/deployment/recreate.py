"""The Recreate strategy (pkg/controller/deployment/recreate.go).

Guarantee: no pod of the new template is created while any old pod still exists (running, pending, unknown or
terminating); only Succeeded and Failed pods of old ReplicaSets are ignored (``oldPodsRunning``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubelite.api.types import Deployment, Pod, ReplicaSet
from kubelite.controllers.deployment import util
from kubelite.controllers.deployment.progress import sync_rollout_status
from kubelite.controllers.deployment.sync import (
    cleanup_deployment,
    get_all_replica_sets_and_sync_revision,
    scale_replica_set_and_record_event,
)

if TYPE_CHECKING:
    from kubelite.controllers.deployment.controller import DeploymentController

__all__ = ["rollout_recreate"]


async def rollout_recreate(dc: DeploymentController, d: Deployment, rss: list[ReplicaSet]) -> None:
    """``rolloutRecreate``: old RSs to zero, wait for their pods to be gone, then the new RS to full size."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(dc, d, rss, False)
    all_rss = [*old_rss, *([new_rs] if new_rs else [])]
    scaled = False
    for rs in util.filter_active(old_rss):
        s, _ = await scale_replica_set_and_record_event(dc, rs, 0, d)
        scaled = scaled or s
    if scaled:
        await sync_rollout_status(dc, all_rss, new_rs, d)
        return
    if _old_pods_running(new_rs, old_rss, dc.pod_map(d, rss)):
        await sync_rollout_status(dc, all_rss, new_rs, d)
        return
    if new_rs is None:
        new_rs, old_rss = await get_all_replica_sets_and_sync_revision(dc, d, rss, True)
        all_rss = [*old_rss, *([new_rs] if new_rs else [])]
    if new_rs is not None:
        replicas = (d.spec.replicas or 0) if d.spec else 0
        await scale_replica_set_and_record_event(dc, new_rs, replicas, d)
    if d.status is not None and util.deployment_complete(d, d.status):
        await cleanup_deployment(dc, old_rss, d)
    await sync_rollout_status(dc, all_rss, new_rs, d)


def _old_pods_running(new_rs: ReplicaSet | None, old_rss: list[ReplicaSet], pod_map: dict[str, list[Pod]]) -> bool:
    """``oldPodsRunning``."""
    if util.actual_replica_count(old_rss) > 0:
        return True
    new_uid = new_rs.metadata.uid if new_rs is not None and new_rs.metadata is not None else None
    for uid, pods in pod_map.items():
        if uid == new_uid:
            continue
        for p in pods:
            phase = p.status.phase if p.status else None
            if phase not in ("Failed", "Succeeded"):
                return True
    return False
