"""kube-controller-manager's ``daemonset`` controller; see :mod:`.controller` for its guarantees.

Node events wake every DaemonSet only when something placement depends on changed (labels, taints,
unschedulable, or the node appeared or went away), not on heartbeats.
Options (``Cluster(controller_options={"daemonset": {...}})``): ``workers`` (2, upstream
``--concurrent-daemonset-syncs``).
"""

from __future__ import annotations

from typing import Any

from kubelite.api.types import ControllerRevision, DaemonSet, Node, Pod
from kubelite.controllers.controller_utils import CONTROLLER_UID_INDEX, controller_uid_index_func
from kubelite.controllers.daemonset.controller import DaemonSetController
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.predicate import Funcs
from kubelite.informer import Indexers

__all__ = ["NAME", "DaemonSetController", "register"]

NAME = "daemonset"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})


def _placement_changed(old: Any, new: Any) -> bool:
    """``shouldIgnoreNodeUpdate``'s complement: what NodeShouldRunDaemonPod reads changed."""
    om, nm = old.metadata, new.metadata
    if (om.labels if om is not None else None) != (nm.labels if nm is not None else None):
        return True
    os_, ns_ = old.spec, new.spec
    return (os_.taints if os_ is not None else None) != (ns_.taints if ns_ is not None else None) or \
        (os_.unschedulable if os_ is not None else None) != (ns_.unschedulable if ns_ is not None else None)


def register(ctx: ControllerContext) -> DaemonSetController:
    indexers: Indexers = {CONTROLLER_UID_INDEX: controller_uid_index_func}
    dsc = DaemonSetController(
        client=ctx.client, pods=ctx.informers.informer_for(Pod, indexers=indexers),
        daemonsets=ctx.informers.informer_for(DaemonSet), nodes=ctx.informers.informer_for(Node),
        revisions=ctx.informers.informer_for(ControllerRevision), clock=ctx.clock,
        recorder=ctx.recorder("daemonset-controller"),
    )
    dsc.controller = (
        ctx.manager.controller(NAME).for_(DaemonSet).watches(Pod, dsc.pod_handler)
        .watches(Node, dsc.node_requests, Funcs(update=_placement_changed))
        .watches(ControllerRevision, dsc.history_handler)
        .with_max_concurrent_reconciles(ctx.option(NAME, "workers", 2)).complete(dsc)
    )
    return dsc
