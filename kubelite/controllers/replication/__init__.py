"""kube-controller-manager's ``replicationcontroller`` controller (``pkg/controller/replication``).

Upstream runs the ReplicaSet controller's code over ReplicationControllers converted to ReplicaSets; here the
same :class:`~kubelite.controllers.replicaset.ReplicaSetController` manages them directly (its owner kind and
status type are parameters), so RCs get the same guarantees: expectations before acting, slow-start bursts,
upstream's scale-down ranking, adoption and release by controllerRef, and the same events.

Options (``Cluster(controller_options={"replicationcontroller": {...}})``): ``workers`` (5, upstream
``--concurrent-rc-syncs``), ``burst_replicas`` (500).
"""

from __future__ import annotations

from typing import Any

from kubelite.api.types import Pod, ReplicationController
from kubelite.api.types.core_v1 import ReplicationControllerStatus
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.replicaset.controller import BURST_REPLICAS, ReplicaSetController
from kubelite.informer import Indexers

__all__ = ["NAME", "ReplicationManager", "register"]

NAME = "replicationcontroller"


class ReplicationManager(ReplicaSetController):
    """Upstream's ``ReplicationManager``: the ReplicaSet controller for ``v1/ReplicationController``."""

    kind: type[Any] = ReplicationController
    status_type: type[Any] = ReplicationControllerStatus


def register(ctx: ControllerContext) -> ReplicationManager:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    rm = ReplicationManager(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        replicasets=ctx.informers.informer_for(ReplicationController, indexers=indexers), clock=ctx.clock,
        recorder=ctx.recorder("replication-controller"),
        burst_replicas=ctx.option(NAME, "burst_replicas", BURST_REPLICAS),
    )
    rm.controller = (
        ctx.manager.controller(NAME).for_(ReplicationController).watches(Pod, rm.pod_handler)
        .with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(rm)
    )
    return rm
