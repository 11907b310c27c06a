"""A kopf operator against ``cluster.serve()``, in the test's event loop, on virtual time.

The operator is ordinary kopf code: create/update/delete handlers (kopf adds its finalizer because a delete
handler exists), status patches, an owned ConfigMap (``kopf.adopt`` sets the ownerReference, kubelite's
garbage collector deletes it), Events (``kopf.info``), and a daemon that sleeps 10 minutes of asyncio time
between reconciles. Its HTTP is kopf's own aiohttp (watches, patches) plus lightkube for the child object.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite

kopf = pytest.importorskip("kopf")
lightkube = pytest.importorskip("lightkube")

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}


def make_operator(url: Any, record: dict[str, Any]) -> Any:
    registry = kopf.OperatorRegistry()

    @kopf.on.login(registry=registry)
    def login(**_: Any) -> Any:
        return kopf.ConnectionInfo(server=str(url), ca_path=url.ca_file, token=url.token, default_namespace="default")

    @kopf.on.startup(registry=registry)
    def configure(settings: Any, **_: Any) -> None:
        settings.posting.level = logging.INFO
        settings.scanning.disabled = True
        settings.watching.server_timeout = 600

    def child_client() -> Any:
        from lightkube import AsyncClient, KubeConfig

        return AsyncClient(config=KubeConfig.from_file(url.kubeconfig), field_manager="widget-operator")

    @kopf.on.create("example.com", "v1", "widgets", id="created", registry=registry)
    async def created(spec: Any, name: str, body: Any, patch: Any, **_: Any) -> dict[str, Any]:
        from lightkube.resources.core_v1 import ConfigMap

        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-config"},
              "data": {"size": str(spec["size"])}}
        kopf.adopt(cm, owner=body)
        client = child_client()
        try:
            await client.create(ConfigMap.from_dict(cm))
        finally:
            await client.close()
        kopf.info(body, reason="Configured", message=f"created {name}-config")
        patch.status["phase"] = "Ready"
        record["created"].append(name)
        return {"configmap": f"{name}-config"}

    @kopf.on.update("example.com", "v1", "widgets", id="resized", field="spec.size", registry=registry)
    async def resized(new: Any, name: str, namespace: str, patch: Any, **_: Any) -> None:
        from lightkube.resources.core_v1 import ConfigMap

        client = child_client()
        try:
            await client.patch(ConfigMap, f"{name}-config", {"data": {"size": str(new)}}, namespace=namespace)
        finally:
            await client.close()
        patch.status["size"] = new
        record["resized"].append((name, new))

    @kopf.on.delete("example.com", "v1", "widgets", id="deleted", registry=registry)
    async def deleted(name: str, **_: Any) -> None:
        record["deleted"].append(name)

    @kopf.daemon("example.com", "v1", "widgets", id="reconcile", registry=registry, cancellation_timeout=1)
    async def reconcile_every_ten_minutes(name: str, stopped: Any, **_: Any) -> None:
        while not stopped:
            record["reconciles"].append(name)
            await asyncio.sleep(600)

    return registry


@pytest.fixture
async def served(tmp_path: Any) -> AsyncIterator[tuple[kubelite.Cluster, Any]]:
    async with kubelite.Cluster(seed=3, nodes=0, controllers=["garbagecollector", "namespace"]) as c, \
            c.serve(tls=True, kubeconfig=tmp_path / "kubeconfig") as url:
        await c.client.create(CRD)
        await c.settle()
        yield c, url


class _NotKopfs(frozenset[Any]):
    """kopf's ``run_tasks(ignored=...)``: at stop, kopf cancels every task it does not ignore (it expects to own
    the loop); here it owns only the tasks running its own code, not the cluster's, uvicorn's or pytest's."""

    def __contains__(self, task: object) -> bool:
        coro = task.get_coro() if isinstance(task, asyncio.Task) else None
        code = getattr(coro, "cr_code", None)
        return code is None or "/kopf/" not in code.co_filename


async def run_operator(**kwargs: Any) -> None:
    tasks = await kopf.spawn_tasks(**kwargs)
    await kopf.run_tasks(tasks, ignored=_NotKopfs())


@pytest.fixture
async def operator(served: tuple[kubelite.Cluster, Any]) -> AsyncIterator[dict[str, Any]]:
    _, url = served
    record: dict[str, Any] = {"created": [], "resized": [], "deleted": [], "reconciles": []}
    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(run_operator(registry=make_operator(url, record), namespaces=["default"],
                                            standalone=True, stop_flag=stop, ready_flag=ready))
    await asyncio.wait_for(ready.wait(), 60)
    yield record
    stop.set()
    await asyncio.wait_for(task, 60)


def _widget(cluster: kubelite.Cluster) -> dict[str, Any] | None:
    return cluster.apiserver.read("example.com", "widgets", "default", "w1")


async def test_kopf_operator_lifecycle(served: tuple[kubelite.Cluster, Any], operator: dict[str, Any]) -> None:
    cluster, _ = served
    c = cluster.client
    await c.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
                    "spec": {"size": 2}})
    await cluster.wait_for(lambda: (_widget(cluster) or {}).get("status", {}).get("phase") == "Ready", timeout=60)
    w = _widget(cluster)
    assert w is not None
    assert w["status"]["created"] == {"configmap": "w1-config"}  # the handler's result, patched into status
    assert w["metadata"]["finalizers"] == ["kopf.zalando.org/KopfFinalizerMarker"]
    cm = await c.get("configmaps", "w1-config")
    assert cm["data"] == {"size": "2"}
    assert [(r["kind"], r["name"], r.get("controller")) for r in cm["metadata"]["ownerReferences"]] == \
        [("Widget", "w1", True)]
    events = [e for e in await c.list("events") if e["involvedObject"].get("name") == "w1"]
    assert "Configured" in [e["reason"] for e in events]

    await c.patch("widgets.example.com", "w1", {"spec": {"size": 5}}, patch_type="merge")
    await cluster.wait_for(lambda: (_widget(cluster) or {}).get("status", {}).get("size") == 5, timeout=60)
    assert (await c.get("configmaps", "w1-config"))["data"] == {"size": "5"}
    assert operator["resized"] == [("w1", 5)]

    await c.delete("widgets.example.com", "w1")
    await cluster.wait_for(lambda: _widget(cluster) is None, timeout=60)
    assert operator["deleted"] == ["w1"]
    # the ConfigMap was owned by the widget: the garbage collector removes it
    await cluster.wait_for(lambda: cluster.apiserver.read("", "configmaps", "default", "w1-config") is None,
                           timeout=60)
    assert operator["created"] == ["w1"]


async def test_an_hour_of_ten_minute_reconciles(served: tuple[kubelite.Cluster, Any], operator: dict[str, Any]) -> None:
    cluster, _ = served
    await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
                                 "spec": {"size": 1}})
    await cluster.wait_for(lambda: operator["reconciles"], timeout=60)
    t0 = cluster.now
    requests = served[1].app.requests
    await asyncio.sleep(3601)
    assert cluster.now - t0 == pytest.approx(3601, abs=1e-3)
    assert len(operator["reconciles"]) == 7  # the first, then one every 600 s of asyncio (= cluster) time
    # the watch lived through the hour on bookmarks, renewed only at kopf's timeoutSeconds=600
    assert served[1].app.requests - requests <= 8
