"""The EndpointSlice controller end to end on virtual time: slice shape, readiness and termination
conditions, ports, the 100-endpoint limit with minimal churn, publishNotReadyAddresses, placeholders."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from kubelite.api.types import Pod
from kubelite.cluster import Cluster
from kubelite.controllers.endpointslice import (
    LABEL_MANAGED_BY,
    LABEL_SERVICE_NAME,
    MANAGED_BY,
    should_pod_be_in_endpoints,
)
from kubelite.kubelet import ImageProfile, ImageRegistry

PROBE = {"httpGet": {"port": 8080}, "periodSeconds": 1, "failureThreshold": 1}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    reg = ImageRegistry()
    reg.add("app:1", ImageProfile(size="10Mi", ready_after=3))
    reg.add("hangs:1", ImageProfile(size="10Mi", ready_after=1, hang_after=20))
    async with Cluster(seed=3, nodes=[{"count": 3, "zones": ["zone-a", "zone-b"]}], scheduler=False,
                       controllers=["endpointslice"], image_registry=reg) as c:
        yield c


async def service(c: Cluster, name: str = "web", *, ports: list[dict[str, Any]] | None = None, **spec: Any) -> Any:
    return await c.client.create({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"team": "a"}},
        "spec": {"selector": {"app": name}, "ports": ports or [{"name": "http", "port": 80, "targetPort": "http"}],
                 **spec}})


async def pod(c: Cluster, name: str, app: str = "web", *, node: int = 0, image: str = "app:1",
              probe: bool = True, port_name: str = "http") -> None:
    ctr: dict[str, Any] = {"name": "app", "image": image, "ports": [{"name": port_name, "containerPort": 8080}]}
    if probe:
        ctr["readinessProbe"] = PROBE
    await c.client.create({"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
                           "spec": {"nodeName": f"node-{node}", "containers": [ctr],
                                    "terminationGracePeriodSeconds": 30}})


async def slices(c: Cluster, svc: str = "web") -> list[dict[str, Any]]:
    out = await c.client.list("endpointslices", namespace="default", labels=f"{LABEL_SERVICE_NAME}={svc}")
    return sorted(out, key=lambda s: s["metadata"]["name"])


async def endpoints(c: Cluster, svc: str = "web") -> dict[str, dict[str, Any]]:
    return {e["targetRef"]["name"]: e for s in await slices(c, svc) for e in s.get("endpoints") or ()}


async def test_slice_shape(cluster: Cluster) -> None:
    svc = await service(cluster)
    await pod(cluster, "web-0", node=1)
    await cluster.advance(5)
    [s] = await slices(cluster)
    assert s["metadata"]["name"].startswith("web-") and len(s["metadata"]["name"]) == len("web-") + 5
    assert s["metadata"]["labels"] == {"team": "a", LABEL_SERVICE_NAME: "web", LABEL_MANAGED_BY: MANAGED_BY}
    assert s["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "web",
                                                 "uid": svc["metadata"]["uid"], "controller": True,
                                                 "blockOwnerDeletion": True}]
    assert s["addressType"] == "IPv4"
    assert s["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    p = await cluster.client.get("pods", "web-0", namespace="default")
    [ep] = s["endpoints"]
    assert ep == {"addresses": [p["status"]["podIP"]], "conditions": {"ready": True, "serving": True,
                                                                      "terminating": False},
                  "nodeName": "node-1", "zone": "zone-b",
                  "targetRef": {"kind": "Pod", "namespace": "default", "name": "web-0", "uid": p["metadata"]["uid"]}}


async def test_conditions_follow_readiness_and_deletion(cluster: Cluster) -> None:
    await service(cluster)
    await pod(cluster, "web-0")
    await pod(cluster, "web-1", image="hangs:1")
    await cluster.advance(1.5)  # started, readiness probe not passing yet
    eps = await endpoints(cluster)
    assert eps["web-0"]["conditions"] == {"ready": False, "serving": False, "terminating": False}
    await cluster.advance(5)
    eps = await endpoints(cluster)
    assert {n: e["conditions"]["ready"] for n, e in eps.items()} == {"web-0": True, "web-1": True}
    await cluster.advance(20)  # web-1 hangs: its readiness probe fails, the pod stays
    eps = await endpoints(cluster)
    assert eps["web-1"]["conditions"] == {"ready": False, "serving": False, "terminating": False}
    assert eps["web-0"]["conditions"]["ready"] is True
    await cluster.client.delete("pods", "web-0", namespace="default")
    await cluster.settle()
    eps = await endpoints(cluster)
    assert eps["web-0"]["conditions"]["terminating"] is True
    assert eps["web-0"]["conditions"]["ready"] is False
    await cluster.advance(5)  # the kubelet finished terminating it: gone from the API and the slice
    assert "web-0" not in await endpoints(cluster)


async def test_publish_not_ready_addresses(cluster: Cluster) -> None:
    await service(cluster, publishNotReadyAddresses=True)
    await pod(cluster, "web-0")
    await cluster.advance(1.5)
    eps = await endpoints(cluster)
    assert eps["web-0"]["conditions"] == {"ready": True, "serving": False, "terminating": False}


async def test_placeholder_and_ports_by_pod(cluster: Cluster) -> None:
    await service(cluster)
    await cluster.advance(1)  # controllers poll for cache sync on the clock (upstream: every 100 ms)
    [s] = await slices(cluster)
    assert not s.get("endpoints") and not s.get("ports")
    await pod(cluster, "web-0", port_name="http")
    await pod(cluster, "web-1", port_name="other")  # the named port resolves differently: no port
    await cluster.advance(5)
    got = await slices(cluster)
    assert sorted((tuple(p["port"] for p in s.get("ports") or ()), len(s["endpoints"])) for s in got) == \
        [((), 1), ((8080,), 1)]
    assert s["metadata"]["name"] in {x["metadata"]["name"] for x in got}  # the placeholder was reused


async def test_more_than_100_endpoints_split_with_minimal_churn(cluster: Cluster) -> None:
    await service(cluster, ports=[{"name": "http", "port": 80, "targetPort": 8080}])
    for i in range(230):
        await pod(cluster, f"web-{i}", node=i % 3, probe=False)
    await cluster.advance(10)
    got = await slices(cluster)
    sizes = sorted(len(s["endpoints"]) for s in got)
    assert sum(sizes) == 230 and max(sizes) <= 100 and len(got) == 3
    names = {s["metadata"]["name"] for s in got}
    before = {s["metadata"]["name"]: {e["targetRef"]["name"] for e in s["endpoints"]} for s in got}
    for i in range(0, 30, 3):
        await cluster.client.delete("pods", f"web-{i}", namespace="default", grace_period=0)
    await cluster.advance(5)
    got = await slices(cluster)
    after = {s["metadata"]["name"]: {e["targetRef"]["name"] for e in s["endpoints"]} for s in got}
    assert set(after) == names  # no slice recreated
    gone = {f"web-{i}" for i in range(0, 30, 3)}
    for name, members in after.items():
        assert members == before[name] - gone  # every remaining endpoint stayed in its slice
    for i in range(230, 235):
        await pod(cluster, f"web-{i}", node=0, probe=False)
    await cluster.advance(5)
    got = await slices(cluster)
    assert {s["metadata"]["name"] for s in got} == names  # new endpoints filled existing room
    assert sum(len(s["endpoints"]) for s in got) == 225


async def test_selectorless_and_external_name_services_get_no_slices(cluster: Cluster) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "manual",
                                                                                     "namespace": "default"},
                                 "spec": {"ports": [{"port": 80}]}})
    await cluster.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext",
                                                                                     "namespace": "default"},
                                 "spec": {"type": "ExternalName", "externalName": "example.com",
                                          "selector": {"app": "ext"}}})
    await pod(cluster, "ext-0", app="ext")
    await cluster.advance(5)
    assert await slices(cluster, "manual") == []
    assert await slices(cluster, "ext") == []


async def test_recreates_deleted_slice_and_stays_quiet_when_settled(cluster: Cluster) -> None:
    await service(cluster)
    await pod(cluster, "web-0")
    await cluster.advance(5)
    [s] = await slices(cluster)
    rv = s["metadata"]["resourceVersion"]
    await cluster.advance(30)  # nothing changes: no writes
    [s2] = await slices(cluster)
    assert s2["metadata"]["resourceVersion"] == rv
    await cluster.client.delete("endpointslices", s["metadata"]["name"], namespace="default")
    await cluster.advance(1)
    [s3] = await slices(cluster)
    assert s3["metadata"]["name"] != s["metadata"]["name"]
    assert [e["targetRef"]["name"] for e in s3["endpoints"]] == ["web-0"]


def _typed_pod(phase: str, *, restart: str = "Always", ip: str | None = "10.0.0.5", deleting: bool = False) -> Pod:
    meta: dict[str, Any] = {"name": "p", "namespace": "default"}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    status: dict[str, Any] = {"phase": phase}
    if ip:
        status["podIP"] = ip
    return msgspec.convert({"metadata": meta, "spec": {"restartPolicy": restart, "containers": []},
                            "status": status}, Pod)


@pytest.mark.parametrize(("pod", "include_terminating", "expected"), [
    pytest.param(_typed_pod("Running"), True, True, id="running"),
    pytest.param(_typed_pod("Pending", ip=None), True, False, id="no-ip"),
    pytest.param(_typed_pod("Succeeded", restart="Always"), True, False, id="succeeded-always"),
    # IsPodTerminal: a Failed pod is out whatever its restart policy (an evicted pod of a Deployment); the
    # restart-policy rule this controller followed before upstream 1.27 kept it in
    pytest.param(_typed_pod("Failed", restart="Always"), True, False, id="failed-always"),
    pytest.param(_typed_pod("Failed", restart="OnFailure"), True, False, id="failed-onfailure"),
    pytest.param(_typed_pod("Running", deleting=True), True, True, id="terminating-included"),
    pytest.param(_typed_pod("Running", deleting=True), False, False, id="terminating-excluded"),
])
def test_should_pod_be_in_endpoints(pod: Pod, include_terminating: bool, expected: bool) -> None:
    """``endpointutil.ShouldPodBeInEndpoints``, shared by the EndpointSlice and Endpoints controllers."""
    assert should_pod_be_in_endpoints(pod, include_terminating) is expected



async def test_a_stale_slice_cache_is_an_expected_retry_logged_at_info() -> None:
    """A pod event right after the controller updated a slice finds the slice informer one event behind
    (a Deployment's pods getting IPs in a default cluster): upstream's syncService returns StaleInformerCache
    and handleErr logs the retry at Info. It used to be logged at ERROR, the one error a default cluster
    with a Service logged."""
    import structlog

    with structlog.testing.capture_logs() as logs:
        async with Cluster(seed=1, nodes=2) as c:
            await service(c)
            await c.client.create({"apiVersion": "apps/v1", "kind": "Deployment",
                                   "metadata": {"name": "web", "namespace": "default"},
                                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                                            "template": {"metadata": {"labels": {"app": "web"}},
                                                         "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}})
            await c.advance(10)
            ready = [e["conditions"]["ready"] for e in (await endpoints(c)).values()]
    retries = [e for e in logs if e["event"] == "reconcile_retry"]
    assert retries, "no stale cache in this run: the test no longer covers the retry (find another trigger)"
    assert {(e["log_level"], e["error"].partition(":")[0]) for e in retries} == {("info", "StaleInformerCacheError")}
    assert [e for e in logs if e["log_level"] == "error"] == []
    assert ready == [True, True, True]  # and the retry converged
