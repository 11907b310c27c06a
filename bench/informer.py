"""Informer and controller benchmarks (issue #3). Prints figures and in-run floors, medians of --repeat runs.

    python bench/informer.py [--events 5000] [--objects 10000] [--repeat 3]

Targets (issue #3): an informer adds <= 5 us per event per handler over the raw watch; a no-op
controller runs >= 50,000 reconciles/s on one core.

Every phase is timed three ways: CPU seconds of this process (what "on one core" means, and robust on a
loaded machine, where wall time also counts other processes' turns), wall seconds, and the part of the
phase spent in the garbage collector (``gc.callbacks``; it is included in the other two).

- **Informer fan-out.** N informers (1, 10, 50), each with one handler, on a bare control plane (no
  scheduler, built-in controllers or network). The creates are timed apart from the delivery: the
  client's ``create`` never suspends, so every event is queued on the watches before any informer runs,
  and the delivery phase (from the last create until every handler saw every event) is the informers'
  whole cost. The raw floor does the same creates, then drains N ``open_watch`` streams with
  ``poll()``, decoding each event into the same typed object: what any watcher pays. The informer's
  overhead is (delivery - floor) / (events x N): microseconds per event per handler, covering the
  reflector, DeltaFIFO, cache, fan-out and the handler call. The informers run twice: as a user's
  (each decodes its own copy of every event) and as the control plane's (``sharing_decodes()``: one
  shared read-only object per event for all N, kubelite.api.views), against the same floor.
- **No-op controller** over ``--objects`` ConfigMaps from a cold start: list, cache sync, reconcile every
  key, timed from ``Manager.start()`` to the last reconcile. Floors measured in the same run: the
  paginated list alone (the client's pages, decoded; the reflector must do this) and a bare
  rate-limiting queue with one no-op consumer.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from kubelite.api.types import ConfigMap
from kubelite.cluster import Cluster
from kubelite.controllers import Manager, Request
from kubelite.informer import ResourceEventHandlerFuncs, SharedIndexInformer
from kubelite.workqueue import RateLimitingQueue


class Cost(NamedTuple):
    cpu: float
    wall: float
    gc: float


_gc_seconds = 0.0
_gc_started = 0.0


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    global _gc_seconds, _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        _gc_seconds += time.perf_counter() - _gc_started


@contextmanager
def measure(out: list[Cost]) -> Iterator[None]:
    """Append the phase's Cost to ``out``."""
    gc0, cpu0, wall0 = _gc_seconds, time.process_time(), time.perf_counter()
    yield
    out.append(Cost(time.process_time() - cpu0, time.perf_counter() - wall0, _gc_seconds - gc0))


def cm(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i:06d}", "namespace": "default", "labels": {"app": "bench"}},
            "data": {"key": "value" * 10, "i": str(i)}}


def bare() -> Cluster:
    return Cluster(seed=1, tune_gc=True, track_managed_fields=False, scheduler=False, controllers=False, network=False)


async def informer_fanout(n_events: int, n_informers: int) -> tuple[Cost, Cost, Cost]:
    """(informer delivery, shared-view informer delivery, raw-watch floor delivery)."""
    bodies = [cm(i) for i in range(n_events)]
    costs: list[Cost] = []
    for shared in (False, True):
        await _fanout(bodies, n_informers, shared, costs)
    return costs[0], costs[1], await _raw_floor(bodies, n_informers)


async def _fanout(bodies: list[dict[str, Any]], n_informers: int, shared: bool, costs: list[Cost]) -> None:
    total = len(bodies) * n_informers
    async with bare() as cluster:
        received = 0
        done = asyncio.Event()
        client = cluster.client.sharing_decodes() if shared else cluster.client

        def on_add(obj: Any, initial: bool) -> None:
            nonlocal received
            received += 1
            if received == total:
                done.set()

        informers = [SharedIndexInformer(client, ConfigMap, clock=cluster.clock, rng=cluster.rng)
                     for _ in range(n_informers)]
        for inf in informers:
            inf.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
            cluster.start_soon(inf.run)
        await cluster.settle()
        for b in bodies:
            await cluster.client.create(b)
        with measure(costs):
            await done.wait()
        assert received == total


async def _raw_floor(bodies: list[dict[str, Any]], n_informers: int) -> Cost:
    n_events, total = len(bodies), len(bodies) * n_informers
    costs: list[Cost] = []
    async with bare() as cluster:
        streams = [await cluster.client.open_watch(ConfigMap, capacity=n_events + 10) for _ in range(n_informers)]
        for b in bodies:
            await cluster.client.create(b)
        got = 0
        with measure(costs):
            for s in streams:
                while s.poll() is not None:
                    got += 1
        assert got == total
    return costs[0]


async def noop_controller(n_objects: int) -> tuple[Cost, Cost, Cost]:
    """(cold-start controller, list floor, bare-workqueue floor)."""
    costs: list[Cost] = []
    async with bare() as cluster:
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
        with measure(costs):
            await mgr.start()
            await finished.wait()
        await mgr.stop()
        assert count == n_objects
        # floor 1: the paginated list the reflector makes (500 per page), decoded into Structs
        listed, cont = 0, None
        with measure(costs):
            while True:
                page = await cluster.client.list_page(ConfigMap, all_namespaces=True, limit=500, continue_=cont)
                listed += len(page.items)
                cont = page.continue_
                if not cont:
                    break
        assert listed == n_objects
        # floor 2: the same keys through a bare rate-limiting queue with one worker and a no-op body
        q: RateLimitingQueue[Request] = RateLimitingQueue(clock=cluster.clock)
        keys = [Request("default", f"cm-{i:06d}") for i in range(n_objects)]
        with measure(costs):
            for k in keys:
                q.add(k)
            for _ in range(n_objects):
                k = await q.get()
                q.forget(k)
                q.done(k)
    return costs[0], costs[1], costs[2]


def use_twin(name: str) -> None:
    """Swap a fast path for its slower twin, to measure what the fast path gains (bench/RESULTS.md, #13).

    - ``generic-worker``: controller workers run :meth:`Controller.reconcile_handler` per request instead of
      its steps inlined in ``Controller._worker``.
    - ``upstream-informer``: informers drain their DeltaFIFO through upstream-shaped ``process_deltas``
      (``_handle_deltas``) instead of the keyed ``_process_keyed``."""
    if name == "generic-worker":
        from kubelite.controllers.controller import Controller
        from kubelite.workqueue import ShutDown

        async def worker(self: Any) -> None:
            while True:
                try:
                    req = await self.queue.get()
                except ShutDown:
                    return
                try:
                    await self.reconcile_handler(req)
                finally:
                    self.queue.done(req)
        Controller._worker = worker  # type: ignore[method-assign]
    elif name == "upstream-informer":
        import kubelite.informer.shared_informer as si

        base = si.Controller

        def controller(*args: Any, keyed_process: Any = None, **kw: Any) -> Any:
            return base(*args, **kw)
        si.Controller = controller  # type: ignore[misc,assignment]
    elif name:
        raise SystemExit(f"unknown --twin {name!r}")


def med(costs: list[Cost], per: int) -> Cost:
    """Median of each component, in microseconds per unit."""
    return Cost(*(statistics.median(c[i] for c in costs) / per * 1e6 for i in range(3)))


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--objects", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; medians are printed")
    ap.add_argument("--twin", default="", choices=["", "generic-worker", "upstream-informer"],
                    help="measure a fast path's slower twin instead (see use_twin)")
    args = ap.parse_args()
    use_twin(args.twin)
    gc.callbacks.append(_on_gc)
    print(f"informer fan-out, {args.events:,} creates, median of {args.repeat} runs, us per event per handler "
          "as cpu/wall/of-which-gc (target: overhead <= 5 us)")
    for n in (1, 10, 50):
        runs = [await informer_fanout(args.events, n) for _ in range(args.repeat)]
        total = args.events * n
        inf, shared, raw = (med([r[i] for r in runs], total) for i in range(3))
        over = med([Cost(*(a - b for a, b in zip(r[0], r[2], strict=True))) for r in runs], total)
        print(f"  {n:>2} informers: delivery {inf.cpu:5.2f}/{inf.wall:5.2f}/{inf.gc:5.2f} | raw watch+decode floor "
              f"{raw.cpu:5.2f}/{raw.wall:5.2f}/{raw.gc:5.2f} | informer overhead {over.cpu:5.2f} cpu, "
              f"{over.wall:5.2f} wall, of which gc {over.gc:5.2f}")
        print(f"      shared views (the control plane's informers): delivery {shared.cpu:5.2f}/{shared.wall:5.2f}/"
              f"{shared.gc:5.2f}, {inf.cpu / shared.cpu:4.2f}x less CPU than private copies")
    runs2 = [await noop_controller(args.objects) for _ in range(args.repeat)]
    n = args.objects
    ctrl, listed, queue = (med([r[i] for r in runs2], n) for i in range(3))
    print(f"no-op controller over {n:,} objects, cold start (list, sync, reconcile all), median of {args.repeat} "
          "(target: >= 50,000 reconciles/s on one core)")
    print(f"  {1e6 / ctrl.cpu:>9,.0f} reconciles/s cpu, {1e6 / ctrl.wall:,.0f} wall "
          f"(us each: {ctrl.cpu:5.2f} cpu, {ctrl.wall:5.2f} wall, of which gc {ctrl.gc:5.2f})")
    print(f"  floors (cpu): list+decode {listed.cpu:5.2f} us/object; bare workqueue {1e6 / queue.cpu:,.0f}/s "
          f"({queue.cpu:4.2f} us); controller beyond the list {ctrl.cpu - listed.cpu:5.2f} us, "
          f"{ctrl.cpu - listed.cpu - ctrl.gc:5.2f} without gc")


if __name__ == "__main__":
    asyncio.run(main())
