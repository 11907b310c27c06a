"""Deployment helpers (pkg/controller/deployment/util/deployment_util.go, pod_util.go, replicaset_util.go and
pkg/controller/controller_utils.go's ReplicaSet sorts). Pure functions over typed objects; the ones whose names
start with ``set_`` mutate the (private copy of the) object they are given and say whether they changed it.

Deliberate deviation: :func:`compute_hash` hashes the template's canonical JSON (sorted keys) where upstream
hashes a ``spew`` dump of the Go struct, so hashes differ from a real cluster's; the scheme is otherwise
upstream's (fnv32a, collisionCount appended as 8 little-endian bytes, ``rand.SafeEncodeString`` of the
decimal sum), and hashes stay stable across runs and processes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import msgspec

from kubelite.api.types import Deployment, ReplicaSet
from kubelite.api.types.apps_v1 import DeploymentCondition, DeploymentStatus
from kubelite.api.types.core_v1 import PodSpec, PodTemplateSpec, ResourceRequirements
from kubelite.controllers.podutil import parse_timestamp
from kubelite.rand import SUFFIX_ALPHABET

__all__ = [
    "AVAILABLE",
    "DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY",
    "DESIRED_REPLICAS_ANNOTATION",
    "MAX_REPLICAS_ANNOTATION",
    "PROGRESSING",
    "REPLICA_FAILURE",
    "REVISION_ANNOTATION",
    "REVISION_HISTORY_ANNOTATION",
    "compute_hash",
    "deployment_complete",
    "deployment_progressing",
    "deployment_timed_out",
    "equal_ignore_hash",
    "find_new_replica_set",
    "has_progress_deadline",
    "has_revision_history_limit",
    "find_old_replica_sets",
    "get_condition",
    "max_revision",
    "max_surge",
    "max_unavailable",
    "new_condition",
    "resolve_fenceposts",
    "revision",
    "scaled_value",
    "set_condition",
]

DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000

AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"
# condition reasons (deployment_util.go)
NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
RS_UPDATED_REASON = "ReplicaSetUpdated"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
PAUSED_DEPLOY_REASON = "DeploymentPaused"
RESUMED_DEPLOY_REASON = "DeploymentResumed"
MIN_AVAILABLE_REASON = "MinimumReplicasAvailable"
MIN_UNAVAILABLE_REASON = "MinimumReplicasUnavailable"

#: annotations a ReplicaSet never copies from its Deployment (``skipCopyAnnotation``), and kubectl's rollback
#: keeps from the Deployment (``annotationsToSkip``)
SKIPPED_ANNOTATIONS = frozenset({LAST_APPLIED, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION,
                                 DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, DEPRECATED_ROLLBACK_TO})

_sorted_encode = msgspec.json.Encoder(order="sorted").encode


# --- hashing and templates ---------------------------------------------------------------------------------------

_NO_RESOURCES = ResourceRequirements()


def _semantic(template: PodTemplateSpec | None) -> PodTemplateSpec | None:
    """The template as upstream's Go types hold it: a container's ``resources`` is a value struct there
    (``ResourceRequirements``, not a pointer), so ``resources: {}`` and no ``resources`` are one value, hashed
    and compared alike. Clients built on those types send the ``{}`` (``kubectl rollout undo`` replaces the
    template with the ReplicaSet's, every container carrying ``resources: {}``), so without this a rollback
    to a revision whose containers have no resources would make a new ReplicaSet instead of reusing the old
    one. Templates without an empty ``resources`` come back as they are (their hashes do not change)."""
    spec = template.spec if template is not None else None
    if spec is None:
        return template
    changed: dict[str, object] = {}
    for field in ("containers", "init_containers", "ephemeral_containers"):
        containers = getattr(spec, field)
        if containers and any(c.resources == _NO_RESOURCES for c in containers):
            changed[field] = [msgspec.structs.replace(c, resources=None) if c.resources == _NO_RESOURCES else c
                              for c in containers]
    if not changed:
        return template
    assert template is not None
    new_spec: PodSpec = msgspec.structs.replace(spec, **changed)
    return msgspec.structs.replace(template, spec=new_spec)


def compute_hash(template: PodTemplateSpec | None, collision_count: int | None) -> str:
    """``controller.ComputeHash``: fnv32a over the template (+ collisionCount), rendered with SafeEncodeString."""
    h = 0x811C9DC5
    data = _sorted_encode(_semantic(template))
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + b"\0\0\0\0"
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    n = len(SUFFIX_ALPHABET)
    return "".join(SUFFIX_ALPHABET[b % n] for b in str(h).encode())


def _without_hash(template: PodTemplateSpec | None) -> PodTemplateSpec | None:
    if template is None or template.metadata is None or not template.metadata.labels \
            or DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY not in template.metadata.labels:
        return template
    labels = {k: v for k, v in template.metadata.labels.items() if k != DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY}
    meta = msgspec.structs.replace(template.metadata, labels=labels or None)
    return msgspec.structs.replace(template, metadata=meta)


def equal_ignore_hash(a: PodTemplateSpec | None, b: PodTemplateSpec | None) -> bool:
    """``EqualIgnoreHash``: equal templates once the pod-template-hash label is dropped from both."""
    return _without_hash(_semantic(a)) == _without_hash(_semantic(b))


# --- replica set collections -------------------------------------------------------------------------------------

def _created(rs: ReplicaSet) -> tuple[float, str]:
    m = rs.metadata
    assert m is not None
    return (parse_timestamp(m.creation_timestamp) if m.creation_timestamp else 0.0, m.name or "")


def by_creation(rss: Iterable[ReplicaSet], *, reverse: bool = False) -> list[ReplicaSet]:
    """``ReplicaSetsByCreationTimestamp`` (ties by name)."""
    return sorted(rss, key=_created, reverse=reverse)


def by_revision(rss: Iterable[ReplicaSet]) -> list[ReplicaSet]:
    """``ReplicaSetsByRevision``: oldest revision first (ties by creation)."""
    return sorted(rss, key=lambda rs: (revision(rs), *_created(rs)))


def replicas_of(rs: ReplicaSet | None) -> int:
    return (rs.spec.replicas or 0) if rs is not None and rs.spec is not None else 0


def find_new_replica_set(d: Deployment, rss: Sequence[ReplicaSet]) -> ReplicaSet | None:
    """``FindNewReplicaSet``: the oldest ReplicaSet whose template equals the Deployment's (ignoring the hash)."""
    tmpl = d.spec.template if d.spec is not None else None
    for rs in by_creation(rss):
        if equal_ignore_hash(rs.spec.template if rs.spec is not None else None, tmpl):
            return rs
    return None


def find_old_replica_sets(d: Deployment, rss: Sequence[ReplicaSet],
                          new_rs: ReplicaSet | None) -> tuple[list[ReplicaSet], list[ReplicaSet]]:
    """``FindOldReplicaSets``: (old ones with replicas, all old ones)."""
    new_uid = new_rs.metadata.uid if new_rs is not None and new_rs.metadata is not None else None
    all_old = [rs for rs in rss if rs.metadata is None or rs.metadata.uid != new_uid]
    return [rs for rs in all_old if replicas_of(rs) != 0], all_old


def filter_active(rss: Iterable[ReplicaSet | None]) -> list[ReplicaSet]:
    """``FilterActiveReplicaSets``: spec.replicas > 0."""
    return [rs for rs in rss if rs is not None and replicas_of(rs) > 0]


def replica_count(rss: Iterable[ReplicaSet | None]) -> int:
    """``GetReplicaCountForReplicaSets``: sum of spec.replicas."""
    return sum(replicas_of(rs) for rs in rss)


def _status_sum(rss: Iterable[ReplicaSet | None], field: str) -> int:
    total = 0
    for rs in rss:
        if rs is not None and rs.status is not None:
            total += getattr(rs.status, field) or 0
    return total


def actual_replica_count(rss: Iterable[ReplicaSet | None]) -> int:
    return _status_sum(rss, "replicas")


def ready_replica_count(rss: Iterable[ReplicaSet | None]) -> int:
    return _status_sum(rss, "ready_replicas")


def available_replica_count(rss: Iterable[ReplicaSet | None]) -> int:
    return _status_sum(rss, "available_replicas")


# --- revisions and annotations -----------------------------------------------------------------------------------

def revision(obj: ReplicaSet | Deployment) -> int:
    """``deploymentutil.Revision``: the revision annotation as an int (0 when absent or malformed)."""
    ann = obj.metadata.annotations if obj.metadata is not None else None
    v = ann.get(REVISION_ANNOTATION) if ann else None
    if not v:
        return 0
    try:
        return int(v)
    except ValueError:
        return 0


def max_revision(rss: Iterable[ReplicaSet]) -> int:
    return max((revision(rs) for rs in rss), default=0)


def _annotations(obj: ReplicaSet | Deployment) -> dict[str, str]:
    m = obj.metadata
    assert m is not None
    if m.annotations is None:
        m.annotations = {}
    return m.annotations


def copy_deployment_annotations(d: Deployment, rs: ReplicaSet) -> bool:
    """``copyDeploymentAnnotationsToReplicaSet``."""
    changed = False
    rs_ann = _annotations(rs)
    for k, v in ((d.metadata.annotations if d.metadata else None) or {}).items():
        if k in SKIPPED_ANNOTATIONS or rs_ann.get(k) == v:
            continue
        rs_ann[k] = v
        changed = True
    return changed


def set_replicas_annotations(rs: ReplicaSet, desired: int, max_replicas: int) -> bool:
    """``SetReplicasAnnotations``."""
    ann = _annotations(rs)
    changed = False
    for k, v in ((DESIRED_REPLICAS_ANNOTATION, str(desired)), (MAX_REPLICAS_ANNOTATION, str(max_replicas))):
        if ann.get(k) != v:
            ann[k] = v
            changed = True
    return changed


def replicas_annotations_need_update(rs: ReplicaSet, desired: int, max_replicas: int) -> bool:
    ann = (rs.metadata.annotations if rs.metadata else None) or {}
    return ann.get(DESIRED_REPLICAS_ANNOTATION) != str(desired) or ann.get(MAX_REPLICAS_ANNOTATION) != str(max_replicas)


def set_new_replica_set_annotations(d: Deployment, rs: ReplicaSet, new_revision: str, exists: bool) -> bool:
    """``SetNewReplicaSetAnnotations``: copy the Deployment's annotations, bump the revision (keeping the old one
    in revision-history, capped at 2000 characters) and, for a new ReplicaSet, the replicas annotations."""
    changed = copy_deployment_annotations(d, rs)
    ann = _annotations(rs)
    old = ann.get(REVISION_ANNOTATION, "")
    try:
        old_int = int(old) if old else 0
    except ValueError:
        return False
    new_int = int(new_revision)
    if old_int < new_int:
        ann[REVISION_ANNOTATION] = new_revision
        changed = True
    if old and old_int < new_int:
        history = ann.get(REVISION_HISTORY_ANNOTATION, "")
        olds = history.split(",")
        if not olds[0]:
            ann[REVISION_HISTORY_ANNOTATION] = old
        else:
            total = len(history) + len(old) + 1
            start = 0
            while total > MAX_REV_HISTORY_LENGTH_IN_CHARS and start < len(olds):
                total -= len(olds[start]) + 1
                start += 1
            if total <= MAX_REV_HISTORY_LENGTH_IN_CHARS:
                ann[REVISION_HISTORY_ANNOTATION] = ",".join([*olds[start:], old])
    if not exists:
        desired = (d.spec.replicas or 0) if d.spec else 0
        if set_replicas_annotations(rs, desired, desired + max_surge(d)):
            changed = True
    return changed


def set_deployment_revision(d: Deployment, rev: str) -> bool:
    ann = _annotations(d)
    if ann.get(REVISION_ANNOTATION) == rev:
        return False
    ann[REVISION_ANNOTATION] = rev
    return True


def desired_replicas_annotation(rs: ReplicaSet) -> int | None:
    ann = (rs.metadata.annotations if rs.metadata else None) or {}
    return _int_annotation(ann.get(DESIRED_REPLICAS_ANNOTATION))


def max_replicas_annotation(rs: ReplicaSet) -> int | None:
    ann = (rs.metadata.annotations if rs.metadata else None) or {}
    return _int_annotation(ann.get(MAX_REPLICAS_ANNOTATION))


def _int_annotation(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        return None


# --- surge and unavailability ------------------------------------------------------------------------------------

def scaled_value(v: int | str | None, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if v is None:
        return 0
    if isinstance(v, int):
        return v
    if not v.endswith("%"):
        raise ValueError(f"invalid value for IntOrString: invalid type: string is not a percentage: {v!r}")
    pct = int(v[:-1])
    x = pct * total / 100
    return math.ceil(x) if round_up else math.floor(x)


def resolve_fenceposts(surge: int | str | None, unavailable: int | str | None, desired: int) -> tuple[int, int]:
    """``ResolveFenceposts``: surge rounds up, unavailability down; both zero means one may be unavailable."""
    s = scaled_value(surge, desired, True)
    u = scaled_value(unavailable, desired, False)
    if s == 0 and u == 0:
        u = 1
    return s, u


def _rolling(d: Deployment) -> tuple[int | str | None, int | str | None] | None:
    st = d.spec.strategy if d.spec is not None else None
    if st is None or st.type == "Recreate":
        return None
    ru = st.rolling_update
    return (ru.max_surge, ru.max_unavailable) if ru is not None else ("25%", "25%")


def max_surge(d: Deployment) -> int:
    r = _rolling(d)
    if r is None:
        return 0
    return resolve_fenceposts(r[0], r[1], (d.spec.replicas or 0) if d.spec else 0)[0]


def max_unavailable(d: Deployment) -> int:
    r = _rolling(d)
    replicas = (d.spec.replicas or 0) if d.spec else 0
    if r is None or replicas == 0:
        return 0
    return min(resolve_fenceposts(r[0], r[1], replicas)[1], replicas)


# --- conditions --------------------------------------------------------------------------------------------------

def new_condition(type_: str, status: str, reason: str, message: str, timestamp: str) -> DeploymentCondition:
    return DeploymentCondition(type=type_, status=status, reason=reason, message=message,
                               last_update_time=timestamp, last_transition_time=timestamp)


def get_condition(status: DeploymentStatus | None, type_: str) -> DeploymentCondition | None:
    for c in (status.conditions if status is not None else None) or ():
        if c.type == type_:
            return c
    return None


def set_condition(status: DeploymentStatus, cond: DeploymentCondition) -> None:
    """``SetDeploymentCondition``: same status and reason is a no-op; same status keeps the transition time."""
    cur = get_condition(status, cond.type or "")
    if cur is not None and cur.status == cond.status and cur.reason == cond.reason:
        return
    if cur is not None and cur.status == cond.status:
        cond.last_transition_time = cur.last_transition_time
    status.conditions = [*(c for c in status.conditions or () if c.type != cond.type), cond]


def remove_condition(status: DeploymentStatus, type_: str) -> None:
    status.conditions = [c for c in status.conditions or () if c.type != type_] or None


# --- progress ----------------------------------------------------------------------------------------------------

def deployment_complete(d: Deployment, st: DeploymentStatus) -> bool:
    """``DeploymentComplete``: every replica updated and available, and the latest spec observed."""
    replicas = (d.spec.replicas or 0) if d.spec else 0
    gen = (d.metadata.generation or 0) if d.metadata else 0
    return ((st.updated_replicas or 0) == replicas and (st.replicas or 0) == replicas
            and (st.available_replicas or 0) == replicas and (st.observed_generation or 0) >= gen)


def deployment_progressing(d: Deployment, st: DeploymentStatus) -> bool:
    """``DeploymentProgressing``: more updated, fewer old, more ready or more available replicas than before."""
    old = d.status or DeploymentStatus()
    old_old = (old.replicas or 0) - (old.updated_replicas or 0)
    new_old = (st.replicas or 0) - (st.updated_replicas or 0)
    return ((st.updated_replicas or 0) > (old.updated_replicas or 0) or new_old < old_old
            or (st.ready_replicas or 0) > (old.ready_replicas or 0)
            or (st.available_replicas or 0) > (old.available_replicas or 0))


def deployment_timed_out(d: Deployment, st: DeploymentStatus, now: float) -> bool:
    """``DeploymentTimedOut``: no progress for progressDeadlineSeconds since the Progressing condition's update."""
    pds = d.spec.progress_deadline_seconds if d.spec else None
    if pds is None:
        return False
    cond = get_condition(st, PROGRESSING)
    if cond is None or cond.reason == NEW_RS_AVAILABLE_REASON:
        return False
    if cond.reason == TIMED_OUT_REASON:
        return True
    if not cond.last_update_time:
        return False
    return parse_timestamp(cond.last_update_time) + pds < now


def has_progress_deadline(d: Deployment) -> bool:
    """``HasProgressDeadline``: set and not MaxInt32."""
    pds = d.spec.progress_deadline_seconds if d.spec else None
    return pds is not None and pds != 2**31 - 1


def has_revision_history_limit(d: Deployment) -> bool:
    rhl = d.spec.revision_history_limit if d.spec else None
    return rhl is not None and rhl != 2**31 - 1
