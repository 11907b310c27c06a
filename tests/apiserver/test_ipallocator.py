"""ServiceIPAllocator: ClusterIP and NodePort allocation as the Service REST does it (alloc.go)."""

from __future__ import annotations

import ipaddress
import random
from typing import Any

import pytest

from kubelite.apiserver.ipallocator import ServiceIPAllocator
from kubelite.errors import InternalError


def svc(name: str = "web", **spec: Any) -> dict[str, Any]:
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("ports", [{"port": 80, "protocol": "TCP", "targetPort": 80}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def alloc(cidr: str = "10.96.0.0/12", seed: int = 1) -> ServiceIPAllocator:
    return ServiceIPAllocator(cidr, rng=random.Random(seed))


@pytest.mark.parametrize(("spec", "cluster_ip", "families", "policy"), [
    ({}, "dynamic", ["IPv4"], "SingleStack"),
    ({"type": "NodePort"}, "dynamic", ["IPv4"], "SingleStack"),
    ({"type": "LoadBalancer"}, "dynamic", ["IPv4"], "SingleStack"),
    ({"clusterIP": "10.96.0.10"}, "10.96.0.10", ["IPv4"], "SingleStack"),
    ({"clusterIP": "None", "selector": {"app": "x"}}, "None", ["IPv4"], "SingleStack"),
    ({"clusterIP": "None"}, "None", ["IPv4"], "RequireDualStack"),
    ({"type": "ExternalName", "externalName": "example.com"}, None, None, None),
], ids=["clusterip", "nodeport", "loadbalancer", "requested", "headless-selector", "headless-no-selector",
        "externalname"])
def test_allocate_fills_fields(spec: dict[str, Any], cluster_ip: str | None, families: list[str] | None,
                               policy: str | None) -> None:
    a = alloc()
    s = svc(**spec)
    assert a.allocate(s) == []
    got = s["spec"]
    if cluster_ip == "dynamic":
        ip = ipaddress.IPv4Address(got["clusterIP"])
        assert ip in ipaddress.IPv4Network("10.96.0.0/12")
        # dynamic allocation avoids the static band (the first 256 addresses)
        assert int(ip) - int(ipaddress.IPv4Address("10.96.0.1")) >= 256
        assert got["clusterIPs"] == [got["clusterIP"]]
    else:
        assert got.get("clusterIP") == cluster_ip
    assert got.get("ipFamilies") == families
    assert got.get("ipFamilyPolicy") == policy
    assert a.statistics()[0] == (1 if cluster_ip not in (None, "None") else 0)


@pytest.mark.parametrize(("first", "second", "message"), [
    ("10.96.0.10", "10.96.0.10",
     'spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated'),
    (None, "10.0.0.1",
     'spec.clusterIPs: Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not '
     "in the valid range. The range of valid IPs is 10.96.0.0/12"),
], ids=["already-allocated", "out-of-range"])
def test_requested_ip_errors(first: str | None, second: str, message: str) -> None:
    a = alloc()
    if first:
        assert a.allocate(svc("a", clusterIP=first)) == []
    errs = a.allocate(svc("b", clusterIP=second))
    assert [str(e) for e in errs] == [message]
    assert a.statistics()[0] == (1 if first else 0)


def test_same_seed_same_ips_and_no_duplicates() -> None:
    a, b = alloc(seed=7), alloc(seed=7)
    xs, ys = [], []
    for i in range(50):
        s1, s2 = svc(f"s{i}"), svc(f"s{i}")
        a.allocate(s1)
        b.allocate(s2)
        xs.append(s1["spec"]["clusterIP"])
        ys.append(s2["spec"]["clusterIP"])
    assert xs == ys
    assert len(set(xs)) == 50
    other = svc()
    alloc(seed=8).allocate(other)
    assert other["spec"]["clusterIP"] != xs[0]


def test_small_range_fills_then_full_and_release_frees() -> None:
    a = alloc("10.0.0.0/29")  # 6 usable addresses, no static band
    names = []
    for i in range(6):
        s = svc(f"s{i}")
        assert a.allocate(s) == []
        names.append(s)
    assert sorted(s["spec"]["clusterIP"] for s in names) == [f"10.0.0.{i}" for i in range(1, 7)]
    with pytest.raises(InternalError, match="range is full"):
        a.allocate(svc("full"))
    a.release(names[2])
    again = svc("again")
    assert a.allocate(again) == []
    assert again["spec"]["clusterIP"] == names[2]["spec"]["clusterIP"]


def test_node_ports_allocated_shared_by_port_number_and_checked() -> None:
    a = alloc()
    s = svc(type="NodePort", ports=[{"name": "tcp", "port": 53, "protocol": "TCP"},
                                    {"name": "udp", "port": 53, "protocol": "UDP"},
                                    {"name": "web", "port": 80, "protocol": "TCP"}])
    assert a.allocate(s) == []
    nps = [p["nodePort"] for p in s["spec"]["ports"]]
    assert nps[0] == nps[1] != nps[2]
    assert all(30000 <= n <= 32767 for n in nps)
    clash = svc("b", type="NodePort", ports=[{"port": 80, "protocol": "TCP", "nodePort": nps[2]}])
    assert [str(e) for e in a.allocate(clash)] == [
        f"spec.ports[0].nodePort: Invalid value: {nps[2]}: provided port is already allocated"]
    bad = svc("c", type="NodePort", ports=[{"port": 80, "protocol": "TCP", "nodePort": 80}])
    assert [str(e) for e in a.allocate(bad)] == [
        "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. "
        "The range of valid ports is 30000-32767"]
    # failed creates reserved nothing
    assert a.statistics() == (1, 2)


@pytest.mark.parametrize(("old", "new", "ips", "ports"), [
    ({}, {}, 1, 0),
    ({}, {"type": "ExternalName", "externalName": "x.example.com"}, 0, 0),
    ({"type": "ExternalName", "externalName": "x.example.com"}, {}, 1, 0),
    ({}, {"type": "NodePort"}, 1, 1),
    ({"type": "NodePort"}, {}, 1, 0),
], ids=["unchanged", "to-externalname", "from-externalname", "to-nodeport", "nodeport-to-clusterip"])
def test_update_type_changes(old: dict[str, Any], new: dict[str, Any], ips: int, ports: int) -> None:
    a = alloc()
    o = svc(**old)
    assert a.allocate(o) == []
    n = svc(**new)  # as a client would send it: without the allocated values
    assert a.update(o, n) == []
    assert a.statistics() == (ips, ports)
    if ips and o["spec"].get("clusterIP"):
        assert n["spec"]["clusterIP"] == o["spec"]["clusterIP"]  # patchAllocatedValues keeps it
    if new.get("type") == "ExternalName":
        assert "clusterIP" not in n["spec"] and "ipFamilies" not in n["spec"]
    if not ports:
        assert all("nodePort" not in p for p in n["spec"]["ports"])


def test_update_keeps_node_ports_and_revert_restores() -> None:
    a = alloc()
    o = svc(type="NodePort")
    a.allocate(o)
    n = svc(type="NodePort")
    assert a.update(o, n) == []
    assert n["spec"]["ports"][0]["nodePort"] == o["spec"]["ports"][0]["nodePort"]
    c = svc(type="ClusterIP")
    assert a.update(o, c) == []
    assert a.statistics() == (1, 0)
    a.revert_update(o, c)
    assert a.statistics() == (1, 1)
    assert a.node_ports.has(o["spec"]["ports"][0]["nodePort"])


def test_restore_rebuilds_state() -> None:
    a = alloc()
    stored = [svc("a", clusterIP="10.96.0.10"), svc("b", type="NodePort", clusterIP="10.96.0.11",
                                                     ports=[{"port": 80, "protocol": "TCP", "nodePort": 30080}]),
              svc("h", clusterIP="None"), svc("e", type="ExternalName", externalName="x")]
    a.restore(stored)
    assert a.statistics() == (2, 1)
    assert a.allocate(svc("dup", clusterIP="10.96.0.10"))
    assert a.allocate(svc("dupnp", type="NodePort", ports=[{"port": 80, "protocol": "TCP", "nodePort": 30080}]))


def test_ipv6_family_rejected() -> None:
    errs = alloc().allocate(svc(ipFamilies=["IPv6"]))
    assert [str(e) for e in errs] == ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']
