"""What one ``pods/binding`` costs end to end (issue #17), beside its floor in the same run.

    python bench/binding.py [--pods 2000] [--rounds 3] [--as-admin]

Creates ``--pods`` pods in a cluster with no scheduler or controllers (so nothing else writes them), then binds
each once through the in-process client as the default kube-scheduler's identity (``system:kube-scheduler``,
RBAC-checked, as the scheduler's DefaultBinder does; ``--as-admin``: the admin, whom RBAC never checks).
Reported per bind: CPU microseconds (the minimum over ``--rounds`` fresh clusters, each round's figure
printed), Python calls (one cProfile-counted round: exact and load-independent), and the floor measured in
the same process: the raw store write of the same bound pod (decode the stored bytes, set the fields, one
``Store.update``), which is what upstream's BindingREST does past its request handling (one storage
GuaranteedUpdate of the pod).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import time
from typing import Any

from scheduler import node_body, pod_body  # the SchedulingBasic node and pod shapes (run from bench/)

from kubelite.apiserver.auth.user import KUBE_SCHEDULER
from kubelite.cluster import Cluster

NODES = 50


async def _setup(cluster: Cluster, pods: int) -> None:
    for i in range(NODES):
        await cluster.client.create(node_body(i, gpu=False))
    for i in range(pods):
        await cluster.client.create(pod_body(f"m-{i:06d}", "basic", i))


async def binds(pods: int, *, profile: bool, as_admin: bool) -> float:
    """CPU seconds per bind (or Python calls per bind with ``profile``)."""
    async with Cluster(seed=1, tune_gc=True, scheduler=False, controllers=False) as cluster:
        await _setup(cluster, pods)
        client = cluster.client if as_admin else cluster.component_client(KUBE_SCHEDULER,
                                                                          field_manager="kube-scheduler")
        prof = cProfile.Profile() if profile else None
        c0 = time.process_time()
        if prof:
            prof.enable()
        for i in range(pods):
            await client.bind("default", f"m-{i:06d}", f"node-{i % NODES:05d}")
        if prof:
            prof.disable()
            return float(pstats.Stats(prof).total_calls) / pods
        return (time.process_time() - c0) / pods


async def floor(pods: int) -> float:
    """CPU seconds per raw store write of the bound pod (decode, set nodeName and PodScheduled, update)."""
    async with Cluster(seed=1, tune_gc=True, scheduler=False, controllers=False) as cluster:
        await _setup(cluster, pods)
        store = cluster.store
        table = cluster.apiserver.table(cluster.apiserver.resource("", "pods"))
        now = cluster.clock.timestamp()
        c0 = time.process_time()
        for i in range(pods):
            current = store.get(table, "default", f"m-{i:06d}")
            assert current is not None
            pod: dict[str, Any] = current.decode()
            pod["spec"]["nodeName"] = f"node-{i % NODES:05d}"
            pod.setdefault("status", {})["conditions"] = [
                {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": now}]
            store.update(table, pod, expect_rv=current.rv)
        return (time.process_time() - c0) / pods


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--as-admin", action="store_true")
    args = ap.parse_args()
    calls = await binds(args.pods, profile=True, as_admin=args.as_admin)
    runs, floors = [], []
    for _ in range(args.rounds):  # interleaved, so both see the same machine
        runs.append(await binds(args.pods, profile=False, as_admin=args.as_admin))
        floors.append(await floor(args.pods))
    best, fl = min(runs), min(floors)
    who = "admin" if args.as_admin else "system:kube-scheduler"
    print(f"pods/binding as {who}: {best * 1e6:.1f} us CPU per bind (rounds: "
          f"{', '.join(f'{r * 1e6:.1f}' for r in runs)}), {calls:.0f} Python calls per bind")
    print(f"floor (raw store write of the bound pod): {fl * 1e6:.1f} us; bind / floor = {best / fl:.2f}x; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
