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

from kubelite.api.types import ReplicationController
from kubelite.api.types.core_v1 import ReplicationControllerStatus
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.replicaset import OPTIONS as REPLICASET_OPTIONS
from kubelite.controllers.replicaset import register_replica_controller
from kubelite.controllers.replicaset.controller import ReplicaSetController

__all__ = ["NAME", "ReplicationManager", "register"]

NAME = "replicationcontroller"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = REPLICASET_OPTIONS


class ReplicationManager(ReplicaSetController):
    """Upstream's ``ReplicationManager``: the ReplicaSet controller for ``v1/ReplicationController``."""

    kind: type[Any] = ReplicationController
    status_type: type[Any] = ReplicationControllerStatus


def register(ctx: ControllerContext) -> ReplicationManager:
    return register_replica_controller(ctx, ReplicationManager, name=NAME, component="replication-controller")
