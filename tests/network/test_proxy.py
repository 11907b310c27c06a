"""kube-proxy: programming delay per mode, minSyncPeriod batching, per-node lag, ready/terminating
endpoint selection, iptables random vs ipvs round robin."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.informer import SharedInformerFactory
from kubelite.network import Network, programming_delay


@pytest.mark.parametrize(("mode", "rules", "low", "high"), [
    ("iptables", 0, 0.004, 0.006),
    ("iptables", 1_000, 0.03, 0.04),
    ("iptables", 90_000, 2.0, 4.0),  # ~30,000 pods behind services: seconds
    ("ipvs", 0, 0.004, 0.006),
    ("ipvs", 90_000, 0.004, 0.006),
], ids=["iptables-empty", "iptables-1k", "iptables-30k-pods", "ipvs-empty", "ipvs-30k-pods"])
def test_programming_delay(mode: str, rules: int, low: float, high: float) -> None:
    assert low <= programming_delay(mode, rules) <= high


@pytest.fixture
async def net() -> AsyncIterator[tuple[Cluster, Network]]:
    async with Cluster(seed=5, scheduler=False, controllers=False) as c:
        f = SharedInformerFactory(c.client, clock=c.clock, rng=c.rng)
        n = Network(f, clock=c.clock, rng=c.rng, nodes=["node-0", "node-1"])
        n.add_node("ipvs-node", mode="ipvs")
        n.start()
        await n.wait_for_cache_sync()
        yield c, n
        await f.shutdown()


async def manual_service(c: Cluster, name: str, ip: str, **spec: Any) -> None:
    """A selectorless Service whose EndpointSlice the test writes itself (a legitimate upstream pattern)."""
    await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
                           "spec": {"clusterIP": ip, "ports": [{"name": "http", "port": 80}], **spec}})


async def write_slice(c: Cluster, svc: str, eps: list[tuple[str, dict[str, bool]]], *, name: str | None = None,
                      node: str = "node-0") -> None:
    body = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name or f"{svc}-manual", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": svc}},
            "addressType": "IPv4", "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
            "endpoints": [{"addresses": [ip], "conditions": cond, "nodeName": node,
                           "targetRef": {"kind": "Pod", "namespace": "default", "name": f"p-{ip}"}}
                          for ip, cond in eps]}
    try:
        old = await c.client.get("endpointslices", body["metadata"]["name"], namespace="default")
        body["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        await c.client.replace(body)
    except Exception:
        await c.client.create(body)


READY = {"ready": True, "serving": True, "terminating": False}
TERMINATING_SERVING = {"ready": False, "serving": True, "terminating": True}
TERMINATING_GONE = {"ready": False, "serving": False, "terminating": True}


async def test_delay_grows_with_rules_in_iptables_and_is_flat_in_ipvs(net: tuple[Cluster, Network]) -> None:
    c, n = net
    await manual_service(c, "small", "10.96.10.1")
    await write_slice(c, "small", [(f"10.244.0.{i}", READY) for i in range(1, 5)])
    await c.advance(3)
    ipt_small, ipvs_small = n.proxy("node-0").syncs[-1], n.proxy("ipvs-node").syncs[-1]
    await manual_service(c, "big", "10.96.10.2")
    for k in range(10):  # 1,000 endpoints
        await write_slice(c, "big", [(f"10.245.{k}.{i}", READY) for i in range(1, 101)], name=f"big-{k}")
    await c.advance(3)
    ipt_big, ipvs_big = n.proxy("node-0").syncs[-1], n.proxy("ipvs-node").syncs[-1]
    assert ipt_big[2] > ipt_small[2] + 3000  # rules
    assert ipt_big[1] > 5 * ipt_small[1]  # delay grows with rules
    assert ipvs_big[1] == pytest.approx(ipvs_small[1])  # flat
    # per-node lag differs (each node's own load factor), deterministically
    assert n.proxy("node-0").syncs[-1][1] != n.proxy("node-1").syncs[-1][1]


async def test_min_sync_period_batches_changes(net: tuple[Cluster, Network]) -> None:
    c, n = net
    await manual_service(c, "web", "10.96.10.3")
    await c.advance(5)
    p = n.proxy("node-0")
    before = len(p.syncs)
    t0 = c.now
    for i in range(1, 11):  # ten changes within 0.5 s
        await write_slice(c, "web", [(f"10.244.1.{j}", READY) for j in range(1, i + 1)])
        await c.advance(0.05)
    await c.advance(3)
    starts = [s[0] for s in p.syncs[before:]]
    assert 1 <= len(starts) <= 2
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(starts))
    assert starts[0] >= t0
    assert len(p.endpoints("10.96.10.3", 80)) == 10


async def test_rules_lag_until_programmed(net: tuple[Cluster, Network]) -> None:
    c, n = net
    await manual_service(c, "web", "10.96.10.4")
    await write_slice(c, "web", [("10.244.2.1", READY)])
    await c.advance(2)
    p = n.proxy("node-0")
    assert p.route("10.96.10.4", 80) is not None
    p.stop()  # kube-proxy down: the node keeps its old rules
    await write_slice(c, "web", [("10.244.2.1", TERMINATING_GONE)])
    await c.advance(5)
    assert [e.ip for e in p.endpoints("10.96.10.4", 80)] == ["10.244.2.1"]
    assert n.proxy("node-1").route("10.96.10.4", 80) is None  # the other node caught up: REJECT
    p.start()
    await c.advance(2)
    assert p.route("10.96.10.4", 80) is None


@pytest.mark.parametrize(("conds", "expected"), [
    ([READY, TERMINATING_SERVING], ["10.244.3.1"]),
    ([TERMINATING_SERVING, TERMINATING_GONE], ["10.244.3.1"]),
    ([TERMINATING_GONE, TERMINATING_GONE], []),
    ([{}, TERMINATING_GONE], ["10.244.3.1"]),  # unset conditions mean ready
], ids=["ready-only", "fallback-serving-terminating", "none", "nil-is-ready"])
async def test_ready_then_serving_terminating_fallback(net: tuple[Cluster, Network], conds: list[dict[str, bool]],
                                                       expected: list[str]) -> None:
    c, n = net
    await manual_service(c, "web", "10.96.10.5")
    await write_slice(c, "web", [(f"10.244.3.{i + 1}", cond) for i, cond in enumerate(conds)])
    await c.advance(2)
    assert [e.ip for e in n.proxy("node-0").endpoints("10.96.10.5", 80)] == expected


async def test_iptables_random_ipvs_round_robin_and_local_policy(net: tuple[Cluster, Network]) -> None:
    c, n = net
    await manual_service(c, "web", "10.96.10.6")
    await write_slice(c, "web", [(f"10.244.4.{i}", READY) for i in range(1, 4)])
    await manual_service(c, "local", "10.96.10.7", internalTrafficPolicy="Local")
    await write_slice(c, "local", [("10.244.5.1", READY)], node="node-1")
    await c.advance(2)
    rr = [n.proxy("ipvs-node").route("10.96.10.6", 80).ip for _ in range(6)]  # type: ignore[union-attr]
    assert rr[:3] == rr[3:] and len(set(rr)) == 3
    picks = Counter(n.proxy("node-0").route("10.96.10.6", 80).ip for _ in range(3000))  # type: ignore[union-attr]
    assert len(picks) == 3 and all(900 < v < 1100 for v in picks.values())
    assert n.proxy("node-0").route("10.96.10.7", 80) is None
    assert n.proxy("node-1").route("10.96.10.7", 80).ip == "10.244.5.1"  # type: ignore[union-attr]
    assert n.proxy("node-0").route("10.96.10.6", 81) is None
