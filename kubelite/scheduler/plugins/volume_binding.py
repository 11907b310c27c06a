"""VolumeBinding, simplified (upstream ``plugins/volumebinding``).

- A pod's PersistentVolumeClaims (``persistentVolumeClaim`` volumes and generic ``ephemeral`` ones,
  named ``<pod>-<volume>``) must exist and not be terminating; otherwise the pod is unresolvable until
  a PVC event.
- A bound claim's PersistentVolume node affinity must match the node ("node(s) had volume node
  affinity conflict").
- An unbound claim of a ``WaitForFirstConsumer`` StorageClass is *bound by the scheduler*: PreBind
  writes the ``volume.kubernetes.io/selected-node`` annotation (what triggers provisioning upstream).
  Any other unbound claim makes the pod wait ("pod has unbound immediate PersistentVolumeClaims")
  until the claim is bound. Deviation: there is no PV matching or provisioning wait inside the
  scheduler; kubelite has no PV controller yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.api.scheduling import node_selector_term_matches
from kubelite.errors import ApiError
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    UPDATE,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
)
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_REASON_BINDING", "ERR_REASON_NODE_CONFLICT", "NAME", "SELECTED_NODE_ANNOTATION", "VolumeBinding",
           "new", "pod_claim_names"]

NAME = "VolumeBinding"
ERR_REASON_BINDING = "pod has unbound immediate PersistentVolumeClaims"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
_KEY = "PreFilter" + NAME
_SKIP = Status(SKIP)


def pod_claim_names(pod: PodInfo) -> list[str]:
    spec = pod.pod.spec
    out: list[str] = []
    for v in (spec.volumes if spec is not None else None) or ():
        if v.persistent_volume_claim is not None and v.persistent_volume_claim.claim_name:
            out.append(v.persistent_volume_claim.claim_name)
        elif v.ephemeral is not None:
            out.append(f"{pod.name}-{v.name}")
    return out


class _State:
    __slots__ = ("bound_pvs", "delayed")

    def __init__(self) -> None:
        self.bound_pvs: list[Any] = []
        self.delayed: list[str] = []


class VolumeBinding:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def _lister(self, kind: str) -> Any:
        from kubelite.api.types import PersistentVolume, PersistentVolumeClaim, StorageClass

        cls = {"pvc": PersistentVolumeClaim, "pv": PersistentVolume, "sc": StorageClass}[kind]
        return self.handle.informers.lister_for(cls)

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        claims = pod_claim_names(pod)
        if not claims:
            return None, _SKIP
        if self.handle.informers is None:
            return None, Status.error("VolumeBinding needs informers")
        s = _State()
        unbound_immediate = False
        for name in claims:
            try:
                pvc = self._lister("pvc").namespace(pod.namespace).get(name)
            except Exception:
                return None, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, f'persistentvolumeclaim "{name}" not found')
            if pvc.metadata is not None and pvc.metadata.deletion_timestamp:
                return None, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, f'persistentvolumeclaim "{name}" is being deleted')
            vol = pvc.spec.volume_name if pvc.spec is not None else None
            if vol:
                try:
                    s.bound_pvs.append(self._lister("pv").get(vol))
                except Exception:
                    return None, Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                                        f'pvc {pod.namespace}/{name} bound to non-existent pv "{vol}"')
                continue
            sc_name = pvc.spec.storage_class_name if pvc.spec is not None else None
            mode = None
            if sc_name:
                try:
                    mode = self._lister("sc").get(sc_name).volume_binding_mode
                except Exception:
                    mode = None
            if mode == "WaitForFirstConsumer":
                s.delayed.append(name)
            else:
                unbound_immediate = True
        if unbound_immediate:
            return None, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_BINDING)
        state.write(_KEY, s)
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s: _State = state.read(_KEY)
        for pv in s.bound_pvs:
            na = pv.spec.node_affinity if pv.spec is not None else None
            req = na.required if na is not None else None
            if req is None:
                continue
            if not any(node_selector_term_matches(t, node.labels, node.name) for t in req.node_selector_terms or ()):
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_CONFLICT)
        return None

    async def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        s: _State | None = state.get(_KEY)
        if s is None or not s.delayed:
            return None
        for name in s.delayed:
            try:
                await self.handle.client.patch(
                    "persistentvolumeclaims", name,
                    {"metadata": {"annotations": {SELECTED_NODE_ANNOTATION: node_name}}},
                    namespace=pod.namespace, patch_type="merge")
            except ApiError as e:
                return Status.error(e.status.message or str(e))
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", ADD | UPDATE)),
                ClusterEventWithHint(ClusterEvent("PersistentVolume", ADD | UPDATE)),
                ClusterEventWithHint(ClusterEvent("StorageClass", ADD | UPDATE)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE))]


def new(args: Mapping[str, Any], handle: Any) -> VolumeBinding:
    return VolumeBinding(handle)
