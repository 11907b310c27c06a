"""kr8s (async API, httpx underneath) against ``cluster.serve()``: get, list, create, patch, watch, delete.

kr8s discovers kinds through ``/api`` and ``/apis`` (``api_resources``), reads with ``limit``/``continue``
paging and field selectors (``get(kind, name)`` is a list with ``metadata.name=NAME``), patches with
merge patches (``patch(dict)``) and JSON patches (``type="json"``), and watches with ``aiter_lines`` over a
chunked response; all of it runs in the test's loop, on the cluster's virtual clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import kr8s
import kr8s.asyncio
import pytest
from kr8s.asyncio.objects import ConfigMap, Deployment, Pod

import kubelite

# kr8s checks /version against the Kubernetes minors it was released for and warns past them; kubelite
# reports the version it follows (v1.37), newer than kr8s 0.20's list
pytestmark = pytest.mark.filterwarnings("ignore:Kubernetes version .* is not supported:UserWarning")


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[kubelite.Cluster, Any, Any]]:
    async with kubelite.Cluster(seed=11, nodes=1) as c, c.serve(tls=True, kubeconfig=tmp_path / "kubeconfig") as url:
        api = await kr8s.asyncio.api(kubeconfig=url.kubeconfig)
        try:
            yield c, url, api
        finally:
            if api._session is not None:  # kr8s keeps one httpx client per Api and offers no close
                await api._session.aclose()


async def test_version_and_discovery(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    _, _, api = served
    version = await api.version()
    assert version["major"] == "1" and version["gitVersion"].startswith("v1.")
    resources = {(r["name"], r["version"]) for r in await api.api_resources()}
    assert {("pods", "v1"), ("deployments", "apps/v1"), ("leases", "coordination.k8s.io/v1")} <= resources


async def test_create_get_list_patch_delete(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    cluster, _, api = served
    cm = await ConfigMap({"metadata": {"name": "settings", "labels": {"app": "web"}}, "data": {"a": "1"}}, api=api)
    await cm.create()
    assert cm.metadata.uid and cm.metadata.resourceVersion  # the server's answer replaced the object
    got = [o async for o in api.get("configmaps", "settings", namespace="default")]
    assert [(o.name, o.raw["data"]) for o in got] == [("settings", {"a": "1"})]
    by_label = [o.name async for o in api.get("configmaps", namespace="default", label_selector={"app": "web"})]
    assert by_label == ["settings"]
    assert [o async for o in api.get("configmaps", namespace="default", label_selector="app=db")] == []

    await cm.patch({"data": {"b": "2"}})  # merge patch
    await cm.patch([{"op": "replace", "path": "/data/a", "value": "one"}], type="json")
    await cm.refresh()
    assert cm.raw["data"] == {"a": "one", "b": "2"}
    stored = cluster.apiserver.read("", "configmaps", "default", "settings")
    assert stored is not None and stored["data"] == {"a": "one", "b": "2"}

    await cm.delete()
    assert not await cm.exists()
    assert cluster.apiserver.read("", "configmaps", "default", "settings") is None


async def test_list_pages_through_continue(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    cluster, _, api = served
    for i in range(130):  # kr8s lists 100 at a time and follows metadata.continue
        await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i:03d}"}})
    names = [o.name async for o in api.get("configmaps", namespace="default")]
    expected = sorted(o["metadata"]["name"] for o in (await cluster.client.list("configmaps", namespace="default")))
    assert len(expected) == 130
    assert names == expected  # every page once, in the server's key order, none lost or repeated


async def test_deployment_scale_and_pods_become_ready(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    cluster, _, api = served
    deploy = await Deployment({
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}},
    }, api=api)
    await deploy.create()
    await deploy.scale(3)  # kr8s patches spec.replicas, then polls every 0.1 s (anyio.sleep) until it reads 3
    pods = [p async for p in api.get("pods", namespace="default", label_selector={"app": "web"})]
    assert len(pods) == 3 and all(isinstance(p, Pod) for p in pods)
    t0 = cluster.clock.now()
    # kr8s waits with a watch under anyio.fail_after: both on the cluster's virtual clock (image pulls take
    # virtual seconds), so the wait neither hangs nor times out early
    await asyncio.gather(*(p.wait("condition=Ready", timeout=600) for p in pods))
    assert all(await asyncio.gather(*(p.ready() for p in pods)))
    assert 0 < cluster.clock.now() - t0 < 600
    await deploy.wait("jsonpath='{.status.readyReplicas}'=3", timeout=60)  # the controller catches up
    assert deploy.raw["spec"]["replicas"] == 3 and deploy.raw["status"]["readyReplicas"] == 3


async def test_watch_sees_added_modified_deleted(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    cluster, url, api = served
    seen: list[tuple[str, str, str]] = []
    done = asyncio.Event()

    async def watch() -> None:
        async for kind, obj in api.watch("configmaps", namespace="default", label_selector="w=1"):
            seen.append((kind, obj.name, obj.raw.get("data", {}).get("k", "")))
            if kind == "DELETED":
                done.set()
                return

    task = asyncio.create_task(watch())
    await cluster.wait_for(lambda: url.app.watches > 0, timeout=30)
    c = cluster.client
    await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w", "labels": {"w": "1"}},
                    "data": {"k": "v1"}})
    await c.patch("configmaps", "w", {"data": {"k": "v2"}}, namespace="default")
    await c.delete("configmaps", "w", namespace="default")
    await asyncio.wait_for(done.wait(), 30)
    await task
    assert seen == [("ADDED", "w", "v1"), ("MODIFIED", "w", "v2"), ("DELETED", "w", "v2")]


async def test_errors_are_kr8s_server_errors_with_the_status(served: tuple[kubelite.Cluster, Any, Any]) -> None:
    _, _, api = served
    with pytest.raises(kr8s.NotFoundError):
        # get() retries a missing object until `timeout` seconds of time.time() pass: wall-clock polling
        # that no event-loop clock can shorten, so ask for no retries
        await Pod.get("missing", namespace="default", api=api, timeout=0)
    cm = await ConfigMap({"metadata": {"name": "twice"}}, api=api)
    await cm.create()
    again = await ConfigMap({"metadata": {"name": "twice"}}, api=api)
    with pytest.raises(kr8s.ServerError) as err:
        await again.create()
    status: Any = err.value.status  # the Status body (typed str in kr8s)
    assert status["reason"] == "AlreadyExists" and status["code"] == 409
