"""Generated msgspec Structs for storage/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "StorageClass"
]


class StorageClass(K8sStruct, kw_only=True):
    """StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned."""

    api_version: str = msgspec.field(default_factory=partial(str, "storage.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "StorageClass"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    allow_volume_expansion: bool | None = msgspec.field(default=None, name="allowVolumeExpansion")
    allowed_topologies: list[core_v1.TopologySelectorTerm] | None = msgspec.field(default=None, name="allowedTopologies")
    mount_options: list[str] | None = msgspec.field(default=None, name="mountOptions")
    parameters: dict[str, str] | None = None
    provisioner: str | None = None
    reclaim_policy: str | None = msgspec.field(default=None, name="reclaimPolicy")
    volume_binding_mode: str | None = msgspec.field(default=None, name="volumeBindingMode")
