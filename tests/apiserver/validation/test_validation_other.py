"""EndpointSlice, Lease, PodDisruptionBudget, PriorityClass, StorageClass, RBAC and HPA validation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_update

Obj = dict[str, Any]
Mut = Callable[[Obj], None]
RBAC = "rbac.authorization.k8s.io"


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def ns_meta(name: str = "x") -> Obj:
    return {"name": name, "namespace": "default"}


def _defaulted(group: str, kind: str, obj: Obj) -> Obj:
    apply_defaults(group, kind, obj)
    return obj


FACTORIES: dict[str, tuple[str, Callable[[], Obj]]] = {
    "EndpointSlice": ("discovery.k8s.io", lambda: _defaulted("discovery.k8s.io", "EndpointSlice", {
        "metadata": ns_meta("web-abc"), "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": True}}], "ports": [{"port": 80}]})),
    "Lease": ("coordination.k8s.io", lambda: {"metadata": ns_meta("leader"),
                                              "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}),
    "PodDisruptionBudget": ("policy", lambda: {"metadata": ns_meta("pdb"), "spec": {
        "minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
    "PriorityClass": ("scheduling.k8s.io", lambda: _defaulted("scheduling.k8s.io", "PriorityClass", {
        "metadata": {"name": "high"}, "value": 1000})),
    "StorageClass": ("storage.k8s.io", lambda: _defaulted("storage.k8s.io", "StorageClass", {
        "metadata": {"name": "fast"}, "provisioner": "kubernetes.io/no-provisioner"})),
    "Role": (RBAC, lambda: {"metadata": ns_meta("reader"), "rules": [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
    "ClusterRole": (RBAC, lambda: {"metadata": {"name": "system:reader"}, "rules": [
        {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]}),
    "RoleBinding": (RBAC, lambda: _defaulted(RBAC, "RoleBinding", {
        "metadata": ns_meta("rb"), "roleRef": {"kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "default"}, {"kind": "User", "name": "alice"}]})),
    "ClusterRoleBinding": (RBAC, lambda: _defaulted(RBAC, "ClusterRoleBinding", {
        "metadata": {"name": "crb"}, "roleRef": {"kind": "ClusterRole", "name": "system:reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"}]})),
    "HorizontalPodAutoscaler": ("autoscaling", lambda: _defaulted("autoscaling", "HorizontalPodAutoscaler", {
        "metadata": ns_meta("hpa"),
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}})),
}


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_valid_objects_pass(kind: str) -> None:
    group, factory = FACTORIES[kind]
    assert validate_create(group, kind, factory()) == []


def s_(path: str, value: Any) -> Mut:
    def mutate(o: Obj) -> None:
        keys = path.split(".")
        node = o
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if isinstance(node, list):
            node[int(keys[-1])] = value
        else:
            node[keys[-1]] = value
    return mutate


CASES: list[tuple[str, str, Mut, list[str]]] = [
    ("eps-address-type", "EndpointSlice", s_("addressType", "IPv5"),
     ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"']),
    ("eps-no-addresses", "EndpointSlice", s_("endpoints.0.addresses", []),
     ["endpoints[0].addresses: Required value: must contain at least 1 address"]),
    ("eps-bad-ipv4", "EndpointSlice", s_("endpoints.0.addresses", ["fe80::1"]),
     ['endpoints[0].addresses[0]: Invalid value: "fe80::1": must be a valid IPv4 address']),
    ("eps-duplicate-port-name", "EndpointSlice", s_("ports", [{"name": "", "protocol": "TCP"}, {"name": "", "protocol": "TCP"}]),
     ['ports[1].name: Duplicate value: ""']),
    ("eps-protocol", "EndpointSlice", s_("ports.0.protocol", "HTTP"),
     ['ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']),
    ("lease-duration", "Lease", s_("spec.leaseDurationSeconds", 0),
     ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]),
    ("lease-transitions", "Lease", s_("spec.leaseTransitions", -1),
     ["spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]),
    ("pdb-both", "PodDisruptionBudget", s_("spec.maxUnavailable", "10%"),
     ['spec: Invalid value: {"minAvailable":1,"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":"10%"}: '
      "minAvailable and maxUnavailable cannot be both set"]),
    ("pdb-negative", "PodDisruptionBudget", s_("spec.minAvailable", -1),
     ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]),
    ("pdb-over-100", "PodDisruptionBudget", s_("spec.minAvailable", "120%"),
     ['spec.minAvailable: Invalid value: "120%": must not be greater than 100%']),
    ("pc-too-high", "PriorityClass", s_("value", 1_000_000_001),
     ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]),
    ("pc-system-prefix", "PriorityClass", s_("metadata.name", "system-mine"),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: name system-mine is not a known system priority class"]),
    ("pc-preemption", "PriorityClass", s_("preemptionPolicy", "Sometimes"),
     ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']),
    ("sc-provisioner", "StorageClass", s_("provisioner", ""), ["provisioner: Required value"]),
    ("sc-reclaim", "StorageClass", s_("reclaimPolicy", "Recycle"),
     ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']),
    ("sc-binding-mode", "StorageClass", s_("volumeBindingMode", "Later"),
     ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']),
    ("role-verbs", "Role", s_("rules.0.verbs", []),
     ["rules[0].verbs: Required value: verbs must contain at least one value"]),
    ("role-resources", "Role", s_("rules.0.resources", []),
     ["rules[0].resources: Required value: resource rules must supply at least one resource"]),
    ("role-name-slash", "Role", s_("metadata.name", "a/b"),
     ['metadata.name: Invalid value: "a/b": may not contain \'/\'']),
    ("role-non-resource-urls", "Role", s_("rules.0", {"nonResourceURLs": ["/x"], "verbs": ["get"]}),
     ['rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs']),
    ("clusterrole-aggregation", "ClusterRole", s_("aggregationRule", {"clusterRoleSelectors": []}),
     ["aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if "
      "aggregationRule is non-nil"]),
    ("rb-roleref-kind", "RoleBinding", s_("roleRef.kind", "Pod"),
     ['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"']),
    ("rb-roleref-name", "RoleBinding", s_("roleRef.name", ""), ["roleRef.name: Required value"]),
    ("rb-subject-kind", "RoleBinding", s_("subjects.1.kind", "Robot"),
     ['subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']),
    ("crb-roleref-kind", "ClusterRoleBinding", s_("roleRef.kind", "Role"),
     ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']),
    ("crb-sa-namespace", "ClusterRoleBinding", s_("subjects.0", {"kind": "ServiceAccount", "name": "d", "apiGroup": ""}),
     ["subjects[0].namespace: Required value"]),
    ("hpa-min-replicas", "HorizontalPodAutoscaler", s_("spec.minReplicas", 0),
     ["spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"]),
    ("hpa-max-below-min", "HorizontalPodAutoscaler", s_("spec.minReplicas", 10),
     ["spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"]),
    ("hpa-target-ref", "HorizontalPodAutoscaler", s_("spec.scaleTargetRef", {"kind": "Deployment"}),
     ["spec.scaleTargetRef.name: Required value"]),
    ("hpa-metric-type", "HorizontalPodAutoscaler", s_("spec.metrics", [{"type": "Magic"}]),
     ['spec.metrics[0].type: Unsupported value: "Magic": supported values: "Object", "Pods", "Resource", '
      '"External", "ContainerResource"']),
    ("hpa-resource-missing", "HorizontalPodAutoscaler", s_("spec.metrics", [{"type": "Resource"}]),
     ["spec.metrics[0].resource: Required value: must populate information for the given metric source"]),
    ("hpa-utilization", "HorizontalPodAutoscaler", s_("spec.metrics.0.resource.target.averageUtilization", 0),
     ["spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"]),
]


@pytest.mark.parametrize(("kind", "mutate", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_violations(kind: str, mutate: Mut, want: list[str]) -> None:
    group, factory = FACTORIES[kind]
    obj = factory()
    mutate(obj)
    assert strs(validate_create(group, kind, obj)) == want


UPDATE_CASES: list[tuple[str, str, Mut, list[str]]] = [
    ("pc-value-immutable", "PriorityClass", s_("value", 5),
     ["value: Forbidden: may not be changed in an update."]),
    ("sc-parameters", "StorageClass", s_("parameters", {"a": "b"}),
     ["parameters: Forbidden: updates to parameters are forbidden."]),
    ("sc-binding-mode", "StorageClass", s_("volumeBindingMode", "WaitForFirstConsumer"),
     ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable']),
    ("rb-roleref", "RoleBinding", s_("roleRef.name", "writer"),
     ['roleRef: Invalid value: {"kind":"Role","name":"writer","apiGroup":"rbac.authorization.k8s.io"}: '
      "cannot change roleRef"]),
    ("rb-subjects-may-change", "RoleBinding", s_("subjects", []), []),
    ("eps-address-type", "EndpointSlice", s_("addressType", "IPv6"),
     ['endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address',
      'addressType: Invalid value: "IPv6": field is immutable']),
    ("pdb-spec-mutable", "PodDisruptionBudget", s_("spec.minAvailable", 2), []),
    ("hpa-max", "HorizontalPodAutoscaler", s_("spec.maxReplicas", 0),
     ["spec.maxReplicas: Invalid value: 0: must be greater than 0",
      "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"]),
]


@pytest.mark.parametrize(("kind", "mutate", "want"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_update_rules(kind: str, mutate: Mut, want: list[str]) -> None:
    group, factory = FACTORIES[kind]
    old = factory()
    new = copy.deepcopy(old)
    mutate(new)
    assert strs(validate_update(group, kind, new, old)) == want
