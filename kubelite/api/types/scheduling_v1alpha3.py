"""Generated msgspec Structs for scheduling/v1alpha3 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

import msgspec

from kubelite.api.types._base import K8sStruct

__all__ = [
    "TopologyConstraint", "WorkloadPodGroupAllDisruptionMode",
    "WorkloadPodGroupBasicSchedulingPolicy", "WorkloadPodGroupDisruptionMode",
    "WorkloadPodGroupGangSchedulingPolicy", "WorkloadPodGroupResourceClaim",
    "WorkloadPodGroupSchedulingConstraints", "WorkloadPodGroupSchedulingPolicy",
    "WorkloadPodGroupSingleDisruptionMode"
]


class TopologyConstraint(K8sStruct, kw_only=True):
    """TopologyConstraint defines a topology constraint for a PodGroup."""

    key: str | None = None


class WorkloadPodGroupAllDisruptionMode(K8sStruct, kw_only=True):
    """WorkloadPodGroupAllDisruptionMode indicates that all pods in the group must be disrupted together."""

    pass


class WorkloadPodGroupBasicSchedulingPolicy(K8sStruct, kw_only=True):
    """WorkloadPodGroupBasicSchedulingPolicy indicates standard Kubernetes scheduling behavior."""

    pass


class WorkloadPodGroupDisruptionMode(K8sStruct, kw_only=True):
    """WorkloadPodGroupDisruptionMode defines how individual pods within a group can be disrupted."""

    all: WorkloadPodGroupAllDisruptionMode | None = None
    single: WorkloadPodGroupSingleDisruptionMode | None = None


class WorkloadPodGroupGangSchedulingPolicy(K8sStruct, kw_only=True):
    """WorkloadPodGroupGangSchedulingPolicy defines the parameters for gang (all-or-nothing) scheduling."""

    min_count: int | None = msgspec.field(default=None, name="minCount")


class WorkloadPodGroupResourceClaim(K8sStruct, kw_only=True):
    """WorkloadPodGroupResourceClaim references a dynamic resource claim that is shared across pods in the group."""

    name: str | None = None
    resource_claim_name: str | None = msgspec.field(default=None, name="resourceClaimName")
    resource_claim_template_name: str | None = msgspec.field(default=None, name="resourceClaimTemplateName")


class WorkloadPodGroupSchedulingConstraints(K8sStruct, kw_only=True):
    """WorkloadPodGroupSchedulingConstraints defines leaf-level scheduling constraints, such as topology."""

    topology: list[TopologyConstraint] | None = None


class WorkloadPodGroupSchedulingPolicy(K8sStruct, kw_only=True):
    """WorkloadPodGroupSchedulingPolicy defines the scheduling policy for a group of pods managed by a workload controller."""

    basic: WorkloadPodGroupBasicSchedulingPolicy | None = None
    gang: WorkloadPodGroupGangSchedulingPolicy | None = None


class WorkloadPodGroupSingleDisruptionMode(K8sStruct, kw_only=True):
    """WorkloadPodGroupSingleDisruptionMode indicates that individual pods can be disrupted independently."""

    pass
