"""kube-controller-manager's ``job`` controller; see :mod:`.controller` for its guarantees.

Two reconcilers share the caches: ``job`` (``syncJob``, keyed by Job) and ``job-orphan-pod``
(``syncOrphanPod``, keyed by Pod: releases the tracking finalizer of pods whose Job is gone or finished).
Options (``Cluster(controller_options={"job": {...}})``): ``workers`` (5, upstream ``--concurrent-job-syncs``).
"""

from __future__ import annotations

from kubelite.api.types import Job, Pod
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.job.controller import JobController
from kubelite.controllers.job.tracking import is_job_finished
from kubelite.controllers.kcm import ControllerContext
from kubelite.informer import Indexers

__all__ = ["NAME", "JobController", "is_job_finished", "register"]

NAME = "job"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})


def register(ctx: ControllerContext) -> JobController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    jc = JobController(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        jobs=ctx.informers.informer_for(Job), clock=ctx.clock, recorder=ctx.recorder("job-controller"),
    )
    (ctx.manager.controller(NAME).for_(Job).watches(Pod, jc.pod_handler)
     .with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(jc))
    ctx.manager.controller(f"{NAME}-orphan-pod").watches(Pod, jc.orphan_requests).complete(jc.sync_orphan_pod)
    return jc
