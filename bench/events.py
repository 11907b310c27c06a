"""What one Event costs end to end (issue #17): recorder, correlator, the create through the API.

    python bench/events.py [--events 15000] [--profile]

One recorder (component ``kubelet``, as a node's) records ``--events`` distinct Events, one per pod object
(the kubelet's ``Pulled``), into the default cluster (every controller, managedFields on); then its
broadcaster writes them. Distinct objects mean the correlator neither aggregates nor patches: every Event is
a create, as the five Events of each pod in the deploy runs are. Reports CPU per Event for recording (build
and queue) and for the write (correlate + create through the pipeline), and, in the same process, the
recorder side alone (generate, correlate, update_state, with no API). ``--profile`` prints the write's top
functions (cProfile inflates per-item Python loops; py-spy gives truer shares).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import time
from typing import Any

from kubelite.clock import VirtualClock
from kubelite.cluster import Cluster
from kubelite.events import EventBroadcaster

MESSAGE = 'Container image "nginx:1.25" already present on machine'


def pods(n: int) -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i}", "namespace": "default",
                                                             "uid": f"uid-{i}", "resourceVersion": str(i + 10)}}
            for i in range(n)]


async def end_to_end(n: int, profile: bool) -> tuple[float, float]:
    async with Cluster(seed=1, nodes=[{"count": 2}]) as cluster:
        await cluster.settle()
        b = EventBroadcaster(cluster.client, clock=cluster.clock, rng=cluster.rng, max_queued=n + 1)
        rec = b.new_recorder(component="kubelet", host="node-0")
        objs = pods(n)
        prof = cProfile.Profile() if profile else None
        c0 = time.process_time()
        for p in objs:
            rec.event(p, "Normal", "Pulled", MESSAGE)
        c1 = time.process_time()
        if prof:
            prof.enable()
        await b.flush()
        if prof:
            prof.disable()
            stats = pstats.Stats(prof)
            stats.sort_stats("tottime").print_stats(25)
            calls = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
            print(f"{calls / n:.1f} Python calls per Event write (cProfile's count)")
        c2 = time.process_time()
        return (c1 - c0) / n, (c2 - c1) / n


def recorder_side(n: int) -> tuple[float, float, float]:
    b = EventBroadcaster(None, clock=VirtualClock(), max_queued=n + 1)
    rec = b.new_recorder(component="kubelet", host="node-0")
    objs = pods(n)
    c0 = time.process_time()
    for p in objs:
        rec.event(p, "Normal", "Pulled", MESSAGE)
    c1 = time.process_time()
    queued = list(b._queue)
    for e in queued:
        b.correlator.correlate(e)
    c2 = time.process_time()
    for e in queued:
        e["metadata"]["resourceVersion"] = "5"
        b.correlator.update_state(e)
    c3 = time.process_time()
    return (c1 - c0) / n, (c2 - c1) / n, (c3 - c2) / n


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=15_000)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    record, write = await end_to_end(args.events, args.profile)
    print(f"end to end, {args.events:,} Events: record {record * 1e6:.1f} us, write {write * 1e6:.1f} us per Event "
          f"(correlate + create through the API), load {os.getloadavg()[0]:.1f}")
    gen, corr, upd = recorder_side(args.events)
    print(f"recorder side alone: generate {gen * 1e6:.1f} us, correlate {corr * 1e6:.1f} us, "
          f"update_state {upd * 1e6:.1f} us per Event, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
