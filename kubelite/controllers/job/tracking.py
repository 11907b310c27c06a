"""Job status tracking with pod finalizers (job_controller.go ``trackJobStatusAndRemoveFinalizers``,
``flushUncountedAndRemoveFinalizers``, ``cleanUncountedPodsWithoutFinalizers``, ``enactJobFinished``).

The protocol, per finished pod still holding ``batch.kubernetes.io/job-tracking``:

1. its uid is added to ``status.uncountedTerminatedPods`` (Indexed Jobs: its index to
   ``completedIndexes``), together with any interim ``FailureTarget``/``SuccessCriteriaMet`` condition,
   and the status is written;
2. its finalizer is removed (expected first, so the pod update that shows the removal is recognised);
3. uids whose pods no longer hold the finalizer leave the uncounted lists and are added to
   ``succeeded``/``failed``, and the status is written again;
4. when a finished condition is pending, no pod is uncounted and none is terminating, the terminal
   ``Complete``/``Failed`` condition (and ``completionTime``) is written and the event recorded.
At most :data:`MAX_UNCOUNTED_PODS` pods are taken per sync. Status writes carry the cached
resourceVersion: a conflict fails the sync and it is retried from the current state.
"""

from __future__ import annotations

from kubelite.api.types import Job, Pod
from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.controllers.job import util
from kubelite.controllers.job.util import TRACKING_FINALIZER, BackoffRecord, has_tracking_finalizer
from kubelite.controllers.podutil import is_pod_active, is_pod_ready
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.supervise import gather

__all__ = ["MAX_UNCOUNTED_PODS", "REMOVE_FINALIZER_PATCH", "StatusTracker", "SyncContext", "is_job_finished"]

MAX_UNCOUNTED_PODS = 500
REMOVE_FINALIZER_PATCH = {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}}


def is_job_finished(job: Job) -> bool:
    """``IsJobFinished``: a Complete or Failed condition that is True."""
    for c in (job.status.conditions if job.status is not None else None) or ():
        if c.type in ("Complete", "Failed") and c.status == "True":
            return True
    return False


class SyncContext:
    """``syncJobCtx``: what one sync knows and decides. ``finished`` is the (type, reason, message) of the
    finished condition the sync works toward, or None."""

    __slots__ = ("active_pods", "backoff", "expected_rm", "failed", "finished", "job", "pods", "prev_succeeded_ix",
                 "ready", "requeue", "succeeded", "succeeded_ix", "terminating", "uncounted_failed",
                 "uncounted_succeeded")

    def __init__(self, job: Job, pods: list[Pod], expected_rm: set[str]) -> None:
        self.job = job
        self.pods = pods
        self.active_pods = [p for p in pods if is_pod_active(p)]
        self.ready = sum(1 for p in self.active_pods if is_pod_ready(p))
        self.terminating = sum(1 for p in pods if p.metadata is not None and p.metadata.deletion_timestamp
                               and (p.status is None or p.status.phase not in ("Succeeded", "Failed")))
        unc = job.status.uncounted_terminated_pods if job.status is not None else None
        self.uncounted_succeeded = set((unc.succeeded if unc is not None else None) or ())
        self.uncounted_failed = set((unc.failed if unc is not None else None) or ())
        self.expected_rm = expected_rm
        self.succeeded = 0
        self.failed = 0
        self.finished: tuple[str, str, str] | None = None
        self.prev_succeeded_ix: set[int] = set()
        self.succeeded_ix: set[int] = set()
        self.backoff = BackoffRecord()
        self.requeue: float | None = None

    def requeue_after(self, d: float) -> None:
        if self.requeue is None or d < self.requeue:
            self.requeue = d


def _clean_uncounted(job: Job, with_finalizer: set[str]) -> bool:
    """``cleanUncountedPodsWithoutFinalizers``: uids whose finalizer is gone move into the counters."""
    st = job.status
    assert st is not None and st.uncounted_terminated_pods is not None
    unc = st.uncounted_terminated_pods
    updated = False
    keep = [u for u in unc.succeeded or () if u in with_finalizer]
    if len(keep) != len(unc.succeeded or ()):
        st.succeeded = (st.succeeded or 0) + len(unc.succeeded or ()) - len(keep)
        unc.succeeded = keep or None
        updated = True
    keep = [u for u in unc.failed or () if u in with_finalizer]
    if len(keep) != len(unc.failed or ()):
        st.failed = (st.failed or 0) + len(unc.failed or ()) - len(keep)
        unc.failed = keep or None
        updated = True
    return updated


class StatusTracker:
    """The status half of the Job controller (mixed into :class:`JobController`)."""

    client: Client
    clock: Clock
    recorder: EventRecorder
    finalizer_expectations: dict[str, set[str]]
    backoffs: dict[str, BackoffRecord]

    async def _write_status(self, job: Job) -> Job:
        out: Job = await self.client.replace_status(job)
        return out

    async def _track_status(self, key: str, jc: SyncContext, needs_flush: bool) -> None:
        """``trackJobStatusAndRemoveFinalizers``."""
        job = jc.job
        st = job.status
        spec = job.spec
        assert st is not None and spec is not None and st.uncounted_terminated_pods is not None
        unc = st.uncounted_terminated_pods
        indexed = util.is_indexed(job)
        completions = spec.completions or 0
        pods = sorted(jc.pods, key=util.completion_index) if indexed else jc.pods
        with_finalizer = {p.metadata.uid or "" for p in pods
                          if p.metadata is not None and has_tracking_finalizer(p) and p.metadata.uid not in jc.expected_rm}
        if _clean_uncounted(job, with_finalizer):
            needs_flush = True
        policy = spec.pod_failure_policy
        deleting = job.metadata is not None and job.metadata.deletion_timestamp is not None
        to_remove: list[Pod] = []
        new_ix: list[int] = []
        reached_max = False
        for p in pods:
            uid = p.metadata.uid or "" if p.metadata is not None else ""
            if not has_tracking_finalizer(p) or uid in jc.expected_rm:
                continue  # counted in an earlier sync
            failed = util.is_pod_failed(p, job)
            phase = p.status.phase if p.status is not None else None
            # canRemoveFinalizer
            if not (deleting or jc.finished is not None or phase == "Succeeded" or failed):
                continue
            to_remove.append(p)
            if phase == "Succeeded" and uid not in jc.uncounted_failed:
                if indexed:
                    ix = util.completion_index(p)
                    if 0 <= ix < completions and ix not in jc.prev_succeeded_ix:
                        new_ix.append(ix)
                        needs_flush = True
                elif uid not in jc.uncounted_succeeded:
                    needs_flush = True
                    unc.succeeded = [*(unc.succeeded or ()), uid]
            elif failed or (jc.finished is not None and jc.finished[0] != "SuccessCriteriaMet"):
                # once the Job is finished every non-terminated pod counts as failed
                ix = util.completion_index(p)
                if uid not in jc.uncounted_failed and (not indexed or 0 <= ix < completions) \
                        and util.match_pod_failure_policy(policy, p)[1]:
                    needs_flush = True
                    unc.failed = [*(unc.failed or ()), uid]
            if len(new_ix) + len(unc.succeeded or ()) + len(unc.failed or ()) >= MAX_UNCOUNTED_PODS:
                reached_max = True  # the status and pod updates bring the Job back for the rest
                break
        if indexed:
            jc.succeeded_ix |= set(new_ix)
            s = util.format_indexes(jc.succeeded_ix)
            if s != (st.completed_indexes or ""):
                needs_flush = True
            st.succeeded = len(jc.succeeded_ix)
            st.completed_indexes = s or None
        now = format_time(self.clock.now())
        if jc.finished is not None and jc.finished[0] == "FailureTarget":
            # the interim condition records why before the finalizers (holding the pods) go
            st.conditions = [*(st.conditions or ()), util.new_condition("FailureTarget", "True", jc.finished[1],
                                                                        jc.finished[2], now)]
            needs_flush = True
            jc.finished = ("Failed", jc.finished[1], jc.finished[2])
        if jc.finished is not None and jc.finished[0] == "SuccessCriteriaMet":
            if util.find_condition(st.conditions, "SuccessCriteriaMet") is None:
                st.conditions = [*(st.conditions or ()), util.new_condition(
                    "SuccessCriteriaMet", "True", jc.finished[1], jc.finished[2], now)]
                needs_flush = True
            jc.finished = ("Complete", jc.finished[1], jc.finished[2])
        needs_flush = await self._flush_and_remove_finalizers(key, jc, to_remove, with_finalizer, needs_flush)
        finished = not reached_max and self._enact_finished(jc, now)
        if finished or needs_flush:
            jc.job = await self._write_status(jc.job)
            if finished and jc.finished is not None:
                self._record_finished(jc.job, jc.finished)

    async def _flush_and_remove_finalizers(
        self, key: str, jc: SyncContext, to_remove: list[Pod], with_finalizer: set[str], needs_flush: bool,
    ) -> bool:
        """``flushUncountedAndRemoveFinalizers``: returns whether status changes remain to be written."""
        if needs_flush:
            jc.job = await self._write_status(jc.job)
            self.backoffs[key] = jc.backoff
            needs_flush = False
        err: Exception | None = None
        if to_remove:
            ok, err = await self._remove_finalizers(key, to_remove)
            for p, removed in zip(to_remove, ok):
                if removed and p.metadata is not None:
                    with_finalizer.discard(p.metadata.uid or "")
        if _clean_uncounted(jc.job, with_finalizer):
            needs_flush = True
        if err is not None:
            if needs_flush:
                jc.job = await self._write_status(jc.job)
            raise err
        return needs_flush

    async def _remove_finalizers(self, key: str, pods: list[Pod]) -> tuple[list[bool], Exception | None]:
        """``removeTrackingFinalizerFromPods``: a removal of an already deleted pod counts as done."""
        expected = self.finalizer_expectations.setdefault(key, set())
        for p in pods:
            expected.add(p.metadata.uid or "" if p.metadata is not None else "")

        async def one(p: Pod) -> Exception | None:
            m = p.metadata
            assert m is not None
            try:
                await self.client.patch(Pod, m.name or "", REMOVE_FINALIZER_PATCH, namespace=m.namespace)
            except ApiError as e:
                expected.discard(m.uid or "")  # no update will show this removal
                return None if isinstance(e, NotFound) else e
            return None

        results = await gather("job-tracking", *(one(p) for p in pods))
        errors = [e for e in results if e is not None]
        return [e is None for e in results], errors[0] if errors else None

    def _enact_finished(self, jc: SyncContext, now: str) -> bool:
        """``enactJobFinished``: the terminal condition, once nothing is uncounted or terminating."""
        if jc.finished is None:
            return False
        st = jc.job.status
        assert st is not None
        unc = st.uncounted_terminated_pods
        if unc is not None and (unc.succeeded or unc.failed):
            return False
        if jc.terminating > 0:
            return False
        type_, reason, message = jc.finished
        conds = st.conditions = list(st.conditions or ())
        util.ensure_condition(conds, type_, "True", reason, message, now)
        if type_ == "Complete":
            st.completion_time = now
        return True

    def _record_finished(self, job: Job, finished: tuple[str, str, str]) -> None:
        """``recordJobFinished``."""
        type_, reason, message = finished
        if type_ == "Complete":
            spec, st = job.spec, job.status
            if spec is not None and st is not None and spec.completions is not None \
                    and (st.succeeded or 0) > spec.completions:
                self.recorder.event(job, "Warning", "TooManySucceededPods",
                                    "Too many succeeded pods running after completion count reached")
            self.recorder.event(job, "Normal", "Completed", "Job completed")
        else:
            self.recorder.event(job, "Warning", reason, message)
