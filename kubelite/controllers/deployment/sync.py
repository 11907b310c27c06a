"""Scaling, the new ReplicaSet, revisions, cleanup and status (pkg/controller/deployment/sync.go).

Every function takes the controller ``dc`` (upstream's ``*DeploymentController`` receiver) and a private copy
``d`` of the Deployment, which it may mutate (annotations, status); ReplicaSets from the cache are copied before
they are changed and written with optimistic concurrency (a stale cache shows up as a 409 and a retry).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import msgspec

from kubelite.api.types import Deployment, OwnerReference, ReplicaSet
from kubelite.api.types.apps_v1 import DeploymentStatus, ReplicaSetSpec
from kubelite.api.types.meta_v1 import LabelSelector, ObjectMeta
from kubelite.controllers.controller_utils import controller_ref, owner_reference
from kubelite.controllers.deployment import util
from kubelite.errors import AlreadyExists, ApiError

if TYPE_CHECKING:
    from kubelite.controllers.deployment.controller import DeploymentController

__all__ = [
    "calculate_status",
    "cleanup_deployment",
    "get_all_replica_sets_and_sync_revision",
    "is_scaling_event",
    "scale_replica_set_and_record_event",
    "sync",
    "sync_deployment_status",
]


def _go_round(x: float) -> int:
    """Go's math.Round: halves away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _replicas(d: Deployment) -> int:
    return (d.spec.replicas or 0) if d.spec is not None else 0


async def get_all_replica_sets_and_sync_revision(
    dc: DeploymentController, d: Deployment, rss: list[ReplicaSet], create: bool,
) -> tuple[ReplicaSet | None, list[ReplicaSet]]:
    """``getAllReplicaSetsAndSyncRevision``: (new RS, every old RS)."""
    existing_new = util.find_new_replica_set(d, rss)
    _, all_old = util.find_old_replica_sets(d, rss, existing_new)
    new_rs = await _get_new_replica_set(dc, d, rss, all_old, existing_new, create)
    return new_rs, all_old


async def _get_new_replica_set(
    dc: DeploymentController, d: Deployment, rss: list[ReplicaSet], old_rss: list[ReplicaSet],
    existing: ReplicaSet | None, create: bool,
) -> ReplicaSet | None:
    """``getNewReplicaSet``: the new RS with its revision synced, created if ``create`` and missing."""
    new_revision = str(util.max_revision(old_rss) + 1)
    assert d.spec is not None and d.metadata is not None
    status = d.status if d.status is not None else DeploymentStatus()
    d.status = status
    if existing is not None:
        rs = dc.clone(existing)
        assert rs.spec is not None
        changed = util.set_new_replica_set_annotations(d, rs, new_revision, True)
        mrs_changed = rs.spec.min_ready_seconds != d.spec.min_ready_seconds
        if changed or mrs_changed:
            rs.spec.min_ready_seconds = d.spec.min_ready_seconds
            return await dc.update_replica_set(rs)
        needs_update = util.set_deployment_revision(d, (rs.metadata.annotations or {}).get(util.REVISION_ANNOTATION, "")
                                                    if rs.metadata else "")
        if util.has_progress_deadline(d) and util.get_condition(status, util.PROGRESSING) is None:
            msg = f'Found new replica set "{rs.metadata.name if rs.metadata else ""}"'
            util.set_condition(status, util.new_condition(util.PROGRESSING, "True", util.FOUND_NEW_RS_REASON, msg,
                                                          dc.clock.timestamp()))
            needs_update = True
        if needs_update:
            await dc.update_deployment_status(d)
        return rs
    if not create:
        return None

    tmpl = dc.clone(d.spec.template) if d.spec.template is not None else None
    assert tmpl is not None
    hash_ = util.compute_hash(d.spec.template, status.collision_count)
    if tmpl.metadata is None:
        tmpl.metadata = ObjectMeta()
    tmpl.metadata.labels = {**(tmpl.metadata.labels or {}), util.DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY: hash_}
    sel = d.spec.selector or LabelSelector()
    selector = msgspec.structs.replace(
        sel, match_labels={**(sel.match_labels or {}), util.DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY: hash_})
    name = f"{d.metadata.name}-{hash_}"
    new_rs = ReplicaSet(
        metadata=ObjectMeta(name=name, namespace=d.metadata.namespace, labels=dict(tmpl.metadata.labels),
                            owner_references=[msgspec.convert(owner_reference(d), type=OwnerReference)]),
        spec=ReplicaSetSpec(replicas=0, min_ready_seconds=d.spec.min_ready_seconds, selector=selector, template=tmpl),
    )
    all_rss = [*old_rss, new_rs]
    assert new_rs.spec is not None
    new_count = _new_rs_new_replicas(d, all_rss, new_rs)
    new_rs.spec.replicas = new_count
    util.set_new_replica_set_annotations(d, new_rs, new_revision, False)
    already_exists = False
    try:
        created = await dc.client.create(new_rs)
    except AlreadyExists:
        already_exists = True
        got = dc.rss.get_by_key(f"{d.metadata.namespace}/{name}")
        ref = controller_ref(got) if got is not None else None
        if got is not None and ref is not None and ref.uid == d.metadata.uid and got.spec is not None \
                and util.equal_ignore_hash(d.spec.template, got.spec.template):
            created = got  # our own RS from an earlier sync the cache had not shown yet
        else:
            # a hash collision: bump collisionCount so the next sync hashes differently
            status.collision_count = (status.collision_count or 0) + 1
            await dc.update_deployment_status(d)
            raise
    except ApiError as e:
        msg = f'Failed to create new replica set "{name}": {e}'
        if util.has_progress_deadline(d):
            util.set_condition(status, util.new_condition(util.PROGRESSING, "False", util.FAILED_RS_CREATE_REASON,
                                                          msg, dc.clock.timestamp()))
            await dc.update_deployment_status(d)
        dc.recorder.event(d, "Warning", "FailedCreate", msg)
        raise
    if not already_exists and new_count > 0:
        dc.recorder.event(d, "Normal", "ScalingReplicaSet", f"Scaled up replica set {name} from 0 to {new_count}")
    needs_update = util.set_deployment_revision(d, new_revision)
    if not already_exists and util.has_progress_deadline(d):
        util.set_condition(status, util.new_condition(util.PROGRESSING, "True", util.NEW_RS_REASON,
                                                      f'Created new replica set "{name}"', dc.clock.timestamp()))
        needs_update = True
    if needs_update:
        await dc.update_deployment_status(d)
    return created


def _new_rs_new_replicas(d: Deployment, all_rss: list[ReplicaSet], new_rs: ReplicaSet) -> int:
    """``NewRSNewReplicas``: how big the new RS may be now (RollingUpdate: within replicas + maxSurge)."""
    replicas = _replicas(d)
    if d.spec is not None and d.spec.strategy is not None and d.spec.strategy.type == "Recreate":
        return replicas
    surge = util.max_surge(d)
    current = util.replica_count(all_rss)
    max_total = replicas + surge
    if current >= max_total:
        return util.replicas_of(new_rs)
    up = min(max_total - current, replicas - util.replicas_of(new_rs))
    return util.replicas_of(new_rs) + up


new_rs_new_replicas = _new_rs_new_replicas


async def sync(dc: DeploymentController, d: Deployment, rss: list[ReplicaSet]) -> None:
    """``sync``: scaling events and paused Deployments (no rollout, only proportional scaling)."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(dc, d, rss, False)
    await _scale(dc, d, new_rs, old_rss)
    if d.spec is not None and d.spec.paused:
        await cleanup_deployment(dc, old_rss, d)
    await sync_deployment_status(dc, [*old_rss, *([new_rs] if new_rs else [])], new_rs, d)


def _find_active_or_latest(new_rs: ReplicaSet | None, old_rss: list[ReplicaSet]) -> ReplicaSet | None:
    """``FindActiveOrLatest``."""
    if new_rs is None and not old_rss:
        return None
    olds = util.by_creation(old_rss, reverse=True)
    active = util.filter_active([*olds, new_rs])
    if not active:
        return new_rs if new_rs is not None else olds[0]
    if len(active) == 1:
        return active[0]
    return None


def _is_saturated(d: Deployment, rs: ReplicaSet | None) -> bool:
    """``IsSaturated``: the RS has all the Deployment's replicas, and all of them are available."""
    if rs is None:
        return False
    desired = util.desired_replicas_annotation(rs)
    replicas = _replicas(d)
    avail = (rs.status.available_replicas or 0) if rs.status else 0
    return util.replicas_of(rs) == replicas and desired == replicas and avail == replicas


def _rs_fraction(rs: ReplicaSet, d: Deployment) -> int:
    """``getReplicaSetFraction``."""
    if _replicas(d) == 0:
        return -util.replicas_of(rs)
    deployment_replicas = _replicas(d) + util.max_surge(d)
    annotated = util.max_replicas_annotation(rs)
    if annotated is None:
        annotated = (d.status.replicas or 0) if d.status else 0
    if annotated == 0:
        return 0
    return _go_round(util.replicas_of(rs) * deployment_replicas / annotated) - util.replicas_of(rs)


def _proportion(rs: ReplicaSet | None, d: Deployment, to_add: int, added: int) -> int:
    """``GetProportion``."""
    if rs is None or util.replicas_of(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    frac = _rs_fraction(rs, d)
    allowed = to_add - added
    return min(frac, allowed) if to_add > 0 else max(frac, allowed)


async def _scale(dc: DeploymentController, d: Deployment, new_rs: ReplicaSet | None,
                 old_rss: list[ReplicaSet]) -> None:
    """``scale``: one active RS takes the new size; otherwise proportional scaling within replicas + maxSurge."""
    replicas = _replicas(d)
    active_or_latest = _find_active_or_latest(new_rs, old_rss)
    if active_or_latest is not None:
        if util.replicas_of(active_or_latest) != replicas:
            await scale_replica_set_and_record_event(dc, active_or_latest, replicas, d)
        return
    if _is_saturated(d, new_rs):
        for old in util.filter_active(old_rss):
            await scale_replica_set_and_record_event(dc, old, 0, d)
        return
    strategy = d.spec.strategy if d.spec is not None else None
    if strategy is not None and strategy.type == "Recreate":
        return
    all_rss = util.filter_active([*old_rss, new_rs])
    allowed = replicas + util.max_surge(d) if replicas > 0 else 0
    to_add = allowed - util.replica_count(all_rss)
    # ReplicaSetsBySizeNewer (scaling up) / BySizeOlder (down): biggest first, then newer / older first
    operation = "up" if to_add > 0 else "down"
    all_rss = util.by_creation(all_rss, reverse=to_add > 0)
    all_rss.sort(key=lambda rs: -util.replicas_of(rs))
    sizes: dict[str, int] = {}
    added = 0
    for rs in all_rss:
        name = rs.metadata.name if rs.metadata else ""
        if to_add != 0:
            p = _proportion(rs, d, to_add, added)
            sizes[name or ""] = util.replicas_of(rs) + p
            added += p
        else:
            sizes[name or ""] = util.replicas_of(rs)
    if to_add != added and all_rss:
        first = all_rss[0].metadata.name if all_rss[0].metadata else ""
        sizes[first or ""] = max(0, sizes[first or ""] + to_add - added)
    for rs in all_rss:
        await _scale_replica_set(dc, rs, sizes[(rs.metadata.name if rs.metadata else "") or ""], d, operation)


async def scale_replica_set_and_record_event(
    dc: DeploymentController, rs: ReplicaSet, new_scale: int, d: Deployment,
) -> tuple[bool, ReplicaSet]:
    """``scaleReplicaSetAndRecordEvent``."""
    if util.replicas_of(rs) == new_scale:
        return False, rs
    op = "up" if util.replicas_of(rs) < new_scale else "down"
    return await _scale_replica_set(dc, rs, new_scale, d, op)


async def _scale_replica_set(
    dc: DeploymentController, rs: ReplicaSet, new_scale: int, d: Deployment, operation: str,
) -> tuple[bool, ReplicaSet]:
    """``scaleReplicaSet``: write the size and the desired/max replicas annotations; event on a size change."""
    size_changed = util.replicas_of(rs) != new_scale
    desired = _replicas(d)
    max_r = desired + util.max_surge(d)
    if not size_changed and not util.replicas_annotations_need_update(rs, desired, max_r):
        return False, rs
    old_scale = util.replicas_of(rs)
    copy = dc.clone(rs)
    assert copy.spec is not None
    copy.spec.replicas = new_scale
    util.set_replicas_annotations(copy, desired, max_r)
    updated = await dc.update_replica_set(copy)
    if size_changed:
        dc.recorder.event(d, "Normal", "ScalingReplicaSet",
                          f"Scaled {operation} replica set {rs.metadata.name if rs.metadata else ''} "
                          f"from {old_scale} to {new_scale}")
    return True, updated


async def cleanup_deployment(dc: DeploymentController, old_rss: list[ReplicaSet], d: Deployment) -> None:
    """``cleanupDeployment``: delete the oldest empty old ReplicaSets beyond revisionHistoryLimit."""
    if not util.has_revision_history_limit(d):
        return
    limit = (d.spec.revision_history_limit or 0) if d.spec else 0
    cleanable = [rs for rs in old_rss if rs.metadata is not None and rs.metadata.deletion_timestamp is None]
    diff = len(cleanable) - limit
    if diff <= 0:
        return
    for rs in util.by_revision(cleanable)[:diff]:
        m, st = rs.metadata, rs.status
        assert m is not None
        if (st is not None and (st.replicas or 0) != 0) or util.replicas_of(rs) != 0 \
                or (m.generation or 0) > ((st.observed_generation or 0) if st else 0):
            continue  # still has (or may still have) pods
        try:
            await dc.client.delete(ReplicaSet, m.name or "", namespace=m.namespace)
        except ApiError as e:
            if e.code != 404:
                raise


def calculate_status(dc: DeploymentController, all_rss: list[ReplicaSet], new_rs: ReplicaSet | None,
                     d: Deployment) -> DeploymentStatus:
    """``calculateStatus``: the status fields ``kubectl rollout status`` reads, and the Available condition."""
    available = util.available_replica_count(all_rss)
    total = util.replica_count(all_rss)
    old = d.status or DeploymentStatus()
    st = DeploymentStatus(
        observed_generation=d.metadata.generation if d.metadata else None,
        replicas=util.actual_replica_count(all_rss),
        updated_replicas=util.actual_replica_count([new_rs]),
        ready_replicas=util.ready_replica_count(all_rss),
        available_replicas=available,
        unavailable_replicas=max(0, total - available),
        collision_count=old.collision_count,
        conditions=[msgspec.structs.replace(c) for c in old.conditions or ()] or None,
    )
    ts = dc.clock.timestamp()
    if available >= _replicas(d) - util.max_unavailable(d):
        cond = util.new_condition(util.AVAILABLE, "True", util.MIN_AVAILABLE_REASON,
                                  "Deployment has minimum availability.", ts)
    else:
        cond = util.new_condition(util.AVAILABLE, "False", util.MIN_UNAVAILABLE_REASON,
                                  "Deployment does not have minimum availability.", ts)
    util.set_condition(st, cond)
    return st


async def sync_deployment_status(dc: DeploymentController, all_rss: list[ReplicaSet], new_rs: ReplicaSet | None,
                                 d: Deployment) -> None:
    """``syncDeploymentStatus``."""
    st = calculate_status(dc, all_rss, new_rs, d)
    if st == d.status:
        return
    d.status = st
    await dc.update_deployment_status(d)


async def is_scaling_event(dc: DeploymentController, d: Deployment, rss: list[ReplicaSet]) -> bool:
    """``isScalingEvent``: an active RS's desired-replicas annotation differs from spec.replicas."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(dc, d, rss, False)
    for rs in util.filter_active([*old_rss, new_rs]):
        desired = util.desired_replicas_annotation(rs)
        if desired is not None and desired != _replicas(d):
            return True
    return False


async def check_paused_conditions(dc: DeploymentController, d: Deployment) -> None:
    """``checkPausedConditions``: Progressing=Unknown DeploymentPaused / DeploymentResumed."""
    if not util.has_progress_deadline(d):
        return
    st = d.status if d.status is not None else DeploymentStatus()
    d.status = st
    cond = util.get_condition(st, util.PROGRESSING)
    if cond is not None and cond.reason == util.TIMED_OUT_REASON:
        return  # a timed-out rollout stays timed out
    paused_exists = cond is not None and cond.reason == util.PAUSED_DEPLOY_REASON
    paused = bool(d.spec is not None and d.spec.paused)
    ts = dc.clock.timestamp()
    if paused and not paused_exists:
        util.set_condition(st, util.new_condition(util.PROGRESSING, "Unknown", util.PAUSED_DEPLOY_REASON,
                                                  "Deployment is paused", ts))
    elif not paused and paused_exists:
        util.set_condition(st, util.new_condition(util.PROGRESSING, "Unknown", util.RESUMED_DEPLOY_REASON,
                                                  "Deployment is resumed", ts))
    else:
        return
    await dc.update_deployment_status(d)
