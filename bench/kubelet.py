"""Kubelet benchmarks (issue #5).

1. **Bound pods to Running per second across 1,000 nodes**: create N pods with ``spec.nodeName`` set
   (bound), run until every one is Running; the floor is the same creates with no kubelets (what the
   apiserver alone costs), measured in the same run.
2. **Virtual-time speed-up**: 1,000 nodes x 30 running pods with liveness+readiness probes, one
   simulated hour (leases every 10 s, node status every 5 min); simulated seconds per wall second.
   The floor is one hour of the same cluster with the nodes registered but no kubelets.

Run: ``.venv/bin/python bench/kubelet.py [--nodes 1000] [--pods 30] [--events]``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry, NodePool

PROBE = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}


def pod(i: int, node: str, probes: bool) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "app", "image": "app:1", "imagePullPolicy": "IfNotPresent",
                         "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}
    if probes:
        c["livenessProbe"] = PROBE
        c["readinessProbe"] = PROBE
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {"nodeName": node, "containers": [c]}}


async def pods_to_running(nodes: int, n: int, events: bool) -> tuple[float, float]:
    async with Cluster(seed=1) as cluster:
        # the floor: the same creates with nobody watching
        t0 = time.perf_counter()
        for i in range(n):
            await cluster.client.create(pod(i, f"ghost-{i % nodes}", False))
        floor = n / (time.perf_counter() - t0)
    async with Cluster(seed=1) as cluster:
        reg = ImageRegistry()
        reg.add("app:1", ImageProfile())
        pool = NodePool(cluster, nodes, registry=reg, events=events, preload=("app:1",))
        await pool.start()
        running = 0
        t0 = time.perf_counter()
        for i in range(n):
            await cluster.client.create(pod(i, f"node-{i % nodes}", False))
        while True:
            await cluster.settle()
            running = sum(1 for k in pool for w in k.workers.values()
                          if k._sent.get(w.uid, {}).get("phase") == "Running")
            if running >= n:
                break
            await cluster.advance(0.1)
        rate = n / (time.perf_counter() - t0)
    return rate, floor


async def speedup(nodes: int, per_node: int, hours: float, events: bool) -> tuple[float, float, int]:
    sim = 3600.0 * hours
    async with Cluster(seed=1) as cluster:
        reg = ImageRegistry()
        reg.add("app:1", ImageProfile(ready_after=5))
        pool = NodePool(cluster, nodes, registry=reg, events=events, preload=("app:1",),
                        capacity={"cpu": "64", "memory": "256Gi", "pods": "110"})
        await pool.start()
        for i in range(nodes * per_node):
            await cluster.client.create(pod(i, f"node-{i % nodes}", True))
        await cluster.advance(60)
        t0 = time.perf_counter()
        await cluster.advance(sim)
        wall = time.perf_counter() - t0
        patches = sum(k.patches for k in pool)
    async with Cluster(seed=1) as cluster:  # floor: the cluster's own housekeeping for the same hour
        t1 = time.perf_counter()
        await cluster.advance(sim)
        floor_wall = time.perf_counter() - t1
    return sim / wall, sim / max(floor_wall, 1e-9), patches


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=30)
    ap.add_argument("--bound", type=int, default=20000)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--events", action="store_true")
    a = ap.parse_args()
    rate, floor = await pods_to_running(a.nodes, a.bound, a.events)
    print(f"bound pods to Running: {rate:,.0f}/s across {a.nodes} nodes (floor, creates alone: {floor:,.0f}/s)")
    x, fx, patches = await speedup(a.nodes, a.pods, a.hours, a.events)
    print(f"{a.nodes} nodes x {a.pods} probed pods, {a.hours:g} h: {x:,.0f}x virtual-time speed-up "
          f"({3600 * a.hours / x:.1f} s wall; empty-cluster floor {fx:,.0f}x; {patches} pod status patches)")


if __name__ == "__main__":
    asyncio.run(main())
