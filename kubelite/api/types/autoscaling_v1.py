"""Generated msgspec Structs for autoscaling/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "CrossVersionObjectReference", "HorizontalPodAutoscaler", "HorizontalPodAutoscalerSpec",
    "HorizontalPodAutoscalerStatus", "Scale", "ScaleSpec", "ScaleStatus"
]


class CrossVersionObjectReference(K8sStruct, kw_only=True):
    """CrossVersionObjectReference contains enough information to let you identify the referred resource."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    kind: str | None = None
    name: str | None = None


class HorizontalPodAutoscaler(K8sStruct, kw_only=True):
    """configuration of a horizontal pod autoscaler."""

    api_version: str = msgspec.field(default_factory=partial(str, "autoscaling/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "HorizontalPodAutoscaler"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: HorizontalPodAutoscalerSpec | None = None
    status: HorizontalPodAutoscalerStatus | None = None


class HorizontalPodAutoscalerSpec(K8sStruct, kw_only=True):
    """specification of a horizontal pod autoscaler."""

    max_replicas: int | None = msgspec.field(default=None, name="maxReplicas")
    min_replicas: int | None = msgspec.field(default=None, name="minReplicas")
    scale_target_ref: CrossVersionObjectReference | None = msgspec.field(default=None, name="scaleTargetRef")
    target_cpu_utilization_percentage: int | None = msgspec.field(default=None, name="targetCPUUtilizationPercentage")


class HorizontalPodAutoscalerStatus(K8sStruct, kw_only=True):
    """current status of a horizontal pod autoscaler"""

    current_cpu_utilization_percentage: int | None = msgspec.field(default=None, name="currentCPUUtilizationPercentage")
    current_replicas: int | None = msgspec.field(default=None, name="currentReplicas")
    desired_replicas: int | None = msgspec.field(default=None, name="desiredReplicas")
    last_scale_time: str | None = msgspec.field(default=None, name="lastScaleTime")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")


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
