"""Controller benchmarks (issue #6): Deployments end to end, scheduler and kubelets included.

    python bench/controllers.py [--replicas 10000] [--nodes 1000] [--rolling 1000] [--profile] [--no-floor]

- deploy: a ``--replicas`` Deployment on ``--nodes`` fake kubelets, from the create to
  ``status.availableReplicas == replicas`` (deployment -> replicaset -> pods -> scheduler -> kubelets -> status).
- rolling: a ``--rolling``-replica Deployment, once available, gets a new image; from the patch to
  ``kubectl rollout status`` reporting success.
- floor (same run, same cluster shape): the same number of pods created directly through the client with no
  controllers, to all Ready (scheduler and kubelets included); and the bare creates alone.
The clusters are the default ones (every controller, managedFields on, Events on, the default scheduler
plugins); the floor's cluster runs no controllers. Wall seconds are ``time.perf_counter``; the cluster runs on virtual time, so image pulls and probes cost no
wall time. ``--profile`` prints the deploy phase's top functions by own time, then its CPU split by component
(:func:`component_split`: own time per kubelite package, each controller on its own line, with builtins such as
msgspec's decode charged to the file that called them), and the cumulative time of the entry points that say
who asked for the work (the scheduler's cycle, the kubelets' pod workers, the event writer, the informers).
Every phase reports wall and process CPU seconds and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import os
import pstats
import time
from typing import Any

from kubelite.api.types import Deployment
from kubelite.cluster import Cluster
from kubelite.controllers.deployment import rollout_status

IMAGE = "nginx:1.25"


def container(image: str) -> dict[str, Any]:
    return {"name": "web", "image": image, "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}


def deployment(name: str, replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [container(IMAGE)]}}}}


async def untaint(cluster: Cluster) -> None:
    """Remove the admission-added not-ready taint (what the node lifecycle controller does)."""
    await cluster.settle()
    for n in await cluster.client.list("nodes"):
        if n["spec"].get("taints"):
            await cluster.client.patch("nodes", n["metadata"]["name"], {"spec": {"taints": None}}, patch_type="merge")
    await cluster.settle()


def new_cluster(nodes: int, controllers: bool) -> Cluster:
    # The default cluster (issue #17): every controller, managedFields on, Events on; the floor runs none.
    return Cluster(seed=1, tune_gc=True, nodes=[{"count": nodes, "capacity": {"cpu": "64", "memory": "256Gi", "pods": "250"}}],
                   controllers=controllers)


async def deploy(args: argparse.Namespace) -> dict[str, Any]:
    async with new_cluster(args.nodes, True) as cluster:
        await untaint(cluster)
        lister = cluster.controller_manager.informers.lister_for(Deployment)

        def available() -> bool:
            try:
                d = lister.namespace("default").get("big")
            except Exception:
                return False
            return bool(d.status and (d.status.available_replicas or 0) >= args.replicas)

        prof = cProfile.Profile() if args.profile else None
        counter = WriteCounter(cluster)
        t0, c0 = time.perf_counter(), time.process_time()
        v0 = cluster.now
        if prof:
            prof.enable()
        await cluster.client.create(deployment("big", args.replicas))
        await cluster.wait_for(available, timeout=1e9, interval=1)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        if prof:
            prof.disable()
            stats = pstats.Stats(prof)
            stats.sort_stats("tottime").print_stats(25)
            print_split(stats)
        writes = counter.counts
        return {"phase": "deploy", "writes_per_pod": {k: round(v / args.replicas, 2) for k, v in writes.items()
                                                      if v >= args.replicas // 10}, "replicas": args.replicas, "nodes": args.nodes, "wall_s": round(elapsed, 2),
                "cpu_s": round(cpu, 2), "pods_per_s": round(args.replicas / elapsed), "virtual_s": round(cluster.now - v0, 1),
                "load": round(os.getloadavg()[0], 1)}


def _component(filename: str) -> str | None:
    """The component a profiled function's file belongs to (None for builtins: they are charged to callers)."""
    if filename == "~":
        return None
    if "kubelite/" in filename:
        parts = filename.rsplit("kubelite/", 1)[1].split("/")
        if parts[0] in ("controllers", "apiserver") and len(parts) > 1:
            return f"{parts[0]}/{parts[1].removesuffix('.py')}"
        return parts[0].removesuffix(".py")
    if "/asyncio/" in filename or "/anyio/" in filename:
        return "event loop (asyncio, anyio)"
    return "other: " + filename.rsplit("/", 1)[-1]


def component_split(stats: pstats.Stats) -> tuple[dict[str, float], float]:
    """Own time per component, a builtin's time shared among its callers by what each spent in it."""
    out: collections.Counter[str] = collections.Counter()
    total = 0.0
    for (filename, _line, _name), (_cc, _nc, tt, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        total += tt
        comp = _component(filename)
        if comp is not None:
            out[comp] += tt
            continue
        spent = sum(v[2] for v in callers.values()) or 1.0
        for caller, v in callers.items():
            out[_component(caller[0]) or "builtins"] += tt * v[2] / spent
    return dict(out.most_common()), total


#: entry points whose cumulative time says which component asked for the work (file suffix, function)
ENTRY_POINTS = (
    ("scheduler/scheduler.py", "schedule_one"), ("scheduler/scheduler.py", "_binding_cycle"),
    ("kubelet/kubelet.py", "_status_loop"),
    ("events/recorder.py", "_record_to_sink"), ("informer/processor.py", "_run"),
    ("controllers/controller.py", "reconcile_handler"), ("apiserver/server.py", "handle"),
)


def print_split(stats: pstats.Stats) -> None:
    split, total = component_split(stats)
    print(f"CPU by component (own time; {total:.1f} s profiled):")
    for comp, t in split.items():
        if t >= total * 0.005:
            print(f"  {t:8.2f} s {100 * t / total:5.1f}%  {comp}")
    print("cumulative time of entry points (overlapping):")
    for (filename, _line, name), (_cc, nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if any(filename.endswith(f) and name == n for f, n in ENTRY_POINTS):
            print(f"  {ct:8.2f} s {100 * ct / total:5.1f}%  {name} ({filename.rsplit('kubelite/', 1)[-1]}, {nc:,} calls)")


class WriteCounter:
    """Committed writes per resource (``Store.observers``), to show what each pod costs in Events and
    status patches."""

    def __init__(self, cluster: Cluster) -> None:
        self.counts: dict[str, int] = {}
        cluster.store.observers.append(self)

    def __call__(self, table: Any, type_: str, rv: int, cur: Any, prev: Any) -> None:
        key = f"{table.group}/{table.plural}" if table.group else table.plural
        self.counts[key] = self.counts.get(key, 0) + 1


async def rolling(args: argparse.Namespace) -> dict[str, Any]:
    nodes = max(10, args.rolling // 10)
    async with new_cluster(nodes, True) as cluster:
        await untaint(cluster)
        await cluster.client.create(deployment("roll", args.rolling))
        lister = cluster.controller_manager.informers.lister_for(Deployment)

        def done() -> bool:
            try:
                return rollout_status(lister.namespace("default").get("roll"))[0]
            except Exception:
                return False

        await cluster.wait_for(done, timeout=1e9, interval=1)
        t0 = time.perf_counter()
        v0 = cluster.now
        await cluster.client.patch(Deployment, "roll", {"spec": {"template": {"spec": {
            "containers": [container("nginx:1.26")]}}}}, patch_type="strategic")
        await cluster.settle()
        await cluster.wait_for(done, timeout=1e9, interval=1)
        elapsed = time.perf_counter() - t0
        return {"phase": "rolling", "replicas": args.rolling, "nodes": nodes, "wall_s": round(elapsed, 2),
                "pods_per_s": round(args.rolling / elapsed), "virtual_s": round(cluster.now - v0, 1)}


async def floor(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The same pods without controllers: bare creates, then to all Ready with scheduler and kubelets."""
    async with new_cluster(args.nodes, False) as cluster:
        await untaint(cluster)
        body = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"generateName": "floor-", "namespace": "default", "labels": {"app": "floor"}},
                "spec": {"containers": [container(IMAGE)]}}
        t0 = time.perf_counter()
        for _ in range(args.replicas):
            await cluster.client.create(body)
        creates = time.perf_counter() - t0
        ready = {"n": 0}

        async def count() -> bool:
            pods = await cluster.client.list("pods", namespace="default")
            ready["n"] = sum(1 for p in pods if any(c["type"] == "Ready" and c["status"] == "True"
                                                    for c in (p.get("status") or {}).get("conditions") or ()))
            return ready["n"] >= args.replicas

        await cluster.wait_for(count, timeout=1e9, interval=5)
        elapsed = time.perf_counter() - t0
        return [{"phase": "floor-creates", "pods": args.replicas, "wall_s": round(creates, 2),
                 "pods_per_s": round(args.replicas / creates)},
                {"phase": "floor-ready", "pods": args.replicas, "nodes": args.nodes, "wall_s": round(elapsed, 2),
                 "pods_per_s": round(args.replicas / elapsed)}]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=10_000)
    ap.add_argument("--nodes", type=int, default=1_000)
    ap.add_argument("--rolling", type=int, default=1_000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--no-floor", action="store_true")
    args = ap.parse_args()
    if not args.no_floor:
        for r in await floor(args):
            print(r)
    print(await deploy(args))
    if args.rolling:
        print(await rolling(args))


if __name__ == "__main__":
    asyncio.run(main())
