"""Defaults for the smaller groups: discovery, scheduling, storage, RBAC and autoscaling/v2.

Contract: as :mod:`kubelite.apiserver.defaults.core`. Each function names the upstream
``pkg/apis/<group>/<version>/defaults.go`` function it follows. Lease, PodDisruptionBudget, Role and
ClusterRole have no defaults upstream and so none here.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "default_cluster_role_binding",
    "default_endpoint_slice",
    "default_horizontal_pod_autoscaler",
    "default_priority_class",
    "default_role_binding",
    "default_storage_class",
]

Obj = dict[str, Any]

_RBAC_GROUP = "rbac.authorization.k8s.io"


def default_endpoint_slice(obj: Obj) -> None:
    """``discovery/v1.SetDefaults_EndpointPort``: name "" and protocol TCP on every port."""
    ports = obj.get("ports")
    for port in ports if isinstance(ports, list) else []:
        if not isinstance(port, dict):
            continue
        if port.get("name") is None:
            port["name"] = ""
        if port.get("protocol") is None:
            port["protocol"] = "TCP"


def default_priority_class(obj: Obj) -> None:
    """``scheduling/v1.SetDefaults_PriorityClass``: preemptionPolicy PreemptLowerPriority."""
    if obj.get("preemptionPolicy") is None:
        obj["preemptionPolicy"] = "PreemptLowerPriority"


def default_storage_class(obj: Obj) -> None:
    """``storage/v1.SetDefaults_StorageClass``: reclaimPolicy Delete, volumeBindingMode Immediate."""
    if obj.get("reclaimPolicy") is None:
        obj["reclaimPolicy"] = "Delete"
    if obj.get("volumeBindingMode") is None:
        obj["volumeBindingMode"] = "Immediate"


def _default_subjects(obj: Obj) -> None:
    """``rbac/v1.SetDefaults_Subject``: User and Group subjects live in the RBAC group. (A ServiceAccount's
    is set to "", Go's zero, which Subject's ``apiGroup,omitempty`` never prints: nothing to set here.)"""
    subjects = obj.get("subjects")
    for subject in subjects if isinstance(subjects, list) else []:
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = _RBAC_GROUP


def _default_role_ref(obj: Obj) -> None:
    ref = obj.get("roleRef")
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = _RBAC_GROUP


def default_role_binding(obj: Obj) -> None:
    """``rbac/v1.SetDefaults_RoleBinding`` (roleRef.apiGroup) and ``SetDefaults_Subject``."""
    _default_role_ref(obj)
    _default_subjects(obj)


def default_cluster_role_binding(obj: Obj) -> None:
    """``rbac/v1.SetDefaults_ClusterRoleBinding`` (roleRef.apiGroup) and ``SetDefaults_Subject``."""
    _default_role_ref(obj)
    _default_subjects(obj)


_SCALE_UP_RULES: Obj = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# The scale-down stabilization window stays unset: the controller's command-line flag decides it.
_SCALE_DOWN_RULES: Obj = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def _scaling_rules(given: Any, defaults: Obj) -> Obj:
    """``GenerateHPAScaleUpRules`` / ``GenerateHPAScaleDownRules``: the defaults overlaid with every
    field the user set."""
    rules = copy.deepcopy(defaults)
    if isinstance(given, dict):
        for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if given.get(key) is not None:
                rules[key] = given[key]
    return rules


def default_horizontal_pod_autoscaler(obj: Obj) -> None:
    """``autoscaling/v2.SetDefaults_HorizontalPodAutoscaler``: minReplicas 1, a CPU 80% utilization
    metric when none is given, and full scaling rules once ``behavior`` is present
    (``SetDefaults_HorizontalPodAutoscalerBehavior``)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), _SCALE_UP_RULES)
        behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), _SCALE_DOWN_RULES)
