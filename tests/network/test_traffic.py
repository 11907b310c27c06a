"""Traffic through DNS and kube-proxy during a rolling update: with correct readiness probes (and a
preStop grace, the usual practice) no request is lost; without a readiness probe, pods that are Ready
before they can serve lose requests. Plus determinism and the report's shape."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.informer import SharedInformerFactory
from kubelite.kubelet import ImageProfile, ImageRegistry
from kubelite.network import Network, TrafficReport

PROBE = {"httpGet": {"port": 8080}, "periodSeconds": 1, "failureThreshold": 1}
NODES = ["node-0", "node-1", "node-2"]


def registry() -> ImageRegistry:
    reg = ImageRegistry()
    # 3 s to load before serving; preStop 5 s keeps it answering while kube-proxies catch up
    reg.add("app", ImageProfile(size="10Mi", ready_after=3, pre_stop_seconds=5))
    return reg


@pytest.fixture
async def net() -> AsyncIterator[tuple[Cluster, Network]]:
    reg = registry()
    async with Cluster(seed=11, nodes=3, scheduler=False, controllers=["endpointslice"], image_registry=reg) as c:
        f = SharedInformerFactory(c.client, clock=c.clock, rng=c.rng)
        n = Network(f, clock=c.clock, rng=c.rng, nodes=NODES, registry=reg)
        n.start()
        await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"clusterIP": "10.96.30.1", "selector": {"app": "web"},
                                        "ports": [{"port": 80, "targetPort": 8080}]}})
        await c.settle()  # the data plane's informers (DNS, kube-proxy) have seen the Service
        yield c, n
        await f.shutdown()


def pod_body(name: str, version: str, node: str, probe: bool) -> dict[str, Any]:
    ctr: dict[str, Any] = {"name": "app", "image": f"app:{version}", "ports": [{"containerPort": 8080}]}
    if probe:
        ctr["readinessProbe"] = PROBE
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
            "spec": {"nodeName": node, "containers": [ctr], "terminationGracePeriodSeconds": 30}}


async def is_ready(c: Cluster, name: str) -> bool:
    p = await c.client.get("pods", name, namespace="default")
    return any(x["type"] == "Ready" and x["status"] == "True" for x in (p.get("status") or {}).get("conditions") or ())


async def rolling_update_by_hand(c: Cluster, n: Network, *, probe: bool, replicas: int = 3) -> TrafficReport:
    """Deployment-style rollout, maxSurge=1 maxUnavailable=0: create a new pod, wait until it is Ready
    (what the Deployment controller waits for), delete one old pod; repeat."""
    for i in range(replicas):
        await c.client.create(pod_body(f"web-v1-{i}", "v1", NODES[i % 3], probe))
    await c.wait_for(lambda: all_ready(c, [f"web-v1-{i}" for i in range(replicas)]), timeout=30)
    await c.advance(5)
    handle = n.traffic.start("web", "default", rate_per_s=50, from_node="node-0")
    await c.advance(2)
    for i in range(replicas):
        name = f"web-v2-{i}"
        await c.client.create(pod_body(name, "v2", NODES[(i + 1) % 3], probe))
        await c.wait_for(lambda name=name: is_ready(c, name), timeout=30)  # type: ignore[misc]
        await c.client.delete("pods", f"web-v1-{i}", namespace="default")
    await c.advance(20)
    return handle.stop()


async def all_ready(c: Cluster, names: list[str]) -> bool:
    for name in names:
        if not await is_ready(c, name):
            return False
    return True


async def test_rolling_update_with_readiness_probes_loses_nothing(net: tuple[Cluster, Network]) -> None:
    c, n = net
    report = await rolling_update_by_hand(c, n, probe=True)
    assert report.sent > 1000
    assert report.failed == 0, report.errors
    assert report.success_rate == 1.0
    assert {p for p in report.per_pod} == {f"default/web-v{v}-{i}" for v in (1, 2) for i in range(3)}
    assert all(ok > 0 and bad == 0 for _, ok, bad in report.per_second)


async def test_rolling_update_without_readiness_probe_loses_requests(net: tuple[Cluster, Network]) -> None:
    c, n = net
    report = await rolling_update_by_hand(c, n, probe=False)
    assert report.failed > 0
    assert set(report.errors) == {"not serving yet"}  # Ready before the app could answer
    assert report.success_rate < 1.0
    assert any(bad for _, _, bad in report.per_second)


async def test_errors_without_endpoints_and_unknown_service(net: tuple[Cluster, Network]) -> None:
    c, n = net
    h1 = n.traffic.start("web", "default", rate_per_s=10, from_node="node-1", duration=2)
    h2 = n.traffic.start("nope", "default", rate_per_s=10, from_node="node-1", duration=2)
    await c.advance(5)
    r1, r2 = h1.report(), h2.report()
    assert not h1.running
    assert (r1.sent, r1.errors) == (20, {"no endpoints": 20})
    assert (r2.sent, r2.errors) == (20, {"NXDOMAIN": 20})
    with pytest.raises(KeyError):
        n.traffic.start("web", from_node="node-9")


async def run_once(seed: int) -> TrafficReport:
    reg = registry()
    async with Cluster(seed=seed, nodes=3, scheduler=False, controllers=["endpointslice"], image_registry=reg) as c:
        f = SharedInformerFactory(c.client, clock=c.clock, rng=c.rng)
        n = Network(f, clock=c.clock, rng=c.rng, nodes=NODES, registry=reg)
        n.start()
        await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"clusterIP": "10.96.30.1", "selector": {"app": "web"},
                                        "ports": [{"port": 80, "targetPort": 8080}]}})
        report = await rolling_update_by_hand(c, n, probe=False)
        await f.shutdown()
        return report


async def test_same_seed_same_report() -> None:
    a, b = await run_once(4), await run_once(4)
    assert a == b
    assert len(a.per_pod) >= 3


# --- the same with the real Deployment controller (runs once it exists) ---


async def deployment_rollout(probe: bool) -> TrafficReport:
    reg = registry()
    ctrls = ["endpointslice", "replicaset", "deployment", "nodelifecycle"]
    async with Cluster(seed=21, nodes=3, controllers=ctrls, image_registry=reg) as c:
        await c.settle()
        for node in NODES:  # until the node lifecycle controller clears the not-ready taint
            await c.client.patch("nodes", node, {"spec": {"taints": None}}, patch_type="merge")
        f = SharedInformerFactory(c.client, clock=c.clock, rng=c.rng)
        n = Network(f, clock=c.clock, rng=c.rng, nodes=NODES, registry=reg)
        n.start()
        await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"clusterIP": "10.96.30.1", "selector": {"app": "web"},
                                        "ports": [{"port": 80, "targetPort": 8080}]}})
        template = pod_body("x", "v1", "", probe)
        tpl = {"metadata": {"labels": {"app": "web"}}, "spec": {k: v for k, v in template["spec"].items()
                                                                 if k != "nodeName"}}
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": tpl,
                        "strategy": {"type": "RollingUpdate",
                                     "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}}
        await c.client.create(dep)

        async def done(image: str) -> bool:
            d = await c.client.get("deployments", "web", namespace="default")
            st = d.get("status") or {}
            img = d["spec"]["template"]["spec"]["containers"][0]["image"]
            return bool(img == image and st.get("updatedReplicas") == 3 and st.get("availableReplicas") == 3
                        and st.get("replicas") == 3 and st.get("observedGeneration") == d["metadata"]["generation"])

        await c.wait_for(lambda: done("app:v1"), timeout=60)
        await c.advance(5)
        handle = n.traffic.start("web", "default", rate_per_s=50, from_node="node-0")
        await c.advance(2)
        await c.client.patch("deployments", "web", {"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:v2"}]}}}}, namespace="default")
        await c.wait_for(lambda: done("app:v2"), timeout=120)
        await c.advance(20)
        report = handle.stop()
        await f.shutdown()
        return report


@pytest.mark.parametrize(("probe", "lossless"), [(True, True), (False, False)], ids=["readiness-probe", "no-probe"])
async def test_deployment_rolling_update_traffic(probe: bool, lossless: bool) -> None:
    report = await deployment_rollout(probe)
    assert report.sent > 1000
    assert (report.failed == 0) is lossless, report.errors
