"""The PersistentVolume binder: kube-controller-manager's ``persistentvolume-binder`` control loops.

Follows ``pkg/controller/volume/persistentvolume/pv_controller.go`` (``syncClaim``, ``syncUnboundClaim``,
``syncBoundClaim``, ``syncVolume``, ``bind``, ``unbindVolume``, ``reclaimVolume``, ``provisionClaim``
with an external provisioner) and ``pv_controller_base.go`` (the two queues, ``storeClaimUpdate`` /
``storeVolumeUpdate``).

Guarantees:
- Binding is two-sided and ordered as upstream: the volume first (``spec.claimRef`` with the claim's uid
  and resourceVersion, ``pv.kubernetes.io/bound-by-controller`` when the controller chose it), then the
  volume's phase Bound, then the claim (``spec.volumeName``, ``pv.kubernetes.io/bind-completed``, the
  bound-by-controller annotation when the controller chose the volume), then the claim's status (phase
  Bound, the volume's capacity and access modes). Every write is an update carrying the object's
  resourceVersion, so two claims racing for one volume cannot both win: the loser gets a Conflict and is
  retried with backoff. A crash between the steps is repaired by the next sync of either side.
- Pre-bound objects are honoured: a claim naming ``spec.volumeName`` gets that volume or stays Pending
  (``VolumeMismatch`` event when it does not fit); a volume whose ``claimRef`` names a claim is only
  ever bound to that claim.
- Informer staleness: objects this controller wrote are remembered until the informer catches up
  (upstream keeps its own cache for the same reason), so a sync never undoes or repeats its own write.
- Claims that no volume fits: with a storage class they are handed to the class's provisioner
  (annotations ``volume.kubernetes.io/storage-provisioner`` + beta, event ``ExternalProvisioning``);
  kubelite's built-in provisioner (:mod:`.provisioner`) then creates a volume pre-bound to the claim.
- Reclaim: a volume whose claim is gone becomes Released; Retain keeps it, Delete leaves the deletion
  to the provisioner that created it (a volume nobody provisioned fails with ``VolumeFailedDelete``, as
  upstream without an in-tree deleter), Recycle fails (no recycler plugin).

Deviation: upstream leaves WaitForFirstConsumer claims to the scheduler's volume binder, which picks
a volume in PreBind. kubelite's scheduler only writes ``volume.kubernetes.io/selected-node``, so this
controller matches such a claim once the annotation is set, against volumes whose node affinity admits
that node (``FindMatchingVolume`` on the scheduler's path), and provisions when none fits. The
``WaitForPodScheduled`` event variant (naming the waiting pods) is not emitted.

Only this module writes ``claimRef``/``volumeName``/binding annotations and phases; the provisioner
only creates and deletes volumes.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from kubelite.api.types import Node, PersistentVolume, PersistentVolumeClaim, StorageClass
from kubelite.api.types.core_v1 import ObjectReference, PersistentVolumeClaimStatus, PersistentVolumeStatus
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.reconcile import Request, Result
from kubelite.controllers.volume_binder.util import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    NOT_SUPPORTED_PROVISIONER,
    check_volume_satisfy_claim,
    claim_class,
    claim_key,
    find_matching_volume,
    is_volume_bound_to_claim,
)
from kubelite.controllers.volume_binder.watches import UNBOUND_VOLUMES_BY_CLASS, VOLUMES_BY_CLAIM
from kubelite.errors import NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer
from kubelite.informer.lister import Lister

__all__ = ["PersistentVolumeController"]

_WARNING, _NORMAL = "Warning", "Normal"


def _rv(obj: Any) -> int:
    try:
        return int(obj.metadata.resource_version or 0)
    except (AttributeError, ValueError):
        return 0


def _annotations(obj: Any) -> dict[str, str]:
    return (obj.metadata.annotations if obj.metadata is not None else None) or {}


def _with_annotations(obj: Any, **updates: str) -> Any:
    """A copy of ``obj`` with ``metadata.annotations`` updated (the cache object is never mutated)."""
    ann = dict(_annotations(obj))
    ann.update(updates)
    return replace(obj, metadata=replace(obj.metadata, annotations=ann))


class PersistentVolumeController:
    """``PersistentVolumeController``: :meth:`sync_claim` and :meth:`sync_volume` are the two reconcilers."""

    def __init__(
        self, *, client: Client, claims: SharedIndexInformer, volumes: SharedIndexInformer,
        classes: Lister[StorageClass], nodes: Lister[Node], clock: Clock, recorder: EventRecorder,
    ) -> None:
        self.client, self.clock, self.recorder = client, clock, recorder
        self.claims = claims.get_indexer()
        self.volumes = volumes.get_indexer()
        self.classes, self.nodes = classes, nodes
        # our own writes newer than the informer's copy (upstream storeClaimUpdate/storeVolumeUpdate);
        # an entry goes as soon as the informer holds that revision or the object is gone from it
        self._written_claims: dict[str, PersistentVolumeClaim] = {}
        self._written_volumes: dict[str, PersistentVolume] = {}

    # --- cache: informer plus our newer writes ---------------------------------------------------------

    @staticmethod
    def _newest(cached: Any, written: dict[str, Any], key: str) -> Any:
        mine = written.get(key)
        if mine is None:
            return cached
        if cached is None or _rv(cached) >= _rv(mine):
            del written[key]  # deleted, or the informer has caught up
            return cached
        return mine

    def _claim(self, key: str) -> PersistentVolumeClaim | None:
        return self._newest(self.claims.get_by_key(key), self._written_claims, key)  # type: ignore[no-any-return]

    def _volume(self, name: str) -> PersistentVolume | None:
        return self._newest(self.volumes.get_by_key(name), self._written_volumes, name)  # type: ignore[no-any-return]

    def _candidate_volumes(self, claim: PersistentVolumeClaim) -> list[PersistentVolume]:
        """Volumes that may serve ``claim``: the unbound ones of its class plus those whose claimRef names
        it (pre-bound or provisioned for it), each in its newest known version. Bound volumes are never
        scanned, so matching costs O(free volumes), not O(all volumes)."""
        index = self.volumes.by_index
        found = index(VOLUMES_BY_CLAIM, claim_key(claim))
        free = index(UNBOUND_VOLUMES_BY_CLASS, claim_class(claim))
        written = self._written_volumes
        if not found and not written:
            return free
        seen: set[str] = set()
        out = []
        for v in (*found, *free):
            name = v.metadata.name
            if name in seen:
                continue
            seen.add(name)
            out.append(self._newest(v, written, name) if name in written else v)
        return out

    # --- writes ------------------------------------------------------------------------------------------

    async def _update_claim(self, claim: PersistentVolumeClaim, *, status: bool = False) -> PersistentVolumeClaim:
        new: PersistentVolumeClaim = await (self.client.replace_status(claim) if status else self.client.replace(claim))
        self._written_claims[claim_key(new)] = new
        return new

    async def _update_volume(self, volume: PersistentVolume, *, status: bool = False) -> PersistentVolume:
        new: PersistentVolume = await (self.client.replace_status(volume) if status else self.client.replace(volume))
        self._written_volumes[new.metadata.name or ""] = new  # type: ignore[union-attr]
        return new

    async def _update_claim_status(self, claim: PersistentVolumeClaim, phase: str,
                                   volume: PersistentVolume | None) -> PersistentVolumeClaim:
        """``updateClaimStatus``: phase, and the volume's capacity and access modes (cleared without one)."""
        st = claim.status or PersistentVolumeClaimStatus()
        if volume is None:
            modes, capacity = None, None
        else:
            spec = volume.spec
            modes = list(spec.access_modes or ()) if spec is not None else None
            capacity = dict(spec.capacity or {}) if spec is not None else None
        if st.phase == phase and st.access_modes == modes and st.capacity == capacity:
            return claim
        return await self._update_claim(
            replace(claim, status=replace(st, phase=phase, access_modes=modes, capacity=capacity)), status=True)

    async def _update_claim_status_with_event(self, claim: PersistentVolumeClaim, phase: str, reason: str,
                                              message: str) -> None:
        """``updateClaimStatusWithEvent``: the event only when the phase actually changes."""
        if claim.status is not None and claim.status.phase == phase:
            return
        new = await self._update_claim_status(claim, phase, None)
        self.recorder.event(new, _WARNING, reason, message)

    async def _update_volume_phase(self, volume: PersistentVolume, phase: str, message: str = "") -> PersistentVolume:
        """``updateVolumePhase`` (with ``lastPhaseTransitionTime`` on a phase change)."""
        st = volume.status or PersistentVolumeStatus()
        if st.phase == phase and (st.message or "") == message:
            return volume
        new_st = replace(st, phase=phase, message=message or None)
        if st.phase != phase:
            new_st = replace(new_st, last_phase_transition_time=self.clock.timestamp())
        return await self._update_volume(replace(volume, status=new_st), status=True)

    async def _update_volume_phase_with_event(self, volume: PersistentVolume, phase: str, reason: str,
                                              message: str) -> None:
        if volume.status is not None and volume.status.phase == phase:
            return
        new = await self._update_volume_phase(volume, phase, message)
        self.recorder.event(new, _WARNING, reason, message)

    # --- binding -----------------------------------------------------------------------------------------

    async def _bind(self, volume: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        """``bind``: volume spec, volume phase, claim spec, claim status - in that order."""
        volume = await self._bind_volume_to_claim(volume, claim)
        volume = await self._update_volume_phase(volume, "Bound")
        claim = await self._bind_claim_to_volume(claim, volume)
        await self._update_claim_status(claim, "Bound", volume)

    async def _bind_volume_to_claim(self, volume: PersistentVolume, claim: PersistentVolumeClaim) -> PersistentVolume:
        """``bindVolumeToClaim``: claimRef to the claim (with uid and resourceVersion)."""
        by_controller = not is_volume_bound_to_claim(volume, claim)
        spec, m = volume.spec, claim.metadata
        assert spec is not None and m is not None
        ref = spec.claim_ref
        new = volume
        if ref is None or ref.name != m.name or ref.namespace != m.namespace or ref.uid != m.uid:
            new = replace(new, spec=replace(spec, claim_ref=ObjectReference(
                api_version="v1", kind="PersistentVolumeClaim", namespace=m.namespace, name=m.name, uid=m.uid,
                resource_version=m.resource_version)))
        if by_controller and ANN_BOUND_BY_CONTROLLER not in _annotations(new):
            new = _with_annotations(new, **{ANN_BOUND_BY_CONTROLLER: "yes"})
        return await self._update_volume(new) if new is not volume else volume

    async def _bind_claim_to_volume(self, claim: PersistentVolumeClaim,
                                    volume: PersistentVolume) -> PersistentVolumeClaim:
        """``bindClaimToVolume``: volumeName, bind-completed (and bound-by-controller if we chose it)."""
        name = volume.metadata.name if volume.metadata is not None else None
        spec = claim.spec
        assert spec is not None
        new = claim
        if spec.volume_name != name:
            new = replace(new, spec=replace(spec, volume_name=name))
            if ANN_BOUND_BY_CONTROLLER not in _annotations(new):
                new = _with_annotations(new, **{ANN_BOUND_BY_CONTROLLER: "yes"})
        if ANN_BIND_COMPLETED not in _annotations(new):
            new = _with_annotations(new, **{ANN_BIND_COMPLETED: "yes"})
        return await self._update_claim(new) if new is not claim else claim

    async def _unbind_volume(self, volume: PersistentVolume) -> None:
        """``unbindVolume``: a controller-made binding is dropped; a user's pre-binding keeps its name."""
        spec, meta = volume.spec, volume.metadata
        assert spec is not None and spec.claim_ref is not None and meta is not None
        ann = _annotations(volume)
        if ANN_BOUND_BY_CONTROLLER in ann:
            rest = {k: v for k, v in ann.items() if k != ANN_BOUND_BY_CONTROLLER}
            new = replace(volume, spec=replace(spec, claim_ref=None), metadata=replace(meta, annotations=rest or None))
        else:
            new = replace(volume, spec=replace(spec, claim_ref=replace(spec.claim_ref, uid=None)))
        await self._update_volume_phase(await self._update_volume(new), "Available")

    # --- claims ------------------------------------------------------------------------------------------

    async def sync_claim(self, req: Request) -> Result | None:
        """``syncClaim``."""
        claim = self._claim(f"{req.namespace}/{req.name}")
        if claim is None:
            return None
        if ANN_BIND_COMPLETED not in _annotations(claim):
            await self._sync_unbound_claim(claim)
        else:
            await self._sync_bound_claim(claim)
        return None

    def _storage_class(self, name: str) -> StorageClass | None:
        try:
            return self.classes.get(name)
        except NotFound:
            return None

    def _delay_binding(self, claim: PersistentVolumeClaim) -> bool:
        """``IsDelayBindingMode``: the claim's class binds WaitForFirstConsumer."""
        klass = claim_class(claim)
        sc = self._storage_class(klass) if klass else None
        return sc is not None and sc.volume_binding_mode == "WaitForFirstConsumer"

    def _selected_node(self, claim: PersistentVolumeClaim) -> tuple[str, dict[str, str]] | None:
        name = _annotations(claim).get(ANN_SELECTED_NODE)
        if not name:
            return None
        try:
            node = self.nodes.get(name)
        except NotFound:
            return name, {}
        return name, dict((node.metadata.labels if node.metadata is not None else None) or {})

    async def _sync_unbound_claim(self, claim: PersistentVolumeClaim) -> None:
        volume_name = claim.spec.volume_name if claim.spec is not None else None
        if not volume_name:
            delay = self._delay_binding(claim)
            node = self._selected_node(claim) if delay else None
            volume = find_matching_volume(claim, self._candidate_volumes(claim), delay_binding=delay, node=node)
            if volume is None:
                if delay and node is None:
                    self.recorder.event(claim, _NORMAL, "WaitForFirstConsumer",
                                        "waiting for first consumer to be created before binding")
                elif claim_class(claim):
                    await self._provision_claim(claim)
                    return
                else:
                    self.recorder.event(claim, _NORMAL, "FailedBinding",
                                        "no persistent volumes available for this claim and no storage class is set")
                await self._update_claim_status(claim, "Pending", None)
                return
            await self._bind(volume, claim)
            return
        # the user asked for a particular volume
        volume = self._volume(volume_name)
        if volume is None:
            await self._update_claim_status(claim, "Pending", None)
            return
        ref = volume.spec.claim_ref if volume.spec is not None else None
        if ref is None:
            err = check_volume_satisfy_claim(volume, claim)
            if err is not None:
                self.recorder.event(claim, _WARNING, "VolumeMismatch",
                                    f'Cannot bind to requested volume "{volume_name}": {err}')
                await self._update_claim_status(claim, "Pending", None)
                return
            await self._bind(volume, claim)
        elif is_volume_bound_to_claim(volume, claim):
            await self._bind(volume, claim)
        elif ANN_BOUND_BY_CONTROLLER not in _annotations(claim):
            await self._update_claim_status(claim, "Pending", None)  # wanted volume is someone else's; wait
        else:
            raise RuntimeError(f'Invalid binding of claim "{claim_key(claim)}" to volume "{volume_name}": volume '
                               f'already claimed by "{ref.namespace}/{ref.name}"')

    async def _sync_bound_claim(self, claim: PersistentVolumeClaim) -> None:
        volume_name = claim.spec.volume_name if claim.spec is not None else None
        if not volume_name:
            await self._update_claim_status_with_event(
                claim, "Lost", "ClaimLost", "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!")
            return
        volume = self._volume(volume_name)
        if volume is None:
            await self._update_claim_status_with_event(
                claim, "Lost", "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
            return
        ref = volume.spec.claim_ref if volume.spec is not None else None
        if ref is None or ref.uid == (claim.metadata.uid if claim.metadata is not None else None):
            await self._bind(volume, claim)  # re-bind a volume that came unbound, or fix up statuses
        else:
            await self._update_claim_status_with_event(
                claim, "Lost", "ClaimMisbound", "Two claims are bound to the same volume, this one is bound incorrectly")

    async def _provision_claim(self, claim: PersistentVolumeClaim) -> None:
        """``provisionClaim`` -> ``provisionClaimOperationExternal``: hand the claim to its provisioner."""
        klass = claim_class(claim)
        sc = self._storage_class(klass)
        if sc is None:
            self.recorder.event(claim, _WARNING, "ProvisioningFailed",
                                f'storageclass.storage.k8s.io "{klass}" not found')
            return
        provisioner = sc.provisioner or ""
        if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
            self.recorder.event(claim, _WARNING, "ProvisioningFailed", f"no volume plugin matched name: {provisioner}")
            return
        ann = _annotations(claim)
        if ann.get(ANN_STORAGE_PROVISIONER) != provisioner or ann.get(ANN_BETA_STORAGE_PROVISIONER) != provisioner:
            claim = await self._update_claim(_with_annotations(
                claim, **{ANN_STORAGE_PROVISIONER: provisioner, ANN_BETA_STORAGE_PROVISIONER: provisioner}))
        self.recorder.event(
            claim, _NORMAL, "ExternalProvisioning",
            f"Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by "
            "the system administrator. If volume creation is delayed, please verify that the provisioner is "
            "running and correctly registered.")

    # --- volumes -----------------------------------------------------------------------------------------

    async def sync_volume(self, req: Request) -> Result | None:
        """``syncVolume``."""
        volume = self._volume(req.name)
        if volume is None or volume.spec is None:
            return None
        spec = volume.spec
        ref = spec.claim_ref
        if ref is None or not ref.uid:
            await self._update_volume_phase(volume, "Available")  # unused, or pre-bound awaiting its claim
            return None
        phase = volume.status.phase if volume.status is not None else None
        key = f"{ref.namespace}/{ref.name}"
        claim = self._claim(key)
        if claim is None and phase not in ("Released", "Failed"):
            # a claim created a moment ago may not be in the cache yet: never release on a stale miss
            try:
                claim = await self.client.get(PersistentVolumeClaim, ref.name or "", namespace=ref.namespace)
            except NotFound:
                claim = None
        if claim is not None and (claim.metadata.uid if claim.metadata is not None else None) != ref.uid:
            claim = None  # deleted and re-created under the same name
        if claim is None:
            if phase not in ("Released", "Failed"):
                volume = await self._update_volume_phase(volume, "Released")
            await self._reclaim_volume(volume)
            return None
        claim_volume = claim.spec.volume_name if claim.spec is not None else None
        if not claim_volume:
            return None  # the claim side is not bound yet; its sync (woken by this volume event) finishes it
        if claim_volume == volume.metadata.name:  # type: ignore[union-attr]
            await self._update_volume_phase(volume, "Bound")
            return None
        # bound to a claim that is bound elsewhere
        ann = _annotations(volume)
        if ANN_DYNAMICALLY_PROVISIONED in ann and spec.persistent_volume_reclaim_policy == "Delete":
            if phase not in ("Released", "Failed"):
                volume = await self._update_volume_phase(volume, "Released")
            await self._reclaim_volume(volume)
            return None
        await self._unbind_volume(volume)
        return None

    async def _reclaim_volume(self, volume: PersistentVolume) -> None:
        """``reclaimVolume``."""
        policy = volume.spec.persistent_volume_reclaim_policy if volume.spec is not None else None
        name = volume.metadata.name if volume.metadata is not None else ""
        if policy == "Retain":
            return
        if policy == "Delete":
            if ANN_DYNAMICALLY_PROVISIONED in _annotations(volume):
                return  # its provisioner deletes it (external deleter)
            await self._update_volume_phase_with_event(
                volume, "Failed", "VolumeFailedDelete",
                f'error getting deleter volume plugin for volume "{name}": no deletable volume plugin matched')
        elif policy == "Recycle":
            await self._update_volume_phase_with_event(
                volume, "Failed", "VolumeFailedRecycle", "No recycler plugin found for the volume!")
        else:
            await self._update_volume_phase_with_event(
                volume, "Failed", "VolumeUnknownReclaimPolicy", "Volume has unrecognized PersistentVolumeReclaimPolicy")
