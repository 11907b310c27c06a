"""kube-controller-manager's ``deployment`` controller, plus kubectl's client-side rollout helpers.

- :mod:`.controller`: the reconciler (``syncDeployment``) and its event handlers.
- :mod:`.sync` (scaling, new ReplicaSet, revisions, cleanup, status), :mod:`.rolling`, :mod:`.recreate`,
  :mod:`.progress` (Progressing condition and deadline), :mod:`.util` (hash, annotations, fenceposts).
- :func:`rollback` (``kubectl rollout undo``) and :func:`rollout_status` (``kubectl rollout status``).

Options (``Cluster(controller_options={"deployment": {...}})``): ``workers`` (5, upstream
``--concurrent-deployment-syncs``).
"""

from __future__ import annotations

from kubelite.api.types import Deployment, Pod, ReplicaSet
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.deployment.controller import DeploymentController
from kubelite.controllers.deployment.rollback import RolloutError, rollback, rollout_status
from kubelite.controllers.deployment.util import compute_hash, resolve_fenceposts
from kubelite.controllers.kcm import ControllerContext
from kubelite.informer import Indexers

__all__ = [
    "NAME",
    "DeploymentController",
    "RolloutError",
    "compute_hash",
    "register",
    "resolve_fenceposts",
    "rollback",
    "rollout_status",
]

NAME = "deployment"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})


def register(ctx: ControllerContext) -> DeploymentController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    dc = DeploymentController(
        client=ctx.client, deployments=ctx.informers.informer_for(Deployment),
        replicasets=ctx.informers.informer_for(ReplicaSet, indexers=indexers),
        pods=ctx.informers.informer_for(Pod, indexers=indexers), clock=ctx.clock,
        recorder=ctx.recorder("deployment-controller"),
    )
    dc.controller = (
        ctx.manager.controller(NAME).for_(Deployment).watches(ReplicaSet, dc.rs_handler)
        .watches(Pod, dc.pod_handler).with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(dc)
    )
    return dc
