"""What metrics-server costs: one scrape of every kubelet (``/metrics/resource`` → storage) and one
``list pods.metrics.k8s.io`` over all namespaces, per pod, in process CPU time.

    python bench/metrics_server.py [--nodes 50] [--pods 3000] [--repeat 20]

Pods are bound by ``spec.nodeName`` (no scheduler, no controllers, no data plane). The figures to compare are
per pod; "per simulated hour" is one scrape every 15 s (240 scrapes) for the pods given.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from kubelite.cluster import Cluster
from kubelite.workload import ImageProfile, ImageRegistry

BARE: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False, "metrics_server": False}


def pod(i: int, nodes: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:05d}", "namespace": "default",
                                                            "labels": {"app": f"a{i % 10}"}},
            "spec": {"nodeName": f"node-{i % nodes}", "containers": [{"name": "c", "image": "app:1"}]}}


async def run(nodes: int, pods: int, repeat: int) -> tuple[float, float]:
    reg = ImageRegistry()
    reg.add("app:1", ImageProfile(size="1Mi", cpu="100m", memory="32Mi"))
    async with Cluster(seed=1, tune_gc=True, image_registry=reg, **BARE) as c:
        await c.add_nodes(nodes, capacity={"pods": "250"}, preload=("app:1",))
        ms = c.start_metrics_server()
        for i in range(pods):
            await c.client.create(pod(i, nodes))
        await c.advance(40)
        gc.collect()
        t0 = time.process_time()
        for _ in range(repeat):
            ms.scrape_once()
        scrape = (time.process_time() - t0) / repeat / pods * 1e6
        listed = await c.client.list("pods.metrics.k8s.io", namespace="*")
        assert len(listed) == pods, len(listed)
        t0 = time.process_time()
        for _ in range(repeat):
            await c.client.list("pods.metrics.k8s.io", namespace="*")
        lst = (time.process_time() - t0) / repeat / pods * 1e6
        return scrape, lst


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--pods", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    scrape, lst = asyncio.run(run(args.nodes, args.pods, args.repeat))
    print(f"scrape + store          {scrape:6.2f} us/pod  ({scrape * args.pods * 240 / 1e6:.2f} s CPU per simulated "
          f"hour for {args.pods} pods)")
    print(f"list pods.metrics.k8s.io {lst:6.2f} us/pod")


if __name__ == "__main__":
    main()
