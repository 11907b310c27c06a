"""RBAC of the cluster add-ons kubelite runs besides the control plane, as their own manifests ship it
(these are not kube-apiserver's bootstrap policy, so they carry no bootstrap labels):

- metrics-server (``kubernetes-sigs/metrics-server`` ``manifests/base/rbac.yaml``): ``system:metrics-server``
  for its service account, and ``system:aggregated-metrics-reader``, aggregated into view/edit/admin;
- CoreDNS (kubeadm's ``system:coredns``): Services, EndpointSlices, Pods, Namespaces, read-only;
- the NetworkPolicy agent (``kubernetes-sigs/kube-network-policies``, what kind runs): Pods, Namespaces,
  Nodes and NetworkPolicies, read-only.

Each service account lives in ``kube-system``; the user names are :data:`METRICS_SERVER`, :data:`COREDNS`,
:data:`NETWORK_POLICIES`.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.auth.user import service_account_username

__all__ = ["COREDNS", "METRICS_SERVER", "NETWORK_POLICIES", "addon_objects"]

_RBAC = "rbac.authorization.k8s.io"
_API_VERSION = f"{_RBAC}/v1"
_LW = ["list", "watch"]
_GLW = ["get", "list", "watch"]

METRICS_SERVER = service_account_username("kube-system", "metrics-server")
COREDNS = service_account_username("kube-system", "coredns")
NETWORK_POLICIES = service_account_username("kube-system", "kube-network-policies")


def _role(name: str, rules: list[dict[str, Any]], labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": _API_VERSION, "kind": "ClusterRole", "metadata": meta, "rules": rules}


def _binding(name: str, role: str, sa: str) -> dict[str, Any]:
    return {"apiVersion": _API_VERSION, "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": _RBAC, "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": "kube-system"}]}


def addon_objects() -> list[dict[str, Any]]:
    """The add-ons' ClusterRoles, then their ClusterRoleBindings, as fresh JSON dicts."""
    return [
        _role("system:aggregated-metrics-reader", [
            {"apiGroups": ["metrics.k8s.io"], "resources": ["pods", "nodes"], "verbs": _GLW},
        ], {"k8s-app": "metrics-server", f"{_RBAC}/aggregate-to-admin": "true",
            f"{_RBAC}/aggregate-to-edit": "true", f"{_RBAC}/aggregate-to-view": "true"}),
        _role("system:metrics-server", [
            {"apiGroups": [""], "resources": ["nodes/metrics"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": _GLW},
        ], {"k8s-app": "metrics-server"}),
        _role("system:coredns", [
            {"apiGroups": [""], "resources": ["endpoints", "services", "pods", "namespaces"], "verbs": _LW},
            {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": _LW},
        ]),
        _role("kube-network-policies", [
            {"apiGroups": [""], "resources": ["pods", "namespaces", "nodes"], "verbs": _LW},
            {"apiGroups": ["networking.k8s.io"], "resources": ["networkpolicies"], "verbs": _LW},
        ]),
        _binding("system:metrics-server", "system:metrics-server", "metrics-server"),
        _binding("system:coredns", "system:coredns", "coredns"),
        _binding("kube-network-policies", "kube-network-policies", "kube-network-policies"),
    ]
