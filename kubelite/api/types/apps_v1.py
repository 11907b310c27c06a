"""Generated msgspec Structs for apps/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import IntOrString, K8sStruct

__all__ = [
    "ControllerRevision", "DaemonSet", "DaemonSetCondition", "DaemonSetSpec", "DaemonSetStatus",
    "DaemonSetUpdateStrategy", "Deployment", "DeploymentCondition", "DeploymentSpec",
    "DeploymentStatus", "DeploymentStrategy", "ReplicaSet", "ReplicaSetCondition", "ReplicaSetSpec",
    "ReplicaSetStatus", "RollingUpdateDaemonSet", "RollingUpdateDeployment",
    "RollingUpdateStatefulSetStrategy", "StatefulSet", "StatefulSetCondition",
    "StatefulSetOrdinals", "StatefulSetPersistentVolumeClaimRetentionPolicy", "StatefulSetSpec",
    "StatefulSetStatus", "StatefulSetUpdateStrategy"
]


class ControllerRevision(K8sStruct, kw_only=True):
    """ControllerRevision implements an immutable snapshot of state data."""

    api_version: str = msgspec.field(default_factory=partial(str, "apps/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ControllerRevision"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    data: dict[str, Any] | None = None
    revision: int | None = None


class DaemonSet(K8sStruct, kw_only=True):
    """DaemonSet represents the configuration of a daemon set."""

    api_version: str = msgspec.field(default_factory=partial(str, "apps/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "DaemonSet"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: DaemonSetSpec | None = None
    status: DaemonSetStatus | None = None


class DaemonSetCondition(K8sStruct, kw_only=True):
    """DaemonSetCondition describes the state of a DaemonSet at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class DaemonSetSpec(K8sStruct, kw_only=True):
    """DaemonSetSpec is the specification of a daemon set."""

    min_ready_seconds: int | None = msgspec.field(default=None, name="minReadySeconds")
    revision_history_limit: int | None = msgspec.field(default=None, name="revisionHistoryLimit")
    selector: meta_v1.LabelSelector | None = None
    template: core_v1.PodTemplateSpec | None = None
    update_strategy: DaemonSetUpdateStrategy | None = msgspec.field(default=None, name="updateStrategy")


class DaemonSetStatus(K8sStruct, kw_only=True):
    """DaemonSetStatus represents the current status of a daemon set."""

    collision_count: int | None = msgspec.field(default=None, name="collisionCount")
    conditions: list[DaemonSetCondition] | None = None
    current_number_scheduled: int | None = msgspec.field(default=None, name="currentNumberScheduled")
    desired_number_scheduled: int | None = msgspec.field(default=None, name="desiredNumberScheduled")
    number_available: int | None = msgspec.field(default=None, name="numberAvailable")
    number_misscheduled: int | None = msgspec.field(default=None, name="numberMisscheduled")
    number_ready: int | None = msgspec.field(default=None, name="numberReady")
    number_unavailable: int | None = msgspec.field(default=None, name="numberUnavailable")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    updated_number_scheduled: int | None = msgspec.field(default=None, name="updatedNumberScheduled")


class DaemonSetUpdateStrategy(K8sStruct, kw_only=True):
    """DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet."""

    rolling_update: RollingUpdateDaemonSet | None = msgspec.field(default=None, name="rollingUpdate")
    type: str | None = None


class Deployment(K8sStruct, kw_only=True):
    """Deployment enables declarative updates for Pods and ReplicaSets."""

    api_version: str = msgspec.field(default_factory=partial(str, "apps/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Deployment"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: DeploymentSpec | None = None
    status: DeploymentStatus | None = None


class DeploymentCondition(K8sStruct, kw_only=True):
    """DeploymentCondition describes the state of a deployment at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    last_update_time: str | None = msgspec.field(default=None, name="lastUpdateTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class DeploymentSpec(K8sStruct, kw_only=True):
    """DeploymentSpec is the specification of the desired behavior of the Deployment."""

    min_ready_seconds: int | None = msgspec.field(default=None, name="minReadySeconds")
    paused: bool | None = None
    progress_deadline_seconds: int | None = msgspec.field(default=None, name="progressDeadlineSeconds")
    replicas: int | None = None
    revision_history_limit: int | None = msgspec.field(default=None, name="revisionHistoryLimit")
    selector: meta_v1.LabelSelector | None = None
    strategy: DeploymentStrategy | None = None
    template: core_v1.PodTemplateSpec | None = None


class DeploymentStatus(K8sStruct, kw_only=True):
    """DeploymentStatus is the most recently observed status of the Deployment."""

    available_replicas: int | None = msgspec.field(default=None, name="availableReplicas")
    collision_count: int | None = msgspec.field(default=None, name="collisionCount")
    conditions: list[DeploymentCondition] | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    ready_replicas: int | None = msgspec.field(default=None, name="readyReplicas")
    replicas: int | None = None
    terminating_replicas: int | None = msgspec.field(default=None, name="terminatingReplicas")
    unavailable_replicas: int | None = msgspec.field(default=None, name="unavailableReplicas")
    updated_replicas: int | None = msgspec.field(default=None, name="updatedReplicas")


class DeploymentStrategy(K8sStruct, kw_only=True):
    """DeploymentStrategy describes how to replace existing pods with new ones."""

    rolling_update: RollingUpdateDeployment | None = msgspec.field(default=None, name="rollingUpdate")
    type: str | None = None


class ReplicaSet(K8sStruct, kw_only=True):
    """ReplicaSet ensures that a specified number of pod replicas are running at any given time."""

    api_version: str = msgspec.field(default_factory=partial(str, "apps/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ReplicaSet"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ReplicaSetSpec | None = None
    status: ReplicaSetStatus | None = None


class ReplicaSetCondition(K8sStruct, kw_only=True):
    """ReplicaSetCondition describes the state of a replica set at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class ReplicaSetSpec(K8sStruct, kw_only=True):
    """ReplicaSetSpec is the specification of a ReplicaSet."""

    min_ready_seconds: int | None = msgspec.field(default=None, name="minReadySeconds")
    replicas: int | None = None
    selector: meta_v1.LabelSelector | None = None
    template: core_v1.PodTemplateSpec | None = None


class ReplicaSetStatus(K8sStruct, kw_only=True):
    """ReplicaSetStatus represents the current status of a ReplicaSet."""

    available_replicas: int | None = msgspec.field(default=None, name="availableReplicas")
    conditions: list[ReplicaSetCondition] | None = None
    fully_labeled_replicas: int | None = msgspec.field(default=None, name="fullyLabeledReplicas")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    ready_replicas: int | None = msgspec.field(default=None, name="readyReplicas")
    replicas: int | None = None
    terminating_replicas: int | None = msgspec.field(default=None, name="terminatingReplicas")


class RollingUpdateDaemonSet(K8sStruct, kw_only=True):
    """Spec to control the desired behavior of daemon set rolling update."""

    max_surge: IntOrString | None = msgspec.field(default=None, name="maxSurge")
    max_unavailable: IntOrString | None = msgspec.field(default=None, name="maxUnavailable")


class RollingUpdateDeployment(K8sStruct, kw_only=True):
    """Spec to control the desired behavior of rolling update."""

    max_surge: IntOrString | None = msgspec.field(default=None, name="maxSurge")
    max_unavailable: IntOrString | None = msgspec.field(default=None, name="maxUnavailable")


class RollingUpdateStatefulSetStrategy(K8sStruct, kw_only=True):
    """RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType."""

    max_unavailable: IntOrString | None = msgspec.field(default=None, name="maxUnavailable")
    partition: int | None = None


class StatefulSet(K8sStruct, kw_only=True):
    """StatefulSet represents a set of pods with consistent identities."""

    api_version: str = msgspec.field(default_factory=partial(str, "apps/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "StatefulSet"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: StatefulSetSpec | None = None
    status: StatefulSetStatus | None = None


class StatefulSetCondition(K8sStruct, kw_only=True):
    """StatefulSetCondition describes the state of a statefulset at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class StatefulSetOrdinals(K8sStruct, kw_only=True):
    """StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet."""

    start: int | None = None


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sStruct, kw_only=True):
    """StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates."""

    when_deleted: str | None = msgspec.field(default=None, name="whenDeleted")
    when_scaled: str | None = msgspec.field(default=None, name="whenScaled")


class StatefulSetSpec(K8sStruct, kw_only=True):
    """A StatefulSetSpec is the specification of a StatefulSet."""

    min_ready_seconds: int | None = msgspec.field(default=None, name="minReadySeconds")
    ordinals: StatefulSetOrdinals | None = None
    persistent_volume_claim_retention_policy: StatefulSetPersistentVolumeClaimRetentionPolicy | None = msgspec.field(default=None, name="persistentVolumeClaimRetentionPolicy")
    pod_management_policy: str | None = msgspec.field(default=None, name="podManagementPolicy")
    replicas: int | None = None
    revision_history_limit: int | None = msgspec.field(default=None, name="revisionHistoryLimit")
    selector: meta_v1.LabelSelector | None = None
    service_name: str | None = msgspec.field(default=None, name="serviceName")
    template: core_v1.PodTemplateSpec | None = None
    update_strategy: StatefulSetUpdateStrategy | None = msgspec.field(default=None, name="updateStrategy")
    volume_claim_templates: list[core_v1.PersistentVolumeClaim] | None = msgspec.field(default=None, name="volumeClaimTemplates")


class StatefulSetStatus(K8sStruct, kw_only=True):
    """StatefulSetStatus represents the current state of a StatefulSet."""

    available_replicas: int | None = msgspec.field(default=None, name="availableReplicas")
    collision_count: int | None = msgspec.field(default=None, name="collisionCount")
    conditions: list[StatefulSetCondition] | None = None
    current_replicas: int | None = msgspec.field(default=None, name="currentReplicas")
    current_revision: str | None = msgspec.field(default=None, name="currentRevision")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    ready_replicas: int | None = msgspec.field(default=None, name="readyReplicas")
    replicas: int | None = None
    update_revision: str | None = msgspec.field(default=None, name="updateRevision")
    updated_replicas: int | None = msgspec.field(default=None, name="updatedReplicas")


class StatefulSetUpdateStrategy(K8sStruct, kw_only=True):
    """StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates."""

    rolling_update: RollingUpdateStatefulSetStrategy | None = msgspec.field(default=None, name="rollingUpdate")
    type: str | None = None
