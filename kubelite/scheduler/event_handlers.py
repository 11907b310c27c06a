"""Informer handlers that feed the scheduler's cache and queue (upstream ``eventhandlers.go``).

Contract: handlers are synchronous and do only bookkeeping (no I/O). Assigned pods go to the cache
(replacing an assumed entry), unassigned pods this scheduler is responsible for go to the queue, and
every change that may make an unschedulable pod fit becomes a ClusterEvent for
``move_all_to_active_or_backoff``. Status-only updates of pending pods (the scheduler's own condition
patches) do not requeue anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubelite.api.types import (
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    ReplicaSet,
    Service,
    StatefulSet,
    StorageClass,
)
from kubelite.informer.handlers import ResourceEventHandlerFuncs
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    UPDATE,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_CONDITION,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    UPDATE_POD_LABEL,
    UPDATE_POD_SCALE_DOWN,
    ClusterEvent,
)
from kubelite.scheduler.framework.types import PodInfo, same_spec

if TYPE_CHECKING:
    from kubelite.scheduler.scheduler import Scheduler

__all__ = ["add_all_event_handlers", "node_update_action", "pod_update_action"]

_NODE_ADD = ClusterEvent("Node", ADD, "NodeAdd")
_POD_ADD = ClusterEvent("Pod", ADD, "AssignedPodAdd")
_POD_DELETE = ClusterEvent("Pod", DELETE, "AssignedPodDelete")


def node_update_action(old: Node, new: Node) -> int:
    """Which node changes matter for scheduling (upstream ``nodeSchedulingPropertiesChange``)."""
    action = 0
    os_, ns_ = old.status, new.status
    if (os_.allocatable if os_ else None) != (ns_.allocatable if ns_ else None):
        action |= UPDATE_NODE_ALLOCATABLE
    if (old.metadata.labels if old.metadata else None) != (new.metadata.labels if new.metadata else None):
        action |= UPDATE_NODE_LABEL
    osp, nsp = old.spec, new.spec
    if ((osp.taints if osp else None) != (nsp.taints if nsp else None)
            or bool(osp and osp.unschedulable) != bool(nsp and nsp.unschedulable)):
        action |= UPDATE_NODE_TAINT
    oc = [(c.type, c.status) for c in (os_.conditions if os_ else None) or ()]
    nc = [(c.type, c.status) for c in (ns_.conditions if ns_ else None) or ()]
    if oc != nc:
        action |= UPDATE_NODE_CONDITION
    return action


def pod_update_action(old: Pod, new: Pod) -> int:
    """Upstream ``podSchedulingPropertiesChange``: label changes and request changes (``extractPodScaleDown``).
    Requests derive from the spec alone (:func:`~kubelite.api.podresources.pod_requests`), so an unchanged
    spec (a status update) has unchanged requests."""
    action = 0
    if (old.metadata.labels if old.metadata else None) != (new.metadata.labels if new.metadata else None):
        action |= UPDATE_POD_LABEL
    if not same_spec(old.spec, new.spec) and PodInfo(old).requests != PodInfo(new).requests:
        action |= UPDATE_POD_SCALE_DOWN
    return action


def _uid(pod: Pod) -> str:
    """The pod's uid as its PodInfo has it (``namespace/name`` for a pod without one)."""
    m = pod.metadata
    assert m is not None
    return m.uid or f"{m.namespace or ''}/{m.name or ''}"


def _spec_changed(old: Pod, new: Pod) -> bool:
    """Upstream ``isPodUpdated``: anything but status, resourceVersion, generation, managedFields."""
    if not same_spec(old.spec, new.spec):
        return True
    om, nm = old.metadata, new.metadata
    if om is None or nm is None:
        return om is not nm
    return (om.labels != nm.labels or om.annotations != nm.annotations
            or om.deletion_timestamp != nm.deletion_timestamp or om.owner_references != nm.owner_references)


def _assigned(pod: Pod) -> bool:
    return bool(pod.spec is not None and pod.spec.node_name)


def _terminal(pod: Pod) -> bool:
    st = pod.status
    return st is not None and st.phase in ("Succeeded", "Failed")


def add_all_event_handlers(s: Scheduler) -> None:
    queue = s.queue
    assert queue is not None
    cache = s.cache
    inf = s.informers

    def _maybe_obj(obj: Any) -> Any:
        return getattr(obj, "obj", obj)  # DeletedFinalStateUnknown carries the last known state

    # --- pods ---
    def pod_add(pod: Pod) -> None:
        if _assigned(pod):
            if _terminal(pod):
                return
            pi = PodInfo(pod)
            cache.add_pod(pi)
            queue.delete(pi.uid)
            queue.move_all_to_active_or_backoff(_POD_ADD, None, pod)
        elif s.responsible_for(pod) and not _terminal(pod):
            pi = PodInfo(pod)
            queue.add(pi)
            _sync_nomination(pi)

    def _sync_nomination(pi: PodInfo) -> None:
        st = pi.pod.status
        nominated = st.nominated_node_name if st is not None else None
        if nominated:
            cache.nominator.add(pi, nominated)
        elif cache.nominator.node_of(pi.uid):
            cache.nominator.update(pi)

    def pod_update(old: Pod, new: Pod) -> None:
        if _assigned(new):
            uid = _uid(new)
            if _terminal(new):
                cache.remove_pod(uid)
                queue.move_all_to_active_or_backoff(_POD_DELETE, old, None)
                return
            cached = cache.pod_info(uid)
            was_assigned = _assigned(old)
            pi: PodInfo | None = None
            confirmed = False
            if cached is not None:
                if was_assigned:
                    pi = cached.status_update(new)
                    if pi is not None and cache.refresh_pod(cached, pi):
                        # a status write (most pod writes: the kubelet's): labels and spec as cached, so nothing
                        # to requeue either (podSchedulingPropertiesChange finds no change)
                        return
                else:
                    # the binding of a pod this scheduler assumed (one per scheduled pod): the assumed entry
                    # becomes the bound one with its derived fields shared, when it landed where it was assumed
                    pi = cached.bound_update(new)
                    confirmed = pi is not None and cache.confirm_pod(cached, pi)
            if pi is None:
                pi = PodInfo(new)
            if not confirmed:
                cache.add_pod(pi)
            if not was_assigned:
                queue.delete(pi.uid)
                cache.nominator.delete(pi)
                queue.move_all_to_active_or_backoff(_POD_ADD, None, new)
                return
            action = pod_update_action(old, new)
            if action:
                queue.move_all_to_active_or_backoff(ClusterEvent("Pod", action), old, new)
            return
        if not s.responsible_for(new) or _terminal(new):
            return
        if _spec_changed(old, new):
            pi = PodInfo(new)
            queue.update(pi)
            _sync_nomination(pi)
        else:
            st_o, st_n = old.status, new.status
            if (st_o.nominated_node_name if st_o else None) != (st_n.nominated_node_name if st_n else None):
                pi = PodInfo(new)
                _sync_nomination(pi)
                if not (st_n and st_n.nominated_node_name):
                    cache.nominator.delete(pi)

    def pod_delete(obj: Any) -> None:
        pod: Pod = _maybe_obj(obj)
        pi_uid = (pod.metadata.uid if pod.metadata is not None else None) or ""
        wp = s.waiting_pods.get(pi_uid)
        if wp is not None:
            wp.reject("", "pod deleted")
        if _assigned(pod):
            cache.remove_pod(pi_uid)
            queue.move_all_to_active_or_backoff(_POD_DELETE, pod, None)
        else:
            queue.delete(pi_uid)
            if cache.nominator.node_of(pi_uid):
                cache.nominator.delete(PodInfo(pod))

    inf.informer_for(Pod).add_event_handler(
        ResourceEventHandlerFuncs(on_add=pod_add, on_update=pod_update, on_delete=pod_delete))

    # --- nodes ---
    def node_add(node: Node) -> None:
        cache.add_node(node)
        queue.move_all_to_active_or_backoff(_NODE_ADD, None, node)

    def node_update(old: Node, new: Node) -> None:
        cache.update_node(new)
        action = node_update_action(old, new)
        if action:
            queue.move_all_to_active_or_backoff(ClusterEvent("Node", action), old, new)

    def node_delete(obj: Any) -> None:
        node: Node = _maybe_obj(obj)
        cache.remove_node((node.metadata.name if node.metadata is not None else None) or "")

    inf.informer_for(Node).add_event_handler(
        ResourceEventHandlerFuncs(on_add=node_add, on_update=node_update, on_delete=node_delete))

    # --- storage: any change may unblock a pod waiting for its volumes ---
    for cls, resource in ((PersistentVolumeClaim, "PersistentVolumeClaim"), (PersistentVolume, "PersistentVolume"),
                          (StorageClass, "StorageClass")):
        def make(res: str) -> ResourceEventHandlerFuncs:
            return ResourceEventHandlerFuncs(
                on_add=lambda o: queue.move_all_to_active_or_backoff(ClusterEvent(res, ADD), None, o),
                on_update=lambda a, b: queue.move_all_to_active_or_backoff(ClusterEvent(res, UPDATE), a, b),
                on_delete=lambda o: queue.move_all_to_active_or_backoff(ClusterEvent(res, DELETE), o, None))

        inf.informer_for(cls).add_event_handler(make(resource))
    # Listed by preemption (PDBs) and default topology spreading (owners, services).
    for cls2 in (PodDisruptionBudget, Service, ReplicaSet, StatefulSet):
        inf.informer_for(cls2)
