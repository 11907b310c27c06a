"""``default/kubernetes`` and ``kube-system/kube-dns`` as a kubeadm cluster has them, and the apiserver's
bootstrap controller putting the first back (``pkg/controlplane/controller/kubernetesservice``,
``pkg/controlplane/reconcilers`` with ``endpointsadapter.go``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite
from kubelite.apiserver.kubernetes_service import ADVERTISE_ADDRESS, ENDPOINT_INTERVAL

NS = "default"


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=2, nodes=0, controllers=False, scheduler=False, network=False) as c:
        yield c


async def get(c: kubelite.Cluster, plural: str, name: str = "kubernetes", namespace: str = NS) -> dict[str, Any]:
    return await c.client.get(plural, name, namespace=namespace)  # type: ignore[no-any-return]


async def test_kubernetes_service_as_kubeadm_has_it(cluster: kubelite.Cluster) -> None:
    svc = await get(cluster, "services")
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert svc["spec"] == {
        "clusterIP": "10.96.0.1", "clusterIPs": ["10.96.0.1"], "internalTrafficPolicy": "Cluster",
        "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
        "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
        "sessionAffinity": "None", "type": "ClusterIP"}
    ep = await get(cluster, "endpoints")
    assert ep["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    assert ep["subsets"] == [{"addresses": [{"ip": ADVERTISE_ADDRESS}],
                              "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]
    sl = await get(cluster, "endpointslices")
    assert sl["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert sl["addressType"] == "IPv4"
    assert sl["endpoints"] == [{"addresses": [ADVERTISE_ADDRESS], "conditions": {"ready": True}}]
    assert sl["ports"] == [{"name": "https", "port": 6443, "protocol": "TCP"}]


async def test_kube_dns_service(cluster: kubelite.Cluster) -> None:
    svc = await get(cluster, "services", "kube-dns", "kube-system")
    assert svc["metadata"]["labels"] == {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                         "kubernetes.io/name": "CoreDNS"}
    assert svc["spec"]["selector"] == {"k8s-app": "kube-dns"} and svc["spec"]["clusterIP"] == "10.96.0.10"
    assert [(p["name"], p["port"], p["protocol"]) for p in svc["spec"]["ports"]] == [
        ("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP")]


@pytest.mark.parametrize("ip", ["10.96.0.1", "10.96.0.10"], ids=["kubernetes", "kube-dns"])
async def test_their_cluster_ips_are_taken(cluster: kubelite.Cluster, ip: str) -> None:
    with pytest.raises(kubelite.errors.Invalid, match="provided IP is already allocated"):
        await cluster.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x", "namespace": NS},
                                     "spec": {"clusterIP": ip, "ports": [{"port": 80}]}})


@pytest.mark.parametrize("plural", ["services", "endpoints", "endpointslices"])
async def test_deleted_objects_come_back_within_the_interval(cluster: kubelite.Cluster, plural: str) -> None:
    await cluster.client.delete(plural, "kubernetes", namespace=NS)
    await cluster.advance(ENDPOINT_INTERVAL + 0.5)
    obj = await get(cluster, plural)
    assert obj["metadata"]["name"] == "kubernetes"
    if plural == "services":
        assert obj["spec"]["clusterIP"] == "10.96.0.1"  # released by the delete, requested again


async def test_drift_is_put_back_and_a_steady_state_writes_nothing(cluster: kubelite.Cluster) -> None:
    await cluster.client.patch("services", "kubernetes", {"spec": {"ports": [
        {"name": "https", "port": 8443, "protocol": "TCP", "targetPort": 6443}]}}, namespace=NS,
        patch_type="merge")
    await cluster.client.patch("endpoints", "kubernetes", {"subsets": [{"addresses": [{"ip": "192.0.2.9"}],
                                                                       "ports": [{"port": 1}]}]},
                               namespace=NS, patch_type="merge")
    await cluster.advance(ENDPOINT_INTERVAL + 0.5)
    assert (await get(cluster, "services"))["spec"]["ports"][0]["port"] == 443
    assert (await get(cluster, "endpoints"))["subsets"][0]["addresses"] == [{"ip": ADVERTISE_ADDRESS}]
    rvs = [(await get(cluster, p))["metadata"]["resourceVersion"] for p in ("services", "endpoints", "endpointslices")]
    await cluster.advance(10 * ENDPOINT_INTERVAL)
    assert [(await get(cluster, p))["metadata"]["resourceVersion"]
            for p in ("services", "endpoints", "endpointslices")] == rvs
