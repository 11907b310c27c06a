"""Upstream defaulting of the built-in kinds (pkg/apis/*/v1/defaults.go + zz_generated.defaults.go)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.defaults.core import image_tag

DEFAULTED_POD_SPEC_EXTRAS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
    "schedulerName": "default-scheduler",
}
DEFAULTED_CONTAINER = {
    "name": "web",
    "image": "nginx",
    "imagePullPolicy": "Always",
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}


def _template() -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}


def _defaulted_template() -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [DEFAULTED_CONTAINER], **DEFAULTED_POD_SPEC_EXTRAS},
    }


def test_minimal_deployment_gets_every_upstream_default() -> None:
    dep = {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": _template()},
    }
    apply_defaults("apps", "Deployment", dep)
    assert dep["spec"] == {
        "selector": {"matchLabels": {"app": "web"}},
        "replicas": 1,
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
        "template": _defaulted_template(),
    }
    # SetDefaults_Pod (enableServiceLinks, requests from limits) is for Pods only, never templates.
    assert "enableServiceLinks" not in dep["spec"]["template"]["spec"]


def test_minimal_pod() -> None:
    pod = {
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{
                "name": "c", "image": "busybox:1.36",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
                "livenessProbe": {"httpGet": {"port": 80}},
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
            }],
            "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "cfg"}}],
        },
    }
    apply_defaults("", "Pod", pod)
    spec = pod["spec"]
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert c["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert c["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert c["livenessProbe"] == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3,
    }
    assert c["env"][0]["valueFrom"]["fieldRef"] == {"fieldPath": "spec.nodeName", "apiVersion": "v1"}
    assert spec["volumes"] == [{"name": "scratch", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}}]
    assert spec["enableServiceLinks"] is True
    for key, value in DEFAULTED_POD_SPEC_EXTRAS.items():
        assert spec[key] == value


def test_defaults_are_idempotent_and_keep_set_fields() -> None:
    dep = {
        "metadata": {"name": "web"},
        "spec": {"replicas": 0, "strategy": {"type": "Recreate"}, "template": _template()},
    }
    apply_defaults("apps", "Deployment", dep)
    once = copy.deepcopy(dep)
    apply_defaults("apps", "Deployment", dep)
    assert dep == once
    assert dep["spec"]["replicas"] == 0
    assert dep["spec"]["strategy"] == {"type": "Recreate"}


def test_host_network_pod_defaults_host_ports() -> None:
    pod = {"spec": {"hostNetwork": True, "containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 53}]}]}}
    apply_defaults("", "Pod", pod)
    assert pod["spec"]["containers"][0]["ports"][0]["hostPort"] == 53


@pytest.mark.parametrize(
    ("image", "tag"),
    [("nginx", "latest"), ("nginx:1.25", "1.25"), ("localhost:5000/nginx", "latest"),
     ("localhost:5000/nginx:v1", "v1"), ("nginx@sha256:abc", ""), ("nginx:latest", "latest")],
    ids=["bare", "tagged", "registry-port", "registry-port-tag", "digest", "explicit-latest"],
)
def test_image_tag(image: str, tag: str) -> None:
    assert image_tag(image) == tag


CASES: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    ("service", "", "Service",
     {"spec": {"ports": [{"port": 80}]}},
     {"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "sessionAffinity": "None",
               "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}}),
    ("service-nodeport", "", "Service",
     {"spec": {"type": "NodePort", "ports": [{"port": 80, "targetPort": "http"}]}},
     {"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP", "targetPort": "http"}],
               "sessionAffinity": "None", "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"}}),
    ("service-loadbalancer-clientip", "", "Service",
     {"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP"}},
     {"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP",
               "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
               "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster",
               "allocateLoadBalancerNodePorts": True}}),
    ("service-externalname", "", "Service",
     {"spec": {"type": "ExternalName", "externalName": "example.com"}},
     {"spec": {"type": "ExternalName", "externalName": "example.com", "sessionAffinity": "None"}}),
    ("secret", "", "Secret", {"data": {}}, {"data": {}, "type": "Opaque"}),
    ("namespace", "", "Namespace", {"metadata": {"name": "team-a"}},
     {"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}}}),
    ("node", "", "Node", {"status": {"capacity": {"cpu": "4"}}},
     {"status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "4"}}}),
    ("pv", "", "PersistentVolume", {"spec": {"hostPath": {"path": "/d"}}},
     {"spec": {"hostPath": {"path": "/d", "type": ""}, "persistentVolumeReclaimPolicy": "Retain",
               "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}),
    ("pvc", "", "PersistentVolumeClaim", {"spec": {}},
     {"spec": {"volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}),
    ("replicaset", "apps", "ReplicaSet", {"spec": {"template": _template()}},
     {"spec": {"replicas": 1, "template": _defaulted_template()}}),
    ("daemonset", "apps", "DaemonSet", {"spec": {"template": _template()}},
     {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
               "revisionHistoryLimit": 10, "template": _defaulted_template()}}),
    ("statefulset", "apps", "StatefulSet",
     {"spec": {"template": _template(), "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]}},
     {"spec": {"podManagementPolicy": "OrderedReady",
               "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
               "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
               "replicas": 1, "revisionHistoryLimit": 10, "template": _defaulted_template(),
               "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"volumeMode": "Filesystem"},
                                         "status": {"phase": "Pending"}}]}}),
    ("job", "batch", "Job", {"metadata": {"name": "j"}, "spec": {"template": _template()}},
     {"metadata": {"name": "j", "labels": {"app": "web"}},
      "spec": {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
               "suspend": False, "podReplacementPolicy": "TerminatingOrFailed", "template": _defaulted_template()}}),
    ("job-parallel-pod-failure-policy", "batch", "Job",
     {"spec": {"parallelism": 3, "backoffLimitPerIndex": 1,
               "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}},
     {"spec": {"parallelism": 3, "backoffLimitPerIndex": 1, "backoffLimit": 2147483647, "completionMode": "NonIndexed",
               "suspend": False, "podReplacementPolicy": "Failed",
               "podFailurePolicy": {"rules": [{"action": "Ignore",
                                               "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}}}),
    ("cronjob", "batch", "CronJob",
     {"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": _template()}}}},
     {"spec": {"schedule": "* * * * *", "concurrencyPolicy": "Allow", "suspend": False,
               "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
               "jobTemplate": {"spec": {"template": _defaulted_template()}}}}),
    ("endpointslice", "discovery.k8s.io", "EndpointSlice", {"ports": [{"port": 80}]},
     {"ports": [{"port": 80, "name": "", "protocol": "TCP"}]}),
    ("priorityclass", "scheduling.k8s.io", "PriorityClass", {"value": 10},
     {"value": 10, "preemptionPolicy": "PreemptLowerPriority"}),
    ("storageclass", "storage.k8s.io", "StorageClass", {"provisioner": "x"},
     {"provisioner": "x", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}),
    ("rolebinding", "rbac.authorization.k8s.io", "RoleBinding",
     {"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "User", "name": "u"},
                                                              {"kind": "ServiceAccount", "name": "s"}]},
     {"roleRef": {"kind": "Role", "name": "r", "apiGroup": "rbac.authorization.k8s.io"},
      "subjects": [{"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"},
                   {"kind": "ServiceAccount", "name": "s"}]}),  # SetDefaults_Subject's "" is Go's zero: omitempty
    ("clusterrolebinding", "rbac.authorization.k8s.io", "ClusterRoleBinding",
     {"roleRef": {"kind": "ClusterRole", "name": "r"}, "subjects": [{"kind": "Group", "name": "g"}]},
     {"roleRef": {"kind": "ClusterRole", "name": "r", "apiGroup": "rbac.authorization.k8s.io"},
      "subjects": [{"kind": "Group", "name": "g", "apiGroup": "rbac.authorization.k8s.io"}]}),
    ("hpa", "autoscaling", "HorizontalPodAutoscaler", {"spec": {"maxReplicas": 5}},
     {"spec": {"maxReplicas": 5, "minReplicas": 1, "metrics": [
         {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}}),
    ("hpa-behavior", "autoscaling", "HorizontalPodAutoscaler",
     {"spec": {"minReplicas": 2, "metrics": [{"type": "Pods"}], "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}},
     {"spec": {"minReplicas": 2, "metrics": [{"type": "Pods"}], "behavior": {
         "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
             {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]},
         "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max", "policies": [
             {"type": "Percent", "value": 100, "periodSeconds": 15}]}}}}),
    ("lease-has-none", "coordination.k8s.io", "Lease", {"spec": {}}, {"spec": {}}),
    ("configmap-has-none-visible", "", "ConfigMap", {"metadata": {"name": "c"}}, {"metadata": {"name": "c"}}),
    ("unknown-kind", "example.com", "Widget", {"spec": {}}, {"spec": {}}),
]


@pytest.mark.parametrize(("group", "kind", "obj", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_defaults_per_kind(group: str, kind: str, obj: dict[str, Any], want: dict[str, Any]) -> None:
    apply_defaults(group, kind, obj)
    assert obj == want


def _pod_with(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


@pytest.mark.parametrize("spec", [
    {"containers": [{"name": "c", "image": "nginx"}]},
    {"containers": [{"name": "c", "image": "nginx:1.25", "resources": {"limits": {"cpu": "1"}}}],
     "hostNetwork": True},
    {"containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 80}]}], "restartPolicy": "Never"},
], ids=["minimal", "limits-and-host-network", "set-fields"])
def test_pod_defaulting_memo_gives_the_same_result_in_place(spec: dict[str, Any]) -> None:
    first = _pod_with(copy.deepcopy(spec))
    apply_defaults("", "Pod", first)
    for _ in range(2):  # second and third time: served from the memo
        again = _pod_with(copy.deepcopy(spec))
        spec_obj = again["spec"]
        apply_defaults("", "Pod", again)
        assert again == first
        assert again["spec"] is spec_obj  # updated in place, not replaced
        assert list(again["spec"]) == list(first["spec"])  # same key order, hence the same stored bytes
        assert again["spec"]["containers"] is not first["spec"]["containers"]  # each caller gets its own copy
    defaulted = copy.deepcopy(first)
    apply_defaults("", "Pod", defaulted)
    assert defaulted == first
