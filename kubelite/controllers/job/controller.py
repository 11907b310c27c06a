"""The Job controller (pkg/controller/job/job_controller.go ``syncJob``, ``manageJob``,
``trackJobStatusAndRemoveFinalizers``).

Guarantees:
- **Every finished pod is counted exactly once.** Pods are created with the
  ``batch.kubernetes.io/job-tracking`` finalizer. A finished pod's uid first goes into
  ``status.uncountedTerminatedPods`` (written to the API), then its finalizer is removed, and only then
  is it moved into ``succeeded``/``failed``. A pod whose finalizer is gone was counted, so a restart or a
  stale cache can never count it twice, and the pod cannot vanish (GC, PodGC) before it is counted.
- **No duplicate creates on a stale cache**: ``ControllerExpectations`` as for ReplicaSets, plus
  finalizer-removal expectations (uids whose finalizer patch is not yet observed are not counted again).
- **Terminal conditions are delayed until nothing runs** (upstream 1.31+): the controller first writes the
  interim ``FailureTarget`` or ``SuccessCriteriaMet`` condition, deletes the remaining active pods, and sets
  ``Failed``/``Complete`` (and ``completionTime``) once no pod is terminating and every pod is counted.
- Failed pods are recreated after an exponential backoff (10 s doubling per failure since the last
  success, capped at 6 min); ``backoffLimit`` (default 6) exceeded -> ``BackoffLimitExceeded``;
  ``activeDeadlineSeconds`` since ``startTime`` -> ``DeadlineExceeded``; ``suspend`` deletes active pods
  and resets ``startTime`` on resume; ``podFailurePolicy`` rules FailJob/Ignore/Count.
- A Job whose ``spec.selector`` is missing is left alone (the apiserver generates it on create).
Orphaned pods still holding the finalizer (their Job gone or finished) are released by a second
reconciler, ``syncOrphanPod``. Events: SuccessfulCreate "Created pod: x", SuccessfulDelete, Completed
"Job completed", and a Warning with the failure reason and message.
"""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec

from kubelite.api.codec import json_decoder
from kubelite.api.types import Job, Pod
from kubelite.api.types.batch_v1 import JobStatus, UncountedTerminatedPods
from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    ControllerExpectations,
    OwnedObjectHandler,
    PodControl,
    claim_objects,
    controller_ref,
    label_selector,
    namespace_terminating,
    object_key,
    orphan_index_key,
    owner_reference,
    resolve_controller_ref,
    slow_start_batch,
)
from kubelite.controllers.handler import Enqueue, unwrap
from kubelite.controllers.job import util
from kubelite.controllers.job.tracking import (
    REMOVE_FINALIZER_PATCH,
    StatusTracker,
    SyncContext,
    is_job_finished,
)
from kubelite.controllers.job.util import TRACKING_FINALIZER, BackoffRecord, has_tracking_finalizer
from kubelite.controllers.podutil import is_pod_ready, parse_timestamp, sort_pods_for_deletion
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer
from kubelite.supervise import gather

__all__ = ["MAX_POD_CREATE_DELETE_PER_SYNC", "JobController", "is_job_finished"]

MAX_POD_CREATE_DELETE_PER_SYNC = 500
_encode = msgspec.json.encode


def _key(ns: str, name: str) -> str:
    return f"{ns}/{name}"


class PodHandler(OwnedObjectHandler):
    """The toolkit's owned-pod handler with the Job's finalizer bookkeeping (``addPod``, ``updatePod``,
    ``deletePod``): a pod whose tracking finalizer is gone lowers the finalizer-removal expectations; a pod of
    a finished Job wakes nobody (``syncOrphanPod`` releases it). Deletions are counted, not tracked by key, so
    only the *first* update of a terminating pod counts as its deletion (upstream lowers the count on every
    such update and can undercount)."""

    def __init__(self, jc: JobController) -> None:
        super().__init__("Job", jc.jobs, expectations=jc.expectations, terminating_counted_once=True)
        self.jc = jc

    def update(self, old_obj: Any, new_obj: Any, enqueue: Enqueue) -> None:
        old, cur = unwrap(old_obj), unwrap(new_obj)
        om, cm = old.metadata, cur.metadata
        if om.resource_version == cm.resource_version:
            return
        ref = controller_ref(cur)
        if ref is not None and has_tracking_finalizer(old) and not has_tracking_finalizer(cur):
            self.jc._finalizer_removed(_key(cm.namespace or "", ref.name or ""), cm.uid or "")
        super().update(old, cur, enqueue)

    def deleted(self, obj: Any, enqueue: Enqueue, *, final: bool) -> None:
        if final or not has_tracking_finalizer(obj):
            ref = controller_ref(obj)
            job = self.resolve(obj, ref) if ref is not None else None
            if job is not None and not is_job_finished(job):
                self.jc._finalizer_removed(object_key(job), obj.metadata.uid or "")
        super().deleted(obj, enqueue, final=final)

    def deletion_observed(self, owner_key: str, owner: Any, obj: Any, *, final: bool) -> bool:
        if is_job_finished(owner):
            return False  # the orphan reconciler releases its finalizer
        return super().deletion_observed(owner_key, owner, obj, final=final)


class JobController(StatusTracker):
    """The reconciler for Jobs, its pod handler and the orphan-pod reconciler (see the module docstring)."""

    def __init__(self, *, client: Client, pods: SharedIndexInformer, jobs: SharedIndexInformer, clock: Clock,
                 recorder: EventRecorder) -> None:
        self.client = client
        self.pods = pods.get_indexer()
        self.jobs = jobs.get_indexer()
        self.clock = clock
        self.recorder = recorder
        self.expectations = ControllerExpectations(clock=clock)
        self.finalizer_expectations: dict[str, set[str]] = {}
        self.backoffs: dict[str, BackoffRecord] = {}
        self.pod_handler = PodHandler(self)
        self.pod_control = PodControl(client, recorder)

    def _finalizer_removed(self, key: str, uid: str) -> None:
        s = self.finalizer_expectations.get(key)
        if s is not None:
            s.discard(uid)

    def orphan_requests(self, pod: Any) -> list[Request]:
        """Map function of the orphan-pod controller: pods holding the finalizer whose Job is gone or done."""
        if not has_tracking_finalizer(pod):
            return []
        m = pod.metadata
        ref = controller_ref(pod)
        if ref is not None:
            if ref.kind != "Job":
                return []
            job = resolve_controller_ref(self.jobs, m.namespace or "", ref, "Job")
            if job is not None and not is_job_finished(job):
                return []
        return [Request(m.namespace or "", m.name or "")]

    async def sync_orphan_pod(self, req: Request) -> Result | None:
        """``syncOrphanPod``: release the tracking finalizer of a pod no running Job will count."""
        pod: Pod | None = self.pods.get_by_key(_key(req.namespace, req.name))
        if pod is None or self.orphan_requests(pod) == []:
            return None
        with contextlib.suppress(NotFound):
            await self.client.patch(Pod, req.name, REMOVE_FINALIZER_PATCH, namespace=req.namespace)
        return None

    # --- sync ----------------------------------------------------------------------------------------------------

    async def reconcile(self, req: Request) -> Result | None:
        """``syncJob``."""
        key = _key(req.namespace, req.name)
        shared: Job | None = self.jobs.get_by_key(key)
        if shared is None:
            self.expectations.delete(key)
            self.finalizer_expectations.pop(key, None)
            self.backoffs.pop(key, None)
            return None
        if is_job_finished(shared):
            self.backoffs.pop(key, None)
            return None
        spec = shared.spec
        if spec is None or spec.selector is None or spec.template is None:
            return None  # not yet defaulted; the apiserver generates the selector
        if spec.managed_by and spec.managed_by != "kubernetes.io/job-controller":
            return None
        if spec.completion_mode not in (None, "NonIndexed", "Indexed"):
            self.recorder.event(shared, "Warning", "UnknownCompletionMode",
                                "Skipped Job sync because completion mode is unknown")
            return None
        # a private copy: the status is edited in place below. The typed decoder is built on the first Job
        # synced (json_decoder), not at import: building msgspec's type tree for Job (its pod template with
        # every volume source) cost ~40 ms of every cluster's first start (issue #17, cold start).
        job = json_decoder(Job).decode(_encode(shared))
        st = job.status = job.status or JobStatus()
        if st.uncounted_terminated_pods is None:
            st.uncounted_terminated_pods = UncountedTerminatedPods()
        satisfied = self.expectations.satisfied(key)
        pods = await self._pods_for_job(job)
        jc = SyncContext(job, pods, set(self.finalizer_expectations.get(key, ())))
        active = len(jc.active_pods)
        new_succeeded, new_failed = self._new_finished_pods(jc)
        jc.succeeded = (st.succeeded or 0) + len(new_succeeded) + len(jc.uncounted_succeeded)
        jc.failed = (st.failed or 0) + self._non_ignored(job, new_failed) + len(jc.uncounted_failed)
        suspended = bool(spec.suspend)
        now = self.clock.now()
        ts = format_time(now)
        if st.start_time is None and not suspended:
            st.start_time = ts
        jc.backoff = util.new_backoff_record(self.backoffs.get(key), new_succeeded, new_failed)
        backoff_limit = spec.backoff_limit if spec.backoff_limit is not None else 6
        jc.finished = self._criteria_met(job)
        if jc.finished is None:
            target = util.find_condition(st.conditions, "FailureTarget")
            if target is not None and target.status == "True":
                jc.finished = ("Failed", target.reason or "", target.message or "")
            elif (msg := self._fail_job_message(job, pods)) is not None:
                jc.finished = ("FailureTarget", "PodFailurePolicy", msg)
        if jc.finished is None:
            if jc.failed > backoff_limit or util.past_backoff_limit_on_failure(job, pods, backoff_limit):
                jc.finished = ("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
            elif self._past_active_deadline(job, now):
                jc.finished = ("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline")
            elif spec.active_deadline_seconds is not None and not suspended and st.start_time:
                jc.requeue_after(spec.active_deadline_seconds - (now - parse_timestamp(st.start_time)))
        completions = spec.completions
        if util.is_indexed(job) and completions is not None:
            jc.prev_succeeded_ix = util.parse_indexes(st.completed_indexes, completions)
            jc.succeeded_ix = jc.prev_succeeded_ix | {
                ix for p in pods if p.status is not None and p.status.phase == "Succeeded"
                and has_tracking_finalizer(p) and 0 <= (ix := util.completion_index(p)) < completions}
            jc.succeeded = len(jc.succeeded_ix)
        suspend_changed = False
        manage_err: Exception | None = None
        if jc.finished is not None:
            deleted_ready, deleted, manage_err = await self._delete_pods(job, key, jc.active_pods, expect=False)
            if deleted != active or not satisfied:
                jc.finished = None  # pods may remain that the cache has not shown us yet
            active -= deleted
            jc.terminating += deleted
            jc.ready -= deleted_ready
        else:
            managed = False
            if satisfied and job.metadata is not None and job.metadata.deletion_timestamp is None:
                active, manage_err = await self._manage_job(job, key, jc)
                managed = True
            if completions is None:
                complete = jc.succeeded > 0 and active == 0
            else:
                complete = jc.succeeded >= completions and active == 0
            if complete:
                jc.finished = ("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods")
            elif managed:
                conds = st.conditions = list(st.conditions or ())
                if suspended:
                    if util.ensure_condition(conds, "Suspended", "True", "JobSuspended", "Job suspended", ts):
                        suspend_changed = True
                        self.recorder.event(shared, "Normal", "Suspended", "Job suspended")
                elif util.ensure_condition(conds, "Suspended", "False", "JobResumed", "Job resumed", ts):
                    suspend_changed = True
                    self.recorder.event(shared, "Normal", "Resumed", "Job resumed")
                    st.start_time = ts  # activeDeadlineSeconds counts continuous activity
        needs_update = (suspend_changed or active != (st.active or 0) or jc.ready != st.ready
                        or jc.terminating != st.terminating)
        st.active = active
        st.ready = jc.ready
        st.terminating = jc.terminating
        await self._track_status(key, jc, needs_update)
        if manage_err is not None:
            raise manage_err
        return Result(requeue_after=max(jc.requeue, 0.001)) if jc.requeue is not None else None

    @staticmethod
    def _criteria_met(job: Job) -> Any:
        c = util.find_condition(job.status.conditions if job.status is not None else None, "SuccessCriteriaMet")
        if c is not None and c.status == "True":
            return ("SuccessCriteriaMet", c.reason or "", c.message or "")
        return None

    @staticmethod
    def _fail_job_message(job: Job, pods: list[Pod]) -> str | None:
        """``getFailJobMessage``."""
        policy = job.spec.pod_failure_policy if job.spec is not None else None
        if policy is None:
            return None
        for p in pods:
            if util.is_pod_failed(p, job):
                msg, _, _ = util.match_pod_failure_policy(policy, p)
                if msg is not None:
                    return msg
        return None

    @staticmethod
    def _non_ignored(job: Job, failed: list[Pod]) -> int:
        policy = job.spec.pod_failure_policy if job.spec is not None else None
        if policy is None:
            return len(failed)
        return sum(1 for p in failed if util.match_pod_failure_policy(policy, p)[1])

    @staticmethod
    def _past_active_deadline(job: Job, now: float) -> bool:
        spec, st = job.spec, job.status
        assert spec is not None and st is not None
        if spec.active_deadline_seconds is None or st.start_time is None or spec.suspend:
            return False
        return now - parse_timestamp(st.start_time) >= spec.active_deadline_seconds

    def _new_finished_pods(self, jc: SyncContext) -> tuple[list[Pod], list[Pod]]:
        """``getNewFinishedPods``: finished pods still holding the finalizer and not yet uncounted."""
        succeeded: list[Pod] = []
        failed: list[Pod] = []
        job = jc.job
        indexed = util.is_indexed(job)
        completions = job.spec.completions if job.spec is not None else None
        for p in jc.pods:
            uid = p.metadata.uid if p.metadata is not None else ""
            if not has_tracking_finalizer(p) or uid in jc.expected_rm:
                continue
            if indexed and not (0 <= util.completion_index(p) < (completions or 0)):
                continue
            if p.status is not None and p.status.phase == "Succeeded":
                if uid not in jc.uncounted_succeeded:
                    succeeded.append(p)
            elif util.is_pod_failed(p, job) and uid not in jc.uncounted_failed:
                failed.append(p)
        return succeeded, failed

    async def _pods_for_job(self, job: Job) -> list[Pod]:
        """``getPodsForJob``: the Job's pods, adopting matching orphans and releasing non-matching ones."""
        meta, spec = job.metadata, job.spec
        assert meta is not None and spec is not None
        candidates = list(self.pods.by_index(CONTROLLER_UID_INDEX, meta.uid or ""))
        candidates += self.pods.by_index(CONTROLLER_UID_INDEX, orphan_index_key(meta.namespace or ""))

        claimed = await claim_objects(self.client, Pod, job, label_selector(spec.selector), candidates)
        if claimed.errors:
            raise claimed.errors[0]
        return claimed.claimed

    # --- manageJob -----------------------------------------------------------------------------------------------

    async def _manage_job(self, job: Job, key: str, jc: SyncContext) -> tuple[int, Exception | None]:
        """``manageJob``: create or delete pods toward the wanted active count; returns (active, error)."""
        spec = job.spec
        assert spec is not None
        active = len(jc.active_pods)
        parallelism = spec.parallelism if spec.parallelism is not None else 1
        if spec.suspend:
            ready, removed, err = await self._delete_pods(job, key, jc.active_pods, expect=True)
            jc.terminating += removed
            jc.ready -= ready
            return active - removed, err
        if spec.completions is None:
            want = active if jc.succeeded > 0 else parallelism
        else:
            want = max(0, min(spec.completions - jc.succeeded, parallelism))
        to_delete: list[Pod] = []
        left = jc.active_pods
        if util.is_indexed(job):
            to_delete, left = util.pods_with_duplicate_indexes(jc.active_pods, spec.completions or 0)
        rm_at_least = max(0, active - want)
        if len(to_delete) < rm_at_least:
            ranked = sort_pods_for_deletion(left, [0] * len(left), self.clock.now())
            to_delete += ranked[:rm_at_least - len(to_delete)]
        to_delete = to_delete[:MAX_POD_CREATE_DELETE_PER_SYNC]
        if to_delete:
            ready, removed, err = await self._delete_pods(job, key, to_delete, expect=True)
            jc.terminating += removed
            jc.ready -= ready
            return active - removed, err
        terminating = jc.terminating if util.only_replace_failed_pods(job) else 0
        diff = want - terminating - active
        if diff <= 0:
            return active, None
        remaining = jc.backoff.remaining(self.clock.now())
        if remaining > 0:
            jc.requeue_after(remaining)
            return active, None
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int] = []
        if util.is_indexed(job):
            indexes = util.first_pending_indexes(jc.active_pods, jc.succeeded_ix, diff, spec.completions or 0)
            diff = len(indexes)
            if diff == 0:
                return active, None
        self.expectations.expect_creations(key, diff)
        base = self._pod_body(job)
        pending = list(indexes)

        async def create_one() -> None:
            body = base
            if pending:
                body = self._indexed_body(job, base, pending.pop(0))
            try:
                await self.pod_control.create_pod(job, body)
            except ApiError as e:
                self.expectations.creation_observed(key)
                if not namespace_terminating(e):
                    raise

        ok, err = await slow_start_batch(diff, 1, create_one)
        failed_creates = 0 if err is None else diff - ok
        for _ in range(len(pending)):
            self.expectations.creation_observed(key)  # skipped creates will never be observed
        return active + diff - failed_creates, err

    @staticmethod
    def _pod_body(job: Job) -> dict[str, Any]:
        """``GetPodFromTemplate`` plus the tracking finalizer (and, for Indexed Jobs, the index env var)."""
        meta, spec = job.metadata, job.spec
        assert meta is not None and spec is not None and spec.template is not None
        tmpl = msgspec.to_builtins(spec.template)
        tm = tmpl.get("metadata") or {}
        pm: dict[str, Any] = {"generateName": f"{meta.name}-", "namespace": meta.namespace,
                              "ownerReferences": [owner_reference(job)]}
        for k in ("labels", "annotations"):
            if tm.get(k):
                pm[k] = tm[k]
        fins = list(tm.get("finalizers") or ())
        if TRACKING_FINALIZER not in fins:
            fins.append(TRACKING_FINALIZER)
        pm["finalizers"] = fins
        pod_spec = tmpl.get("spec") or {}
        if util.is_indexed(job):
            env = {"name": util.COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": {
                "fieldPath": f"metadata.annotations['{util.COMPLETION_INDEX_ANNOTATION}']"}}}
            for group in ("initContainers", "containers"):
                for c in pod_spec.get(group) or ():
                    if not any(e.get("name") == util.COMPLETION_INDEX_ENV for e in c.get("env") or ()):
                        c["env"] = [*(c.get("env") or ()), env]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": pm, "spec": pod_spec}

    @staticmethod
    def _indexed_body(job: Job, base: dict[str, Any], index: int) -> dict[str, Any]:
        """Index annotation and label, ``<job>-<index>`` hostname, ``<job>-<index>-`` generateName."""
        name = (job.metadata.name if job.metadata is not None else None) or ""
        pm = dict(base["metadata"])
        pm["annotations"] = {**(pm.get("annotations") or {}), util.COMPLETION_INDEX_ANNOTATION: str(index)}
        pm["labels"] = {**(pm.get("labels") or {}), util.COMPLETION_INDEX_ANNOTATION: str(index)}
        prefix = f"{name}-{index}-"
        pm["generateName"] = prefix if len(prefix) <= 58 else f"{name[:58 - len(str(index)) - 2]}-{index}-"
        spec = dict(base["spec"])
        spec["hostname"] = f"{name}-{index}"[:63]
        return {**base, "metadata": pm, "spec": spec}

    async def _delete_pods(self, job: Job, key: str, pods: list[Pod], *, expect: bool) -> tuple[int, int, Exception | None]:
        """``deleteJobPods`` (``expect``: with deletion expectations; also drops the finalizer first) or
        ``deleteActivePods`` (keeps finalizers). Returns (ready deleted, deleted, first error)."""
        if not pods:
            return 0, 0, None
        if expect:
            self.expectations.expect_deletions(key, len(pods))

        async def one(p: Pod) -> Exception | None:
            m = p.metadata
            assert m is not None
            try:
                if expect and has_tracking_finalizer(p):
                    await self.client.patch(Pod, m.name or "", REMOVE_FINALIZER_PATCH, namespace=m.namespace)
                await self.pod_control.delete_pod(job, p)
            except ApiError as e:
                if expect:
                    self.expectations.deletion_observed(key)
                return None if isinstance(e, NotFound) else e
            return None

        results = await gather("job", *(one(p) for p in pods))
        errors = [e for e in results if e is not None]
        deleted = len(pods) - len(errors)
        ready = sum(1 for p, e in zip(pods, results) if e is None and is_pod_ready(p))
        return ready, deleted, errors[0] if errors else None
