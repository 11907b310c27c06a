"""What one Event costs end to end (issue #17): recorder, correlator, the create through the API.

    python bench/events.py [--events 15000] [--profile] [--ab]

One recorder (component ``kubelet``, as a node's) records ``--events`` distinct Events, one per pod object
(the kubelet's ``Pulled``), into the default cluster (every controller, managedFields on); then its
broadcaster writes them. Distinct objects mean the correlator neither aggregates nor patches: every Event is
a create, as the five Events of each pod in the deploy runs are. Reports CPU per Event for recording (build
and queue) and for the write (correlate + create through the pipeline), and, in the same process, the
recorder side alone (generate, correlate, update_state, with no API). ``--profile`` prints the write's top
functions (cProfile inflates per-item Python loops; py-spy gives truer shares). ``--ab`` writes the Events
in one cluster in alternating chunks with stop 24's create shortcuts on and off (the body parsed straight
into its Struct, the admission plugins resolved per resource, a create's managedFields without the update
path's request handling) and prints the median chunk's CPU per Event
of each, and their ratio (the switch is ``write_path._create_shortcuts_off``).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
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


async def ab(n: int, chunk: int = 250) -> None:
    async with Cluster(seed=1, nodes=[{"count": 2}]) as cluster:
        await cluster.settle()
        from write_path import CHAINS, _create_shortcuts_off  # (bench/ is this script's directory)

        chain = cluster.apiserver.admission
        CHAINS[:] = [chain]
        b = EventBroadcaster(cluster.client, clock=cluster.clock, rng=cluster.rng, max_queued=2 * n + 1)
        rec = b.new_recorder(component="kubelet", host="node-0")
        objs = pods(2 * n)
        times: dict[bool, list[float]] = {True: [], False: []}
        for k, start in enumerate(range(0, 2 * n, chunk)):
            on = k % 4 in (0, 3)  # on, off, off, on, ...: neither side always goes first
            for p in objs[start:start + chunk]:
                rec.event(p, "Normal", "Pulled", MESSAGE)
            c0 = time.process_time()
            if on:
                await b.flush()
            else:
                with _create_shortcuts_off((24,)):
                    await b.flush()
            times[on].append((time.process_time() - c0) / chunk * 1e6)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"A/B, {2 * n:,} Event writes in chunks of {chunk}: shortcuts on {med[True]:.1f} us, off "
              f"{med[False]:.1f} us per Event (median chunk), ratio {med[True] / med[False]:.3f}, "
              f"load {os.getloadavg()[0]:.1f}")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=15_000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--ab", action="store_true")
    args = ap.parse_args()
    if args.ab:
        await ab(args.events)
        return
    record, write = await end_to_end(args.events, args.profile)
    print(f"end to end, {args.events:,} Events: record {record * 1e6:.1f} us, write {write * 1e6:.1f} us per Event "
          f"(correlate + create through the API), load {os.getloadavg()[0]:.1f}")
    gen, corr, upd = recorder_side(args.events)
    print(f"recorder side alone: generate {gen * 1e6:.1f} us, correlate {corr * 1e6:.1f} us, "
          f"update_state {upd * 1e6:.1f} us per Event, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
