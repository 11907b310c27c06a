"""One IP space per cluster: node pod CIDRs from the node IPAM controller (kube-controller-manager's
nodeipam range allocator), host IPs unique across pools and late-added nodes, and a Service spanning
two pools sending traffic to both."""

from __future__ import annotations

import ipaddress

from kubelite.cluster import Cluster

POOLS = [{"count": 2, "prefix": "node"}, {"count": 2, "prefix": "gpu", "capacity": {"nvidia.com/gpu": 4},
                                          "labels": {"pool": "gpu"}}]


async def nodes(c: Cluster) -> dict[str, tuple[str, str]]:
    out = {}
    for n in await c.client.list("nodes"):
        ip = next(a["address"] for a in n["status"]["addresses"] if a["type"] == "InternalIP")
        out[n["metadata"]["name"]] = (n["spec"]["podCIDR"], ip)
    return out


async def test_pools_and_late_nodes_share_one_ip_space() -> None:
    async with Cluster(seed=5, nodes=POOLS) as c:
        await c.add_nodes(2, prefix="late")
        await c.advance(2)
        got = await nodes(c)
        assert sorted(got) == ["gpu-0", "gpu-1", "late-0", "late-1", "node-0", "node-1"]
        cidrs = [ipaddress.ip_network(cidr) for cidr, _ in got.values()]
        assert len(set(cidrs)) == 6 and all(n.subnet_of(ipaddress.ip_network("10.244.0.0/16")) for n in cidrs)
        assert len({ip for _, ip in got.values()}) == 6
        assert got["node-0"] == ("10.244.0.0/24", "172.16.0.1")
        # the CIDRs were written by the node IPAM controller (the kubelets registered without one)
        node = await c.client.get("nodes", "gpu-0")
        managers = {m["manager"] for m in node["metadata"]["managedFields"]}
        assert "kube-controller-manager" in managers


async def test_first_pods_of_two_pools_get_different_ips() -> None:
    async with Cluster(seed=5, nodes=POOLS) as c:
        for node in ("node-0", "gpu-0"):
            await c.client.create({"apiVersion": "v1", "kind": "Pod",
                                   "metadata": {"name": f"p-{node}", "namespace": "default"},
                                   "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1.25"}]}})
        await c.advance(5)
        ips = [(await c.client.get("pods", f"p-{n}", namespace="default"))["status"]["podIP"] for n in ("node-0", "gpu-0")]
        assert ips[0] != ips[1]
        node_cidr = dict((await nodes(c)).items())
        for n, ip in zip(("node-0", "gpu-0"), ips, strict=True):
            assert ipaddress.ip_address(ip) in ipaddress.ip_network(node_cidr[n][0])


async def test_service_spanning_two_pools_spreads_traffic_over_both() -> None:
    async with Cluster(seed=5, nodes=POOLS) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 80}]}})
        for node in ("node-0", "node-1", "gpu-0", "gpu-1"):
            await c.client.create({"apiVersion": "v1", "kind": "Pod",
                                   "metadata": {"name": f"web-{node}", "namespace": "default", "labels": {"app": "web"}},
                                   "spec": {"nodeName": node, "containers": [
                                       {"name": "c", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}]}})
        await c.advance(10)
        handle = c.network.traffic.start("web", "default", rate_per_s=100, from_node="node-0")
        await c.advance(20)
        report = handle.stop()
        assert report.failed == 0 and report.succeeded > 1000
        per_pool = {"node": 0, "gpu": 0}
        for key, n in report.per_pod.items():
            per_pool["gpu" if "gpu" in key else "node"] += n
        assert len(report.per_pod) == 4
        assert min(per_pool.values()) > 0.3 * report.succeeded, per_pool
