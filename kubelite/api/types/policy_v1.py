"""Generated msgspec Structs for policy/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import IntOrString, K8sStruct

__all__ = [
    "Eviction", "PodDisruptionBudget", "PodDisruptionBudgetSpec", "PodDisruptionBudgetStatus"
]


class Eviction(K8sStruct, kw_only=True):
    """Eviction evicts a pod from its node subject to certain policies and safety constraints."""

    api_version: str = msgspec.field(default_factory=partial(str, "policy/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Eviction"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    delete_options: meta_v1.DeleteOptions | None = msgspec.field(default=None, name="deleteOptions")


class PodDisruptionBudget(K8sStruct, kw_only=True):
    """PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods"""

    api_version: str = msgspec.field(default_factory=partial(str, "policy/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "PodDisruptionBudget"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: PodDisruptionBudgetSpec | None = None
    status: PodDisruptionBudgetStatus | None = None


class PodDisruptionBudgetSpec(K8sStruct, kw_only=True):
    """PodDisruptionBudgetSpec is a description of a PodDisruptionBudget."""

    max_unavailable: IntOrString | None = msgspec.field(default=None, name="maxUnavailable")
    min_available: IntOrString | None = msgspec.field(default=None, name="minAvailable")
    selector: meta_v1.LabelSelector | None = None
    unhealthy_pod_eviction_policy: str | None = msgspec.field(default=None, name="unhealthyPodEvictionPolicy")


class PodDisruptionBudgetStatus(K8sStruct, kw_only=True):
    """PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget."""

    conditions: list[meta_v1.Condition] | None = None
    current_healthy: int | None = msgspec.field(default=None, name="currentHealthy")
    desired_healthy: int | None = msgspec.field(default=None, name="desiredHealthy")
    disrupted_pods: dict[str, str] | None = msgspec.field(default=None, name="disruptedPods")
    disruptions_allowed: int | None = msgspec.field(default=None, name="disruptionsAllowed")
    expected_pods: int | None = msgspec.field(default=None, name="expectedPods")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
