"""The REST API over HTTP: discovery, CRUD, lists, patches, subresources, tables, errors, auth.

Driven with httpx, in-process (``httpx.ASGITransport``) unless a test needs a socket (watches). The
expected shapes and codes are kube-apiserver's (``k8s.io/apiserver/pkg/endpoints``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import kubelite

SEED = 11  # the cluster fixture (tests/http/conftest.py) seeds with it
TOKEN = "admin-token"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def _cm(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels},
            "data": {"k": "v"}}


# --- discovery ---

@pytest.mark.parametrize("path", ["/version", "/version/"], ids=["plain", "trailing-slash"])
async def test_version(api: httpx.AsyncClient, path: str) -> None:
    r = await api.get(path)
    assert r.status_code == 200
    assert r.json()["major"] == "1" and r.json()["gitVersion"].startswith("v1.37")


@pytest.mark.parametrize(("path", "kind"), [
    ("/api", "APIVersions"), ("/api/", "APIVersions"), ("/apis", "APIGroupList"), ("/apis/", "APIGroupList"),
    ("/api/v1", "APIResourceList"), ("/api/v1/", "APIResourceList"), ("/apis/apps/v1", "APIResourceList"),
    ("/apis/apps", "APIGroup"),
], ids=["api", "api-slash", "apis", "apis-slash", "core-v1", "core-v1-slash", "apps-v1", "apps-group"])
async def test_legacy_discovery(api: httpx.AsyncClient, path: str, kind: str) -> None:
    r = await api.get(path, headers={"Accept": "application/json"})
    assert r.status_code == 200
    assert r.json()["kind"] == kind


async def test_core_resource_list_has_subresources_and_short_names(api: httpx.AsyncClient) -> None:
    res = {r["name"]: r for r in (await api.get("/api/v1")).json()["resources"]}
    assert res["pods"]["shortNames"] == ["po"] and res["pods"]["namespaced"] is True
    assert {"pods/status", "pods/log", "pods/binding", "pods/eviction"} <= set(res)
    assert res["pods/eviction"]["group"] == "policy" and res["pods/eviction"]["kind"] == "Eviction"
    assert res["nodes"]["namespaced"] is False
    assert "create" in res["pods"]["verbs"] and "watch" in res["pods"]["verbs"]


@pytest.mark.parametrize("version", ["v2", "v2beta1"])
async def test_aggregated_discovery_answers_with_the_exact_media_type(api: httpx.AsyncClient, version: str) -> None:
    media = f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"
    r = await api.get("/apis", headers={"Accept": f"{media},application/json"})
    assert r.headers["content-type"] == media
    doc = r.json()
    assert doc["kind"] == "APIGroupDiscoveryList" and doc["apiVersion"] == f"apidiscovery.k8s.io/{version}"
    apps = next(g for g in doc["items"] if g["metadata"]["name"] == "apps")
    deploy = next(x for x in apps["versions"][0]["resources"] if x["resource"] == "deployments")
    assert deploy["scope"] == "Namespaced" and {s["subresource"] for s in deploy["subresources"]} == {"scale", "status"}
    core = (await api.get("/api", headers={"Accept": media})).json()
    assert [g["metadata"]["name"] for g in core["items"]] == [""]


async def test_custom_resources_appear_in_discovery(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    await cluster.client.create(_crd())
    await cluster.settle()
    r = await api.get("/apis/example.com/v1")
    assert [x["name"] for x in r.json()["resources"]][:1] == ["widgets"]
    assert "example.com" in [g["name"] for g in (await api.get("/apis")).json()["groups"]]


async def test_openapi_v3_advertises_field_validation_per_gvk(api: httpx.AsyncClient) -> None:
    root = (await api.get("/openapi/v3")).json()["paths"]
    assert {"api/v1", "apis/apps/v1"} <= set(root)
    doc = (await api.get(root["apis/apps/v1"]["serverRelativeURL"])).json()
    item = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert item["x-kubernetes-group-version-kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert "fieldValidation" in [p["name"] for p in item["parameters"]]
    assert "io.k8s.api.apps.v1.Deployment" in doc["components"]["schemas"]
    assert (await api.get("/openapi/v2")).status_code == 404


# --- CRUD and lists ---

async def test_crud_of_a_namespaced_resource(api: httpx.AsyncClient) -> None:
    r = await api.post("/api/v1/namespaces/default/configmaps", json=_cm("a", app="x"))
    assert r.status_code == 201
    assert r.json()["metadata"]["namespace"] == "default" and r.json()["metadata"]["uid"]
    got = (await api.get("/api/v1/namespaces/default/configmaps/a")).json()
    got["data"] = {"k": "w"}
    r = await api.put("/api/v1/namespaces/default/configmaps/a", json=got)
    assert r.status_code == 200 and r.json()["data"] == {"k": "w"}
    stale = dict(got, data={"k": "stale"})
    r = await api.put("/api/v1/namespaces/default/configmaps/a", json=stale)
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"
    r = await api.delete("/api/v1/namespaces/default/configmaps/a")
    assert r.status_code == 200 and r.json()["status"] == "Success"
    assert r.json()["details"]["name"] == "a"
    r = await api.get("/api/v1/namespaces/default/configmaps/a")
    assert r.status_code == 404
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": 'configmaps "a" not found', "reason": "NotFound",
                        "details": {"name": "a", "kind": "configmaps"}, "code": 404}


async def test_crud_of_a_cluster_scoped_resource(api: httpx.AsyncClient) -> None:
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    assert (await api.post("/api/v1/namespaces", json=ns)).status_code == 201
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}
    assert (await api.post("/apis/scheduling.k8s.io/v1/priorityclasses", json=pc)).status_code == 201
    assert (await api.get("/apis/scheduling.k8s.io/v1/priorityclasses/high")).json()["value"] == 1000
    r = await api.get("/api/v1/namespaces/team-a")
    assert r.json()["status"]["phase"] == "Active"
    r = await api.delete("/api/v1/namespaces/team-a")
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"


async def test_create_in_a_yaml_body(api: httpx.AsyncClient) -> None:
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: b\n"
    r = await api.post("/api/v1/namespaces/default/configmaps", content=body,
                       headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.json()["data"] == {"a": "b"}


async def test_list_with_limit_continue_and_selectors(api: httpx.AsyncClient) -> None:
    for i in range(5):
        await api.post("/api/v1/namespaces/default/configmaps", json=_cm(f"c{i}", tier="a" if i % 2 else "b"))
    page = (await api.get("/api/v1/namespaces/default/configmaps", params={"limit": 2})).json()
    assert page["kind"] == "ConfigMapList" and len(page["items"]) == 2 and page["metadata"]["continue"]
    rest = (await api.get("/api/v1/namespaces/default/configmaps",
                          params={"limit": 10, "continue": page["metadata"]["continue"]})).json()
    names = [o["metadata"]["name"] for o in page["items"] + rest["items"]]
    assert [n for n in names if n.startswith("c")] == [f"c{i}" for i in range(5)]
    sel = (await api.get("/api/v1/namespaces/default/configmaps", params={"labelSelector": "tier=a"})).json()
    assert [o["metadata"]["name"] for o in sel["items"]] == ["c1", "c3"]
    fs = (await api.get("/api/v1/configmaps", params={"fieldSelector": "metadata.name=c4"})).json()
    assert [o["metadata"]["name"] for o in fs["items"]] == ["c4"]
    bad = await api.get("/api/v1/configmaps", params={"labelSelector": "a in (b"})
    assert bad.status_code == 400 and bad.json()["kind"] == "Status"


async def test_list_resource_version_semantics(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    await api.post("/api/v1/namespaces/default/configmaps", json=_cm("rv"))
    rv = (await api.get("/api/v1/configmaps")).json()["metadata"]["resourceVersion"]
    r = await api.get("/api/v1/configmaps", params={"resourceVersion": rv, "resourceVersionMatch": "Exact"})
    assert r.status_code == 200 and r.json()["metadata"]["resourceVersion"] == rv
    for i in range(3):
        await api.post("/api/v1/namespaces/default/configmaps", json=_cm(f"more{i}"))
    cluster.compact()
    r = await api.get("/api/v1/configmaps", params={"resourceVersion": rv, "resourceVersionMatch": "Exact"})
    assert r.status_code == 410 and r.json()["reason"] == "Expired"


# --- patches ---

@pytest.mark.parametrize(("ctype", "patch", "expect"), [
    ("application/merge-patch+json", {"data": {"k": "merged"}}, {"k": "merged"}),
    ("application/strategic-merge-patch+json", {"data": {"x": "y"}}, {"k": "v", "x": "y"}),
    ("application/json-patch+json", [{"op": "replace", "path": "/data/k", "value": "j"}], {"k": "j"}),
], ids=["merge", "strategic", "json"])
async def test_patch_content_types(api: httpx.AsyncClient, ctype: str, patch: Any, expect: dict[str, str]) -> None:
    await api.post("/api/v1/namespaces/default/configmaps", json=_cm("p"))
    r = await api.patch("/api/v1/namespaces/default/configmaps/p", content=json.dumps(patch),
                        headers={"Content-Type": ctype})
    assert r.status_code == 200, r.text
    assert r.json()["data"] == expect


async def test_server_side_apply_over_http(api: httpx.AsyncClient) -> None:
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: '1'\n"
    url = "/api/v1/namespaces/default/configmaps/ssa"
    hdr = {"Content-Type": "application/apply-patch+yaml"}
    r = await api.patch(url, content=body, headers=hdr, params={"fieldManager": "alice"})
    assert r.status_code == 200 and r.json()["data"] == {"a": "1"}
    assert [m["manager"] for m in r.json()["metadata"]["managedFields"]] == ["alice"]
    r = await api.patch(url, content=body.replace("'1'", "'2'"), headers=hdr, params={"fieldManager": "bob"})
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"
    r = await api.patch(url, content=body.replace("'1'", "'2'"), headers=hdr,
                        params={"fieldManager": "bob", "force": "true"})
    assert r.status_code == 200 and r.json()["data"] == {"a": "2"}
    r = await api.patch(url, content=body, headers=hdr)
    assert r.status_code == 400 and "fieldManager" in r.json()["message"]


async def test_dry_run_and_field_validation(api: httpx.AsyncClient) -> None:
    r = await api.post("/api/v1/namespaces/default/configmaps", json=_cm("dry"), params={"dryRun": "All"})
    assert r.status_code == 201
    assert (await api.get("/api/v1/namespaces/default/configmaps/dry")).status_code == 404
    assert (await api.post("/api/v1/namespaces/default/configmaps", json=_cm("dry"),
                           params={"dryRun": "Some"})).status_code == 400
    bad = dict(_cm("fv"), bogus=1)
    r = await api.post("/api/v1/namespaces/default/configmaps", json=bad, params={"fieldValidation": "Strict"})
    assert r.status_code == 400 and 'unknown field "bogus"' in r.json()["message"]
    r = await api.post("/api/v1/namespaces/default/configmaps", json=bad, params={"fieldValidation": "Warn"})
    assert r.status_code == 201
    assert r.headers.get_list("warning") == ['299 - "unknown field \\"bogus\\""']


# --- subresources ---

async def test_status_and_scale_subresources(api: httpx.AsyncClient) -> None:
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}
    assert (await api.post("/apis/apps/v1/namespaces/default/deployments", json=dep)).status_code == 201
    scale = (await api.get("/apis/apps/v1/namespaces/default/deployments/web/scale")).json()
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1" and scale["spec"]["replicas"] == 1
    r = await api.patch("/apis/apps/v1/namespaces/default/deployments/web/scale", content='{"spec":{"replicas":3}}',
                        headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 3
    assert (await api.get("/apis/apps/v1/namespaces/default/deployments/web")).json()["spec"]["replicas"] == 3
    r = await api.patch("/apis/apps/v1/namespaces/default/deployments/web/status",
                        content='{"status":{"observedGeneration":99}}',
                        headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["status"]["observedGeneration"] == 99
    assert (await api.get("/apis/apps/v1/namespaces/default/deployments/web/bogus")).status_code == 404


async def test_binding_eviction_and_logs(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"schedulerName": "nobody", "containers": [{"name": "c", "image": "nginx:1.25"}]}}
    assert (await api.post("/api/v1/namespaces/default/pods", json=pod)).status_code == 201
    r = await api.get("/api/v1/namespaces/default/pods/p/log")
    assert r.status_code == 400 and "waiting to start" in r.json()["message"]
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
               "target": {"apiVersion": "v1", "kind": "Node", "name": "node-0"}}
    r = await api.post("/api/v1/namespaces/default/pods/p/binding", json=binding)
    assert r.status_code == 201, r.text
    await cluster.wait_for(lambda: _running(cluster, "p"), timeout=120)
    r = await api.get("/api/v1/namespaces/default/pods/p/log")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    lines = cluster.kubelet("node-0").logs("default", "p", "c")
    assert r.text == "".join(line.partition(" ")[2] + "\n" for line in lines)
    r = await api.get("/api/v1/namespaces/default/pods/p/log", params={"timestamps": "true"})
    assert r.text == "".join(line + "\n" for line in lines)
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p", "namespace": "default"}}
    r = await api.post("/api/v1/namespaces/default/pods/p/eviction", json=eviction)
    assert r.status_code == 201, r.text
    pod_now = (await api.get("/api/v1/namespaces/default/pods/p")).json()
    assert pod_now["metadata"].get("deletionTimestamp")


def _running(cluster: kubelite.Cluster, name: str) -> bool:
    obj = cluster.apiserver.read("", "pods", "default", name)
    return bool(obj and (obj.get("status") or {}).get("phase") == "Running")


# --- tables ---

async def test_tables_use_the_kubectl_columns(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    r = await api.get("/api/v1/nodes", headers={"Accept": TABLE})
    assert r.headers["content-type"] == "application/json;as=Table;v=v1;g=meta.k8s.io"
    t = r.json()
    assert t["kind"] == "Table"
    assert [c["name"] for c in t["columnDefinitions"] if c["priority"] == 0] == ["Name", "Status", "Roles", "Age",
                                                                                 "Version"]
    assert t["rows"][0]["cells"][:3] == ["node-0", "Ready", "<none>"]
    assert t["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    one = (await api.get("/api/v1/nodes/node-0", headers={"Accept": TABLE},
                         params={"includeObject": "Object"})).json()
    assert one["rows"][0]["object"]["kind"] == "Node"
    other = (await api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles", headers={"Accept": TABLE})).json()
    assert [c["name"] for c in other["columnDefinitions"]] == ["Name", "Created At"]


def _columns(table: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(c["name"], c["type"], c["priority"]) for c in table["columnDefinitions"]]


async def test_table_cells_have_upstreams_types(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    """printers.go: replica counts and DATA are int64 cells; READY and RESTARTS are strings ("1/2", "0")."""
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}
    assert (await api.post("/apis/apps/v1/namespaces/default/deployments", json=deploy)).status_code == 201
    assert (await api.post("/api/v1/namespaces/default/configmaps", json=_cm("two", a="b"))).status_code == 201
    await cluster.wait_for(lambda: ((cluster.apiserver.read("apps", "deployments", "default", "web") or {})
                                    .get("status") or {}).get("availableReplicas") == 2, timeout=300)
    d = (await api.get("/apis/apps/v1/namespaces/default/deployments", headers={"Accept": TABLE})).json()
    assert _columns(d) == [("Name", "string", 0), ("Ready", "string", 0), ("Up-to-date", "integer", 0),
                           ("Available", "integer", 0), ("Age", "string", 0), ("Containers", "string", 1),
                           ("Images", "string", 1), ("Selector", "string", 1)]
    assert d["rows"][0]["cells"][:4] == ["web", "2/2", 2, 2]
    rs = (await api.get("/apis/apps/v1/namespaces/default/replicasets", headers={"Accept": TABLE})).json()
    assert [type(c).__name__ for c in rs["rows"][0]["cells"][1:4]] == ["int", "int", "int"]
    cm = (await api.get("/api/v1/namespaces/default/configmaps/two", headers={"Accept": TABLE})).json()
    assert _columns(cm) == [("Name", "string", 0), ("Data", "integer", 0), ("Age", "string", 0)]
    assert cm["rows"][0]["cells"][:2] == ["two", 1]
    pods = (await api.get("/api/v1/namespaces/default/pods", headers={"Accept": TABLE})).json()
    assert _columns(pods)[:5] == [("Name", "string", 0), ("Ready", "string", 0), ("Status", "string", 0),
                                  ("Restarts", "string", 0), ("Age", "string", 0)]
    assert [c[0] for c in _columns(pods)[5:]] == ["IP", "Node", "Nominated Node", "Readiness Gates"]
    assert {tuple(r["cells"][1:4]) for r in pods["rows"]} == {("1/1", "Running", "0")}
    svc = (await api.get("/api/v1/namespaces/default/services", headers={"Accept": TABLE})).json()
    assert [c[0] for c in _columns(svc)] == ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age",
                                             "Selector"]


async def test_event_tables_have_upstreams_columns_for_every_cell(api: httpx.AsyncClient,
                                                                  cluster: kubelite.Cluster) -> None:
    """printers.go's eventColumnDefinitions: the server prints wide (10 cells) and declares Subobject, Source,
    First Seen, Count and Name priority 1, so ``kubectl get events`` shows the Message as its fifth column."""
    assert (await api.post("/api/v1/namespaces/default/pods", json={
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})).status_code == 201
    await cluster.wait_for(lambda: _running(cluster, "p"), timeout=300)
    t = (await api.get("/api/v1/namespaces/default/events", headers={"Accept": TABLE})).json()
    assert _columns(t) == [("Last Seen", "string", 0), ("Type", "string", 0), ("Reason", "string", 0),
                           ("Object", "string", 0), ("Subobject", "string", 1), ("Source", "string", 1),
                           ("Message", "string", 0), ("First Seen", "string", 1), ("Count", "string", 1),
                           ("Name", "string", 1)]
    assert {len(r["cells"]) for r in t["rows"]} == {10}
    shown = [[cell for cell, col in zip(r["cells"], t["columnDefinitions"], strict=True) if col["priority"] == 0]
             for r in t["rows"]]
    scheduled = next(row for row in shown if row[2] == "Scheduled")
    assert scheduled[1:] == ["Normal", "Scheduled", "pod/p", "Successfully assigned default/p to node-0"]
    pulling = next(r["cells"] for r in t["rows"] if r["cells"][2] == "Pulling")
    assert pulling[4:6] == ["spec.containers{c}", "kubelet, node-0"]
    assert pulling[8] == 1  # the Count cell is an int64, declared "string", as upstream


@pytest.mark.parametrize("path", [
    "/api/v1/namespaces/default/pods", "/api/v1/nodes", "/api/v1/namespaces", "/api/v1/namespaces/default/services",
    "/api/v1/namespaces/default/events", "/api/v1/namespaces/default/configmaps",
    "/api/v1/namespaces/default/secrets", "/apis/apps/v1/namespaces/default/deployments",
    "/apis/apps/v1/namespaces/default/replicasets", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
], ids=lambda p: p.rsplit("/", 1)[1])
async def test_every_table_row_has_one_cell_per_column(api: httpx.AsyncClient, cluster: kubelite.Cluster,
                                                       path: str) -> None:
    """A Table's rows carry exactly one cell per column definition (kubectl pairs them by index)."""
    assert (await api.post("/api/v1/namespaces/default/configmaps", json=_cm("one"))).status_code == 201
    assert (await api.post("/api/v1/namespaces/default/secrets", json={
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"a": "b"}})).status_code == 201
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}
    assert (await api.post("/apis/apps/v1/namespaces/default/deployments", json=deploy)).status_code == 201
    assert (await api.post("/api/v1/namespaces/default/services", json={
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})).status_code == 201
    await cluster.wait_for(lambda: ((cluster.apiserver.read("apps", "deployments", "default", "web") or {})
                                    .get("status") or {}).get("availableReplicas") == 1, timeout=300)
    t = (await api.get(path, headers={"Accept": TABLE})).json()
    assert t["rows"]
    assert {len(r["cells"]) for r in t["rows"]} == {len(t["columnDefinitions"])}


@pytest.mark.parametrize(("path", "columns", "first"), [
    ("/apis/storage.k8s.io/v1/storageclasses",
     [("Name", "string", 0), ("Provisioner", "string", 0), ("ReclaimPolicy", "string", 0),
      ("VolumeBindingMode", "string", 0), ("AllowVolumeExpansion", "string", 0), ("Age", "string", 0)],
     ["standard (default)", "kubelite.io/hostpath", "Delete", "WaitForFirstConsumer", False]),
    ("/apis/scheduling.k8s.io/v1/priorityclasses",
     [("Name", "string", 0), ("Value", "integer", 0), ("Global-Default", "boolean", 0), ("Age", "string", 0),
      ("PreemptionPolicy", "string", 0)],
     ["system-cluster-critical", 2000000000, False]),
    ("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
     [("Name", "string", 0), ("Holder", "string", 0), ("Age", "string", 0)], ["node-0", "node-0"]),
    ("/api/v1/namespaces/default/serviceaccounts",
     [("Name", "string", 0), ("Secrets", "string", 0), ("Age", "string", 0)], ["default", 0]),
    ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
     [("Name", "string", 0), ("Role", "string", 0), ("Age", "string", 0), ("Users", "string", 1),
      ("Groups", "string", 1), ("ServiceAccounts", "string", 1)], ["cluster-admin", "ClusterRole/cluster-admin"]),
], ids=["storageclasses", "priorityclasses", "leases", "serviceaccounts", "clusterrolebindings"])
async def test_tables_of_the_other_built_in_kinds(api: httpx.AsyncClient, cluster: kubelite.Cluster, path: str,
                                                  columns: list[tuple[str, str, int]], first: list[Any]) -> None:
    """printers.go's handlers for kinds beyond the workloads (not the default Name/Created At table)."""
    await cluster.wait_for(lambda: bool(cluster.apiserver.read("", "serviceaccounts", "default", "default")),
                           timeout=60)
    t = (await api.get(path, headers={"Accept": TABLE})).json()
    assert _columns(t) == columns
    row = next(r["cells"] for r in t["rows"] if r["cells"][0] == first[0])
    assert row[:len(first)] == first
    assert {len(r["cells"]) for r in t["rows"]} == {len(columns)}


async def test_quota_tables_show_used_over_hard(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute"},
             "spec": {"hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi"}}}
    assert (await api.post("/api/v1/namespaces/default/resourcequotas", json=quota)).status_code == 201
    await cluster.wait_for(lambda: ((cluster.apiserver.read("", "resourcequotas", "default", "compute") or {})
                                    .get("status") or {}).get("used") is not None, timeout=60)
    t = (await api.get("/api/v1/namespaces/default/resourcequotas", headers={"Accept": TABLE})).json()
    assert [c[0] for c in _columns(t)] == ["Name", "Request", "Limit", "Age"]
    assert t["rows"][0]["cells"][:3] == ["compute", "pods: 0/10, requests.cpu: 0/4", "limits.memory: 0/8Gi"]


# --- errors, media types, auth ---

@pytest.mark.parametrize(("method", "path", "body", "ctype", "code"), [
    ("GET", "/nope", None, None, 404),
    ("GET", "/api/v2/pods", None, None, 404),
    ("GET", "/apis/apps/v1/namespaces/default/widgets", None, None, 404),
    ("POST", "/api/v1/namespaces/default/configmaps", b"{not json", "application/json", 400),
    ("POST", "/api/v1/namespaces/default/configmaps", b"a: [b", "application/yaml", 400),
    ("POST", "/api/v1/namespaces/default/configmaps", b"[1, 2]", "application/json", 400),
    ("POST", "/api/v1/namespaces/default/configmaps", b"\x0a\x02v1", "application/vnd.kubernetes.protobuf", 400),
    ("POST", "/api/v1/namespaces/default/configmaps", b"x", "text/html", 415),
    ("PATCH", "/api/v1/namespaces/default/configmaps/x", b"{}", "application/json", 415),
    ("PUT", "/api/v1/namespaces/default/configmaps", b"{}", "application/json", 405),
], ids=["unknown-path", "unknown-version", "unknown-resource", "malformed-json", "malformed-yaml", "not-an-object",
        "protobuf-without-magic", "html", "patch-without-patch-type", "put-on-collection"])
async def test_bad_requests_get_status_errors(api: httpx.AsyncClient, method: str, path: str, body: bytes | None,
                                              ctype: str | None, code: int) -> None:
    headers = {"Content-Type": ctype} if ctype else {}
    r = await api.request(method, path, content=body, headers=headers)
    assert r.status_code == code
    doc = r.json()
    assert doc["kind"] == "Status" and doc["status"] == "Failure" and doc["code"] == code


async def test_a_huge_body_gets_413(api: httpx.AsyncClient) -> None:
    big = json.dumps(dict(_cm("big"), data={"k": "x" * (4 * 1024 * 1024)}))
    r = await api.post("/api/v1/namespaces/default/configmaps", content=big,
                       headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["reason"] == "RequestEntityTooLarge"
    assert (await api.get("/version")).status_code == 200


async def test_authentication_and_rbac(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    cluster.add_token("dev-token", "dev", groups=["devs"])
    dev = {"Authorization": "Bearer dev-token"}
    r = await api.get("/api/v1/namespaces/default/pods", headers=dev)
    assert r.status_code == 403 and r.json()["reason"] == "Forbidden"
    assert 'User "dev" cannot list resource "pods"' in r.json()["message"]
    r = await api.get("/api/v1/namespaces/default/pods", headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.json()["reason"] == "Unauthorized"
    r = await api.get("/api/v1/namespaces/default/pods", headers={"Authorization": "Basic YTpi"})
    assert r.status_code == 401
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "pod-reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}
    rb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "devs"},
          "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
          "subjects": [{"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"}]}
    await api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", json=role)
    await api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", json=rb)
    assert (await api.get("/api/v1/namespaces/default/pods", headers=dev)).status_code == 200
    assert (await api.get("/api/v1/namespaces/kube-system/pods", headers=dev)).status_code == 403
    # anonymous requests may read discovery (system:public-info-viewer, system:discovery) and nothing else
    anon = httpx.AsyncClient(transport=api._transport, base_url="http://kubelite")
    async with anon:
        assert (await anon.get("/version")).status_code == 200
        assert (await anon.get("/api/v1/namespaces/default/pods")).status_code == 403


async def test_impersonation_needs_the_impersonate_verb(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    r = await api.get("/api/v1/namespaces/default/pods", headers={"Impersonate-User": "mallory"})
    assert r.status_code == 403 and 'User "mallory"' in r.json()["message"]  # the admin may impersonate
    cluster.add_token("dev-token", "dev")
    r = await api.get("/api/v1/namespaces/default/pods",
                      headers={"Authorization": "Bearer dev-token", "Impersonate-User": "admin"})
    assert r.status_code == 403 and "impersonate" in r.json()["message"]
    r = await api.get("/api/v1/namespaces/default/pods",
                      headers={"Impersonate-User": "ops", "Impersonate-Group": "system:masters"})
    assert r.status_code == 200


def _crd() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "subresources": {"status": {}},
                               "additionalPrinterColumns": [
                                   {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                                   {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                   "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                                   "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
    }


async def test_custom_resources_crud_and_printer_columns(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=_crd())
    await cluster.settle()
    w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}}
    r = await api.post("/apis/example.com/v1/namespaces/default/widgets", json=w)
    assert r.status_code == 201, r.text
    t = (await api.get("/apis/example.com/v1/namespaces/default/widgets", headers={"Accept": TABLE})).json()
    assert [c["name"] for c in t["columnDefinitions"]] == ["Name", "Size", "Age"]
    assert t["rows"][0]["cells"][:2] == ["w1", 3]
    r = await api.patch("/apis/example.com/v1/namespaces/default/widgets/w1", content='{"spec":{"size":4}}',
                        headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert r.status_code == 415  # upstream: no strategic merge patch for custom resources
    r = await api.patch("/apis/example.com/v1/namespaces/default/widgets/w1/status",
                        content='{"status":{"ok":true}}', headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["status"] == {"ok": True}
