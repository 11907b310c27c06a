"""The taint-eviction controller: delete pods that do not tolerate their node's NoExecute taints.

Follows ``pkg/controller/tainteviction/taint_eviction.go`` (``processPodOnNode``, ``deletePodHandler``,
``addConditionAndDeletePod``):

- A bound pod on a node with NoExecute taints is deleted at once if some taint is not tolerated; if all
  are, it is deleted ``min(tolerationSeconds)`` after the controller first saw it tainted (never, when no
  matching toleration sets ``tolerationSeconds``). Admission gives every pod 300 s for ``not-ready`` and
  ``unreachable``, so pods leave a lost node 300 s after its taint.
- Deleting: event ``TaintManagerEviction`` "Marking for deletion Pod <ns>/<name>", a
  ``DisruptionTarget`` condition (reason ``DeletionByTaintManager``) on the pod's status, then a delete
  with the pod's own grace period.
- When the taints go (node back) or stop applying, a pending eviction is cancelled with the event
  "Cancelling deletion of Pod <ns>/<name>".

The pending evictions live in memory, keyed by pod (upstream's ``TimedWorkerQueue``): a restarted
controller starts their clocks again from when it sees them, as upstream's does. Requests are pods;
node changes fan out to the pods on the node through the ``spec.nodeName`` index.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubelite.api.types import Node, Pod
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.nodelifecycle.taints import (
    get_matching_tolerations,
    min_toleration_seconds,
    no_execute_taints,
)
from kubelite.controllers.podutil import POD_NODE_INDEX
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import NotFound
from kubelite.events import EventRecorder
from kubelite.informer import Indexer

__all__ = ["TaintEvictionController"]


class TaintEvictionController:
    """The reconciler (one request per pod) plus the map functions that feed it."""

    def __init__(self, *, client: Client, clock: Clock, nodes: Indexer, pods: Indexer, recorder: EventRecorder) -> None:
        self.client, self.clock, self.recorder = client, clock, recorder
        self.nodes, self.pods = nodes, pods
        #: "ns/name" -> (first seen tainted, when to delete)
        self.scheduled: dict[str, tuple[float, float]] = {}

    # --- map functions ---
    def _node_tainted(self, node_name: str | None) -> bool:
        return bool(node_name) and bool(no_execute_taints(self.nodes.get_by_key(node_name or "")))

    def pod_requests(self, pod: Pod) -> Iterable[Request]:
        meta, spec = pod.metadata, pod.spec
        if meta is None or spec is None or not spec.node_name:
            return ()
        ns, name = meta.namespace or "", meta.name or ""
        if f"{ns}/{name}" in self.scheduled or self._node_tainted(spec.node_name):
            return (Request(ns, name),)
        return ()

    def node_requests(self, node: Node) -> Iterable[Request]:
        name = node.metadata.name if node.metadata is not None else ""
        tainted = bool(no_execute_taints(node))
        out = []
        for pod in self.pods.by_index(POD_NODE_INDEX, name or ""):
            m = pod.metadata
            if tainted or f"{m.namespace}/{m.name}" in self.scheduled:
                out.append(Request(m.namespace or "", m.name or ""))
        return out

    # --- reconcile ---
    def _cancel(self, key: str, pod: Pod | None) -> None:
        if self.scheduled.pop(key, None) is not None and pod is not None:
            self.recorder.event(pod, "Normal", "TaintManagerEviction", f"Cancelling deletion of Pod {key}")

    async def reconcile(self, req: Request) -> Result | None:
        key = f"{req.namespace}/{req.name}"
        pod: Pod | None = self.pods.get_by_key(key)
        if pod is None or pod.spec is None or not pod.spec.node_name or (
                pod.metadata is not None and pod.metadata.deletion_timestamp):
            self.scheduled.pop(key, None)
            return None
        taints = no_execute_taints(self.nodes.get_by_key(pod.spec.node_name))
        if not taints:
            self._cancel(key, pod)
            return None
        now = self.clock.now()
        all_tolerated, used = get_matching_tolerations(taints, pod.spec.tolerations or ())
        if not all_tolerated:
            fire_at = now
        else:
            secs = min_toleration_seconds(used)
            if secs < 0:
                self._cancel(key, pod)
                return None
            created, fire_at = self.scheduled.get(key, (now, now + secs))
            self.scheduled[key] = (created, fire_at)
        if now < fire_at:
            return Result(requeue_after=fire_at - now)
        self.scheduled.pop(key, None)
        await self._delete(pod, key)
        return None

    async def _delete(self, pod: Pod, key: str) -> None:
        """``deletePodHandler``: event, DisruptionTarget condition, delete."""
        self.recorder.event(pod, "Normal", "TaintManagerEviction", f"Marking for deletion Pod {key}")
        ns, name = pod.metadata.namespace if pod.metadata else "", pod.metadata.name if pod.metadata else ""
        try:
            await self.client.patch_status(Pod, name or "", {"status": {"conditions": [{
                "type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint",
                "lastTransitionTime": self.clock.timestamp()}]}}, namespace=ns, patch_type="strategic")
            await self.client.delete(Pod, name or "", namespace=ns)
        except NotFound:
            return
