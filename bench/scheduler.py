"""Scheduler benchmarks (issue #4), shaped like upstream's scheduler_perf.

    python bench/scheduler.py [--workload basic|gpu|spread|preemption|all] [--nodes 5000]
                              [--initial 1000] [--measured 10000] [--profile] [--calls]

Each workload creates Nodes through the API (no kubelets), starts the scheduler, creates ``--initial``
pods and waits for them, then creates ``--measured`` pods and reports pods/s from the first create to
the last bind (upstream SchedulingBasic: 5,000 nodes, 1,000 initial pods, 10,000 measured pods).
- basic: pause pods requesting 100m cpu / 500Mi (upstream ``pod-default.yaml``).
- gpu: half the nodes have 8 GPUs; every third pod asks for 1-4 GPUs.
- spread: pods with a zone topologySpreadConstraint (maxSkew 1, DoNotSchedule) over 10 zones.
- replicaset: basic pods owned by a ReplicaSet, so the default PodTopologySpread constraints (zone and
  hostname, ScheduleAnyway, upstream ``defaultingType: System``) score every pod, as they do for every
  Deployment's pods (the ReplicaSet object exists; no controller runs).
- preemption: nodes filled with low-priority pods; measured pods have high priority and each
  preempts one victim (a fake kubelet finishes deletions at once).
Like upstream's scheduler_perf (apiserver + scheduler only), the clusters start no controllers (without
kubelets or Leases, node lifecycle would taint every node once its grace period passed); the scheduler is
the default cluster's own kube-scheduler: its identity, its field manager and its Events (a ``Scheduled``
Event per pod, written through the API as upstream's scheduler_perf scheduler writes them), with
managedFields on (issue #17). ``--bare`` runs the setup of earlier figures instead: a Scheduler the bench
builds on the admin client, with no event recorder. The floor, measured in the same run, is what the API work alone costs
per pod: the same creates plus a ``pods/binding`` per pod to a round-robin node, with no scheduler.
``--profile`` prints where the measured phase spends its time (cProfile, top ``--top`` functions by
own and by cumulative time); ``--calls`` counts the Python calls per measured pod (exact, so an A/B of two
trees needs no quiet machine).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import time
from typing import Any

from kubelite.api.types import Node, Pod
from kubelite.cluster import Cluster
from kubelite.informer.factory import SharedInformerFactory
from kubelite.scheduler import Scheduler

ZONES = 10
RS_UID = "00000000-0000-4000-8000-00000000beef"
REPLICASET: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "bench"}},
             "template": {"metadata": {"labels": {"app": "bench"}},
                          "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]}}}}


def node_body(i: int, *, gpu: bool) -> dict[str, Any]:
    alloc: dict[str, Any] = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    if gpu:
        alloc["nvidia.com/gpu"] = "8"
    name = f"node-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": f"zone-{i % ZONES}"}},
            "status": {"allocatable": alloc, "capacity": dict(alloc), "conditions": [{"type": "Ready", "status": "True"}]}}


def pod_body(name: str, workload: str, i: int, *, priority_class: str | None = None,
             cpu: str = "100m") -> dict[str, Any]:
    res: dict[str, Any] = {"requests": {"cpu": cpu, "memory": "500Mi"}}
    if workload == "gpu" and i % 3 == 0:
        n = 1 + (i // 3) % 4
        res = {"requests": {**res["requests"], "nvidia.com/gpu": n}, "limits": {"nvidia.com/gpu": n}}
    spec: dict[str, Any] = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10", "resources": res}]}
    labels = {"app": "bench"}
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels}
    if workload == "replicaset":
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": RS_UID,
                                    "controller": True, "blockOwnerDeletion": True}]
    if workload == "spread":
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": labels}}]
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


async def make_nodes(cluster: Cluster, n: int, workload: str) -> None:
    for i in range(n):
        body = node_body(i, gpu=workload == "gpu" and i % 2 == 0)
        await cluster.client.create(body)
        await cluster.client.patch(Node, body["metadata"]["name"], {"spec": {"taints": None}}, patch_type="merge")


async def fake_kubelet(cluster: Cluster) -> None:
    async for typ, pod in cluster.client.watch(Pod, namespace="*"):
        if typ == "MODIFIED" and pod.metadata.deletion_timestamp:
            with contextlib.suppress(Exception):
                await cluster.client.delete(Pod, pod.metadata.name, namespace=pod.metadata.namespace, grace_period=0)


async def floor(args: argparse.Namespace, workload: str) -> tuple[float, float]:
    """Creates + bindings with no scheduler: (pods/s, pods per CPU-second) of the API work alone."""
    async with Cluster(seed=1, tune_gc=True, scheduler=False, controllers=False) as cluster:
        await make_nodes(cluster, args.nodes, workload)
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(args.measured):
            name = f"m-{i:06d}"
            await cluster.client.create(pod_body(name, "basic", i))
            await cluster.client.bind("default", name, f"node-{i % args.nodes:05d}")
        return args.measured / (time.perf_counter() - t0), args.measured / (time.process_time() - c0)


async def run(args: argparse.Namespace, workload: str) -> dict[str, Any]:
    async with Cluster(seed=1, tune_gc=True, scheduler=not args.bare, controllers=False) as cluster:
        await make_nodes(cluster, args.nodes, workload)
        if args.bare:
            factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
            sched = Scheduler(cluster.client, factory, clock=cluster.clock, rng=cluster.rng)
            cluster.start_soon(sched.run)
        else:
            assert cluster.scheduler is not None
            sched = cluster.scheduler
        low = high = None
        initial = args.initial
        if workload == "preemption":
            for name, value in (("low", 1), ("high", 1000)):
                await cluster.client.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                             "metadata": {"name": name}, "value": value})
            low, high = "low", "high"
            initial = args.nodes * 4  # fill every node's cpu with 1-cpu pods
            cluster.start_soon(fake_kubelet, cluster)
        if workload == "replicaset":
            await cluster.client.create(REPLICASET)  # DefaultSelector reads it by name from the informer
        for i in range(initial):
            await cluster.client.create(pod_body(f"init-{i:06d}", workload, i, priority_class=low,
                                                 cpu="1" if workload == "preemption" else "100m"))
        await cluster.wait_for(lambda: sched.statistics().scheduled >= initial, timeout=1e9, interval=1)
        prof = cProfile.Profile() if args.profile or args.calls else None
        t0 = time.perf_counter()
        c0 = time.process_time()
        if prof:
            prof.enable()
        for i in range(args.measured):
            await cluster.client.create(pod_body(f"m-{i:06d}", workload, i, priority_class=high,
                                                 cpu="1" if workload == "preemption" else "100m"))
        want = initial + args.measured
        await cluster.wait_for(lambda: sched.statistics().scheduled >= want, timeout=1e9, interval=1)
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - c0
        calls = None
        if prof:
            prof.disable()
            stats = pstats.Stats(prof)
            calls = stats.total_calls / args.measured  # type: ignore[attr-defined]  # (pstats keeps it)
            if args.profile:
                stats.sort_stats("tottime").print_stats(args.top)
                stats.sort_stats("cumulative").print_stats(args.top)
        st = sched.statistics()
        events = len(await cluster.client.list("events", namespace="default"))
        return {"workload": workload, "pods_per_s": args.measured / elapsed, "elapsed_s": elapsed,
                "pods_per_cpu_s": args.measured / cpu,
                "attempts": st.attempts, "victims": st.preemption_victims, "events": events, "calls": calls}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", default="basic")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--initial", type=int, default=1000)
    ap.add_argument("--measured", type=int, default=10000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=25, help="functions listed per profile table")
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("--calls", action="store_true",
                    help="count the measured phase's Python calls per pod (cProfile: exact and load-independent; "
                         "the CPU figures then include the profiler)")
    ap.add_argument("--bare", action="store_true",
                    help="earlier figures' setup: the bench's own Scheduler on the admin client, no Events")
    ap.add_argument("--generic-filters", action="store_true",
                    help="the slower twin of scheduler/fast_path.py: no fused Filter prefix, every plugin per node")
    args = ap.parse_args()
    if args.generic_filters:
        import kubelite.scheduler.fast_path as fast_path

        fast_path.FUSED_FILTERS = ()
    workloads = ["basic", "gpu", "spread", "replicaset", "preemption"] if args.workload == "all" else [args.workload]
    floor_cpu = None
    if not args.no_floor:
        f, floor_cpu = await floor(args, "basic")
        print(f"floor (create + bind, no scheduler): {f:,.0f} pods/s, {floor_cpu:,.0f} pods per CPU-second, "
              f"load {os.getloadavg()[0]:.1f}")
    for w in workloads:
        r = await run(args, w)
        print(f"{w}: {r['pods_per_s']:,.0f} pods/s ({r['elapsed_s']:.1f}s wall), {r['pods_per_cpu_s']:,.0f} pods per "
              f"CPU-second, attempts={r['attempts']} victims={r['victims']} events={r['events']:,}, "
              f"load {os.getloadavg()[0]:.1f}")
        if r["calls"] is not None:
            print(f"  {r['calls']:,.0f} Python calls per measured pod (everything the process ran)")
        if floor_cpu:
            # what the scheduler itself adds per pod, over the API work the floor did (both CPU time)
            own = 1 / r["pods_per_cpu_s"] - 1 / floor_cpu
            print(f"  scheduler's own CPU per pod over the floor: {own * 1e3:.2f} ms "
                  f"(= {1 / own if own > 0 else float('inf'):,.0f} pods per CPU-second of scheduling)")


if __name__ == "__main__":
    asyncio.run(main())
