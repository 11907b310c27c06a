"""kube-controller-manager's ``persistentvolume-binder`` plus kubelite's built-in dynamic provisioner.

- :mod:`.binder`: the PersistentVolume controller (``pkg/controller/volume/persistentvolume``): binds
  claims to volumes, hands unmatched claims to their class's provisioner, releases and reclaims volumes.
- :mod:`.provisioner`: an external-provisioner look-alike serving every StorageClass whose provisioner
  is not ``kubernetes.io/no-provisioner``; volumes are hostPath-backed and take time to create.
- :mod:`.util`: the pure matching rules (which volume fits which claim).
- :mod:`.watches`: which requests an event wakes, and the informer indexes behind that.

Four reconcile loops run on the manager: binder claims (``persistentvolume-binder-claim``), binder
volumes (``persistentvolume-binder-volume``), provisioner claims and provisioner volumes.

Options (``Cluster(controller_options={"persistentvolume-binder": {...}})``): ``workers`` (1 per binder
loop, as upstream's single claim and volume workers), ``provisioner`` (True: run the built-in provisioner),
``provisioning_delay`` (1.0 s of cluster time per volume created), ``deletion_delay`` (1.0 s per volume
deleted), ``provisioner_workers`` (4), ``hostpath_base`` (``/var/lib/kubelite/hostpath``).
"""

from __future__ import annotations

from kubelite.api.types import Node, PersistentVolume, PersistentVolumeClaim, StorageClass
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.volume_binder.binder import PersistentVolumeController
from kubelite.controllers.volume_binder.provisioner import HOSTPATH_PROVISIONER, HostPathProvisioner
from kubelite.controllers.volume_binder.watches import (
    ClaimsForClass,
    VolumeEventHandler,
    VolumesForClaim,
    claim_indexers,
    volume_indexers,
)

__all__ = ["HOSTPATH_PROVISIONER", "NAME", "HostPathProvisioner", "PersistentVolumeController", "register"]

NAME = "persistentvolume-binder"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"deletion_delay", "hostpath_base", "provisioner", "provisioner_workers", "provisioning_delay", "workers"})


def register(ctx: ControllerContext) -> PersistentVolumeController:
    claims = ctx.informers.informer_for(PersistentVolumeClaim, indexers=claim_indexers())
    volumes = ctx.informers.informer_for(PersistentVolume, indexers=volume_indexers())
    classes = ctx.informers.lister_for(StorageClass)
    nodes = ctx.informers.lister_for(Node)
    workers = ctx.option(NAME, "workers", 1)
    binder = PersistentVolumeController(
        client=ctx.client, claims=claims, volumes=volumes, classes=classes, nodes=nodes, clock=ctx.clock,
        recorder=ctx.recorder("persistentvolume-controller"))
    (ctx.manager.controller(f"{NAME}-claim").for_(PersistentVolumeClaim)
     .watches(PersistentVolume, VolumeEventHandler(claims.get_indexer()))
     .watches(StorageClass, ClaimsForClass(claims.get_indexer()))
     .with_max_concurrent_reconciles(workers).complete(binder.sync_claim))
    (ctx.manager.controller(f"{NAME}-volume").for_(PersistentVolume)
     .watches(PersistentVolumeClaim, VolumesForClaim(volumes.get_indexer()))
     .with_max_concurrent_reconciles(workers).complete(binder.sync_volume))
    if ctx.option(NAME, "provisioner", True):
        prov = HostPathProvisioner(
            client=ctx.client, claims=claims.get_indexer(), volumes=volumes.get_indexer(), classes=classes,
            nodes=nodes, clock=ctx.clock, recorder_for=ctx.recorder,
            provisioning_delay=ctx.option(NAME, "provisioning_delay", 1.0),
            deletion_delay=ctx.option(NAME, "deletion_delay", 1.0),
            base_path=ctx.option(NAME, "hostpath_base", "/var/lib/kubelite/hostpath"))
        prov_workers = ctx.option(NAME, "provisioner_workers", 4)
        (ctx.manager.controller("kubelite-provisioner-claim").for_(PersistentVolumeClaim)
         .watches(StorageClass, ClaimsForClass(claims.get_indexer()))
         .with_max_concurrent_reconciles(prov_workers).complete(prov.sync_claim))
        (ctx.manager.controller("kubelite-provisioner-volume").for_(PersistentVolume)
         .with_max_concurrent_reconciles(prov_workers).complete(prov.sync_volume))
    return binder
