"""Generated msgspec Structs for autoscaling/v2 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct, Quantity

__all__ = [
    "ContainerResourceMetricSource", "ContainerResourceMetricStatus", "CrossVersionObjectReference",
    "ExternalMetricSource", "ExternalMetricStatus", "HPAScalingPolicy", "HPAScalingRules",
    "HorizontalPodAutoscaler", "HorizontalPodAutoscalerBehavior",
    "HorizontalPodAutoscalerCondition", "HorizontalPodAutoscalerSpec",
    "HorizontalPodAutoscalerStatus", "MetricIdentifier", "MetricSpec", "MetricStatus",
    "MetricTarget", "MetricValueStatus", "ObjectMetricSource", "ObjectMetricStatus",
    "PodsMetricSource", "PodsMetricStatus", "ResourceMetricSource", "ResourceMetricStatus"
]


class ContainerResourceMetricSource(K8sStruct, kw_only=True):
    """ContainerResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g."""

    container: str | None = None
    name: str | None = None
    target: MetricTarget | None = None


class ContainerResourceMetricStatus(K8sStruct, kw_only=True):
    """ContainerResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing a single container in each pod in the current scale target (e.g."""

    container: str | None = None
    current: MetricValueStatus | None = None
    name: str | None = None


class CrossVersionObjectReference(K8sStruct, kw_only=True):
    """CrossVersionObjectReference contains enough information to let you identify the referred resource."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    kind: str | None = None
    name: str | None = None


class ExternalMetricSource(K8sStruct, kw_only=True):
    """ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster)."""

    metric: MetricIdentifier | None = None
    target: MetricTarget | None = None


class ExternalMetricStatus(K8sStruct, kw_only=True):
    """ExternalMetricStatus indicates the current value of a global metric not associated with any Kubernetes object."""

    current: MetricValueStatus | None = None
    metric: MetricIdentifier | None = None


class HPAScalingPolicy(K8sStruct, kw_only=True):
    """HPAScalingPolicy is a single policy which must hold true for a specified past interval."""

    period_seconds: int | None = msgspec.field(default=None, name="periodSeconds")
    type: str | None = None
    value: int | None = None


class HPAScalingRules(K8sStruct, kw_only=True):
    """HPAScalingRules configures the scaling behavior for one direction via scaling Policy Rules and a configurable metric tolerance."""

    policies: list[HPAScalingPolicy] | None = None
    select_policy: str | None = msgspec.field(default=None, name="selectPolicy")
    stabilization_window_seconds: int | None = msgspec.field(default=None, name="stabilizationWindowSeconds")
    tolerance: Quantity | None = None


class HorizontalPodAutoscaler(K8sStruct, kw_only=True):
    """HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified."""

    api_version: str = msgspec.field(default_factory=partial(str, "autoscaling/v2"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "HorizontalPodAutoscaler"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: HorizontalPodAutoscalerSpec | None = None
    status: HorizontalPodAutoscalerStatus | None = None


class HorizontalPodAutoscalerBehavior(K8sStruct, kw_only=True):
    """HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively)."""

    scale_down: HPAScalingRules | None = msgspec.field(default=None, name="scaleDown")
    scale_up: HPAScalingRules | None = msgspec.field(default=None, name="scaleUp")


class HorizontalPodAutoscalerCondition(K8sStruct, kw_only=True):
    """HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class HorizontalPodAutoscalerSpec(K8sStruct, kw_only=True):
    """HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler."""

    behavior: HorizontalPodAutoscalerBehavior | None = None
    max_replicas: int | None = msgspec.field(default=None, name="maxReplicas")
    metrics: list[MetricSpec] | None = None
    min_replicas: int | None = msgspec.field(default=None, name="minReplicas")
    scale_target_ref: CrossVersionObjectReference | None = msgspec.field(default=None, name="scaleTargetRef")


class HorizontalPodAutoscalerStatus(K8sStruct, kw_only=True):
    """HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler."""

    conditions: list[HorizontalPodAutoscalerCondition] | None = None
    current_metrics: list[MetricStatus] | None = msgspec.field(default=None, name="currentMetrics")
    current_replicas: int | None = msgspec.field(default=None, name="currentReplicas")
    desired_replicas: int | None = msgspec.field(default=None, name="desiredReplicas")
    last_scale_time: str | None = msgspec.field(default=None, name="lastScaleTime")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")


class MetricIdentifier(K8sStruct, kw_only=True):
    """MetricIdentifier defines the name and optionally selector for a metric"""

    name: str | None = None
    selector: meta_v1.LabelSelector | None = None


class MetricSpec(K8sStruct, kw_only=True):
    """MetricSpec specifies how to scale based on a single metric (only `type` and one other matching field should be set at once)."""

    container_resource: ContainerResourceMetricSource | None = msgspec.field(default=None, name="containerResource")
    external: ExternalMetricSource | None = None
    object: ObjectMetricSource | None = None
    pods: PodsMetricSource | None = None
    resource: ResourceMetricSource | None = None
    type: str | None = None


class MetricStatus(K8sStruct, kw_only=True):
    """MetricStatus describes the last-read state of a single metric."""

    container_resource: ContainerResourceMetricStatus | None = msgspec.field(default=None, name="containerResource")
    external: ExternalMetricStatus | None = None
    object: ObjectMetricStatus | None = None
    pods: PodsMetricStatus | None = None
    resource: ResourceMetricStatus | None = None
    type: str | None = None


class MetricTarget(K8sStruct, kw_only=True):
    """MetricTarget defines the target value, average value, or average utilization of a specific metric"""

    average_utilization: int | None = msgspec.field(default=None, name="averageUtilization")
    average_value: Quantity | None = msgspec.field(default=None, name="averageValue")
    type: str | None = None
    value: Quantity | None = None


class MetricValueStatus(K8sStruct, kw_only=True):
    """MetricValueStatus holds the current value for a metric"""

    average_utilization: int | None = msgspec.field(default=None, name="averageUtilization")
    average_value: Quantity | None = msgspec.field(default=None, name="averageValue")
    value: Quantity | None = None


class ObjectMetricSource(K8sStruct, kw_only=True):
    """ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for example, hits-per-second on an Ingress object)."""

    described_object: CrossVersionObjectReference | None = msgspec.field(default=None, name="describedObject")
    metric: MetricIdentifier | None = None
    target: MetricTarget | None = None


class ObjectMetricStatus(K8sStruct, kw_only=True):
    """ObjectMetricStatus indicates the current value of a metric describing a kubernetes object (for example, hits-per-second on an Ingress object)."""

    current: MetricValueStatus | None = None
    described_object: CrossVersionObjectReference | None = msgspec.field(default=None, name="describedObject")
    metric: MetricIdentifier | None = None


class PodsMetricSource(K8sStruct, kw_only=True):
    """PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target (for example, transactions-processed-per-second)."""

    metric: MetricIdentifier | None = None
    target: MetricTarget | None = None


class PodsMetricStatus(K8sStruct, kw_only=True):
    """PodsMetricStatus indicates the current value of a metric describing each pod in the current scale target (for example, transactions-processed-per-second)."""

    current: MetricValueStatus | None = None
    metric: MetricIdentifier | None = None


class ResourceMetricSource(K8sStruct, kw_only=True):
    """ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g."""

    name: str | None = None
    target: MetricTarget | None = None


class ResourceMetricStatus(K8sStruct, kw_only=True):
    """ResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g."""

    current: MetricValueStatus | None = None
    name: str | None = None
