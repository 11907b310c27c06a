"""admissionregistration.k8s.io/v1 defaults (upstream ``pkg/apis/admissionregistration/v1/defaults.go``):
``failurePolicy: Fail``; match resources get ``matchPolicy: Equivalent`` and empty (match-everything)
namespace and object selectors; every rule gets ``scope: "*"``."""

from __future__ import annotations

from typing import Any

__all__ = ["default_validating_admission_policy", "default_validating_admission_policy_binding"]


def _match_resources(mr: Any) -> None:
    if not isinstance(mr, dict):
        return
    mr.setdefault("matchPolicy", "Equivalent")
    if mr.get("namespaceSelector") is None:
        mr["namespaceSelector"] = {}
    if mr.get("objectSelector") is None:
        mr["objectSelector"] = {}
    for key in ("resourceRules", "excludeResourceRules"):
        for rule in mr.get(key) or ():
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"


def default_validating_admission_policy(obj: dict[str, Any]) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("failurePolicy") is None:
        spec["failurePolicy"] = "Fail"
    _match_resources(spec.get("matchConstraints"))


def default_validating_admission_policy_binding(obj: dict[str, Any]) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _match_resources(spec.get("matchResources"))
