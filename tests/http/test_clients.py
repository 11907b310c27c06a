"""Real Python clients from PyPI against ``cluster.serve()``: kubernetes, kubernetes_asyncio, lightkube.

The official ``kubernetes`` client is synchronous: it runs in a worker thread (``asyncio.to_thread``), which
the virtual clock treats as known I/O in flight (time flows at real speed, never skipped over). Its models
validate responses strictly (required fields, enums), so these calls also check the shapes kubelite serves.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import kubelite

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "labels": {"app": "api"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}},
             "template": {"metadata": {"labels": {"app": "api"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}},
}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[kubelite.Cluster, Any]]:
    async with kubelite.Cluster(seed=7, nodes=1) as c, c.serve(tls=True, kubeconfig=tmp_path / "kubeconfig") as url:
        yield c, url


async def test_official_kubernetes_client(served: tuple[kubelite.Cluster, Any]) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    cluster, url = served

    def story() -> dict[str, Any]:
        api_client = kubernetes.config.new_client_from_config(config_file=url.kubeconfig)
        core = kubernetes.client.CoreV1Api(api_client)
        apps = kubernetes.client.AppsV1Api(api_client)
        out: dict[str, Any] = {}
        out["namespaces"] = sorted(ns.metadata.name for ns in core.list_namespace().items)
        created = apps.create_namespaced_deployment("default", DEPLOYMENT)
        out["created_type"] = type(created).__name__
        out["strategy"] = created.spec.strategy.type  # defaulted by the server
        out["nodes"] = [(n.metadata.name, n.status.node_info.kubelet_version) for n in core.list_node().items]
        scale = apps.patch_namespaced_deployment_scale("api", "default", {"spec": {"replicas": 3}})
        out["scale"] = (type(scale).__name__, scale.spec.replicas)
        try:
            core.read_namespaced_pod("missing", "default")
        except kubernetes.client.ApiException as e:
            out["missing"] = (e.status, e.reason)
        w = kubernetes.watch.Watch()
        seen = []
        for ev in w.stream(apps.list_namespaced_deployment, "default", timeout_seconds=5):
            seen.append((ev["type"], type(ev["object"]).__name__, ev["object"].metadata.name))
            w.stop()
        out["watch"] = seen
        status = apps.delete_namespaced_deployment("api", "default")
        out["deleted"] = status["kind"] if isinstance(status, dict) else type(status).__name__
        return out

    out = await asyncio.to_thread(story)
    assert out["namespaces"] == ["default", "kube-node-lease", "kube-public", "kube-system"]
    assert out["created_type"] == "V1Deployment" and out["strategy"] == "RollingUpdate"
    assert [n for n, _ in out["nodes"]] == ["node-0"]
    assert out["scale"] == ("V1Scale", 3)
    assert out["missing"] == (404, "Not Found")
    assert out["watch"] == [("ADDED", "V1Deployment", "api")]
    assert out["deleted"] in ("Status", "V1Status")  # recent clients return the raw object (Status or the kind)
    assert cluster.apiserver.read("apps", "deployments", "default", "api") is None


async def test_kubernetes_asyncio_client_on_virtual_time(served: tuple[kubelite.Cluster, Any]) -> None:
    kapi = pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client, config, watch

    cluster, url = served
    api_client = await config.new_client_from_config(config_file=url.kubeconfig)
    async with api_client:
        apps, core = client.AppsV1Api(api_client), client.CoreV1Api(api_client)
        await apps.create_namespaced_deployment("default", DEPLOYMENT)
        t0 = cluster.now
        ready: list[str] = []
        w = watch.Watch()
        async for ev in w.stream(apps.list_namespaced_deployment, "default", timeout_seconds=120):
            d = ev["object"]
            if (d.status.ready_replicas or 0) == 2:
                ready.append(ev["type"])
                w.stop()
        pods = await core.list_namespaced_pod("default", label_selector="app=api")
        assert [p.status.phase for p in pods.items] == ["Running", "Running"]
        # the image pulls and probes took cluster time, not wall time
        assert 0 < cluster.now - t0 < 120
        await asyncio.sleep(3600)  # an hour of asyncio time passes on the cluster clock
        assert cluster.now - t0 > 3600
        assert ready == ["MODIFIED"]
    del kapi


async def test_lightkube_async_client(served: tuple[kubelite.Cluster, Any]) -> None:
    pytest.importorskip("lightkube")
    from lightkube import AsyncClient, KubeConfig
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap

    cluster, url = served
    client = AsyncClient(config=KubeConfig.from_file(url.kubeconfig), field_manager="lk")
    try:
        await client.create(ConfigMap(metadata=ObjectMeta(name="lk"), data={"a": "1"}))
        got = await client.get(ConfigMap, "lk")
        assert got.data == {"a": "1"}
        applied = await client.apply(ConfigMap(apiVersion="v1", kind="ConfigMap", metadata=ObjectMeta(name="lk"),
                                               data={"a": "2"}), force=True)
        assert applied.data == {"a": "2"}
        names = [cm.metadata.name async for cm in client.list(ConfigMap, namespace="default")]
        assert "lk" in names
        events = []
        async for op, obj in client.watch(ConfigMap, namespace="default", resource_version=got.metadata
                                          .resourceVersion):
            events.append((op, obj.metadata.name, obj.data))
            if len(events) == 1:
                break
        assert events == [("MODIFIED", "lk", {"a": "2"})]
        await client.delete(ConfigMap, "lk")
        assert cluster.apiserver.read("", "configmaps", "default", "lk") is None
    finally:
        await client.close()
