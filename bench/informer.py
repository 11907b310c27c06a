"""Informer and controller benchmarks (issue #3). Prints figures and in-run ratios against floors.

    python bench/informer.py [--events 5000] [--objects 10000]

- events/s from a write to the handlers of 1, 10 and 50 informers (each with one handler) vs the raw
  watch floor: the same writes consumed straight from 1/10/50 ``open_watch`` streams, decoded into the
  same typed objects. The difference per event per informer is the informer's overhead.
- reconciles/s of a no-op controller over 10,000 objects (from a cold start: list, sync, reconcile
  every key) vs a floor that pushes the same keys through a bare workqueue with a no-op body.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from kubelite.api.types import ConfigMap, ObjectMeta
from kubelite.cluster import Cluster
from kubelite.controllers import Manager, Request
from kubelite.informer import ResourceEventHandlerFuncs, SharedIndexInformer
from kubelite.workqueue import RateLimitingQueue


def cm(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i:06d}", "namespace": "default", "labels": {"app": "bench"}},
            "data": {"key": "value" * 10, "i": str(i)}}


async def informer_fanout(n_events: int, n_informers: int) -> tuple[float, float]:
    """Seconds from the first write until every handler saw every write, and the same for the raw-watch
    floor (writes included in both, so the difference is the informers' own cost)."""
    bodies = [cm(i) for i in range(n_events)]
    total = n_events * n_informers
    async with Cluster(seed=1, track_managed_fields=False) as cluster:
        received = 0
        done = asyncio.Event()

        def on_add(obj: Any, initial: bool) -> None:
            nonlocal received
            received += 1
            if received == total:
                done.set()

        informers = [SharedIndexInformer(cluster.client, ConfigMap, clock=cluster.clock, rng=cluster.rng)
                     for _ in range(n_informers)]
        for inf in informers:
            inf.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
            cluster.start_soon(inf.run)
        await cluster.settle()
        t0 = time.perf_counter()
        for b in bodies:
            await cluster.client.create(b)
        await done.wait()
        informer_time = time.perf_counter() - t0
    async with Cluster(seed=1, track_managed_fields=False) as cluster:
        streams = [await cluster.client.open_watch(ConfigMap, capacity=n_events + 10) for _ in range(n_informers)]
        got = 0
        t0 = time.perf_counter()
        for b in bodies:
            await cluster.client.create(b)
        for s in streams:
            while s.poll() is not None:
                got += 1
        raw_time = time.perf_counter() - t0
        assert got == total
    return informer_time, raw_time


async def noop_controller(n_objects: int) -> tuple[float, float, int]:
    async with Cluster(seed=1, track_managed_fields=False) as cluster:
        for i in range(n_objects):
            await cluster.client.create(cm(i))
        count = 0
        finished = asyncio.Event()

        async def reconcile(req: Request) -> None:
            nonlocal count
            count += 1
            if count == n_objects:
                finished.set()

        mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
        mgr.controller("noop").for_(ConfigMap).complete(reconcile)
        t0 = time.perf_counter()
        await mgr.start()
        await finished.wait()
        ctrl_time = time.perf_counter() - t0
        await mgr.stop()
        # floor: the same keys through a bare rate-limiting queue with one worker and a no-op body
        q: RateLimitingQueue[Request] = RateLimitingQueue(clock=cluster.clock)
        keys = [Request("default", f"cm-{i:06d}") for i in range(n_objects)]
        t0 = time.perf_counter()
        for k in keys:
            q.add(k)
        for _ in range(n_objects):
            k = await q.get()
            q.forget(k)
            q.done(k)
        floor = time.perf_counter() - t0
    return ctrl_time, floor, count


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--objects", type=int, default=10_000)
    args = ap.parse_args()
    print(f"informer fan-out, {args.events:,} creates (writes included in both columns)")
    for n in (1, 10, 50):
        inf, raw = await informer_fanout(args.events, n)
        total = args.events * n
        per = (inf - raw) / total * 1e6
        print(f"  {n:>2} informers: write->handler {inf:6.3f} s ({total / inf:>10,.0f} handler calls/s); "
              f"write->raw watch+decode {raw:6.3f} s; informer overhead {per:6.2f} us per event per informer")
    ctrl, floor, count = await noop_controller(args.objects)
    print(f"no-op controller over {args.objects:,} objects (cold start: list, sync, reconcile all)")
    print(f"  {count / ctrl:>12,.0f} reconciles/s   bare workqueue floor {count / floor:>12,.0f}/s   "
          f"ratio {ctrl / floor:5.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
