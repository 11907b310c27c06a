"""Go's ``omitempty``: the zero values kube-apiserver neither stores nor serves (``kubelite.api.omitempty``).

Every expectation below was read from the Go struct tags of k8s.io/api and k8s.io/apimachinery (``types.go``
at the commit ``tools/gen_protobuf.py`` pins), not from kubelite's generated table: ``omitempty`` on a value
field drops its zero; a pointer keeps it; a field without ``omitempty`` keeps it; a struct is never dropped.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import kubelite
from kubelite.api.omitempty import omit_empty, plan_for
from kubelite.api.resources import BUILTIN
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.request import Options, Request


def _set(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``obj`` with ``value`` at the dotted ``path`` (``[0]`` steps into a one-item list)."""
    cur: Any = obj
    parts = path.split(".")
    for part in parts[:-1]:
        if part.endswith("[0]"):
            cur = cur.setdefault(part[:-3], [{}])[0]
        else:
            cur = cur.setdefault(part, {})
    cur[parts[-1]] = value
    return obj


def _has(obj: dict[str, Any], path: str) -> bool:
    cur: Any = obj
    for part in path.split("."):
        if part.endswith("[0]"):
            cur = cur.get(part[:-3])
            if not cur:
                return False
            cur = cur[0]
        elif not isinstance(cur, dict) or part not in cur:
            return False
        else:
            cur = cur[part]
    return True


# (apiVersion, kind, path, zero value, Go keeps it, the Go field as upstream declares it)
CASES: list[tuple[str, str, str, Any, bool, str]] = [
    ("v1", "ConfigMap", "metadata.finalizers", [], False, 'Finalizers []string `json:"finalizers,omitempty"`'),
    ("v1", "ConfigMap", "metadata.labels", {}, False, 'Labels map[string]string `json:"labels,omitempty"`'),
    ("v1", "ConfigMap", "metadata.annotations", {}, False, 'Annotations map[string]string `json:"annotations,omitempty"`'),
    ("v1", "ConfigMap", "metadata.resourceVersion", "", False, 'ResourceVersion string `json:"resourceVersion,omitempty"`'),
    ("v1", "ConfigMap", "metadata.generation", 0, False, 'Generation int64 `json:"generation,omitempty"`'),
    ("v1", "ConfigMap", "metadata.deletionGracePeriodSeconds", 0, True,
     'DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty"`'),
    ("v1", "ConfigMap", "data", {}, False, 'Data map[string]string `json:"data,omitempty"`'),
    ("v1", "ConfigMap", "immutable", False, True, 'Immutable *bool `json:"immutable,omitempty"`'),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "subjects[0].apiGroup", "", False,
     'Subject.APIGroup string `json:"apiGroup,omitempty"`'),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "roleRef.apiGroup", "", True,
     'RoleRef.APIGroup string `json:"apiGroup"`'),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "rules", [], True, 'Rules []PolicyRule `json:"rules"`'),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "rules[0].verbs", [], True, 'Verbs []string `json:"verbs"`'),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "rules[0].resources", [], False,
     'Resources []string `json:"resources,omitempty"`'),
    ("apiregistration.k8s.io/v1", "APIService", "spec.group", "", False, 'Group string `json:"group,omitempty"`'),
    ("apiregistration.k8s.io/v1", "APIService", "spec.groupPriorityMinimum", 0, True,
     'GroupPriorityMinimum int32 `json:"groupPriorityMinimum"`'),
    ("apiregistration.k8s.io/v1", "APIService", "spec.insecureSkipTLSVerify", False, False,
     'InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`'),
    ("batch/v1", "Job", "status.active", 0, False, 'Active int32 `json:"active,omitempty"`'),
    ("batch/v1", "Job", "status.ready", 0, True, 'Ready *int32 `json:"ready,omitempty"`'),
    ("batch/v1", "Job", "spec.parallelism", 0, True, 'Parallelism *int32 `json:"parallelism,omitempty"`'),
    ("batch/v1", "Job", "spec.suspend", False, True, 'Suspend *bool `json:"suspend,omitempty"`'),
    ("scheduling.k8s.io/v1", "PriorityClass", "globalDefault", False, False,
     'GlobalDefault bool `json:"globalDefault,omitempty"`'),
    ("scheduling.k8s.io/v1", "PriorityClass", "value", 0, True, 'Value int32 `json:"value"`'),
    ("scheduling.k8s.io/v1", "PriorityClass", "description", "", False, 'Description string `json:"description,omitempty"`'),
    ("apps/v1", "Deployment", "spec.replicas", 0, True, 'Replicas *int32 `json:"replicas,omitempty"`'),
    ("apps/v1", "Deployment", "spec.paused", False, False, 'Paused bool `json:"paused,omitempty"`'),
    ("apps/v1", "Deployment", "spec.minReadySeconds", 0, False, 'MinReadySeconds int32 `json:"minReadySeconds,omitempty"`'),
    ("apps/v1", "Deployment", "spec.template.metadata.labels", {}, False, "(ObjectMeta in a template)"),
    ("apps/v1", "Deployment", "status.replicas", 0, False, 'Replicas int32 `json:"replicas,omitempty"`'),
    ("apps/v1", "StatefulSet", "status.replicas", 0, True, 'Replicas int32 `json:"replicas"`'),
    ("v1", "Pod", "spec.containers", [], True, 'Containers []Container `json:"containers"`'),
    ("v1", "Pod", "spec.containers[0].env", [], False, 'Env []EnvVar `json:"env,omitempty"`'),
    ("v1", "Pod", "spec.containers[0].ports[0].hostPort", 0, False, 'HostPort int32 `json:"hostPort,omitempty"`'),
    ("v1", "Pod", "spec.containers[0].ports[0].containerPort", 0, True, 'ContainerPort int32 `json:"containerPort"`'),
    ("v1", "Pod", "spec.containers[0].resources", {}, True, "Resources ResourceRequirements (a struct)"),
    ("v1", "Pod", "spec.securityContext", {}, True, "SecurityContext *PodSecurityContext (a pointer)"),
    ("v1", "Pod", "status.containerStatuses[0].restartCount", 0, True, 'RestartCount int32 `json:"restartCount"`'),
    ("v1", "Pod", "spec.volumes[0].emptyDir.sizeLimit", "0", True, "(a Quantity is a value type)"),
    ("v1", "Pod", "spec.volumes[0].emptyDir.medium", "", False,
     'Volume.VolumeSource (inlined).EmptyDir.Medium `json:"medium,omitempty"`'),
    ("v1", "Node", "spec.unschedulable", False, False, 'Unschedulable bool `json:"unschedulable,omitempty"`'),
    ("v1", "Event", "count", 0, False, 'Count int32 `json:"count,omitempty"`'),
    ("v1", "Service", "spec.ports[0].targetPort", 0, True, "(an IntOrString is a value type)"),
    ("discovery.k8s.io/v1", "EndpointSlice", "endpoints", [], True, 'Endpoints []Endpoint `json:"endpoints"`'),
    ("coordination.k8s.io/v1", "Lease", "spec.leaseDurationSeconds", 0, True,
     'LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`'),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "spec.versions[0].storage", False, True,
     'Storage bool `json:"storage"`'),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "spec.versions[0].deprecated", False, False,
     'Deprecated bool `json:"deprecated,omitempty"`'),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "status.storedVersions", [], True,
     'StoredVersions []string `json:"storedVersions"`'),
    ("autoscaling/v1", "HorizontalPodAutoscaler", "status.currentReplicas", 0, True,
     'CurrentReplicas int32 `json:"currentReplicas"`'),
]


def _id(case: tuple[str, str, str, Any, bool, str]) -> str:
    return f"{case[1]}.{case[2]}={case[3]!r}-{'kept' if case[4] else 'omitted'}"


@pytest.mark.parametrize(("api_version", "kind", "path", "zero", "kept", "go"), CASES, ids=[_id(c) for c in CASES])
def test_zero_value_as_go_encodes_it(api_version: str, kind: str, path: str, zero: Any, kept: bool, go: str) -> None:
    obj = _set({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}, path, copy.deepcopy(zero))
    assert _has(obj, path)
    out = omit_empty(obj)
    assert out is obj
    assert _has(out, path) is kept, go
    assert out["metadata"]["name"] == "x"  # only the zero goes


@pytest.mark.parametrize(("api_version", "kind", "path", "zero", "kept", "go"),
                         [c for c in CASES if not c[4]], ids=[_id(c) for c in CASES if not c[4]])
def test_a_non_zero_value_is_never_dropped(api_version: str, kind: str, path: str, zero: Any, kept: bool,
                                           go: str) -> None:
    value = {list: ["a"], dict: {"k": "v"}, str: "a", bool: True, int: 3}[type(zero)]
    obj = _set({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}, path, value)
    assert _has(omit_empty(obj), path)


def test_every_builtin_kind_has_a_rule() -> None:
    missing = [f"{i.api_version} {i.kind}" for i in BUILTIN if plan_for(i.api_version, i.kind) is None]
    assert missing == []
    assert plan_for("example.com/v1", "Widget") is None  # custom resources are unstructured upstream
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"finalizers": []}, "spec": {"n": 0}}
    assert omit_empty(copy.deepcopy(cr)) == cr


def test_recursive_schema_is_walked() -> None:
    # JSONSchemaProps reaches itself: its nested properties follow the same rule
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "x"},
           "spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
               "type": "object", "description": "", "properties": {"a": {"type": "string", "nullable": False,
                                                                        "properties": {"b": {"format": ""}}}}}}}]}}
    omit_empty(crd)
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema == {"type": "object", "properties": {"a": {"type": "string", "properties": {"b": {}}}}}


# --- through the API: what is stored and served ---

NS = "default"
ZEROS: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    # (resource, body, paths Go omits, paths Go keeps)
    ("configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "cm", "finalizers": [], "labels": {}, "annotations": {}, "generateName": ""},
                    "data": {}, "binaryData": {}},
     ["metadata.finalizers", "metadata.labels", "metadata.annotations", "metadata.generateName", "data", "binaryData"],
     []),
    ("priorityclasses", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"},
                         "value": 0, "globalDefault": False, "description": ""},
     ["globalDefault", "description"], ["value"]),
    ("rolebindings", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                      "metadata": {"name": "rb"},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                      "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": NS, "apiGroup": ""}]},
     ["subjects[0].apiGroup"], ["roleRef.apiGroup"]),
    ("rolebindings", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                      "metadata": {"name": "rb2"},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                      "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": NS}]},
     ["subjects[0].apiGroup"], []),  # SetDefaults_Subject sets "" for a ServiceAccount: still nothing printed
    ("clusterroles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "cr"},
                      "rules": []},
     [], ["rules"]),
    ("deployments", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                     "spec": {"replicas": 0, "paused": False, "minReadySeconds": 0,
                              "selector": {"matchLabels": {"a": "b"}},
                              "template": {"metadata": {"labels": {"a": "b"}, "annotations": {}},
                                           "spec": {"containers": [{"name": "c", "image": "nginx", "env": [],
                                                                    "ports": [{"containerPort": 80, "hostPort": 0}]}]}}}},
     ["spec.paused", "spec.minReadySeconds", "spec.template.metadata.annotations",
      "spec.template.spec.containers[0].env", "spec.template.spec.containers[0].ports[0].hostPort"],
     ["spec.replicas", "spec.template.spec.containers[0].ports[0].containerPort"]),
    ("jobs", {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
              "spec": {"suspend": False, "parallelism": 0, "template": {"spec": {
                  "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}},
     [], ["spec.suspend", "spec.parallelism"]),
]


async def _raw(cluster: kubelite.Cluster, resource: str, name: str) -> dict[str, Any]:
    """The stored object itself (its bytes in the store), not a client's view of it."""
    info = cluster.apiserver.registry.resolve(resource)
    stored = cluster.store.get(cluster.apiserver.tables.table(info), NS if info.namespaced else "", name)
    assert stored is not None
    out: dict[str, Any] = stored.decode()
    return out


@pytest.mark.parametrize(("resource", "body", "omitted", "kept"), ZEROS,
                         ids=[f"{z[0]}-{z[1]['metadata']['name']}" for z in ZEROS])
async def test_created_zero_values_are_stored_and_served_as_go_prints_them(
    resource: str, body: dict[str, Any], omitted: list[str], kept: list[str],
) -> None:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        c = cluster.client
        info = cluster.apiserver.registry.resolve(resource)
        ns = NS if info.namespaced else None
        created = await c.create(copy.deepcopy(body), namespace=ns)
        name = body["metadata"]["name"]
        for obj in (created, await c.get(resource, name, namespace=ns), await _raw(cluster, resource, name)):
            assert [p for p in omitted if _has(obj, p)] == []
            assert [p for p in kept if not _has(obj, p)] == []
        # the managedFields of the create record only what was kept (upstream's field manager sees the Go object)
        fields = str(created["metadata"].get("managedFields", ""))
        assert "f:finalizers" not in fields and "f:globalDefault" not in fields


async def test_patches_that_empty_a_field_leave_it_out() -> None:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "cm", "labels": {"a": "b"}, "finalizers": ["x/y"],
                                     "annotations": {"k": "v"}}, "data": {"d": "1"}}, namespace=NS)
        await c.patch("configmaps", "cm", {"metadata": {"labels": {"a": None}}}, namespace=NS, patch_type="merge")
        await c.patch("configmaps", "cm", [{"op": "remove", "path": "/metadata/finalizers/0"}], namespace=NS,
                      patch_type="json")
        await c.patch("configmaps", "cm", {"metadata": {"annotations": {"$patch": "replace"}}}, namespace=NS)
        out = await c.patch("configmaps", "cm", {"data": {"d": None}}, namespace=NS, patch_type="strategic")
        for obj in (out, await _raw(cluster, "configmaps", "cm")):
            assert not {"labels", "finalizers", "annotations"} & set(obj["metadata"]), obj["metadata"]
            assert "data" not in obj
        applied = await c.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                 "metadata": {"name": "pc", "labels": {}}, "value": 5, "globalDefault": False},
                                field_manager="me")
        assert "globalDefault" not in applied and "labels" not in applied["metadata"] and applied["value"] == 5


async def test_status_writes_drop_zero_counts() -> None:
    # a Job's status.active: 0 (int32, omitempty) never reaches the store; status.ready: 0 (*int32) does
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}, namespace=NS)
        out = await c.patch("jobs", "j", {"status": {"active": 0, "succeeded": 0, "ready": 0,
                                                     "uncountedTerminatedPods": {"succeeded": []}}},
                            namespace=NS, subresource="status", patch_type="merge")
        for obj in (out, await _raw(cluster, "jobs", "j")):
            assert obj["status"] == {"ready": 0, "uncountedTerminatedPods": {}}
        job = await c.get("jobs", "j", namespace=NS)
        job["status"] = {"active": 0, "failed": 0, "ready": 0}
        out = await c.replace_status(job)
        assert out["status"] == {"ready": 0}


async def test_bootstrap_objects_are_stored_as_go_prints_them() -> None:
    # the core group's local APIService has group "" (omitempty): kube-apiserver's autoregister shows none
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        v1 = await _raw_cluster(cluster, "apiservices", "v1")
        assert "group" not in v1["spec"] and v1["spec"]["version"] == "v1"
        apps = await _raw_cluster(cluster, "apiservices", "v1.apps")
        assert apps["spec"]["group"] == "apps"
        problems = []
        for (group, plural), table in cluster.store.tables.items():
            for stored in list(table.objects.values()):
                obj = stored.decode()
                if obj != omit_empty(copy.deepcopy(obj)):
                    problems.append(f"{group}/{plural} {obj['metadata'].get('name')}")
        assert problems == []


async def _raw_cluster(cluster: kubelite.Cluster, resource: str, name: str) -> dict[str, Any]:
    info = cluster.apiserver.registry.resolve(resource)
    stored = cluster.store.get(cluster.apiserver.tables.table(info), "", name)
    assert stored is not None
    out: dict[str, Any] = stored.decode()
    return out


async def test_a_request_through_handle_is_pruned_too() -> None:
    # the apiserver's one entry point, as a user hook or an aggregated client would call it
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        info = cluster.apiserver.registry.resolve("configmaps")
        resp = await cluster.apiserver.handle(Request(
            verb="create", group="", resource="configmaps", namespace=NS, user=UserInfo(name="admin",
                                                                                         groups=("system:masters",)),
            body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "h", "finalizers": []}},
            options=Options()))
        assert info.kind == "ConfigMap"
        assert b"finalizers" not in resp.data
