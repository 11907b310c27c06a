"""Which binder requests an event wakes, and the informer indexes that make the answers cheap.

Upstream's PV controller enqueues the volume of a changed claim (``updateClaim``/``deleteClaim``), the
claim of a changed volume (``updateVolume``/``deleteVolume``), and otherwise relies on a 15 s resync
to retry pending claims. kubelite reacts at once instead: a volume that *becomes* free, or a
StorageClass that changes, wakes the pending claims of its class. Only transitions wake the class, so a
bulk bind stays linear.

Indexes (added to the shared informers; every function only reads the cache objects):
- claims: :data:`PENDING_CLAIMS_BY_CLASS` - claims without ``spec.volumeName``, by class name.
- volumes: :data:`UNBOUND_VOLUMES_BY_CLASS` - volumes without ``claimRef``, by class name (the only
  volumes a claim may be matched to besides its own); :data:`VOLUMES_BY_CLAIM` - volumes by the
  ``namespace/name`` their ``claimRef`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubelite.api.types import PersistentVolume, PersistentVolumeClaim, StorageClass
from kubelite.controllers.handler import unwrap
from kubelite.controllers.reconcile import Request
from kubelite.controllers.volume_binder.util import claim_key
from kubelite.informer import Indexer

__all__ = [
    "PENDING_CLAIMS_BY_CLASS",
    "UNBOUND_VOLUMES_BY_CLASS",
    "VOLUMES_BY_CLAIM",
    "ClaimsForClass",
    "VolumeEventHandler",
    "VolumesForClaim",
    "claim_indexers",
    "claims_for_volume",
    "pending_requests",
    "volume_indexers",
]

PENDING_CLAIMS_BY_CLASS = "pending-by-storage-class"
UNBOUND_VOLUMES_BY_CLASS = "unbound-by-storage-class"
VOLUMES_BY_CLAIM = "by-claim-ref"

Enqueue = Callable[[Request], None]


def _pending_claims_by_class(claim: PersistentVolumeClaim) -> list[str]:
    spec = claim.spec
    if spec is None or spec.volume_name:
        return []
    return [spec.storage_class_name or ""]


def _unbound_volumes_by_class(volume: PersistentVolume) -> list[str]:
    spec = volume.spec
    if spec is None or spec.claim_ref is not None:
        return []
    return [spec.storage_class_name or ""]


def _volumes_by_claim(volume: PersistentVolume) -> list[str]:
    ref = volume.spec.claim_ref if volume.spec is not None else None
    return [f"{ref.namespace}/{ref.name}"] if ref is not None else []


def claim_indexers() -> dict[str, Any]:
    return {PENDING_CLAIMS_BY_CLASS: _pending_claims_by_class}


def volume_indexers() -> dict[str, Any]:
    return {UNBOUND_VOLUMES_BY_CLASS: _unbound_volumes_by_class, VOLUMES_BY_CLAIM: _volumes_by_claim}


def claims_for_volume(volume: PersistentVolume) -> list[Request]:
    """The claim a volume's claimRef names (none for a free volume)."""
    ref = volume.spec.claim_ref if volume.spec is not None else None
    return [Request(ref.namespace or "", ref.name or "")] if ref is not None else []


def pending_requests(claims: Indexer, klass: str) -> list[Request]:
    return [Request(c.metadata.namespace or "", c.metadata.name or "")
            for c in claims.by_index(PENDING_CLAIMS_BY_CLASS, klass)]


def _free(volume: Any) -> bool:
    """Unbound and Available: what a pending claim of its class may be waiting for."""
    return volume.spec is not None and volume.spec.claim_ref is None and volume.status is not None \
        and volume.status.phase == "Available"


def _class_of(volume: Any) -> str:
    return (volume.spec.storage_class_name if volume.spec is not None else None) or ""


class VolumeEventHandler:
    """Volume events -> claim requests: the claimRef's claim (old and new), and - only when a volume
    becomes free - every pending claim of its class."""

    def __init__(self, claims: Indexer) -> None:
        self.claims = claims

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        obj = unwrap(obj)
        for r in claims_for_volume(obj):
            enqueue(r)
        if _free(obj):
            for r in pending_requests(self.claims, _class_of(obj)):
                enqueue(r)

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        old, new = unwrap(old), unwrap(new)
        reqs = claims_for_volume(new)
        for r in claims_for_volume(old):
            if r not in reqs:
                reqs.append(r)
        for r in reqs:
            enqueue(r)
        if _free(new) and not _free(old):
            for r in pending_requests(self.claims, _class_of(new)):
                enqueue(r)

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        for r in claims_for_volume(unwrap(obj)):
            enqueue(r)


class ClaimsForClass:
    """StorageClass -> its pending claims (a class created or changed late may unblock them)."""

    def __init__(self, claims: Indexer) -> None:
        self.claims = claims

    def __call__(self, sc: StorageClass) -> list[Request]:
        return pending_requests(self.claims, (sc.metadata.name if sc.metadata is not None else None) or "")


class VolumesForClaim:
    """Claim -> its volume and every volume whose claimRef names it (so a deleted claim's volume is
    released, and a provisioned volume learns its claim is bound)."""

    def __init__(self, volumes: Indexer) -> None:
        self.volumes = volumes

    def __call__(self, claim: PersistentVolumeClaim) -> list[Request]:
        out = [Request("", v.metadata.name or "") for v in self.volumes.by_index(VOLUMES_BY_CLAIM, claim_key(claim))]
        vn = claim.spec.volume_name if claim.spec is not None else None
        if vn and all(r.name != vn for r in out):
            out.append(Request("", vn))
        return out
