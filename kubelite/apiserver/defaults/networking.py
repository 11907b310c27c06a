"""Defaults for ReplicationController, LimitRange (core/v1) and networking.k8s.io/v1.

Contract: as :mod:`kubelite.apiserver.defaults.core`. Each function names the upstream ``defaults.go``
function it follows (``pkg/apis/core/v1/defaults.go``, ``pkg/apis/networking/v1/defaults.go``).
"""

from __future__ import annotations

import copy
from typing import Any

from kubelite.apiserver.defaults.core import default_pod_template_spec

__all__ = [
    "default_ingress_class",
    "default_limit_range",
    "default_network_policy",
    "default_replication_controller",
]

Obj = dict[str, Any]


def default_replication_controller(obj: Obj) -> None:
    """``SetDefaults_ReplicationController``: an empty selector and empty labels are the template's labels;
    replicas 1; the pod template gets the full PodSpec defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    template = spec.get("template")
    if isinstance(template, dict):
        tlabels = (template.get("metadata") or {}).get("labels") if isinstance(template.get("metadata"), dict) else None
        if isinstance(tlabels, dict) and tlabels:
            if not spec.get("selector"):
                spec["selector"] = dict(tlabels)
            meta = obj.get("metadata")
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(tlabels)
        default_pod_template_spec(template)
    if spec.get("replicas") is None:
        spec["replicas"] = 1


def default_limit_range(obj: Obj) -> None:
    """``SetDefaults_LimitRangeItem``: for ``Container`` limits, default falls back to max, and
    defaultRequest to default, then to min."""
    spec = obj.get("spec")
    limits = spec.get("limits") if isinstance(spec, dict) else None
    for item in limits if isinstance(limits, list) else []:
        if not isinstance(item, dict) or item.get("type") != "Container":
            continue
        default = item["default"] if isinstance(item.get("default"), dict) else {}
        request = item["defaultRequest"] if isinstance(item.get("defaultRequest"), dict) else {}
        for source, dest in ((item.get("max"), default), (default, request), (item.get("min"), request)):
            for key, value in (source if isinstance(source, dict) else {}).items():
                dest.setdefault(key, copy.deepcopy(value))
        if default:
            item["default"] = default
        if request:
            item["defaultRequest"] = request


def default_network_policy(obj: Obj) -> None:
    """``SetDefaults_NetworkPolicy`` / ``SetDefaults_NetworkPolicyPort``: ports default to TCP; without
    policyTypes a policy is ``Ingress``, plus ``Egress`` when it has egress rules."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    for key in ("ingress", "egress"):
        rules = spec.get(key)
        for rule in rules if isinstance(rules, list) else []:
            ports = rule.get("ports") if isinstance(rule, dict) else None
            for port in ports if isinstance(ports, list) else []:
                if isinstance(port, dict) and port.get("protocol") is None:
                    port["protocol"] = "TCP"
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types


def default_ingress_class(obj: Obj) -> None:
    """``SetDefaults_IngressClass``: a parameters reference is cluster-scoped unless it says otherwise."""
    spec = obj.get("spec")
    params = spec.get("parameters") if isinstance(spec, dict) else None
    if isinstance(params, dict) and params.get("scope") is None:
        params["scope"] = "Cluster"
