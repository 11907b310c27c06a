"""Pure helpers of the PersistentVolume binder: which volume may serve which claim.

Follows ``pkg/controller/volume/persistentvolume/util/util.go`` (``FindMatchingVolume``,
``CheckAccessModes``, ``CheckVolumeModeMismatches``, ``IsVolumeBoundToClaim``), ``index.go``
(``findByClaim``: volumes grouped by access-mode set, the groups with the fewest modes searched first)
and ``pv_controller.go`` (``checkVolumeSatisfyClaim``), plus ``component-helpers/storage/volume``
(the annotation names and ``CheckNodeAffinity``).

Contract: every function only *reads* the Structs it is given (informer-cache objects, never mutated)
and does no I/O; they are plain synchronous code, tested without an event loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from kubelite.api.labels import label_selector_matches
from kubelite.api.quantity import Quantity, parse_quantity
from kubelite.api.types import PersistentVolume, PersistentVolumeClaim
from kubelite.memo import memoize

__all__ = [
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_PROVISIONER",
    "NOT_SUPPORTED_PROVISIONER",
    "check_access_modes",
    "check_volume_satisfy_claim",
    "claim_class",
    "claim_key",
    "claim_request",
    "find_matching_volume",
    "is_volume_bound_to_claim",
    "node_affinity_matches",
    "volume_capacity",
    "volume_mode_mismatch",
]

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

_ZERO = Quantity(0)


# bound: storage sizes in use: a handful of distinct strings
@memoize("controllers.volume_binder.util._quantity", maxsize=1024)
def _quantity(s: str) -> Quantity:
    """Capacities repeat (``1Gi``, ``10Gi``): parse each spelling once."""
    try:
        return parse_quantity(s)
    except ValueError:
        return _ZERO


def claim_key(claim: PersistentVolumeClaim) -> str:
    m = claim.metadata
    return f"{m.namespace}/{m.name}" if m is not None else "/"


def claim_class(claim: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass`` (the beta annotation is gone from the API kubelite serves)."""
    return (claim.spec.storage_class_name if claim.spec is not None else None) or ""


def claim_request(claim: PersistentVolumeClaim) -> Quantity:
    spec = claim.spec
    res = spec.resources if spec is not None else None
    req = (res.requests if res is not None else None) or {}
    s = req.get("storage")
    return _quantity(str(s)) if s is not None else _ZERO


def volume_capacity(volume: PersistentVolume) -> Quantity:
    cap = (volume.spec.capacity if volume.spec is not None else None) or {}
    s = cap.get("storage")
    return _quantity(str(s)) if s is not None else _ZERO


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim``: claimRef names the claim and its uid is empty (pre-bound) or the claim's."""
    ref = volume.spec.claim_ref if volume.spec is not None else None
    m = claim.metadata
    if ref is None or m is None or ref.name != m.name or ref.namespace != m.namespace:
        return False
    return not ref.uid or ref.uid == m.uid


def volume_mode_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches``: an unset mode means Filesystem on both sides."""
    cm = (claim.spec.volume_mode if claim.spec is not None else None) or "Filesystem"
    vm = (volume.spec.volume_mode if volume.spec is not None else None) or "Filesystem"
    return cm != vm


def check_access_modes(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckAccessModes``: every mode the claim asks for is one the volume offers."""
    want = (claim.spec.access_modes if claim.spec is not None else None) or ()
    have = (volume.spec.access_modes if volume.spec is not None else None) or ()
    return all(m in have for m in want)


def _requirement_matches(req: Any, labels: Mapping[str, str]) -> bool:
    """One ``NodeSelectorRequirement`` (upstream ``NodeSelectorRequirementsAsSelector`` semantics)."""
    op, key = req.operator, req.key
    values: Sequence[str] = req.values or ()
    has = key in labels
    if op == "In":
        return has and labels[key] in values
    if op == "NotIn":
        return not has or labels[key] not in values
    if op == "Exists":
        return has
    if op == "DoesNotExist":
        return not has
    if op in ("Gt", "Lt") and has and len(values) == 1:
        try:
            lv, rv = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return lv > rv if op == "Gt" else lv < rv
    return False


def node_affinity_matches(volume: PersistentVolume, node_name: str, labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity``: a volume without required node affinity fits every node; otherwise one
    of its terms must hold (an empty term matches nothing; ``matchFields`` know ``metadata.name``)."""
    na = volume.spec.node_affinity if volume.spec is not None else None
    required = na.required if na is not None else None
    if required is None:
        return True
    fields = {"metadata.name": node_name}
    for term in required.node_selector_terms or ():
        exprs, mfields = term.match_expressions or (), term.match_fields or ()
        if not exprs and not mfields:
            continue
        if all(_requirement_matches(r, labels) for r in exprs) and \
                all(r.key == "metadata.name" and _requirement_matches(r, fields) for r in mfields):
            return True
    return False


def check_volume_satisfy_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> str | None:
    """``checkVolumeSatisfyClaim``: why a claim cannot use the volume it names, or None."""
    if volume.metadata is not None and volume.metadata.deletion_timestamp:
        return f'the volume is marked for deletion "{volume.metadata.name}"'
    if volume_capacity(volume).value() < claim_request(claim).value():
        return "requested PV is too small"
    if ((volume.spec.storage_class_name if volume.spec is not None else None) or "") != claim_class(claim):
        return "storageClassName does not match"
    if volume_mode_mismatch(claim, volume):
        return "incompatible volumeMode"
    if not check_access_modes(claim, volume):
        return "incompatible accessMode"
    return None


def _selector(claim: PersistentVolumeClaim) -> Mapping[str, Any] | None:
    sel = claim.spec.selector if claim.spec is not None else None
    return msgspec.to_builtins(sel) if sel is not None else None


def find_matching_volume(
    claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume], *, delay_binding: bool = False,
    node: tuple[str, Mapping[str, str]] | None = None,
) -> PersistentVolume | None:
    """The volume the binder should bind ``claim`` to, or None (``findByClaim`` + ``FindMatchingVolume``).

    A volume pre-bound to the claim (``claimRef`` naming it, e.g. one provisioned for it) wins outright.
    Otherwise among Available volumes of the claim's class whose capacity, volumeMode, labels (the
    claim's selector) and node affinity (``node = (name, labels)``, for a claim whose consumer has been
    scheduled) fit, the one offering the fewest access modes that still include the claim's, then the
    smallest, then (for determinism, where upstream takes cache order) the first by name. With
    ``delay_binding`` and no node only pre-bound volumes are considered: a WaitForFirstConsumer claim
    is matched once its node is known.
    """
    requested = claim_request(claim)
    klass = claim_class(claim)
    selector = _selector(claim)
    want_modes = (claim.spec.access_modes if claim.spec is not None else None) or ()
    best: tuple[int, Quantity, str] | None = None
    best_volume: PersistentVolume | None = None
    wait_for_node = delay_binding and node is None
    for volume in volumes:
        spec, meta = volume.spec, volume.metadata
        if spec is None or meta is None:
            continue
        if spec.claim_ref is not None:  # only ever the claim it names
            if not is_volume_bound_to_claim(volume, claim) or volume_capacity(volume) < requested \
                    or volume_mode_mismatch(claim, volume) or meta.deletion_timestamp:
                continue
            # pre-bound (or provisioned) for this claim: it, or nothing if it does not fit the node
            return volume if node is None or node_affinity_matches(volume, node[0], node[1]) else None
        # cheapest rejections first: this loop runs over every free volume of the class
        if wait_for_node or volume.status is None or volume.status.phase != "Available" \
                or (spec.storage_class_name or "") != klass or meta.deletion_timestamp:
            continue
        capacity = volume_capacity(volume)
        if capacity < requested or volume_mode_mismatch(claim, volume):
            continue
        modes: Sequence[str] = spec.access_modes or ()
        if not all(m in modes for m in want_modes):
            continue
        if selector is not None and not label_selector_matches(selector, meta.labels):
            continue
        if node is not None and not node_affinity_matches(volume, node[0], node[1]):
            continue
        rank = (len(modes), capacity, meta.name or "")
        if best is None or rank < best:
            best, best_volume = rank, volume
    return best_volume
