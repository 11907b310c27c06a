"""The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go ``syncCronJob``, utils.go
``mostRecentScheduleTime``, ``getJobFromTemplate2``) and the standard cron schedule it runs on.

Guarantees:
- A CronJob gets at most one Job per scheduled time, named ``<cronjob>-<scheduled time in Unix
  minutes>``: the name is the idempotency key, so a restarted controller or a stale cache cannot start a
  schedule twice (an AlreadyExists is "already started").
- Only the most recent missed schedule is started; with ``startingDeadlineSeconds`` a schedule later
  than that is skipped (``MissSchedule``). ``suspend`` starts nothing. ``concurrencyPolicy``:
  Allow runs Jobs side by side, Forbid skips while one is active (``JobAlreadyActive``), Replace deletes
  the active ones first (Background propagation).
- ``status.active`` lists the running Jobs; finished ones leave it (``SawCompletedJob``) and set
  ``lastSuccessfulTime``; ``lastScheduleTime`` is the latest started schedule. Finished Jobs beyond
  ``successfulJobsHistoryLimit`` (3) / ``failedJobsHistoryLimit`` (1) are deleted, oldest first.
- Schedules are read in ``spec.timeZone`` (UTC when unset), with robfig/cron's ``ParseStandard`` grammar
  (:class:`Schedule`). The request comes back at the next schedule time.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
from typing import Any

import msgspec

from kubelite.api.types import CronJob, Job
from kubelite.api.types.batch_v1 import CronJobStatus
from kubelite.api.types.core_v1 import ObjectReference
from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    OwnedObjectHandler,
    controller_uid_index_func,
    owner_reference,
)
from kubelite.controllers.job import is_job_finished
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.podutil import parse_timestamp
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import AlreadyExists, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import Indexer, Indexers
from kubelite.memo import memoize

__all__ = ["NAME", "SCHEDULED_TIMESTAMP_ANNOTATION", "CronJobController", "Schedule", "parse_schedule", "register"]

NAME = "cronjob"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})
SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"

_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_DESCRIPTORS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}


class Schedule:
    """A parsed 5-field cron schedule. ``dom``/``dow`` follow robfig/cron: when either is ``*`` (or
    ``?``) both must match, otherwise either may."""

    __slots__ = ("dom", "dom_star", "dow", "dow_star", "hour", "minute", "month")

    def __init__(self, fields: list[frozenset[int]], stars: list[bool]) -> None:
        self.minute, self.hour, self.dom, self.month, self.dow = fields
        self.dom_star, self.dow_star = stars[2], stars[4]

    def _day_matches(self, d: dt.datetime) -> bool:
        dom = d.day in self.dom
        dow = (d.isoweekday() % 7) in self.dow
        if self.dom_star or self.dow_star:
            return dom and dow
        return dom or dow

    def next(self, after: float, tz: dt.tzinfo) -> float | None:
        """The first scheduled time strictly after ``after`` (epoch seconds); None within five years."""
        t = dt.datetime.fromtimestamp(after, tz).replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        limit = t.year + 5
        while t.year <= limit:
            if t.month not in self.month:
                t = (t.replace(day=1, hour=0, minute=0) + dt.timedelta(days=32)).replace(day=1)
                continue
            if not self._day_matches(t):
                t = t.replace(hour=0, minute=0) + dt.timedelta(days=1)
                continue
            if t.hour not in self.hour:
                t = t.replace(minute=0) + dt.timedelta(hours=1)
                continue
            if t.minute not in self.minute:
                t += dt.timedelta(minutes=1)
                continue
            return t.timestamp()
        return None


def _field(expr: str, lo: int, hi: int, names: dict[str, int]) -> frozenset[int]:
    out: set[int] = set()
    for part in expr.split(","):
        rng, _, step_s = part.partition("/")
        step = int(step_s) if step_s else 1
        if step <= 0:
            raise ValueError(f"step of range should be a positive number: {part}")
        if rng in ("*", "?"):
            a, b = lo, hi
        else:
            first, _, last = rng.partition("-")
            a = names[first.lower()] if first.lower() in names else int(first)
            b = (names[last.lower()] if last.lower() in names else int(last)) if last else (hi if step_s else a)
        if a < lo or b > hi or a > b:
            raise ValueError(f"end of range ({b}) above maximum ({hi}): {part}" if b > hi else
                             f"beginning of range ({a}) below minimum ({lo}): {part}")
        out.update(range(a, b + 1, step))
    return frozenset(out)


# bound: one entry per distinct CronJob schedule string
@memoize("controllers.cronjob.parse_schedule", maxsize=1024)
def parse_schedule(spec: str) -> Schedule:
    """``cron.ParseStandard``: five fields or a ``@descriptor``; ``CRON_TZ=``/``TZ=`` prefixes are rejected
    by validation upstream and ignored here. Raises ValueError on bad input."""
    s = _DESCRIPTORS.get(spec.strip(), spec.strip())
    parts = s.split()
    if len(parts) != 5:
        raise ValueError(f"expected exactly 5 fields, found {len(parts)}: {spec}")
    fields = []
    for i, (p, (lo, hi)) in enumerate(zip(parts, _RANGES)):
        names = _MONTHS if i == 3 else _DAYS if i == 4 else {}
        f = _field(p, lo, hi, names)
        fields.append(f)
    stars = [p.startswith(("*", "?")) for p in parts]
    return Schedule(fields, stars)


def _tz(name: str | None) -> dt.tzinfo:
    if not name:
        return dt.UTC
    import zoneinfo  # with the first spec.timeZone: zoneinfo loads sysconfig (issue #17, cold start)

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return dt.UTC


class CronJobController:
    def __init__(self, *, client: Client, jobs: Indexer, cronjobs: Indexer, clock: Clock,
                 recorder: EventRecorder) -> None:
        self.client, self.jobs, self.cronjobs, self.clock, self.recorder = client, jobs, cronjobs, clock, recorder

    async def reconcile(self, req: Request) -> Result | None:
        """``sync`` + ``syncCronJob``."""
        cj: CronJob | None = self.cronjobs.get_by_key(f"{req.namespace}/{req.name}")
        if cj is None:
            return None
        meta, spec = cj.metadata, cj.spec
        assert meta is not None and spec is not None
        jobs: list[Job] = list(self.jobs.by_index(CONTROLLER_UID_INDEX, meta.uid or ""))
        # a mutable top level over the cached (shared, read-only) status: _track_active and _maybe_start set fields
        st = copy.copy(cj.status) if cj.status is not None else CronJobStatus()
        changed = self._track_active(cj, st, jobs)
        now = self.clock.now()
        requeue: float | None = None
        if meta.deletion_timestamp is None and not spec.suspend:
            try:
                sched = parse_schedule(spec.schedule or "")
            except ValueError as e:
                self.recorder.event(cj, "Warning", "UnparseableSchedule", f"unparseable schedule: {spec.schedule!r} : {e}")
                sched = None
            if sched is not None:
                tz = _tz(spec.time_zone)
                ch, created = await self._maybe_start(cj, st, sched, tz, now, jobs)
                changed = changed or ch
                if created is not None:
                    jobs.append(created)
                nxt = sched.next(now, tz)
                if nxt is not None:
                    requeue = nxt - now + 0.1  # nextScheduleTimeDuration adds a little past the minute
        if changed:
            await self.client.replace_status(msgspec.structs.replace(cj, status=st))
        await self._cleanup_finished(cj, jobs)
        return Result(requeue_after=requeue) if requeue is not None else None

    def _track_active(self, cj: CronJob, st: CronJobStatus, jobs: list[Job]) -> bool:
        """Keep ``status.active`` in step with the Jobs that exist and are still running."""
        active = list(st.active or ())
        names = {j.metadata.name for j in jobs if j.metadata is not None}
        changed = False
        for j in jobs:
            m = j.metadata
            assert m is not None
            listed = any(r.uid == m.uid for r in active)
            if is_job_finished(j):
                if listed:
                    active = [r for r in active if r.uid != m.uid]
                    cond = next(c for c in (j.status.conditions if j.status else None) or ()
                                if c.type in ("Complete", "Failed") and c.status == "True")
                    self.recorder.event(cj, "Normal", "SawCompletedJob",
                                        f"Saw completed job: {m.name}, condition: {cond.type}")
                    changed = True
                if cond_complete(j) and j.status is not None and j.status.completion_time and \
                        (st.last_successful_time is None or parse_timestamp(st.last_successful_time)
                         < parse_timestamp(j.status.completion_time)):
                    st.last_successful_time = j.status.completion_time
                    changed = True
            elif not listed:
                self.recorder.event(cj, "Warning", "UnexpectedJob",
                                    f"Saw a job that the controller did not create or forgot: {m.name}")
                active.append(_ref(j))
                changed = True
        for r in list(active):
            if r.name not in names:
                self.recorder.event(cj, "Normal", "MissingJob", f"Active job went missing: {r.name}")
                active.remove(r)
                changed = True
        st.active = active or None
        return changed

    async def _maybe_start(self, cj: CronJob, st: CronJobStatus, sched: Schedule, tz: dt.tzinfo, now: float,
                           jobs: list[Job]) -> tuple[bool, Job | None]:
        """The scheduling half of ``syncCronJob``: (status changed, the Job created)."""
        meta, spec = cj.metadata, cj.spec
        assert meta is not None and spec is not None
        earliest = parse_timestamp(st.last_schedule_time or meta.creation_timestamp or format_time(now))
        if spec.starting_deadline_seconds is not None:
            earliest = max(earliest, now - spec.starting_deadline_seconds)
        scheduled: float | None = None
        t = sched.next(earliest, tz)
        while t is not None and t <= now:  # mostRecentScheduleTime
            scheduled = t
            t = sched.next(t, tz)
        if scheduled is None:
            return False, None
        ts = format_time(scheduled)
        if spec.starting_deadline_seconds is not None and scheduled + spec.starting_deadline_seconds < now:
            self.recorder.event(cj, "Warning", "MissSchedule", f"Missed scheduled time to start a job: {ts}")
            return False, None
        name = f"{meta.name}-{int(scheduled // 60)}"
        if any(j.metadata is not None and j.metadata.name == name for j in jobs):
            return False, None  # this schedule already ran
        running = [j for j in jobs if not is_job_finished(j)]
        if spec.concurrency_policy == "Forbid" and (st.active or running):
            self.recorder.event(cj, "Normal", "JobAlreadyActive",
                                "Not starting job because prior execution is running and concurrency policy is Forbid")
            return False, None
        if spec.concurrency_policy == "Replace":
            for r in list(st.active or ()):
                with contextlib.suppress(NotFound):
                    await self.client.delete(Job, r.name or "", namespace=meta.namespace, cascade="Background")
                self.recorder.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {r.name}")
                st.active = [a for a in st.active or () if a.uid != r.uid] or None
        try:
            created = msgspec.convert(await self.client.create(self._job_body(cj, name, ts)), Job)
        except AlreadyExists:
            return False, None
        self.recorder.event(cj, "Normal", "SuccessfulCreate", f"Created job {name}")
        st.active = [*(st.active or ()), _ref(created)]
        st.last_schedule_time = ts
        return True, created

    @staticmethod
    def _job_body(cj: CronJob, name: str, scheduled: str) -> dict[str, Any]:
        """``getJobFromTemplate2``."""
        meta, spec = cj.metadata, cj.spec
        assert meta is not None and spec is not None and spec.job_template is not None
        tmpl = msgspec.to_builtins(spec.job_template)
        tm = tmpl.get("metadata") or {}
        jm: dict[str, Any] = {"name": name, "namespace": meta.namespace, "labels": tm.get("labels") or {},
                              "annotations": {**(tm.get("annotations") or {}), SCHEDULED_TIMESTAMP_ANNOTATION: scheduled},
                              "ownerReferences": [owner_reference(cj)]}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": jm, "spec": tmpl.get("spec") or {}}

    async def _cleanup_finished(self, cj: CronJob, jobs: list[Job]) -> None:
        """``cleanupFinishedJobs``: keep the newest successful/failed Jobs up to the history limits."""
        spec = cj.spec
        assert spec is not None
        ok = sorted((j for j in jobs if cond_complete(j)), key=_start)
        bad = sorted((j for j in jobs if is_job_finished(j) and not cond_complete(j)), key=_start)
        for group, limit in ((ok, spec.successful_jobs_history_limit), (bad, spec.failed_jobs_history_limit)):
            limit = (3 if group is ok else 1) if limit is None else limit
            for j in group[:max(len(group) - limit, 0)]:
                m = j.metadata
                assert m is not None
                with contextlib.suppress(NotFound):
                    await self.client.delete(Job, m.name or "", namespace=m.namespace, cascade="Background")
                self.recorder.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {m.name}")


def cond_complete(j: Job) -> bool:
    return any(c.type == "Complete" and c.status == "True" for c in (j.status.conditions if j.status else None) or ())


def _start(j: Job) -> float:
    ts = (j.status.start_time if j.status is not None else None) or (j.metadata.creation_timestamp if j.metadata else None)
    return parse_timestamp(ts) if ts else 0.0


def _ref(j: Job) -> ObjectReference:
    m = j.metadata
    assert m is not None
    return ObjectReference(api_version="batch/v1", kind="Job", name=m.name, namespace=m.namespace, uid=m.uid,
                           resource_version=m.resource_version)


def register(ctx: ControllerContext) -> CronJobController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    cjc = CronJobController(
        client=ctx.client, jobs=ctx.informers.informer_for(Job, indexers=indexers).get_indexer(),
        cronjobs=ctx.informers.informer_for(CronJob).get_indexer(), clock=ctx.clock,
        recorder=ctx.recorder("cronjob-controller"),
    )
    # addJob / updateJob / deleteJob: Jobs wake the CronJob their controllerRef resolves to; CronJobs adopt nothing
    job_handler = OwnedObjectHandler("CronJob", cjc.cronjobs, orphans=False)
    ctx.manager.controller(NAME).for_(CronJob).watches(Job, job_handler).with_max_concurrent_reconciles(
        ctx.option(NAME, "workers", 5)).complete(cjc)
    return cjc
