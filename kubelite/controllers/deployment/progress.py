"""Rollout progress (pkg/controller/deployment/progress.go ``syncRolloutStatus``, ``requeueStuckDeployment``,
``getReplicaFailures``).

The Progressing condition: ``NewReplicaSetAvailable`` once complete, ``ReplicaSetUpdated`` whenever the rollout
moved (updated, old, ready or available counts improved), and ``ProgressDeadlineExceeded`` (status False) when it
has not moved for ``progressDeadlineSeconds``. A stuck Deployment is looked at again exactly when its deadline
would pass, so the timeout is reported without any further event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubelite.api.types import Deployment, ReplicaSet
from kubelite.api.types.apps_v1 import DeploymentCondition, DeploymentStatus
from kubelite.controllers.deployment import util
from kubelite.controllers.deployment.sync import calculate_status
from kubelite.controllers.podutil import parse_timestamp

if TYPE_CHECKING:
    from kubelite.controllers.deployment.controller import DeploymentController

__all__ = ["requeue_stuck_deployment", "sync_rollout_status"]


async def sync_rollout_status(dc: DeploymentController, all_rss: list[ReplicaSet], new_rs: ReplicaSet | None,
                              d: Deployment) -> None:
    """``syncRolloutStatus``."""
    st = calculate_status(dc, all_rss, new_rs, d)
    if not util.has_progress_deadline(d):
        util.remove_condition(st, util.PROGRESSING)
    cur = util.get_condition(d.status, util.PROGRESSING)
    complete = (st.replicas or 0) == (st.updated_replicas or 0) and cur is not None \
        and cur.reason == util.NEW_RS_AVAILABLE_REASON
    now = dc.clock.now()
    ts = dc.clock.timestamp()
    rs_name = new_rs.metadata.name if new_rs is not None and new_rs.metadata is not None else None
    d_name = d.metadata.name if d.metadata is not None else ""
    if util.has_progress_deadline(d) and not complete:
        if util.deployment_complete(d, st):
            msg = f'ReplicaSet "{rs_name}" has successfully progressed.' if rs_name \
                else "Deployment has successfully progressed."
            util.set_condition(st, util.new_condition(util.PROGRESSING, "True", util.NEW_RS_AVAILABLE_REASON, msg, ts))
        elif util.deployment_progressing(d, st):
            msg = f'ReplicaSet "{rs_name}" is progressing.' if rs_name else f'Deployment "{d_name}" is progressing.'
            cond = util.new_condition(util.PROGRESSING, "True", util.RS_UPDATED_REASON, msg, ts)
            if cur is not None:
                if cur.status == "True":
                    cond.last_transition_time = cur.last_transition_time
                util.remove_condition(st, util.PROGRESSING)
            # progress refreshes lastUpdateTime, which restarts the deadline
            st.conditions = [*(st.conditions or ()), cond]
        elif util.deployment_timed_out(d, st, now):
            msg = f'ReplicaSet "{rs_name}" has timed out progressing.' if rs_name \
                else f'Deployment "{d_name}" has timed out progressing.'
            util.set_condition(st, util.new_condition(util.PROGRESSING, "False", util.TIMED_OUT_REASON, msg, ts))
    failures = _replica_failures(all_rss, new_rs)
    if failures is not None:
        util.set_condition(st, failures)
    else:
        util.remove_condition(st, util.REPLICA_FAILURE)
    if st == d.status:
        requeue_stuck_deployment(dc, d, st)
        return
    d.status = st
    await dc.update_deployment_status(d)


def _replica_failures(all_rss: list[ReplicaSet], new_rs: ReplicaSet | None) -> DeploymentCondition | None:
    """``getReplicaFailures``: the new RS's ReplicaFailure condition, else an old one's, as a Deployment condition."""
    ordered = ([new_rs] if new_rs is not None else []) + [rs for rs in all_rss if rs is not new_rs]
    for rs in ordered:
        for c in (rs.status.conditions if rs.status else None) or ():
            if c.type == util.REPLICA_FAILURE:
                return DeploymentCondition(type=util.REPLICA_FAILURE, status=c.status, reason=c.reason,
                                                message=c.message, last_update_time=c.last_transition_time,
                                                last_transition_time=c.last_transition_time)
    return None


def requeue_stuck_deployment(dc: DeploymentController, d: Deployment, st: DeploymentStatus) -> float:
    """``requeueStuckDeployment``: look again when the progress deadline passes; -1 when not needed."""
    cur = util.get_condition(d.status, util.PROGRESSING)
    if not util.has_progress_deadline(d) or cur is None or util.deployment_complete(d, st):
        return -1.0
    if cur.reason == util.TIMED_OUT_REASON or not cur.last_update_time:
        return -1.0
    pds = (d.spec.progress_deadline_seconds or 0) if d.spec else 0
    after = parse_timestamp(cur.last_update_time) + pds - dc.clock.now()
    if after < 1.0:
        dc.enqueue_rate_limited(d)
        return 0.0
    dc.enqueue_after(d, after)
    return after

