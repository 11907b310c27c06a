"""``metrics.k8s.io/v1beta1`` end to end: kubelets report usage, metrics-server scrapes it and serves PodMetrics
and NodeMetrics through the apiserver (read-only), and RBAC decides who reads them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubelite.api.quantity import parse_quantity
from kubelite.cluster import Cluster
from kubelite.errors import Forbidden, MethodNotAllowed, NotFound
from kubelite.workload import ImageProfile, ImageRegistry


def registry() -> ImageRegistry:
    reg = ImageRegistry()
    reg.add("busy:1", ImageProfile(size="1Mi", cpu="250m", memory="64Mi"))
    reg.add("idle:1", ImageProfile(size="1Mi", cpu="10m", memory="16Mi"))
    return reg


def pod(name: str, image: str, app: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"app": app}},
            "spec": {"containers": [{"name": "main", "image": image}]}}


async def running(c: Cluster, *names: str) -> None:
    async def ok() -> bool:
        pods = {p["metadata"]["name"]: p for p in await c.client.list("pods", namespace="default")}
        return all(pods.get(n, {}).get("status", {}).get("phase") == "Running" for n in names)

    await c.wait_for(ok, timeout=60)


async def test_pod_and_node_metrics_follow_the_kubelets_usage() -> None:
    async with Cluster(seed=5, nodes=1, image_registry=registry()) as c:
        await c.client.create(pod("busy", "busy:1", "busy"))
        await c.client.create(pod("idle", "idle:1", "idle"))
        await running(c, "busy", "idle")
        with pytest.raises(NotFound, match=r'podmetrics.metrics.k8s.io "default/busy" not found'):
            await c.client.get("pods.metrics.k8s.io", "busy", namespace="default")  # not scraped twice yet
        await c.advance(40)
        m = await c.client.get("pods.metrics.k8s.io", "busy", namespace="default")
        assert (m["apiVersion"], m["kind"]) == ("metrics.k8s.io/v1beta1", "PodMetrics")
        assert m["metadata"]["labels"] == {"app": "busy"}
        assert m["window"] == "15s"
        assert m["containers"] == [{"name": "main", "usage": {"cpu": "250m", "memory": "64Mi"}}]
        listed = await c.client.list("pods.metrics.k8s.io", namespace="default", labels="app=idle")
        assert [(x["metadata"]["name"], x["containers"][0]["usage"]["cpu"]) for x in listed] == [("idle", "10m")]
        assert len(await c.client.list("pods.metrics.k8s.io", namespace="*")) == 2
        # kubectl top coherence: the node's usage is its pods' usage
        node = await c.client.get("nodes.metrics.k8s.io", "node-0")
        assert node["kind"] == "NodeMetrics"
        assert parse_quantity(node["usage"]["cpu"]).milli_value() == 260
        assert node["usage"]["memory"] == "80Mi"


async def test_a_stopped_kubelet_drops_out() -> None:
    async with Cluster(seed=5, nodes=1, image_registry=registry()) as c:
        await c.client.create(pod("busy", "busy:1", "busy"))
        await running(c, "busy")
        await c.advance(40)
        assert await c.client.list("pods.metrics.k8s.io", namespace="default")
        await c.kubelet("node-0").stop()
        await c.advance(16)
        assert await c.client.list("pods.metrics.k8s.io", namespace="default") == []
        with pytest.raises(NotFound, match=re.escape('nodemetrics.metrics.k8s.io "node-0" not found')):
            await c.client.get("nodes.metrics.k8s.io", "node-0")


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: c.create({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
                         "metadata": {"name": "x", "namespace": "default"}}),
     "^the server does not allow this method on the requested resource$"),
    (lambda c: c.delete("pods.metrics.k8s.io", "x", namespace="default"),
     "^the server does not allow this method on the requested resource$"),
    # the list handler serves the watch parameter and answers NewMethodNotSupported (metrics-server's REST has no
    # Watch)
    (lambda c: c.open_watch("pods.metrics.k8s.io", namespace="default"),
     '^watch is not supported on resources of kind "pods.metrics.k8s.io"$'),
], ids=["create", "delete", "watch"])
async def test_the_metrics_api_is_read_only(call: Any, message: str) -> None:
    async with Cluster(seed=5, nodes=0) as c:
        with pytest.raises(MethodNotAllowed, match=message):
            await call(c.client)


async def test_metrics_rbac_view_reads_others_are_forbidden() -> None:
    async with Cluster(seed=5, nodes=1, image_registry=registry()) as c:
        await c.client.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                               "metadata": {"name": "viewer", "namespace": "default"},
                               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                           "name": "view"},
                               "subjects": [{"kind": "User", "name": "viewer"}]})
        await c.client.create(pod("busy", "busy:1", "busy"))
        await running(c, "busy")
        await c.advance(40)
        # system:aggregated-metrics-reader is aggregated into view (metrics-server's manifests)
        assert len(await c.client_as("viewer").list("pods.metrics.k8s.io", namespace="default")) == 1
        with pytest.raises(Forbidden, match=re.escape(
                'User "nobody" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "default"')):
            await c.client_as("nobody").list("pods.metrics.k8s.io", namespace="default")


async def test_metrics_server_without_its_role_serves_nothing() -> None:
    """metrics-server reads nodes and pods as its own service account: installed without the
    system:metrics-server binding it cannot list them, so nothing is scraped and the API answers nothing."""
    async with Cluster(seed=5, nodes=1, image_registry=registry(), metrics_server=False) as c:
        await c.client.delete("clusterrolebindings", "system:metrics-server")
        ms = c.start_metrics_server()
        await c.client.create(pod("busy", "busy:1", "busy"))
        await running(c, "busy")
        await c.advance(40)
        assert ms.scrapes == 0
        assert await c.client.list("pods.metrics.k8s.io", namespace="default") == []


async def test_metrics_server_with_its_role_scrapes() -> None:
    async with Cluster(seed=5, nodes=1, image_registry=registry(), metrics_server=False) as c:
        ms = c.start_metrics_server()
        await c.client.create(pod("busy", "busy:1", "busy"))
        await running(c, "busy")
        await c.advance(40)
        assert ms.scrapes >= 2
        assert len(await c.client.list("pods.metrics.k8s.io", namespace="default")) == 1


async def test_the_kubelet_authorizes_the_scrape() -> None:
    """The kubelet's webhook authorization asks whether the caller may ``get nodes/metrics``: take that rule
    out of system:metrics-server and every scrape is refused (logged per node), so nothing is served."""
    async with Cluster(seed=5, nodes=1, image_registry=registry(), metrics_server=False) as c:
        role = await c.client.get("clusterroles", "system:metrics-server")
        role["rules"] = [r for r in role["rules"] if r["resources"] != ["nodes/metrics"]]
        await c.client.replace(role)
        ms = c.start_metrics_server()
        await c.client.create(pod("busy", "busy:1", "busy"))
        await running(c, "busy")
        await c.advance(40)
        assert ms.scrapes >= 2
        assert ms.scraper.failures == {"node-0": "Forbidden (user=system:serviceaccount:kube-system:metrics-server, "
                                                 "verb=get, resource=nodes, subresource=metrics)"}
        assert await c.client.list("pods.metrics.k8s.io", namespace="default") == []
