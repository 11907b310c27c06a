"""kubelite's built-in dynamic provisioner: creates and deletes volumes for every StorageClass.

Plays the external provisioner (``sigs.k8s.io/sig-storage-lib-external-provisioner`` ``controller.go``:
``shouldProvision``, ``provisionClaimOperation``, ``shouldDelete``, ``deleteVolumeOperation``) for every
provisioner name except ``kubernetes.io/no-provisioner``, with a hostPath backing like the hostpath
provisioners of kind/minikube (``kubelite.io/hostpath`` is the name kubelite's own classes use).

Guarantees:
- It provisions only claims the binder handed over (``volume.kubernetes.io/storage-provisioner`` set to
  the claim's class's provisioner), still unbound and not being deleted; for a WaitForFirstConsumer class
  only once the scheduler has written ``volume.kubernetes.io/selected-node``, and then the volume gets a
  required node affinity on that node (``kubernetes.io/hostname``). A selected node that no longer
  exists is reported (``ProvisioningFailed``) and the annotation removed, so the scheduler picks again.
- The volume is ``pvc-<claim uid>``: capacity as requested, the claim's access and volume modes, the
  class's reclaim policy and mount options, ``spec.claimRef`` pre-bound to the claim (uid included) and
  annotation ``pv.kubernetes.io/provisioned-by``. Creating it twice is harmless (AlreadyExists), so a
  restart or a stale cache never yields two volumes for one claim; the binder then binds the pair.
- Creating a volume takes ``provisioning_delay`` seconds of cluster time ("Provisioning" event at the
  start, "ProvisioningSucceeded" at the end), deleting one ``deletion_delay``; neither blocks a worker
  (the request comes back when the time is up). The wait is in memory: after a restart it starts over.
- It deletes only volumes it could have provisioned (``provisioned-by`` set) that are Released with
  reclaim policy Delete, after re-reading the volume from the API, with a uid precondition.

Only this module creates or deletes PersistentVolumes; it never writes bindings or phases.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from kubelite.api.types import Node, PersistentVolume, PersistentVolumeClaim, StorageClass
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.reconcile import Request, Result
from kubelite.controllers.volume_binder.util import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    NOT_SUPPORTED_PROVISIONER,
    claim_class,
    claim_key,
)
from kubelite.errors import AlreadyExists, Conflict, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import Indexer
from kubelite.informer.lister import Lister

__all__ = ["HOSTNAME_LABEL", "HOSTPATH_PROVISIONER", "HostPathProvisioner", "provisioned_volume"]

HOSTPATH_PROVISIONER = "kubelite.io/hostpath"
HOSTNAME_LABEL = "kubernetes.io/hostname"
_WARNING, _NORMAL = "Warning", "Normal"


def provisioned_volume(claim: PersistentVolumeClaim, sc: StorageClass, provisioner: str, *,
                       node: Node | None = None, base_path: str = "/var/lib/kubelite/hostpath") -> dict[str, Any]:
    """The PersistentVolume created for ``claim`` (the provisioner's ``Provision`` result plus the
    library's claimRef, class and annotation)."""
    m, spec = claim.metadata, claim.spec
    assert m is not None and spec is not None
    name = f"pvc-{m.uid}"
    requests = (spec.resources.requests if spec.resources is not None else None) or {}
    pv_spec: dict[str, Any] = {
        "capacity": {"storage": requests.get("storage", "0")},
        "accessModes": list(spec.access_modes or ()),
        "volumeMode": spec.volume_mode or "Filesystem",
        "storageClassName": sc.metadata.name if sc.metadata is not None else "",
        "persistentVolumeReclaimPolicy": sc.reclaim_policy or "Delete",
        "hostPath": {"path": f"{base_path}/{name}_{m.namespace}_{m.name}", "type": "DirectoryOrCreate"},
        "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": m.namespace,
                     "name": m.name, "uid": m.uid, "resourceVersion": m.resource_version},
    }
    if sc.mount_options:
        pv_spec["mountOptions"] = list(sc.mount_options)
    if node is not None and node.metadata is not None:
        host = (node.metadata.labels or {}).get(HOSTNAME_LABEL, node.metadata.name)
        pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [host]}]}]}}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": {ANN_DYNAMICALLY_PROVISIONED: provisioner}},
            "spec": pv_spec}


class HostPathProvisioner:
    """:meth:`sync_claim` provisions, :meth:`sync_volume` deletes."""

    def __init__(
        self, *, client: Client, claims: Indexer, volumes: Indexer, classes: Lister[StorageClass],
        nodes: Lister[Node], clock: Clock, recorder_for: Callable[[str], EventRecorder],
        provisioning_delay: float = 1.0, deletion_delay: float = 1.0, base_path: str = "/var/lib/kubelite/hostpath",
    ) -> None:
        self.client, self.clock = client, clock
        self.claims, self.volumes, self.classes, self.nodes = claims, volumes, classes, nodes
        self._recorders: dict[str, EventRecorder] = {}
        self._recorder_for = recorder_for
        self.provisioning_delay, self.deletion_delay, self.base_path = provisioning_delay, deletion_delay, base_path
        # claim key -> (claim uid, when provisioning started); volume name -> (uid, when deletion started)
        self._provisioning: dict[str, tuple[str, float]] = {}
        self._deleting: dict[str, tuple[str, float]] = {}

    def _recorder(self, provisioner: str) -> EventRecorder:
        """Events come from the provisioner named by the class, as an external provisioner's would."""
        r = self._recorders.get(provisioner)
        if r is None:
            r = self._recorders[provisioner] = self._recorder_for(provisioner)
        return r

    def _class_of(self, claim: PersistentVolumeClaim) -> StorageClass | None:
        try:
            return self.classes.get(claim_class(claim))
        except NotFound:
            return None

    def _wait(self, table: dict[str, tuple[str, float]], key: str, uid: str, delay: float) -> float | None:
        """Seconds still to wait before the operation on ``key`` completes (None: done waiting)."""
        now = self.clock.now()
        started = table.get(key)
        if started is None or started[0] != uid:
            started = table[key] = (uid, now)
        left = started[1] + delay - now
        return left if left > 0 else None

    # --- provisioning ------------------------------------------------------------------------------------

    def _should_provision(self, claim: PersistentVolumeClaim) -> tuple[StorageClass, str] | None:
        """``shouldProvision``: handed to a provisioner we serve, unbound, and (WFFC) its node chosen."""
        if claim.spec is None or claim.spec.volume_name or claim.metadata is None or claim.metadata.deletion_timestamp:
            return None
        ann = claim.metadata.annotations or {}
        provisioner = ann.get(ANN_STORAGE_PROVISIONER) or ann.get(ANN_BETA_STORAGE_PROVISIONER)
        if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
            return None
        sc = self._class_of(claim)
        if sc is None or sc.provisioner != provisioner:
            return None
        if sc.volume_binding_mode == "WaitForFirstConsumer" and not ann.get(ANN_SELECTED_NODE):
            return None
        return sc, provisioner

    async def sync_claim(self, req: Request) -> Result | None:
        key = f"{req.namespace}/{req.name}"
        claim: PersistentVolumeClaim | None = self.claims.get_by_key(key)
        todo = self._should_provision(claim) if claim is not None else None
        if claim is None or todo is None or claim.metadata is None:
            self._provisioning.pop(key, None)
            return None
        sc, provisioner = todo
        uid = claim.metadata.uid or ""
        if self.volumes.get_by_key(f"pvc-{uid}") is not None:
            self._provisioning.pop(key, None)
            return None  # provisioned already; the binder binds it
        recorder = self._recorder(provisioner)
        node: Node | None = None
        node_name = (claim.metadata.annotations or {}).get(ANN_SELECTED_NODE)
        if node_name and sc.volume_binding_mode == "WaitForFirstConsumer":
            try:
                node = self.nodes.get(node_name)
            except NotFound:
                # ``rescheduleProvisioning``: give the claim back to the scheduler
                recorder.event(claim, _WARNING, "ProvisioningFailed", f'nodes "{node_name}" not found')
                self._provisioning.pop(key, None)
                await self.client.patch(PersistentVolumeClaim, req.name, {"metadata": {"annotations": {
                    ANN_SELECTED_NODE: None}}}, namespace=req.namespace, patch_type="merge")
                return None
        if key not in self._provisioning or self._provisioning[key][0] != uid:
            recorder.event(claim, _NORMAL, "Provisioning",
                           f'External provisioner is provisioning volume for claim "{claim_key(claim)}"')
        left = self._wait(self._provisioning, key, uid, self.provisioning_delay)
        if left is not None:
            return Result(requeue_after=left)
        body = provisioned_volume(claim, sc, provisioner, node=node, base_path=self.base_path)
        with contextlib.suppress(AlreadyExists):  # a stale cache or a restart: it is there already
            await self.client.create(body)
        self._provisioning.pop(key, None)
        recorder.event(claim, _NORMAL, "ProvisioningSucceeded", f"Successfully provisioned volume {body['metadata']['name']}")
        return None

    # --- deletion ----------------------------------------------------------------------------------------

    @staticmethod
    def _should_delete(volume: PersistentVolume) -> bool:
        """``shouldDelete``: Released, policy Delete, made by a provisioner (kubelite serves them all)."""
        ann = (volume.metadata.annotations if volume.metadata is not None else None) or {}
        return (volume.status is not None and volume.status.phase == "Released" and volume.spec is not None
                and volume.spec.persistent_volume_reclaim_policy == "Delete"
                and ann.get(ANN_DYNAMICALLY_PROVISIONED, NOT_SUPPORTED_PROVISIONER) != NOT_SUPPORTED_PROVISIONER)

    async def sync_volume(self, req: Request) -> Result | None:
        volume: PersistentVolume | None = self.volumes.get_by_key(req.name)
        if volume is None or volume.metadata is None or not self._should_delete(volume):
            self._deleting.pop(req.name, None)
            return None
        uid = volume.metadata.uid or ""
        left = self._wait(self._deleting, req.name, uid, self.deletion_delay)
        if left is not None:
            return Result(requeue_after=left)
        self._deleting.pop(req.name, None)
        try:  # decide on a fresh read: the claim may have been re-bound meanwhile
            fresh: PersistentVolume = await self.client.get(PersistentVolume, req.name)
            if self._should_delete(fresh):
                await self.client.delete(PersistentVolume, req.name, preconditions={"uid": uid})
        except (NotFound, Conflict):
            pass
        return None
