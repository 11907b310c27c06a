"""Generated msgspec Structs for autoscaling/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "Scale", "ScaleSpec", "ScaleStatus"
]


class Scale(K8sStruct, kw_only=True):
    """Scale represents a scaling request for a resource."""

    api_version: str = msgspec.field(default_factory=partial(str, "autoscaling/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Scale"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ScaleSpec | None = None
    status: ScaleStatus | None = None


class ScaleSpec(K8sStruct, kw_only=True):
    """ScaleSpec describes the attributes of a scale subresource."""

    replicas: int | None = None


class ScaleStatus(K8sStruct, kw_only=True):
    """ScaleStatus represents the current status of a scale subresource."""

    replicas: int | None = None
    selector: str | None = None
