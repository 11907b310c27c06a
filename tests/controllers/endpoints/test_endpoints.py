"""The Endpoints controller end to end on virtual time, as upstream's ``endpoints_controller_test.go`` cases:
ready and not-ready addresses, ports by name, publishNotReadyAddresses, terminating and terminal pods, headless
Services, labels, the trigger-time annotation, truncation, deletion; plus ``RepackSubsets`` as a table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.controllers.endpoints import (
    HEADLESS,
    LAST_CHANGE_TRIGGER_TIME,
    MANAGED_BY,
    MAX_CAPACITY,
    repack_subsets,
)
from kubelite.errors import NotFound
from kubelite.kubelet import ImageProfile, ImageRegistry

PROBE = {"httpGet": {"port": 8080}, "periodSeconds": 1, "failureThreshold": 1}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    reg = ImageRegistry()
    reg.add("app:1", ImageProfile(size="10Mi", ready_after=3))
    reg.add("done:1", ImageProfile(size="10Mi", exit_after=2, exit_code=0))
    async with Cluster(seed=5, nodes=2, scheduler=False, controllers=["endpoint"], image_registry=reg) as c:
        yield c


async def service(c: Cluster, name: str = "web", *, ports: list[dict[str, Any]] | None = None,
                  **spec: Any) -> dict[str, Any]:
    return await c.client.create({  # type: ignore[no-any-return]
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": "default", "labels": {"team": "a"}},
        "spec": {"selector": {"app": name}, "ports": ports if ports is not None else [
            {"name": "http", "port": 80, "targetPort": "http"}], **spec}})


async def pod(c: Cluster, name: str, app: str = "web", *, node: int = 0, image: str = "app:1", probe: bool = True,
              ports: list[dict[str, Any]] | None = None, restart: str = "Always", **spec: Any) -> dict[str, Any]:
    ctr: dict[str, Any] = {"name": "app", "image": image,
                           "ports": ports if ports is not None else [{"name": "http", "containerPort": 8080}]}
    if probe:
        ctr["readinessProbe"] = PROBE
    return await c.client.create({  # type: ignore[no-any-return]
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {"nodeName": f"node-{node}", "containers": [ctr], "terminationGracePeriodSeconds": 30,
                 "restartPolicy": restart, **spec}})


async def endpoints(c: Cluster, name: str = "web") -> dict[str, Any]:
    return await c.client.get("endpoints", name, namespace="default")  # type: ignore[no-any-return]


def names(subset: dict[str, Any], field: str = "addresses") -> list[str]:
    return [a["targetRef"]["name"] for a in subset.get(field) or ()]


async def test_ready_and_not_ready_addresses(cluster: Cluster) -> None:
    await service(cluster)
    p0 = await pod(cluster, "web-0", node=1)
    await pod(cluster, "web-1")
    await cluster.advance(1.5)  # running, readiness probes not passed yet
    [subset] = (await endpoints(cluster))["subsets"]
    assert "addresses" not in subset and sorted(names(subset, "notReadyAddresses")) == ["web-0", "web-1"]
    await cluster.advance(5)
    ep = await endpoints(cluster)
    [subset] = ep["subsets"]
    assert "notReadyAddresses" not in subset and subset["ports"] == [{"name": "http", "port": 8080,
                                                                      "protocol": "TCP"}]
    live = await cluster.client.get("pods", "web-0", namespace="default")
    by_name = {a["targetRef"]["name"]: a for a in subset["addresses"]}
    assert by_name["web-0"] == {"ip": live["status"]["podIP"], "nodeName": "node-1", "targetRef": {
        "kind": "Pod", "namespace": "default", "name": "web-0", "uid": p0["metadata"]["uid"]}}
    ips = [a["ip"] for a in subset["addresses"]]
    assert ips == sorted(ips)
    assert ep["metadata"]["labels"] == {"team": "a", MANAGED_BY: "endpoint-controller"}


async def test_publish_not_ready_addresses_lists_every_pod_as_ready(cluster: Cluster) -> None:
    await service(cluster, publishNotReadyAddresses=True)
    await pod(cluster, "web-0")
    await cluster.advance(1.5)
    [subset] = (await endpoints(cluster))["subsets"]
    assert names(subset) == ["web-0"] and "notReadyAddresses" not in subset


@pytest.mark.parametrize(("svc_ports", "pod_ports", "want"), [
    ([{"name": "http", "port": 80, "targetPort": "http"}], [{"name": "http", "containerPort": 8080}],
     [{"name": "http", "port": 8080, "protocol": "TCP"}]),
    ([{"name": "http", "port": 80, "targetPort": "http"}], [{"name": "web", "containerPort": 8080}], None),
    ([{"port": 80, "targetPort": 9000}], [], [{"port": 9000, "protocol": "TCP"}]),
    ([{"name": "a", "port": 80, "targetPort": "http"}, {"name": "b", "port": 81, "targetPort": 9001,
                                                         "protocol": "UDP"}],
     [{"name": "http", "containerPort": 8080}],
     [{"name": "a", "port": 8080, "protocol": "TCP"}, {"name": "b", "port": 9001, "protocol": "UDP"}]),
], ids=["named-port", "named-port-missing", "unnamed-number", "two-ports"])
async def test_ports_by_name(cluster: Cluster, svc_ports: list[dict[str, Any]], pod_ports: list[dict[str, Any]],
                             want: list[dict[str, Any]] | None) -> None:
    await service(cluster, ports=svc_ports)
    await pod(cluster, "web-0", probe=False, ports=pod_ports)
    await cluster.advance(5)
    ep = await endpoints(cluster)
    if want is None:
        assert "subsets" not in ep  # the pod offers none of the Service's ports
        return
    [subset] = ep["subsets"]
    assert subset["ports"] == want and names(subset) == ["web-0"]


async def test_terminating_pods_leave_unless_published(cluster: Cluster) -> None:
    await service(cluster)
    await service(cluster, "pub", publishNotReadyAddresses=True)
    await pod(cluster, "web-0", probe=False)
    await pod(cluster, "pub-0", app="pub", probe=False)
    await cluster.advance(3)
    await cluster.client.delete("pods", "web-0", namespace="default")
    await cluster.client.delete("pods", "pub-0", namespace="default")
    await cluster.advance(1)  # within the 30 s grace period: terminating
    assert "subsets" not in await endpoints(cluster)
    assert names((await endpoints(cluster, "pub"))["subsets"][0]) == ["pub-0"]


async def test_terminal_pods_are_not_endpoints(cluster: Cluster) -> None:
    await service(cluster)
    await pod(cluster, "web-0", image="done:1", probe=False, restart="Never")
    await cluster.advance(1)
    assert names((await endpoints(cluster))["subsets"][0]) == ["web-0"]
    await cluster.advance(5)
    live = await cluster.client.get("pods", "web-0", namespace="default")
    assert live["status"]["phase"] == "Succeeded"
    assert "subsets" not in await endpoints(cluster)


async def test_headless_service_without_ports_and_hostnames(cluster: Cluster) -> None:
    await service(cluster, ports=[], clusterIP="None")
    await pod(cluster, "web-0", probe=False, hostname="web-0", subdomain="web")
    await cluster.advance(3)
    ep = await endpoints(cluster)
    assert ep["metadata"]["labels"] == {"team": "a", MANAGED_BY: "endpoint-controller", HEADLESS: ""}
    [subset] = ep["subsets"]
    assert "ports" not in subset and subset["addresses"][0]["hostname"] == "web-0"


async def test_no_selector_and_external_name_are_left_alone(cluster: Cluster) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext",
                                                                                     "namespace": "default"},
                                 "spec": {"type": "ExternalName", "externalName": "example.com", "selector": {"a": "b"}}})
    await cluster.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "manual",
                                                                                     "namespace": "default"},
                                 "spec": {"ports": [{"port": 80}]}})
    manual = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "manual", "namespace": "default"},
              "subsets": [{"addresses": [{"ip": "192.0.2.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}]}
    await cluster.client.create(manual)
    await cluster.advance(5)
    with pytest.raises(NotFound):
        await endpoints(cluster, "ext")
    assert (await endpoints(cluster, "manual"))["subsets"] == manual["subsets"]


async def test_deleted_endpoints_come_back_and_die_with_the_service(cluster: Cluster) -> None:
    await service(cluster)
    await pod(cluster, "web-0", probe=False)
    await cluster.advance(3)
    await cluster.client.delete("endpoints", "web", namespace="default")
    await cluster.advance(1)
    assert names((await endpoints(cluster))["subsets"][0]) == ["web-0"]
    await cluster.client.delete("services", "web", namespace="default")
    await cluster.advance(1)
    with pytest.raises(NotFound):
        await endpoints(cluster)


async def test_unchanged_endpoints_are_not_rewritten(cluster: Cluster) -> None:
    await service(cluster)
    await pod(cluster, "web-0", probe=False)
    await cluster.advance(3)
    rv = (await endpoints(cluster))["metadata"]["resourceVersion"]
    await cluster.client.patch("pods", "web-0", {"metadata": {"annotations": {"touched": "yes"}}},
                               namespace="default")
    await cluster.advance(60)
    assert (await endpoints(cluster))["metadata"]["resourceVersion"] == rv


async def test_trigger_time_is_the_change_that_caused_the_write(cluster: Cluster) -> None:
    await service(cluster)
    await cluster.advance(1)
    assert LAST_CHANGE_TRIGGER_TIME not in ((await endpoints(cluster))["metadata"].get("annotations") or {})
    await pod(cluster, "web-0")
    await cluster.advance(10)
    live = await cluster.client.get("pods", "web-0", namespace="default")
    ready = next(c for c in live["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "True"
    annotations = (await endpoints(cluster))["metadata"]["annotations"]
    assert annotations[LAST_CHANGE_TRIGGER_TIME] == ready["lastTransitionTime"]


def _addr(ip: str, uid: str) -> dict[str, Any]:
    return {"ip": ip, "targetRef": {"kind": "Pod", "namespace": "default", "name": uid, "uid": uid}}


_HTTP = {"name": "http", "port": 80, "protocol": "TCP"}
_DNS = {"name": "dns", "port": 53, "protocol": "UDP"}


@pytest.mark.parametrize(("entries", "want"), [
    ([], []),
    ([(_addr("10.0.0.2", "b"), _HTTP, True), (_addr("10.0.0.1", "a"), _HTTP, True)],
     [{"addresses": [_addr("10.0.0.1", "a"), _addr("10.0.0.2", "b")], "ports": [_HTTP]}]),
    ([(_addr("10.0.0.1", "a"), _HTTP, True), (_addr("10.0.0.2", "b"), _HTTP, False)],
     [{"addresses": [_addr("10.0.0.1", "a")], "notReadyAddresses": [_addr("10.0.0.2", "b")], "ports": [_HTTP]}]),
    ([(_addr("10.0.0.1", "a"), _HTTP, True), (_addr("10.0.0.1", "a"), _DNS, True),
      (_addr("10.0.0.2", "b"), _HTTP, True)],
     [{"addresses": [_addr("10.0.0.1", "a")], "ports": [_DNS]},
      {"addresses": [_addr("10.0.0.1", "a"), _addr("10.0.0.2", "b")], "ports": [_HTTP]}]),
    ([(_addr("10.0.0.1", "a"), None, True)], [{"addresses": [_addr("10.0.0.1", "a")]}]),
    ([(_addr("10.0.0.1", "a"), _HTTP, False), (_addr("10.0.0.1", "a"), _HTTP, True)],
     [{"addresses": [_addr("10.0.0.1", "a")], "ports": [_HTTP]}]),
], ids=["empty", "sorted-by-ip", "ready-and-not", "split-by-port-set", "headless-no-ports", "ready-wins"])
def test_repack_subsets(entries: list[Any], want: list[dict[str, Any]]) -> None:
    assert repack_subsets(entries) == want


def test_more_than_capacity_is_truncated() -> None:
    from kubelite.controllers import endpoints as mod

    subsets = mod.repack_subsets((_addr(f"10.1.{i // 250}.{i % 250}", str(i)), _HTTP, i % 2 == 0)
                                 for i in range(MAX_CAPACITY + 10))
    assert mod._truncate(subsets) is True
    [subset] = subsets
    assert len(subset["addresses"]) == (MAX_CAPACITY + 10) // 2  # every ready address is kept first
    assert len(subset["addresses"]) + len(subset["notReadyAddresses"]) == MAX_CAPACITY
    assert mod._truncate(subsets) is False  # at capacity: nothing more to cut
