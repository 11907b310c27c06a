"""Cluster DNS: CoreDNS kubernetes-plugin names, headless answers, search paths, NXDOMAIN."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.informer import SharedInformerFactory
from kubelite.kubelet import ImageProfile, ImageRegistry
from kubelite.network import Network


@pytest.fixture
async def net() -> AsyncIterator[tuple[Cluster, Network, dict[str, str]]]:
    reg = ImageRegistry()
    reg.add("app:1", ImageProfile(size="10Mi"))
    async with Cluster(seed=2, nodes=2, scheduler=False, controllers=["endpointslice"], image_registry=reg) as c:
        f = SharedInformerFactory(c.client, clock=c.clock, rng=c.rng)
        n = Network(f, clock=c.clock, rng=c.rng, nodes=["node-0"])
        n.start()
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "data"}})
        svc: dict[str, Any] = {"apiVersion": "v1", "kind": "Service"}
        await c.client.create({**svc, "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"clusterIP": "10.96.20.1", "selector": {"app": "web"},
                                        "ports": [{"port": 80}]}})
        await c.client.create({**svc, "metadata": {"name": "db", "namespace": "data"},
                               "spec": {"clusterIP": "None", "selector": {"app": "db"}, "ports": [{"port": 5432}]}})
        await c.client.create({**svc, "metadata": {"name": "ext", "namespace": "default"},
                               "spec": {"type": "ExternalName", "externalName": "web.default.svc.cluster.local"}})
        ips = {}
        for i, (name, ns, app, extra) in enumerate([
                ("web-0", "default", "web", {}), ("db-0", "data", "db", {"hostname": "db-0", "subdomain": "db"}),
                ("db-1", "data", "db", {"hostname": "db-1", "subdomain": "db"})]):
            await c.client.create({"apiVersion": "v1", "kind": "Pod",
                                   "metadata": {"name": name, "namespace": ns, "labels": {"app": app}},
                                   "spec": {"nodeName": f"node-{i % 2}", **extra,
                                            "containers": [{"name": "app", "image": "app:1"}]}})
        await c.advance(5)
        for name, ns in (("web-0", "default"), ("db-0", "data"), ("db-1", "data")):
            ips[name] = (await c.client.get("pods", name, namespace=ns))["status"]["podIP"]
        yield c, n, ips
        await f.shutdown()


@pytest.mark.parametrize(("name", "namespace", "expected"), [
    ("web.default.svc.cluster.local", None, ["10.96.20.1"]),
    ("WEB.default.svc.cluster.local.", None, ["10.96.20.1"]),
    ("web", "default", ["10.96.20.1"]),
    ("web.default", "data", ["10.96.20.1"]),
    ("web.default.svc", "data", ["10.96.20.1"]),
    ("web", "data", []),
    ("db.data.svc.cluster.local", None, ["db-0", "db-1"]),
    ("db-1.db.data.svc.cluster.local", None, ["db-1"]),
    ("db", "data", ["db-0", "db-1"]),
    ("10-1-2-3.default.pod.cluster.local", None, ["10.1.2.3"]),
    ("10-1-2.default.pod.cluster.local", None, []),
    ("ext.default.svc.cluster.local", None, ["10.96.20.1"]),
    ("missing.default.svc.cluster.local", None, []),
    ("web-0.web.default.svc.cluster.local", None, []),
    ("example.com", "default", []),
], ids=["fqdn", "case-and-dot", "search-own-ns", "search-svc-ns", "search-svc", "other-ns-nxdomain", "headless",
        "headless-hostname", "headless-search", "pod-name", "pod-name-bad", "externalname-cname", "nxdomain",
        "endpoint-name-of-clusterip-service", "external"])
async def test_resolve(net: tuple[Cluster, Network, dict[str, str]], name: str, namespace: str | None,
                       expected: list[str]) -> None:
    _, n, ips = net
    want = sorted(ips.get(e, e) for e in expected)
    assert sorted(n.dns.resolve(name, namespace=namespace)) == want


async def test_headless_answers_follow_readiness(net: tuple[Cluster, Network, dict[str, str]]) -> None:
    c, n, ips = net
    await c.client.delete("pods", "db-0", namespace="data")
    await c.settle()  # terminating: not ready, no longer answered
    assert n.dns.resolve("db.data.svc.cluster.local") == [ips["db-1"]]
    assert n.dns.cname("ext.default.svc.cluster.local") == "web.default.svc.cluster.local"
    assert n.dns.search_path("data") == ["data.svc.cluster.local", "svc.cluster.local", "cluster.local"]
