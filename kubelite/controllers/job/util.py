"""Pure helpers of the Job controller: completion indexes, pod failure policy, pod backoff, conditions.

Follows pkg/controller/job: ``indexed_job_utils.go`` (``getCompletionIndex``, ``calculateSucceededIndexes``,
``firstPendingIndexes``, ``appendDuplicatedIndexPodsForRemoval``, interval strings such as ``"1,3-5"``),
``pod_failure_policy.go`` (``matchPodFailurePolicy``), ``backoff_utils.go`` (``newBackoffRecord``,
``getRemainingTime``: 10 s doubling per failure after the last success, capped at 6 minutes) and
``job_controller.go`` (``ensureJobConditionStatus``, ``isPodFailed``, ``pastBackoffLimitOnFailure``).
Nothing here mutates its arguments except :func:`ensure_condition`, which edits the list it is given
(a private copy of the status); nothing does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kubelite.api.types import Job, Pod
from kubelite.api.types.batch_v1 import JobCondition
from kubelite.controllers.podutil import parse_timestamp

__all__ = [
    "COMPLETION_INDEX_ANNOTATION",
    "COMPLETION_INDEX_ENV",
    "DEFAULT_BACKOFF",
    "MAX_BACKOFF",
    "TRACKING_FINALIZER",
    "BackoffRecord",
    "completion_index",
    "ensure_condition",
    "find_condition",
    "first_pending_indexes",
    "format_indexes",
    "has_tracking_finalizer",
    "is_indexed",
    "is_pod_failed",
    "match_pod_failure_policy",
    "new_backoff_record",
    "only_replace_failed_pods",
    "parse_indexes",
    "past_backoff_limit_on_failure",
    "pods_with_duplicate_indexes",
]

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
DEFAULT_BACKOFF = 10.0  # DefaultJobPodFailureBackOff
MAX_BACKOFF = 360.0  # MaxJobPodFailureBackOff


def is_indexed(job: Job) -> bool:
    return job.spec is not None and job.spec.completion_mode == "Indexed"


def has_tracking_finalizer(pod: Pod) -> bool:
    fins = pod.metadata.finalizers if pod.metadata is not None else None
    return bool(fins) and TRACKING_FINALIZER in fins  # type: ignore[operator]


def completion_index(pod: Pod) -> int:
    """``getCompletionIndex``: the annotation as a non-negative decimal, else -1 (unknown)."""
    ann = pod.metadata.annotations if pod.metadata is not None else None
    v = (ann or {}).get(COMPLETION_INDEX_ANNOTATION)
    if v is None or not v.isdigit():
        return -1
    return int(v)


def only_replace_failed_pods(job: Job) -> bool:
    """``onlyReplaceFailedPods``: podReplacementPolicy Failed, or any podFailurePolicy."""
    spec = job.spec
    assert spec is not None
    return spec.pod_replacement_policy == "Failed" or spec.pod_failure_policy is not None


def is_pod_failed(pod: Pod, job: Job) -> bool:
    """``isPodFailed``: Failed, or (unless only failed pods are replaced) deleted before succeeding."""
    phase = pod.status.phase if pod.status is not None else None
    if phase == "Failed":
        return True
    if only_replace_failed_pods(job):
        return False
    return pod.metadata is not None and pod.metadata.deletion_timestamp is not None and phase != "Succeeded"


def past_backoff_limit_on_failure(job: Job, pods: Iterable[Pod], backoff_limit: int) -> bool:
    """``pastBackoffLimitOnFailure``: for restartPolicy OnFailure, container restarts count as failures."""
    spec = job.spec
    tmpl_spec = spec.template.spec if spec is not None and spec.template is not None else None
    if tmpl_spec is None or tmpl_spec.restart_policy != "OnFailure":
        return False
    total = 0
    for p in pods:
        st = p.status
        if st is None or st.phase not in ("Running", "Pending"):
            continue
        for cs in (st.init_container_statuses or ()):
            total += cs.restart_count or 0
        for cs in (st.container_statuses or ()):
            total += cs.restart_count or 0
    return total > 0 if backoff_limit == 0 else total >= backoff_limit


# --- completion indexes ----------------------------------------------------------------------------------------

def parse_indexes(s: str | None, completions: int) -> set[int]:
    """``parseIndexesFromString``: ``"1,3-5"`` -> {1, 3, 4, 5}, dropping indexes >= completions."""
    out: set[int] = set()
    for part in (s or "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if hi else a
        except ValueError:
            continue
        out.update(range(a, min(b, completions - 1) + 1))
    return out


def format_indexes(indexes: Iterable[int]) -> str:
    """``orderedIntervals.String``: sorted indexes as ``first-last`` runs (single ones alone)."""
    parts: list[str] = []
    run_start = prev = -2
    for i in sorted(indexes):
        if i == prev + 1:
            prev = i
            continue
        if run_start >= 0:
            parts.append(str(run_start) if run_start == prev else f"{run_start}-{prev}")
        run_start = prev = i
    if run_start >= 0:
        parts.append(str(run_start) if run_start == prev else f"{run_start}-{prev}")
    return ",".join(parts)


def first_pending_indexes(active: Sequence[Pod], succeeded: set[int], count: int, completions: int) -> list[int]:
    """``firstPendingIndexes``: the lowest ``count`` indexes neither succeeded nor held by an active pod."""
    taken = set(succeeded)
    for p in active:
        ix = completion_index(p)
        if ix >= 0:
            taken.add(ix)
    out: list[int] = []
    i = 0
    while len(out) < count and i < completions:
        if i not in taken:
            out.append(i)
        i += 1
    return out


def pods_with_duplicate_indexes(active: Sequence[Pod], completions: int) -> tuple[list[Pod], list[Pod]]:
    """``appendDuplicatedIndexPodsForRemoval``: (to remove, to keep). Pods with an invalid index go; of
    several pods with one index, the first created stays."""
    rm: list[Pod] = []
    keep: list[Pod] = []
    seen: set[int] = set()

    def created(p: Pod) -> tuple[float, str]:
        ts = p.metadata.creation_timestamp if p.metadata is not None else None
        return (parse_timestamp(ts) if ts else 0.0, (p.metadata.name or "") if p.metadata is not None else "")

    for p in sorted(active, key=lambda p: (completion_index(p), *created(p))):
        ix = completion_index(p)
        if ix < 0 or ix >= completions or ix in seen:
            rm.append(p)
        else:
            seen.add(ix)
            keep.append(p)
    return rm, keep


# --- pod failure policy ----------------------------------------------------------------------------------------

def _match_exit_codes(pod: Pod, req: Any) -> Any:
    """``matchOnExitCodes``: the first terminated container (init containers after the app ones) whose
    non-zero exit code satisfies the requirement."""
    st = pod.status
    if st is None:
        return None
    values = req.values or []
    for statuses in (st.container_statuses, st.init_container_statuses):
        for cs in statuses or ():
            term = cs.state.terminated if cs.state is not None else None
            if term is None or not term.exit_code:
                continue
            if req.container_name and req.container_name != cs.name:
                continue
            hit = term.exit_code in values
            if (req.operator == "In" and hit) or (req.operator == "NotIn" and not hit):
                return cs
    return None


def _match_conditions(pod: Pod, patterns: Sequence[Any]) -> Any:
    conds = (pod.status.conditions if pod.status is not None else None) or ()
    for pat in patterns:
        want = pat.status or "True"
        for c in conds:
            if c.type == pat.type and c.status == want:
                return c
    return None


def match_pod_failure_policy(policy: Any, pod: Pod) -> tuple[str | None, bool, str | None]:
    """``matchPodFailurePolicy``: (FailJob message or None, whether the failure counts, matched action)."""
    if policy is None:
        return None, True, None
    m = pod.metadata
    ns, name = (m.namespace, m.name) if m is not None else ("", "")
    for i, rule in enumerate(policy.rules or ()):
        action = rule.action
        if rule.on_exit_codes is not None:
            cs = _match_exit_codes(pod, rule.on_exit_codes)
            if cs is None:
                continue
            if action == "FailJob":
                code = cs.state.terminated.exit_code
                return (f"Container {cs.name} for pod {ns}/{name} failed with exit code {code} matching "
                        f"FailJob rule at index {i}"), True, action
        elif rule.on_pod_conditions:
            c = _match_conditions(pod, rule.on_pod_conditions)
            if c is None:
                continue
            if action == "FailJob":
                return f"Pod {ns}/{name} has condition {c.type} matching FailJob rule at index {i}", True, action
        else:
            continue
        if action == "Ignore":
            return None, False, action
        return None, True, action  # Count, FailIndex
    return None, True, None


# --- backoff -----------------------------------------------------------------------------------------------------

class BackoffRecord:
    """``backoffRecord``: failures since the last success and when the last of them finished."""

    __slots__ = ("failures_after_last_success", "last_failure_time")

    def __init__(self, failures: int = 0, last_failure_time: float | None = None) -> None:
        self.failures_after_last_success = failures
        self.last_failure_time = last_failure_time

    def remaining(self, now: float) -> float:
        """``getRemainingTimeForFailuresCount``: 10 s, doubling per further failure, capped at 6 min."""
        n = self.failures_after_last_success
        if n == 0 or self.last_failure_time is None:
            return 0.0
        d = DEFAULT_BACKOFF
        for _ in range(1, n):
            d *= 2
            if d >= MAX_BACKOFF:
                d = MAX_BACKOFF
                break
        elapsed = now - self.last_failure_time
        return 0.0 if d < elapsed else d - elapsed


def finished_time(pod: Pod) -> float:
    """``getFinishedTime``: the latest container finish, else the deletion time, else the creation time."""
    st = pod.status
    best: float | None = None
    for cs in (st.container_statuses if st is not None else None) or ():
        term = cs.state.terminated if cs.state is not None else None
        if term is not None and term.finished_at:
            t = parse_timestamp(term.finished_at)
            if best is None or t > best:
                best = t
    if best is not None:
        return best
    m = pod.metadata
    if m is not None and m.deletion_timestamp:
        return parse_timestamp(m.deletion_timestamp)
    return parse_timestamp(m.creation_timestamp) if m is not None and m.creation_timestamp else 0.0


def new_backoff_record(old: BackoffRecord | None, succeeded: Sequence[Pod], failed: Sequence[Pod]) -> BackoffRecord:
    """``newBackoffRecord``: fold newly finished pods into the stored record."""
    rec = BackoffRecord(old.failures_after_last_success, old.last_failure_time) if old is not None else BackoffRecord()
    failed_times = sorted(finished_time(p) for p in failed)
    if not succeeded:
        if failed_times:
            rec.failures_after_last_success += len(failed_times)
            rec.last_failure_time = failed_times[-1]
        return rec
    rec.failures_after_last_success = 0
    rec.last_failure_time = None
    last_success = max(finished_time(p) for p in succeeded)
    for t in reversed(failed_times):
        if t <= last_success:
            break
        if rec.last_failure_time is None:
            rec.last_failure_time = t
        rec.failures_after_last_success += 1
    return rec


# --- conditions --------------------------------------------------------------------------------------------------

def find_condition(conditions: Sequence[JobCondition] | None, type_: str) -> JobCondition | None:
    for c in conditions or ():
        if c.type == type_:
            return c
    return None


def new_condition(type_: str, status: str, reason: str, message: str, now: str) -> JobCondition:
    return JobCondition(type=type_, status=status, reason=reason or None, message=message or None,
                        last_probe_time=now, last_transition_time=now)


def ensure_condition(conditions: list[JobCondition], type_: str, status: str, reason: str, message: str,
                     now: str) -> bool:
    """``ensureJobConditionStatus``: set the condition in place; a missing False condition is not added."""
    for i, c in enumerate(conditions):
        if c.type == type_:
            if c.status != status or (c.reason or "") != reason or (c.message or "") != message:
                conditions[i] = new_condition(type_, status, reason, message, now)
                return True
            return False
    if status != "False":
        conditions.append(new_condition(type_, status, reason, message, now))
        return True
    return False
