"""kube-controller-manager's ``replicaset`` controller; see :mod:`.controller` for its guarantees.

Options (``Cluster(controller_options={"replicaset": {...}})``): ``workers`` (5, upstream
``--concurrent-replicaset-syncs``), ``burst_replicas`` (500).
"""

from __future__ import annotations

from kubelite.api.types import Pod, ReplicaSet
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.replicaset.controller import BURST_REPLICAS, ReplicaSetController
from kubelite.informer import Indexers

__all__ = ["BURST_REPLICAS", "NAME", "ReplicaSetController", "register"]

NAME = "replicaset"


def register(ctx: ControllerContext) -> ReplicaSetController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    rsc = ReplicaSetController(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        replicasets=ctx.informers.informer_for(ReplicaSet, indexers=indexers), clock=ctx.clock,
        recorder=ctx.recorder("replicaset-controller"),
        burst_replicas=ctx.option(NAME, "burst_replicas", BURST_REPLICAS),
    )
    rsc.controller = (
        ctx.manager.controller(NAME).for_(ReplicaSet).watches(Pod, rsc.pod_handler)
        .with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(rsc)
    )
    return rsc
