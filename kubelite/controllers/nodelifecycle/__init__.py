"""kube-controller-manager's ``nodelifecycle`` controller, with the taint-eviction controller it starts.

Two reconcilers on the shared informers (Nodes, Leases, Pods indexed by ``spec.nodeName``):

- ``node-lifecycle-controller`` (:mod:`.node_lifecycle_controller`): per node, Lease-based health, the
  Unknown conditions, NoSchedule taints from conditions, rate-limited NoExecute taints, MarkPodsNotReady.
- ``taint-eviction-controller`` (:mod:`.taint_eviction`): per pod, deletion after ``tolerationSeconds``.

Options (``controller_options={"nodelifecycle": {...}}``): the fields of :class:`NodeLifecycleConfig`
(``node_monitor_grace_period``, ``node_eviction_rate``, ...) and ``workers`` (default 4).
Events are recorded as ``node-controller`` and ``taint-eviction-controller``, as upstream names them.
"""

from __future__ import annotations

from kubelite.api.types import Lease, Node, Pod
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.nodelifecycle.node_lifecycle_controller import (
    POD_NODE_INDEX,
    NodeLifecycleConfig,
    NodeLifecycleController,
)
from kubelite.controllers.nodelifecycle.taint_eviction import TaintEvictionController
from kubelite.controllers.nodelifecycle.taints import no_execute_taints
from kubelite.controllers.podutil import pod_node_index
from kubelite.controllers.predicate import Funcs

__all__ = ["NAME", "POD_NODE_INDEX", "NodeLifecycleConfig", "pod_node_index", "register"]

NAME = "nodelifecycle"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({*NodeLifecycleConfig.__struct_fields__, "workers"})


def _no_execute_taints_changed(old: Node, new: Node) -> bool:
    """Upstream ``NodeUpdated`` of the taint-eviction controller returns at once when the node's NoExecute
    taints are unchanged, so a node status write costs no walk over the node's pods."""
    return no_execute_taints(old) != no_execute_taints(new)


def _placement_or_tolerations_changed(old: Pod, new: Pod) -> bool:
    """Upstream ``PodUpdated`` of the taint-eviction controller returns at once when the pod's node and
    tolerations are unchanged, so a pod status write (most pod writes) costs it no node lookup."""
    os_, ns_ = old.spec, new.spec
    if os_ is None or ns_ is None:
        return os_ is not ns_
    return bool(os_.node_name != ns_.node_name or os_.tolerations != ns_.tolerations)


def register(ctx: ControllerContext) -> None:
    opts = ctx.options.get(NAME, {})
    config = NodeLifecycleConfig(**{k: v for k, v in opts.items() if k != "workers"})
    workers = int(opts.get("workers", 4))
    nodes = ctx.informers.informer_for(Node).get_indexer()
    leases = ctx.informers.informer_for(Lease).get_indexer()
    pods = ctx.informers.informer_for(Pod, indexers={POD_NODE_INDEX: pod_node_index}).get_indexer()

    lifecycle = NodeLifecycleController(
        client=ctx.client, clock=ctx.clock, nodes=nodes, leases=leases, pods=pods,
        recorder=ctx.recorder("node-controller"), config=config)
    (ctx.manager.controller("node-lifecycle-controller").for_(Node)
        .waits_for(Lease)  # read at reconcile time (upstream: leaseInformer HasSynced, no handler)
        .with_max_concurrent_reconciles(workers).complete(lifecycle))

    eviction = TaintEvictionController(client=ctx.client, clock=ctx.clock, nodes=nodes, pods=pods,
                                       recorder=ctx.recorder("taint-eviction-controller"))
    (ctx.manager.controller("taint-eviction-controller")
        .watches(Pod, eviction.pod_requests, Funcs(update=_placement_or_tolerations_changed))
        .watches(Node, eviction.node_requests, Funcs(update=_no_execute_taints_changed))
        .with_max_concurrent_reconciles(workers).complete(eviction))
