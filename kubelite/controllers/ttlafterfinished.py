"""The TTL-after-finished controller: delete finished Jobs ``ttlSecondsAfterFinished`` after they finish.

Follows ``pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`` (``processJob``,
``processTTL``, ``jobFinishTime``): a Job with ``spec.ttlSecondsAfterFinished`` and a ``Complete`` or
``Failed`` condition that is True expires at that condition's ``lastTransitionTime`` plus the TTL.
Before deleting, the controller re-reads the Job from the API (the cache may be stale, and the TTL may
have been changed), then deletes it with Foreground propagation and a UID precondition, so its pods go
first and a recreated Job of the same name is never hit. Not yet expired: the request comes back at
the expiry time. Jobs being deleted are left alone.
"""

from __future__ import annotations

from kubelite.api.types import Job
from kubelite.clock import parse_time
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import Conflict, NotFound
from kubelite.informer import Indexer

__all__ = ["NAME", "TTLAfterFinishedController", "expire_at", "register"]

NAME = "ttlafterfinished"


def expire_at(job: Job) -> float | None:
    """When ``job`` should go (``needsCleanup`` + ``getFinishAndExpireTime``); None if never/not yet finished."""
    if job.spec is None or job.spec.ttl_seconds_after_finished is None:
        return None
    if job.metadata is not None and job.metadata.deletion_timestamp:
        return None
    for c in (job.status.conditions if job.status is not None else None) or ():
        if c.type in ("Complete", "Failed") and c.status == "True" and c.last_transition_time:
            return parse_time(c.last_transition_time) + job.spec.ttl_seconds_after_finished
    return None


class TTLAfterFinishedController:
    def __init__(self, ctx: ControllerContext, *, jobs: Indexer) -> None:
        self.client, self.clock, self.jobs = ctx.client, ctx.clock, jobs

    async def reconcile(self, req: Request) -> Result | None:
        cached: Job | None = self.jobs.get_by_key(f"{req.namespace}/{req.name}")
        if cached is None or (at := expire_at(cached)) is None:
            return None
        now = self.clock.now()
        if now < at:
            return Result(requeue_after=at - now)
        try:  # the cache may lag: decide on a fresh read
            fresh: Job = await self.client.get(Job, req.name, namespace=req.namespace)
        except NotFound:
            return None
        at = expire_at(fresh)
        if at is None:
            return None
        if now < at:
            return Result(requeue_after=at - now)
        uid = fresh.metadata.uid if fresh.metadata is not None else None
        try:
            await self.client.delete(Job, req.name, namespace=req.namespace, cascade="Foreground",
                                     preconditions={"uid": uid})
        except (NotFound, Conflict):
            return None
        return None


def register(ctx: ControllerContext) -> None:
    jobs = ctx.informers.informer_for(Job).get_indexer()
    ctx.manager.controller("ttl-after-finished-controller").for_(Job).with_max_concurrent_reconciles(5).complete(
        TTLAfterFinishedController(ctx, jobs=jobs))
