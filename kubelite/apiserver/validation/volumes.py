"""PersistentVolume and PersistentVolumeClaim validation.

Follows ``pkg/apis/core/validation/validation.go``: ``ValidatePersistentVolume``(``Spec``),
``ValidatePersistentVolumeUpdate``, ``ValidatePersistentVolumeClaimSpec`` and
``ValidatePersistentVolumeClaimUpdate``. Only the in-tree sources kubelite can pretend to mount
(hostPath, local, nfs, csi) get their fields checked; the others are counted for "exactly one source".
Contract: read-only over JSON, returns fresh lists (``validate_pvc_spec`` appends to the caller's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    immutable,
    label_selector,
    quantity,
    semantic_equal,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.apiserver.validation.pod import validate_flex_volume
from kubelite.errors import FieldError

__all__ = [
    "validate_persistent_volume",
    "validate_persistent_volume_update",
    "validate_pvc",
    "validate_pvc_spec",
    "validate_pvc_update",
]

_ACCESS_MODES: Final = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_VOLUME_MODES: Final = ("Block", "Filesystem")


def _meta(obj: Mapping[str, Any], *, namespaced: bool = True) -> list[FieldError]:
    return validate_object_meta(
        as_dict(obj.get("metadata")), namespaced=namespaced, name_fn=names.name_is_dns_subdomain)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


_PV_SOURCES: Final = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "quobyte", "cinder",
    "cephfs", "iscsi", "fc", "flocker", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk",
    "portworxVolume", "scaleIO", "local", "storageos", "csi", "flexVolume",
)


def _access_modes(modes: list[Any], path: str, errs: list[FieldError]) -> None:
    rwop = other = False
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(FieldError.not_supported(path, mode, _ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        else:
            other = True
    if rwop and other:
        errs.append(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access modes"))


def validate_persistent_volume(pv: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolume`` / ``ValidatePersistentVolumeSpec``."""
    errs = _meta(pv, namespaced=False)
    spec = as_dict(pv.get("spec"))
    modes = list(as_list(spec.get("accessModes")))
    if not modes:
        errs.append(FieldError.required("spec.accessModes"))
    _access_modes(modes, "spec.accessModes", errs)
    capacity = as_dict(spec.get("capacity"))
    if not capacity:
        errs.append(FieldError.required("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(FieldError.not_supported("spec.capacity", dict(capacity), ("storage",)))
    for name, value in capacity.items():
        q = quantity(value, f"spec.capacity[{name}]", errs)
        if q is not None and q.sign() <= 0:
            errs.append(FieldError.invalid(f"spec.capacity[{name}]", str(q), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        for msg in names.name_is_dns_subdomain(class_name, False):
            errs.append(FieldError.invalid("spec.storageClassName", class_name, msg))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _VOLUME_MODES:
        errs.append(FieldError.not_supported("spec.volumeMode", mode, _VOLUME_MODES))
    count = 0
    for key in _PV_SOURCES:
        src = spec.get(key)
        if src is None:
            continue
        if count:
            errs.append(FieldError.forbidden(f"spec.{key}", "may not specify more than 1 volume type"))
            continue
        count += 1
        src = as_dict(src)
        if key in ("hostPath", "local") and not src.get("path"):
            errs.append(FieldError.required(f"spec.{key}.path"))
        elif key == "csi" and not src.get("driver"):
            errs.append(FieldError.required("spec.csi.driver"))
        elif key == "flexVolume":
            validate_flex_volume(src, "spec.flexVolume", errs)
    if count == 0:
        errs.append(FieldError.required("spec", "must specify a volume type"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy not in ("Delete", "Recycle", "Retain"):
        errs.append(FieldError.not_supported("spec.persistentVolumeReclaimPolicy", policy, ("Delete", "Recycle", "Retain")))
    return errs


def validate_persistent_volume_update(pv: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeUpdate``: the volume source and volumeMode are immutable."""
    errs = validate_persistent_volume(pv)
    errs.extend(_meta_update(pv, old))
    spec = as_dict(pv.get("spec"))
    old_spec = as_dict(old.get("spec"))
    if any(not semantic_equal(spec.get(k), old_spec.get(k)) for k in _PV_SOURCES):
        errs.append(FieldError.forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"))
    immutable(spec.get("volumeMode"), old_spec.get("volumeMode"), "spec.volumeMode", errs)
    return errs


def validate_pvc_spec(spec: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidatePersistentVolumeClaimSpec``."""
    modes = list(as_list(spec.get("accessModes")))
    if not modes:
        errs.append(FieldError.required(f"{path}.accessModes", "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        label_selector(spec["selector"], f"{path}.selector", errs)
    _access_modes(modes, f"{path}.accessModes", errs)
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    storage_path = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(FieldError.required(storage_path))
    else:
        q = quantity(requests["storage"], storage_path, errs)
        if q is not None and q.sign() <= 0:
            errs.append(FieldError.invalid(storage_path, str(q), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        for msg in names.name_is_dns_subdomain(class_name, False):
            errs.append(FieldError.invalid(f"{path}.storageClassName", class_name, msg))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", mode, _VOLUME_MODES))


def validate_pvc(pvc: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaim``."""
    errs = _meta(pvc)
    validate_pvc_spec(as_dict(pvc.get("spec")), "spec", errs)
    return errs


def validate_pvc_update(pvc: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``: the spec is immutable except a one-time volumeName
    binding and, for bound claims, a storage request that does not shrink."""
    errs = _meta_update(pvc, old)
    errs.extend(validate_pvc(pvc))
    spec = dict(as_dict(pvc.get("spec")))
    old_spec = as_dict(old.get("spec"))
    if not old_spec.get("volumeName"):
        spec["volumeName"] = old_spec.get("volumeName")
    if as_dict(old.get("status")).get("phase") == "Bound":
        spec["resources"] = old_spec.get("resources")
        spec["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
        new_req = as_dict(as_dict(as_dict(pvc.get("spec")).get("resources")).get("requests")).get("storage")
        old_req = as_dict(as_dict(old_spec.get("resources")).get("requests")).get("storage")
        if new_req is not None and old_req is not None:
            scratch: list[FieldError] = []
            nq, oq = quantity(new_req, "", scratch), quantity(old_req, "", scratch)
            if nq is not None and oq is not None and nq < oq:
                errs.append(FieldError.forbidden(
                    "spec.resources.requests.storage", "field can not be less than previous value"))
    if not semantic_equal(spec, old_spec):
        errs.append(FieldError.forbidden(
            "spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName "
            "for bound claims"))
    return errs

