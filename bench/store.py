"""Store and apiserver benchmarks (issue #2). Prints figures and in-run ratios against floors.

    python bench/store.py [--pods 20000] [--list-objects 100000]

Every figure is compared with a floor measured in the same run on the same data, so the ratio is what
matters on a noisy machine:
- creates/s, merge patches/s and status merge patches/s (the kubelets' hot path) through the whole pipeline (client -> RBAC -> decode checks -> defaults ->
  admission -> validation -> managedFields -> store -> one watcher) vs plain dict inserts of the same
  objects and vs raw store writes;
- watch events per second with 1, 10 and 100 watchers, each consumer taking every event *and decoding it
  into a Pod* (what an informer then holds), two ways: a private decode per consumer (a user's watch or
  informer) and the shared read-only view (the control plane's informers: one decode per event, see
  kubelite.api.views); queueing alone (bytes in the consumer's hands, nothing decoded) is the floor, with a
  plain deque append under it;
- list latency at 100,000 objects (decoded to dicts) vs copying the same number of small dicts;
- memory per stored pod (tracemalloc) vs the pod's JSON size: a **bare store** (one version per pod, no
  history beyond the creates, no informers). A running cluster holds far more per pod (informer caches,
  history, Events, controllers' and the scheduler's bookkeeping): ``python bench/scale.py`` measures that;

Pods are all different (their own image, resources, labels and env), so no memo table hits across them.
- cluster start time (median of 50) vs creating an empty dict.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import statistics
import time
import tracemalloc
from collections import deque
from typing import Any

import msgspec

from kubelite.api.codec import json_decoder
from kubelite.api.types import Pod
from kubelite.api.views import shared_view
from kubelite.cluster import Cluster, tuned_gc
from kubelite.store import Store

_encode = msgspec.json.Encoder().encode
#: the apiserver alone: no scheduler, controllers or data plane reacting to the objects being written
API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}


def pod(i: int) -> dict[str, Any]:
    """Pod ``i``: its own image, requests, labels and env (so memo tables keyed by spec never hit)."""
    cpu, mem = 50 + i % 150, 64 + i % 448
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i:06d}", "namespace": "default",
                     "labels": {"app": f"app-{i % 50}", "tier": ("web", "api", "worker")[i % 3], "shard": str(i)}},
        "spec": {"containers": [{
            "name": "main", "image": f"registry.example.com/team-{i % 37}/svc-{i}:1.{i % 101}",
            "ports": [{"containerPort": 8000 + i % 1000}],
            "env": [{"name": "SHARD", "value": str(i)}, {"name": "TEAM", "value": f"team-{i % 37}"}],
            "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"},
                          "limits": {"cpu": f"{cpu * 2}m", "memory": f"{mem * 2}Mi"}},
        }]},
    }


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:>12,.0f}/s"


async def bench_pipeline(n: int) -> dict[str, float]:
    bodies = [pod(i) for i in range(n)]
    # floor 1: plain dict inserts of the same objects
    t0 = time.perf_counter()
    d: dict[str, Any] = {}
    for b in bodies:
        d[b["metadata"]["name"]] = copy.deepcopy(b)
    floor_dict = time.perf_counter() - t0
    # floor 2: raw store writes (no pipeline)
    store = Store()
    table = store.add_table("", "pods", namespaced=True)
    raw = [msgspec.json.decode(_encode(b)) for b in bodies]
    t0 = time.perf_counter()
    for b in raw:
        store.create(table, b)
    floor_store = time.perf_counter() - t0

    async with Cluster(seed=1, tune_gc=True, track_managed_fields=True, **API_ONLY) as cluster:
        stream = await cluster.client.open_watch("pods", capacity=n + 10)
        c = cluster.client
        t0 = time.perf_counter()
        for b in bodies:
            await c.create(b)
        create = time.perf_counter() - t0
        delivered = 0
        while stream.poll() is not None:
            delivered += 1
        assert delivered == n, delivered
        t0 = time.perf_counter()
        for i in range(n):
            await c.patch("pods", f"pod-{i:06d}", {"metadata": {"labels": {"rev": "2"}}}, patch_type="merge")
        patch = time.perf_counter() - t0
        # what the fake kubelets send: a merge patch of /status (a real change every time)
        t0 = time.perf_counter()
        for i in range(n):
            await c.patch("pods", f"pod-{i:06d}", {"status": {
                "phase": "Running", "podIP": f"10.0.{i // 250 % 256}.{i % 250 + 1}",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}],
            }}, patch_type="merge", subresource="status")
        status_patch = time.perf_counter() - t0
    async with Cluster(seed=1, tune_gc=True, track_managed_fields=False, **API_ONLY) as cluster:
        c = cluster.client
        t0 = time.perf_counter()
        for b in bodies:
            await c.create(b)
        create_nomf = time.perf_counter() - t0

    print(f"pipeline, {n} pods, one watcher")
    print(f"  creates            {rate(n, create)}   ({create / n * 1e6:6.1f} us each)")
    print(f"  creates w/o managedFields {rate(n, create_nomf)}")
    print(f"  merge patches      {rate(n, patch)}   ({patch / n * 1e6:6.1f} us each)")
    print(f"  status merge patches {rate(n, status_patch)} ({status_patch / n * 1e6:6.1f} us each)")
    print(f"  floor: dict insert {rate(n, floor_dict)}   pipeline/dict = {create / floor_dict:5.1f}x")
    print(f"  floor: store write {rate(n, floor_store)}   pipeline/store = {create / floor_store:5.1f}x")
    return {"creates_per_s": n / create, "patches_per_s": n / patch, "status_patches_per_s": n / status_patch,
            "ratio_dict": create / floor_dict}


async def bench_watch(events: int, watchers: int) -> float:
    """Writes fanned out to ``watchers`` unfiltered watchers; each consumer then takes every event and decodes
    it into a Pod, privately (its own copy) or as the shared view (one decode per event for all of them).
    Queueing alone (the event in the consumer's hands as bytes) is the floor."""
    bodies = [msgspec.json.decode(_encode(pod(i))) for i in range(events)]
    private = json_decoder(Pod).decode

    def run(mode: str) -> float:
        store = Store()
        table = store.add_table("", "pods", namespaced=True)
        ws = [store.watch(table, resource_version="0", capacity=events + 10) for _ in range(watchers)]
        objs = [dict(b, metadata=dict(b["metadata"])) for b in bodies]
        t0 = time.perf_counter()
        for b in objs:
            store.create(table, b)
        n = 0
        for w in ws:
            while (ev := w.poll()) is not None:
                if mode == "private":
                    private(ev.data)
                elif mode == "shared":
                    shared_view(ev.data, Pod)
                n += 1
        dt = time.perf_counter() - t0
        assert n == events * watchers
        return dt

    queued = run("queue")
    decoded = run("private")
    shared = run("shared")
    n = events * watchers
    # floor: append the same number of references to a deque
    q: deque[Any] = deque()
    t0 = time.perf_counter()
    for b in bodies:
        for _ in range(watchers):
            q.append(b)
    floor = time.perf_counter() - t0
    print(f"  {watchers:>3} watchers: delivered+decoded, private copies {rate(n, decoded)}; shared view "
          f"{rate(n, shared)} ({decoded / shared:4.1f}x); floor, queueing only {rate(n, queued)} "
          f"(deque floor ratio {queued / floor:5.1f}x)")
    return n / shared


def bench_list(n: int) -> None:
    store = Store()
    table = store.add_table("", "pods", namespaced=True)
    for i in range(n):
        store.create(table, msgspec.json.decode(_encode(pod(i))))
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        items = [o.decode() for o in store.list(table).items]
        times.append(time.perf_counter() - t0)
    assert len(items) == n
    small = [{"i": i} for i in range(n)]
    t0 = time.perf_counter()
    _ = [dict(x) for x in small]
    floor = time.perf_counter() - t0
    best = min(times)
    print(f"list of {n:,} pods decoded: {best * 1e3:7.1f} ms   (copying {n:,} tiny dicts: {floor * 1e3:5.1f} ms, "
          f"ratio {best / floor:5.1f}x)")


def bench_memory(n: int) -> None:
    gc.collect()
    bodies = [msgspec.json.decode(_encode(pod(i))) for i in range(n)]
    json_size = statistics.mean(len(_encode(b)) for b in bodies[:100])
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = Store()
    table = store.add_table("", "pods", namespaced=True)
    for b in bodies:
        b["metadata"]["uid"] = "6c3b3c5e-2b8e-4b8a-9b0e-4b7d9c1a2f00"
        b["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
        b["status"] = {"phase": "Pending", "qosClass": "Burstable"}
        store.create(table, b)
    del bodies
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    per = used / n
    print(f"memory, bare store (no informers, history or controllers; a running cluster: bench/scale.py): "
          f"{per:,.0f} bytes per stored pod ({json_size:,.0f} bytes of JSON each; overhead "
          f"{per / json_size:4.2f}x) -> {per * 100_000 / 2**20:,.0f} MiB per 100,000 pods")


async def bench_start(runs: int = 50) -> None:
    times = []
    full = []
    for _ in range(runs):
        t0 = time.perf_counter()
        async with Cluster(seed=1, tune_gc=True, **API_ONLY):
            times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        async with Cluster(seed=1):
            full.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(runs):
        _ = {}
    floor = (time.perf_counter() - t0) / runs
    med = statistics.median(times)
    print(f"cluster start (API only): median {med * 1e3:6.2f} ms over {runs} runs (p90 "
          f"{sorted(times)[int(runs * 0.9)] * 1e3:6.2f} ms; empty-dict floor {floor * 1e9:,.0f} ns)")
    print(f"cluster start (with scheduler, controllers, data plane): median {statistics.median(full) * 1e3:6.2f} ms "
          f"(start + stop, no nodes)")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=20_000)
    ap.add_argument("--list-objects", type=int, default=100_000)
    ap.add_argument("--watch-events", type=int, default=10_000)
    args = ap.parse_args()
    await bench_start()
    await bench_pipeline(args.pods)
    # the bare-store figures run under the GC setting a running cluster uses (see kubelite.cluster)
    with tuned_gc():
        print(f"watch delivery, {args.watch_events:,} writes")
        for w in (1, 10, 100):
            await bench_watch(args.watch_events, w)
        bench_list(args.list_objects)
    bench_memory(args.list_objects)


if __name__ == "__main__":
    asyncio.run(main())
