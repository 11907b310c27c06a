"""NetworkPolicy enforced by the simulated data plane, end to end: traffic a policy denies fails, policy
changes take effect as the agent's informers see them, and the data plane runs with its own identities
(kube-proxy as system:kube-proxy, the policy agent as kube-network-policies' service account)."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry
from kubelite.network.traffic import DENIED


def registry() -> ImageRegistry:
    reg = ImageRegistry()
    reg.add("app", ImageProfile(size="1Mi"))
    return reg


def pod(name: str, ns: str, labels: dict[str, str], node: str = "node-0") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "app", "ports": [
                {"name": "http", "containerPort": 8080}]}]}}


def policy(name: str, ns: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


async def world(c: Cluster) -> None:
    """Namespace "prod" with a web Service; clients: prod/frontend, prod/other, dev/frontend."""
    for ns in ("prod", "dev"):
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns,
                                                                                     "labels": {"env": ns}}})
    await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "prod"},
                           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}})
    await c.client.create(pod("web", "prod", {"app": "web"}, "node-1"))
    await c.client.create(pod("frontend", "prod", {"role": "frontend"}))
    await c.client.create(pod("other", "prod", {"role": "other"}))
    await c.client.create(pod("frontend", "dev", {"role": "frontend"}))
    await c.advance(10)


async def send(c: Cluster, client: str | None, n: int = 20) -> tuple[int, dict[str, int]]:
    assert c.network is not None
    h = c.network.traffic.start("web", "prod", rate_per_s=10, duration=n / 10, from_pod=client,
                                from_node=None if client else "node-2")
    await c.advance(n / 10 + 0.5)
    r = h.report()
    assert r.sent == n
    return r.succeeded, r.errors


async def test_a_denied_connection_fails_and_an_allowed_one_succeeds() -> None:
    async with Cluster(seed=21, nodes=3, image_registry=registry()) as c:
        await world(c)
        assert await send(c, "prod/other") == (20, {})  # no policy: everything is allowed
        await c.client.create(policy("web-from-frontend", "prod", {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "frontend"}}}],
                         "ports": [{"port": "http"}]}]}))
        await c.settle()
        assert await send(c, "prod/frontend") == (20, {})
        assert await send(c, "prod/other") == (0, {DENIED: 20})
        assert await send(c, "dev/frontend") == (0, {DENIED: 20})  # podSelector alone: same namespace only
        assert await send(c, None) == (0, {DENIED: 20})  # a host on another node


async def test_policy_updates_take_effect() -> None:
    """"should enforce updated policy" and "should allow ingress access from updated namespace"."""
    async with Cluster(seed=22, nodes=3, image_registry=registry()) as c:
        await world(c)
        await c.client.create(policy("web", "prod", {
            "podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "a"}}}]}]}))
        await c.settle()
        assert await send(c, "dev/frontend") == (0, {DENIED: 20})
        await c.client.patch("namespaces", "dev", {"metadata": {"labels": {"team": "a"}}}, patch_type="merge")
        await c.settle()
        assert await send(c, "dev/frontend") == (20, {})
        await c.client.delete("networkpolicies", "web", namespace="prod")
        await c.settle()
        assert await send(c, "prod/other") == (20, {})


async def test_egress_default_deny_and_the_node_exemption() -> None:
    async with Cluster(seed=23, nodes=3, image_registry=registry()) as c:
        await world(c)
        await c.client.create(policy("deny-egress", "dev", {"podSelector": {}, "policyTypes": ["Egress"]}))
        await c.client.create(policy("deny-ingress", "prod", {"podSelector": {}, "policyTypes": ["Ingress"]}))
        await c.settle()
        assert await send(c, "dev/frontend") == (0, {DENIED: 20})
        assert c.network is not None
        # a host process on the pod's own node (kubelet probes, node-local agents) is always allowed
        h = c.network.traffic.start("web", "prod", rate_per_s=10, duration=2, from_node="node-1")
        await c.advance(2.5)
        assert h.report().succeeded == 20


async def test_the_data_plane_runs_as_its_own_identities() -> None:
    async with Cluster(seed=24, nodes=1) as c:
        net = c.network
        assert net is not None
        assert net.informers.client.user.name == "system:kube-proxy"
        assert net.dns_informers.client.user.name == "system:serviceaccount:kube-system:coredns"
        assert net.policy_informers.client.user.name == "system:serviceaccount:kube-system:kube-network-policies"


async def test_kube_proxy_without_node_proxier_programs_nothing() -> None:
    """kube-proxy reads Services and EndpointSlices as system:kube-proxy: without the system:node-proxier binding
    its informers cannot list, so no rule is installed and Service traffic finds no endpoints."""
    async with Cluster(seed=25, nodes=2, image_registry=registry(), network=False) as c:
        await c.client.delete("clusterrolebindings", "system:node-proxier")
        from kubelite.informer import SharedInformerFactory
        from kubelite.network import Network

        factories = [SharedInformerFactory(client, clock=c.clock, rng=c.rng) for client in (
            c.component_client("system:kube-proxy", field_manager="kube-proxy"), c.client, c.client)]
        net = Network(factories[0], clock=c.clock, rng=c.rng, nodes=["node-0", "node-1"], registry=c.image_registry,
                      dns_informers=factories[1], policy_informers=factories[2])
        net.start()
        await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web",
                                                                                   "namespace": "default"},
                               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}})
        await c.client.create(pod("web", "default", {"app": "web"}, "node-1"))
        await c.advance(10)
        h = net.traffic.start("web", "default", rate_per_s=10, duration=1, from_node="node-0")
        await c.advance(1.5)
        assert h.report().errors == {"no endpoints": 10}
        for f in factories:
            await f.shutdown()
