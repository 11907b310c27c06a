"""The one DNS model against the Kubernetes DNS specification (github.com/kubernetes/dns
``docs/specification.md``, schema 1.1.0: its record formats and question/answer examples as table cases), the
stub resolver a pod runs over the kubelet's resolv.conf (search list, ndots:5), and the kubelet's wait loops,
which now ask the same model (before, the kubelet's own ServiceDNS answered a headless Service with no ready
endpoint, never answered pod-IP names and ignored ExternalName)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry
from kubelite.network.dns import SRVRecord

Net = tuple[Cluster, dict[str, str]]

SVC: dict[str, Any] = {"apiVersion": "v1", "kind": "Service"}


def service(name: str, ns: str, **spec: Any) -> dict[str, Any]:
    return {**SVC, "metadata": {"name": name, "namespace": ns}, "spec": spec}


@pytest.fixture
async def net() -> AsyncIterator[Net]:
    reg = ImageRegistry()
    reg.add("app:1", ImageProfile(size="10Mi"))
    async with Cluster(seed=4, nodes=2, scheduler=False, controllers=["endpointslice"], image_registry=reg) as c:
        ports = [{"name": "https", "port": 443, "protocol": "TCP"}, {"name": "dns", "port": 53, "protocol": "UDP"}]
        await c.client.create(service("kubernetes-api", "default", clusterIP="10.96.0.12", ports=ports))
        await c.client.create(service("unnamed", "default", clusterIP="10.96.0.11", ports=[{"port": 80}]))
        await c.client.create(service("headless", "default", clusterIP="None", selector={"app": "pet"},
                                      ports=[{"name": "https", "port": 443}]))
        await c.client.create(service("empty", "default", clusterIP="None", selector={"app": "nobody"},
                                      ports=[{"port": 80}]))
        await c.client.create(service("foo", "default", type="ExternalName", externalName="www.example.com"))
        ips: dict[str, str] = {}
        for i, (name, extra) in enumerate([("my-pet", {"hostname": "my-pet", "subdomain": "headless"}),
                                           ("pet-2", {})]):
            await c.client.create({"apiVersion": "v1", "kind": "Pod",
                                   "metadata": {"name": name, "namespace": "default", "labels": {"app": "pet"}},
                                   "spec": {"nodeName": f"node-{i}", **extra,
                                            "containers": [{"name": "app", "image": "app:1"}]}})
        await c.advance(5)
        for name in ("my-pet", "pet-2"):
            ips[name] = (await c.client.get("pods", name, namespace="default"))["status"]["podIP"]
        yield c, ips


def _dns(c: Cluster) -> Any:
    assert c.network is not None
    return c.network.dns


# (id, question, expected A answers; pod names stand for their IPs)
A_CASES = [
    ("2.3.1-clusterip", "kubernetes-api.default.svc.cluster.local", ["10.96.0.12"]),
    ("2.1-case-insensitive", "Kubernetes-API.Default.SVC.cluster.local.", ["10.96.0.12"]),
    ("2.4.1-headless-ready-endpoints", "headless.default.svc.cluster.local", ["my-pet", "pet-2"]),
    ("2.4.1-headless-no-ready-endpoint-nxdomain", "empty.default.svc.cluster.local", []),
    ("2.4.1-hostname", "my-pet.headless.default.svc.cluster.local", ["my-pet"]),
    ("2.4.1-no-hostname-field-dashed-ip", "{pet-2-dashed}.headless.default.svc.cluster.local", ["pet-2"]),
    ("2.4.1-endpoint-names-only-for-headless", "x.kubernetes-api.default.svc.cluster.local", []),
    ("2.5-externalname-outside-cluster", "foo.default.svc.cluster.local", []),
    ("pods-insecure", "10-1-2-3.default.pod.cluster.local", ["10.1.2.3"]),
    ("missing-nxdomain", "missing.default.svc.cluster.local", []),
]


@pytest.mark.parametrize(("question", "expected"), [c[1:] for c in A_CASES], ids=[c[0] for c in A_CASES])
async def test_a_records(net: Net, question: str, expected: list[str]) -> None:
    c, ips = net
    question = question.replace("{pet-2-dashed}", ips["pet-2"].replace(".", "-"))
    assert sorted(_dns(c).resolve(question)) == sorted(ips.get(e, e) for e in expected)


async def test_cname_txt_srv_ptr(net: Net) -> None:
    c, ips = net
    dns = _dns(c)
    assert dns.cname("foo.default.svc.cluster.local") == "www.example.com"  # 2.5
    assert dns.txt("dns-version.cluster.local.") == ["1.1.0"]  # 2.2
    # 2.3.2: one SRV per named port, to the Service name; unnamed ports have none
    assert dns.srv("_https._tcp.kubernetes-api.default.svc.cluster.local") == [
        SRVRecord(443, "kubernetes-api.default.svc.cluster.local")]
    assert dns.srv("_dns._udp.kubernetes-api.default.svc.cluster.local") == [
        SRVRecord(53, "kubernetes-api.default.svc.cluster.local")]
    assert dns.srv("_dns._tcp.kubernetes-api.default.svc.cluster.local") == []
    assert dns.srv("_http._tcp.unnamed.default.svc.cluster.local") == []
    # 2.4.2: N ready endpoints x M named ports, each to the endpoint's hostname
    dashed = ips["pet-2"].replace(".", "-")
    assert sorted(dns.srv("_https._tcp.headless.default.svc.cluster.local")) == sorted([
        SRVRecord(443, "my-pet.headless.default.svc.cluster.local"),
        SRVRecord(443, f"{dashed}.headless.default.svc.cluster.local")])
    # 2.3.3 and 2.4.3: PTR of a ClusterIP, and of a headless endpoint with a hostname
    assert dns.ptr("12.0.96.10.in-addr.arpa.") == ["kubernetes-api.default.svc.cluster.local"]
    a, b, cc, d = ips["my-pet"].split(".")
    assert dns.ptr(f"{d}.{cc}.{b}.{a}.in-addr.arpa") == ["my-pet.headless.default.svc.cluster.local"]
    assert dns.ptr("1.1.1.1.in-addr.arpa") == []


# (id, name as the pod asks, the pod's namespace, the queries in order)
SEARCH_CASES = [
    ("bare", "web", "data", ["web.data.svc.cluster.local", "web.svc.cluster.local", "web.cluster.local", "web"]),
    ("below-ndots", "web.default", "data",
     ["web.default.data.svc.cluster.local", "web.default.svc.cluster.local", "web.default.cluster.local",
      "web.default"]),
    ("ndots-or-more-as-is-first", "a.b.c.d.e.f", "ns",
     ["a.b.c.d.e.f", "a.b.c.d.e.f.ns.svc.cluster.local", "a.b.c.d.e.f.svc.cluster.local",
      "a.b.c.d.e.f.cluster.local"]),
    ("absolute", "web.default.svc.cluster.local.", "data", ["web.default.svc.cluster.local"]),
]


@pytest.mark.parametrize(("name", "namespace", "queries"), [c[1:] for c in SEARCH_CASES],
                         ids=[c[0] for c in SEARCH_CASES])
async def test_the_stub_resolver_follows_the_kubelets_resolv_conf(net: Net, name: str, namespace: str,
                                                                   queries: list[str]) -> None:
    c, _ = net
    assert _dns(c).search_names(name, namespace) == queries


# (id, what the pod runs nslookup on, from namespace, whether it finds an answer)
NSLOOKUP_CASES = [
    ("service-bare", "kubernetes-api", "default", True),
    ("service-other-namespace-bare", "kubernetes-api", "kube-system", False),
    ("service-qualified", "kubernetes-api.default", "kube-system", True),
    ("headless-ready", "headless", "default", True),
    ("headless-none-ready", "empty", "default", False),
    ("hostname", "my-pet.headless", "default", True),
    ("externalname-forwarded", "foo", "default", True),
    ("pod-ip-name", "10-1-2-3.default.pod.cluster.local", "default", True),
    ("upstream-name", "www.example.org.", "default", True),
    ("single-label-nxdomain", "nothing", "default", False),
]


@pytest.mark.parametrize(("name", "namespace", "found"), [c[1:] for c in NSLOOKUP_CASES],
                         ids=[c[0] for c in NSLOOKUP_CASES])
async def test_what_nslookup_in_a_pod_finds(net: Net, name: str, namespace: str, found: bool) -> None:
    c, _ = net
    assert _dns(c).resolves(name, namespace) is found


def waits(name: str, target: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": "c", "image": "busybox:1.36",
                "command": ["sh", "-c", f"until nslookup {target}; do sleep 2; done; echo ok"]}]}}


async def _phase(c: Cluster, name: str) -> str:
    return str((await c.client.get("pods", name, namespace="default"))["status"].get("phase"))


async def test_a_wait_loop_for_a_headless_service_ends_once_an_endpoint_is_ready() -> None:
    """The kubelet asks the cluster DNS: a headless Service answers only with a ready endpoint (2.4.1)."""
    async with Cluster(seed=6, nodes=1) as c:
        await c.client.create(service("db", "default", clusterIP="None", selector={"app": "db"},
                                      ports=[{"port": 5432}]))
        await c.client.create(waits("waiter", "db"))
        await c.advance(60)
        assert await _phase(c, "waiter") == "Running"  # the Service exists, but no endpoint is ready
        await c.client.create({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "db-0", "namespace": "default", "labels": {"app": "db"}},
                               "spec": {"containers": [{"name": "db", "image": "postgres:16",
                                                        "env": [{"name": "POSTGRES_PASSWORD", "value": "x"}]}]}})
        async def done() -> bool:
            return await _phase(c, "waiter") == "Succeeded"

        await c.wait_for(done, timeout=180)  # TimeoutError if the loop never ends


async def test_a_wait_loop_for_a_pod_ip_name_ends_at_once() -> None:
    async with Cluster(seed=6, nodes=1) as c:
        await c.client.create(waits("waiter", "10-1-2-3.default.pod.cluster.local"))
        await c.advance(30)
        assert await _phase(c, "waiter") == "Succeeded"


async def test_without_a_data_plane_no_cluster_dns_answers() -> None:
    """network=False runs no CoreDNS: as in a cluster without it, a wait loop keeps waiting."""
    async with Cluster(seed=6, nodes=1, network=False) as c:
        await c.client.create(service("db", "default", clusterIP="10.96.0.20", ports=[{"port": 5432}]))
        await c.client.create(waits("waiter", "db"))
        await c.advance(60)
        assert await _phase(c, "waiter") == "Running"
