"""PodGC: removes pods nobody else will remove.

Follows ``pkg/controller/podgc/gc_controller.go`` (``gc``, ``gcTerminated``, ``gcTerminating``,
``gcOrphaned``, ``gcUnscheduledTerminating``), one pass every ``gcCheckPeriod`` (20 s) and whenever a
Node is deleted:

- **Orphaned**: a pod bound to a node that does not exist. The node is quarantined for 40 s (it may be
  registering, or the cache may lag), then looked up live; if it is still absent, every pod on it is
  marked ``Failed`` with a ``DisruptionTarget`` condition (reason ``DeletionByPodGC``, "PodGC: node no
  longer exists") and force-deleted (grace 0).
- **Terminating on an out-of-service node**: a pod being deleted on a node that is not Ready and has
  the ``node.kubernetes.io/out-of-service`` taint is force-deleted (reason ``DeletionByPodGC``, "PodGC:
  node is out of service").
- **Unscheduled terminating**: a pod being deleted that was never bound is force-deleted.
- **Terminated over the threshold**: when more than ``terminated_pod_gc_threshold`` (12,500;
  ``--terminated-pod-gc-threshold``) pods are Succeeded or Failed, the oldest (by creationTimestamp)
  beyond it are deleted.

Pods are read from the informer; nodes from the informer, with a live GET before acting on an absent
one. Everything is recomputed from the caches each pass (the quarantine clock is the only memory).
"""

from __future__ import annotations

from typing import Any

from kubelite.api.types import Namespace, Node, Pod
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.podutil import POD_NODE_INDEX, pod_node_index
from kubelite.controllers.predicate import Funcs
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import NotFound
from kubelite.informer import Indexer
from kubelite.logs import get_logger

__all__ = ["NAME", "PodGC", "register"]

log = get_logger("kubelite.podgc")

NAME = "podgc"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"terminated_pod_gc_threshold"})
GC_CHECK_PERIOD = 20.0
QUARANTINE_TIME = 40.0
DEFAULT_TERMINATED_THRESHOLD = 12500
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
_PASS = Request("", "podgc")


def _node_ready(node: Node) -> bool:
    conds = node.status.conditions if node.status is not None else None
    return any(c.type == "Ready" and c.status == "True" for c in conds or ())


def _out_of_service(node: Node) -> bool:
    return any(t.key == OUT_OF_SERVICE and t.effect == "NoExecute" for t in (node.spec.taints if node.spec else None) or ())


class PodGC:
    def __init__(self, ctx: ControllerContext, *, pods: Indexer, nodes: Indexer, threshold: int) -> None:
        self.client, self.clock = ctx.client, ctx.clock
        self.pods, self.nodes, self.threshold = pods, nodes, threshold
        self.quarantined: dict[str, float] = {}  # node name -> when first seen missing

    async def reconcile(self, req: Request) -> Result | None:
        if self.threshold > 0:
            await self._gc_terminated()
        await self._gc_terminating()
        await self._gc_orphaned()
        await self._gc_unscheduled_terminating()
        return Result(requeue_after=GC_CHECK_PERIOD)

    async def _gc_terminated(self) -> None:
        terminated = [p for p in self.pods.list() if p.status is not None and p.status.phase in ("Succeeded", "Failed")]
        excess = len(terminated) - self.threshold
        if excess <= 0:
            return
        terminated.sort(key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.namespace, p.metadata.name))
        for p in terminated[:excess]:
            await self._delete(p, None)

    async def _gc_terminating(self) -> None:
        for node in self.nodes.list():
            if _node_ready(node) or not _out_of_service(node):
                continue
            for p in self.pods.by_index(POD_NODE_INDEX, node.metadata.name or ""):
                if p.metadata.deletion_timestamp:
                    await self._delete(p, "PodGC: node is out of service")

    async def _gc_orphaned(self) -> None:
        now = self.clock.now()
        missing = {n for n in self.pods.list_index_func_values(POD_NODE_INDEX) if self.nodes.get_by_key(n) is None}
        for name in list(self.quarantined):
            if name not in missing:
                del self.quarantined[name]
        for name in sorted(missing):
            since = self.quarantined.setdefault(name, now)
            if now - since < QUARANTINE_TIME:
                continue
            try:  # the cache may lag: only a live miss counts
                await self.client.get(Node, name)
                continue
            except NotFound:
                pass
            for p in self.pods.by_index(POD_NODE_INDEX, name):
                await self._delete(p, "PodGC: node no longer exists")

    async def _gc_unscheduled_terminating(self) -> None:
        for p in self.pods.list():
            if p.metadata.deletion_timestamp and not (p.spec is not None and p.spec.node_name):
                await self._delete(p, None)

    async def _delete(self, pod: Pod, condition_message: str | None) -> None:
        """``markFailedAndDeletePodWithCondition`` (with a message) or a plain force delete."""
        meta = pod.metadata
        assert meta is not None
        log.info("podgc_delete", namespace=meta.namespace, pod=meta.name, reason=condition_message)
        try:
            if condition_message is not None and (pod.status is None or pod.status.phase not in ("Succeeded", "Failed")):
                status: dict[str, Any] = {"phase": "Failed", "conditions": [{
                    "type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                    "message": condition_message, "lastTransitionTime": self.clock.timestamp()}]}
                await self.client.patch_status(Pod, meta.name or "", {"status": status}, namespace=meta.namespace,
                                               patch_type="strategic")
            await self.client.delete(Pod, meta.name or "", namespace=meta.namespace, grace_period=0)
        except NotFound:
            return


def register(ctx: ControllerContext) -> None:
    pods = ctx.informers.informer_for(Pod, indexers={POD_NODE_INDEX: pod_node_index}).get_indexer()
    nodes = ctx.informers.informer_for(Node).get_indexer()
    gc = PodGC(ctx, pods=pods, nodes=nodes,
               threshold=int(ctx.option(NAME, "terminated_pod_gc_threshold", DEFAULT_TERMINATED_THRESHOLD)))

    def on_node(_node: Any) -> list[Request]:
        return [_PASS]

    # The pass is one request that requeues itself every 20 s. The initial lists start it (there are
    # always namespaces) and a Node deletion runs it early; node status updates do not (too many).
    no_updates = Funcs(update=lambda _old, _new: False)
    (ctx.manager.controller("pod-garbage-collector").watches(Node, on_node, no_updates)
        .watches(Namespace, on_node, Funcs(update=lambda _old, _new: False, delete=lambda _obj: False))
        .waits_for(Pod).complete(gc))  # upstream: podListerSynced, no pod handler
