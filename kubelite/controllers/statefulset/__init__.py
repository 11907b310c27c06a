"""kube-controller-manager's ``statefulset`` controller; see :mod:`.controller` for its guarantees.

Options (``Cluster(controller_options={"statefulset": {...}})``): ``workers`` (5, upstream
``--concurrent-statefulset-syncs``).
"""

from __future__ import annotations

from kubelite.api.types import ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.statefulset.controller import StatefulSetController
from kubelite.informer import Indexers

__all__ = ["NAME", "StatefulSetController", "register"]

NAME = "statefulset"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})


def register(ctx: ControllerContext) -> StatefulSetController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    ssc = StatefulSetController(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        sets=ctx.informers.informer_for(StatefulSet), revisions=ctx.informers.informer_for(ControllerRevision),
        claims=ctx.informers.informer_for(PersistentVolumeClaim), clock=ctx.clock,
        recorder=ctx.recorder("statefulset-controller"),
    )
    ssc.controller = (
        ctx.manager.controller(NAME).for_(StatefulSet).watches(Pod, ssc.pod_handler)
        .watches(ControllerRevision, ssc.revision_handler)
        .with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(ssc))
    return ssc
