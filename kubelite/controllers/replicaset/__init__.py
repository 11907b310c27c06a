"""kube-controller-manager's ``replicaset`` controller; see :mod:`.controller` for its guarantees.

Options (``Cluster(controller_options={"replicaset": {...}})``): ``workers`` (5, upstream
``--concurrent-replicaset-syncs``), ``burst_replicas`` (500).
"""

from __future__ import annotations

from typing import TypeVar

from kubelite.api.types import Pod
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.replicaset.controller import BURST_REPLICAS, ReplicaSetController
from kubelite.informer import Indexers

__all__ = ["BURST_REPLICAS", "NAME", "ReplicaSetController", "register", "register_replica_controller"]

NAME = "replicaset"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag); the replicationcontroller takes the same
OPTIONS = frozenset({"burst_replicas", "workers"})

C = TypeVar("C", bound=ReplicaSetController)


def register(ctx: ControllerContext) -> ReplicaSetController:
    return register_replica_controller(ctx, ReplicaSetController, name=NAME, component="replicaset-controller")


def register_replica_controller(ctx: ControllerContext, cls: type[C], *, name: str, component: str) -> C:
    """Start ``cls`` (the ReplicaSet controller or a subclass for another owner kind, as upstream's
    ReplicationManager wraps it) with its informers, options and controller."""
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    rsc = cls(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        replicasets=ctx.informers.informer_for(cls.kind, indexers=indexers), clock=ctx.clock,
        recorder=ctx.recorder(component),
        burst_replicas=ctx.option(name, "burst_replicas", BURST_REPLICAS),
    )
    rsc.controller = (
        ctx.manager.controller(name).for_(cls.kind).watches(Pod, rsc.pod_handler)
        .with_max_concurrent_reconciles(ctx.option(name, "workers", 5)).complete(rsc)
    )
    return rsc
