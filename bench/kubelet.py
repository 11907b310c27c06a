"""Kubelet benchmarks (issues #5 and #17).

1. **Bound pods to Running per second across 1,000 nodes**: create N pods with ``spec.nodeName`` set
   (bound), run until every one is Running (as the kubelets' pod informers see it). Two floors, measured
   in the same run on a cluster with no kubelets: the same creates alone, and the same creates followed by
   the status patches the kubelets wrote (the API writes the pipeline cannot avoid). The kubelets' own CPU
   per pod is the difference of the two per-CPU-second rates (with kubelets, and floor 2).
2. **Virtual-time speed-up**: 1,000 nodes x 30 running pods with liveness+readiness probes, one
   simulated hour (leases every 10 s, node status every 5 min); simulated seconds per wall second, and the
   hour's wall and CPU seconds. Per node one pod crashes every 10 min and one hangs after 20 min (its
   liveness probe restarts it), so the hour has the pod status writes restarts make (``HOUR_IMAGES``).
   Floors, in the same run: the same nodes' hour with no pods (the kubelets doing nothing but their
   heartbeats: the ratio to it is what the pods cost), the hour's heartbeat writes (its lease renewals and
   node status reports, priced per write in CPU time by issuing a few rounds of them straight through the
   client after the hour), and an empty cluster's hour. The kubelets' watches reopen every 5-10 min as
   upstream's reflectors' do (``timeoutSeconds``): the hour counts them and prices them the same way (a
   kubelet's pod watch reopened from its last resourceVersion, straight through its client).

3. **Write census** (``--only census``): the hour's pod mix on ``min(--nodes, 20)`` nodes, every request
   that is not a read counted at the apiserver's entry by (verb, resource, subresource, patch type), per
   node-hour, each next to the cadence upstream's kubelet writes it at (a Lease PUT every 10 s, a Node status
   patch every 5 min when nothing changed, a pod status patch per change, an Event or its count patch per
   occurrence); a kind upstream's kubelet would not write is flagged.

CPU seconds (``time.process_time``) are reported next to wall seconds: on a shared machine they vary far
less, and the ratios to the floors are taken in CPU time.

Both measure the kubelets alone: the clusters run with ``scheduler=False, controllers=False,
network=False`` (pods are bound by ``spec.nodeName``; nothing else reacts to them), because the kubelets
are what these figures are about. Everything else is the default cluster's: **Events on** (the kubelets
record what upstream's record: Pulled, Created, Started, Unhealthy, Killing, BackOff, through the pool's
broadcaster and its correlator), managedFields on. ``--no-events`` turns the kubelets' Events off, a
labelled comparison only; ``--events-ab`` runs each measurement with Events off too, in the same process
right after, and prints what the Events cost (their share of the hour, per pod to Running) and how many
Event writes (creates and count patches) they made. Each measurement runs ``--runs`` times and reports the
median, and its ratio to the floor measured in the same run (the ratio is what to compare across machines
and loads).

Run: ``python bench/kubelet.py [--nodes 1000] [--pods 30] [--no-events | --events-ab] [--runs 3]
[--only bound|hour|census]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any, NamedTuple

from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry, NodePool
from kubelite.kubelet.heartbeat import micro_time
from kubelite.kubelet.node import LEASE_NAMESPACE

#: the kubelet bench measures the kubelets alone: no scheduler (pods are bound by spec.nodeName), no
#: controllers, no network data plane
BARE: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}

PROBE = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}


#: the hour's pod mix, per node of ``--pods`` pods: one that crashes every 10 min (exit 1, restarted with
#: crash backoff), one whose process hangs after 20 min (its liveness probe kills it, it restarts), the rest
#: steady. Restarts write pod status as the kubelet does (terminated, CrashLoopBackOff, running, ready); the
#: steady pods' probes write nothing, as upstream's prober writes only when readiness changes.
HOUR_IMAGES = {"app:1": ImageProfile(ready_after=5), "flaky:1": ImageProfile(ready_after=5, crash_after=600),
               "hangs:1": ImageProfile(ready_after=5, hang_after=1200)}


def hour_image(i: int, nodes: int) -> str:
    slot = i // nodes  # the pod's index on its node
    return "flaky:1" if slot == 0 else "hangs:1" if slot == 1 else "app:1"


def pod(i: int, node: str, probes: bool, image: str = "app:1") -> dict[str, Any]:
    c: dict[str, Any] = {"name": "app", "image": image, "imagePullPolicy": "IfNotPresent",
                         "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}
    if probes:
        c["livenessProbe"] = PROBE
        c["readinessProbe"] = PROBE
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {"nodeName": node, "containers": [c]}}


def _running(pool: NodePool) -> int:
    n = 0
    for k in pool:
        inf = k._informer
        if inf is None:
            continue
        for p in inf.get_indexer().list():  # the typed Pod views the kubelet's informer holds
            if p.status is not None and p.status.phase == "Running":
                n += 1
    return n


class EventWrites:
    """The pool's Event sink (its client), counting what the broadcaster writes through it: creates, and the
    correlator's count patches (a repeated Event is a patch of its ``count``). Counted at the sink, not from
    the stored Events, which expire after upstream's 1 h TTL."""

    def __init__(self, pool: NodePool) -> None:
        self.creates = self.patches = 0
        broadcaster = pool.broadcaster
        if broadcaster is not None:
            self._sink = broadcaster.sink
            broadcaster.sink = self

    async def create(self, *a: Any, **kw: Any) -> Any:
        self.creates += 1
        return await self._sink.create(*a, **kw)

    async def patch(self, *a: Any, **kw: Any) -> Any:
        self.patches += 1
        return await self._sink.patch(*a, **kw)

    def counts(self) -> tuple[int, int]:
        """(creates, creates + count patches)."""
        return self.creates, self.creates + self.patches


class Bound(NamedTuple):
    rate: float  # bound pods to Running per second, with kubelets
    creates: float  # floor 1: the same creates alone, per second
    writes: float  # floor 2: the same creates plus the same status patches, no kubelets, per second
    patches: int
    cpu_rate: float  # bound pods to Running per CPU-second of this process (robust to a shared machine)
    cpu_writes: float  # floor 2 per CPU-second
    events: int  # Event objects the kubelets wrote (creates)
    occurrences: int  # their counted occurrences (creates + count patches)


async def pods_to_running(nodes: int, n: int, events: bool) -> Bound:
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:
        reg = ImageRegistry()
        reg.add("app:1", ImageProfile())
        pool = await cluster.add_nodes(nodes, registry=reg, events=events, preload=("app:1",))
        assert pool is not None
        writes = EventWrites(pool)
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(n):
            await cluster.client.create(pod(i, f"node-{i % nodes}", False))
        # Running as the API says it (each kubelet's pod informer has seen its own status write)
        while True:
            await cluster.settle()
            if _running(pool) >= n:
                break
            await cluster.advance(0.1)
        rate, cpu_rate = n / (time.perf_counter() - t0), n / (time.process_time() - c0)
        patches = sum(k.patches for k in pool)
        written = {w.name: w.pending_status for k in pool for w in k.workers.values()}
        created, occurrences = writes.counts()
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:
        # the floors: the same creates with nobody watching, then the kubelets' status patches replayed
        client = cluster.client
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(n):
            await client.create(pod(i, f"ghost-{i % nodes}", False))
        t1 = time.perf_counter()
        for name, status in written.items():
            await client.patch_status("pods", name, {"status": status}, namespace="default", patch_type="merge")
        t2, c2 = time.perf_counter(), time.process_time()
    return Bound(rate, n / (t1 - t0), n / (t2 - t0), patches, cpu_rate, n / (c2 - c0), created, occurrences)


class Hour(NamedTuple):
    speedup: float  # simulated seconds per wall second
    empty: float  # the same for an empty cluster (housekeeping only)
    wall: float
    renewals: int
    patches: int
    cpu: float  # CPU seconds of the hour
    writes_cpu: float  # the floor in CPU seconds
    reports: int  # node status writes
    leases_cpu: float  # floor: the same nodes' hour with no pods (kubelets doing nothing but heartbeats)
    leases_wall: float
    rewatches: int  # the kubelets' pod and Node watches reopened in the hour (reflector timeouts, 5-10 min)
    rewatch_cpu: float  # their price in CPU seconds (re-watches issued as a reflector does, priced after the hour)
    events: int  # Event writes in the hour: creates ...
    occurrences: int  # ... and counted occurrences (creates + count patches)


async def _heartbeat_write_cost(cluster: Cluster, pool: NodePool, rounds: int) -> tuple[float, float]:
    """CPU seconds per Lease renewal and per Node status report issued straight through the client, as the
    kubelets issue them (a PUT of the lease the last write returned with a new renewTime; a strategic
    merge patch of the node conditions)."""
    client = cluster.client
    names = [k.node_name for k in pool]
    statuses = [{"conditions": k._node_status()["conditions"]} for k in pool]
    leases = [await client.get("leases", name, namespace=LEASE_NAMESPACE) for name in names]
    t0 = time.process_time()
    for r in range(rounds):
        renew = micro_time(cluster.now + 0.5 + r * 1e-3)
        for i, lease in enumerate(leases):
            lease["spec"]["renewTime"] = renew
            leases[i] = await client.replace(lease, namespace=LEASE_NAMESPACE)
    t1 = time.process_time()
    for name, status in zip(names, statuses, strict=True):
        await client.patch_status("nodes", name, {"status": status}, patch_type="strategic")
    t2 = time.process_time()
    return (t1 - t0) / (rounds * len(names)), (t2 - t1) / len(names)


def _watches(pool: NodePool) -> int:
    return sum(inf.reflector.watches for k in pool for inf in (k._informer, k._node_informer)
               if inf is not None and inf.reflector is not None)


async def _rewatch_cost(pool: NodePool, n: int) -> float:
    """CPU seconds per re-watch as a kubelet's pod reflector reopens its watch (from its last resourceVersion,
    bookmarks allowed, a timeout set, the shared decode), opened and stopped straight through its client."""
    kubelets = list(pool)[:n]
    rvs = [(await k.client.list_page("pods", fields={"spec.nodeName": k.node_name}, all_namespaces=True)).resource_version
           for k in kubelets]
    t0 = time.process_time()
    for k, rv in zip(kubelets, rvs, strict=True):
        w = await k.client.open_watch("pods", fields={"spec.nodeName": k.node_name}, resource_version=rv,
                                      allow_bookmarks=True, timeout_seconds=600, all_namespaces=True, shared=True)
        w.stop()
    return (time.process_time() - t0) / len(kubelets)


async def leases_only(nodes: int, sim: float, events: bool) -> tuple[float, float]:
    """The floor of the hour: the same nodes for the same simulated time with no pods, so the kubelets do
    nothing but their heartbeats (a Lease renewal every 10 s, a Node status report every 5 min); CPU and
    wall seconds."""
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:
        pool = await cluster.add_nodes(nodes, events=events, capacity={"cpu": "64", "memory": "256Gi", "pods": "110"})
        assert pool is not None
        await cluster.advance(60)
        t0, c0 = time.perf_counter(), time.process_time()
        await cluster.advance(sim)
        return time.process_time() - c0, time.perf_counter() - t0


async def _hour_cluster(cluster: Cluster, nodes: int, per_node: int, events: bool) -> tuple[NodePool, EventWrites]:
    """The hour's nodes and pods (``HOUR_IMAGES``), run for a minute to settle; the pool and its Event sink."""
    reg = ImageRegistry()
    for image, profile in HOUR_IMAGES.items():
        reg.add(image, profile)
    pool = await cluster.add_nodes(nodes, registry=reg, events=events, preload=tuple(HOUR_IMAGES),
                                   capacity={"cpu": "64", "memory": "256Gi", "pods": "110"})
    assert pool is not None
    writes = EventWrites(pool)
    for i in range(nodes * per_node):
        await cluster.client.create(pod(i, f"node-{i % nodes}", True, hour_image(i, nodes)))
    await cluster.advance(60)
    return pool, writes


async def speedup(nodes: int, per_node: int, hours: float, events: bool, floors: bool = True) -> Hour:
    """The hour; ``floors=False``: the hour alone (no leases-only hour, no pricing, no empty cluster), for
    the Events comparison."""
    sim = 3600.0 * hours
    leases_cpu, leases_wall = await leases_only(nodes, sim, events) if floors else (0.0, 0.0)
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:
        pool, writes = await _hour_cluster(cluster, nodes, per_node, events)
        patches0 = sum(k.patches for k in pool)
        renewals0 = sum(k.heartbeat.renewals for k in pool)
        reports0 = sum(k.heartbeat.reports for k in pool)
        watches0 = _watches(pool)
        events0, occurrences0 = writes.counts()
        t0, c0 = time.perf_counter(), time.process_time()
        await cluster.advance(sim)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        patches = sum(k.patches for k in pool) - patches0
        renewals = sum(k.heartbeat.renewals for k in pool) - renewals0
        reports = sum(k.heartbeat.reports for k in pool) - reports0
        rewatches = _watches(pool) - watches0
        events1, occurrences1 = writes.counts()
        if not floors:
            return Hour(sim / wall, 0.0, wall, renewals, patches, cpu, 0.0, reports, 0.0, 0.0, rewatches, 0.0,
                        events1 - events0, occurrences1 - occurrences0)
        for k in pool:
            await k.stop()
        per_renewal, per_report = await _heartbeat_write_cost(cluster, pool, 5)
        writes_cpu = renewals * per_renewal + reports * per_report
        rewatch_cpu = rewatches * await _rewatch_cost(pool, min(nodes, 200))
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:  # the cluster's own housekeeping for the same hour
        t1 = time.perf_counter()
        await cluster.advance(sim)
        empty_wall = time.perf_counter() - t1
    return Hour(sim / wall, sim / max(empty_wall, 1e-9), wall, renewals, patches, cpu, writes_cpu, reports,
                leases_cpu, leases_wall, rewatches, rewatch_cpu, events1 - events0, occurrences1 - occurrences0)


#: what upstream's kubelet writes in a steady hour, by (verb, resource, subresource, patch type): its cadence
UPSTREAM_WRITES = {
    ("update", "leases", "", ""): "every 10 s (renewInterval): 360 per node-hour",
    ("patch", "nodes", "status", "strategic"): "on change, else every 5 min (nodeStatusReportFrequency): 12",
    ("patch", "pods", "status", "merge"): "per status change (status manager; kubelite's is a merge patch)",
    ("create", "events", "", ""): "per first occurrence (EventCorrelator)",
    ("patch", "events", "", "strategic"): "per repeat occurrence: the correlator's count patch",
}


async def census(nodes: int, per_node: int, hours: float) -> tuple[dict[tuple[str, str, str, str], int], int]:
    """Every non-read request of the hour (the same pods as ``speedup``), counted at the apiserver's entry;
    ``(counts, Event occurrences counted at the pool's sink)``."""
    counts: dict[tuple[str, str, str, str], int] = {}
    async with Cluster(seed=1, tune_gc=True, **BARE) as cluster:
        _, writes = await _hour_cluster(cluster, nodes, per_node, True)
        api = cluster.apiserver
        handle = api.handle

        async def counted(req: Any) -> Any:
            if req.verb not in ("get", "list", "watch"):
                key = (req.verb, req.resource, req.subresource, req.options.patch_type or "")
                counts[key] = counts.get(key, 0) + 1
            return await handle(req)

        api.handle = counted  # type: ignore[method-assign]
        _, occurrences0 = writes.counts()
        await cluster.advance(3600.0 * hours)
        api.handle = handle  # type: ignore[method-assign]
        return counts, writes.counts()[1] - occurrences0


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=30)
    ap.add_argument("--bound", type=int, default=20000)
    ap.add_argument("--hours", type=float, default=1.0)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--no-events", action="store_true",
                      help="the kubelets record no Events (a labelled comparison; the default cluster records them)")
    mode.add_argument("--events-ab", action="store_true",
                      help="also run each measurement with Events off, in the same process, and print their cost")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--only", choices=("bound", "hour", "census"), default=None)
    a = ap.parse_args()
    events = not a.no_events
    label = "Events on" if events else "Events OFF (--no-events: not the default cluster)"
    med = statistics.median
    if a.only in (None, "bound"):
        runs, off = [], []
        for _ in range(a.runs):
            runs.append(await pods_to_running(a.nodes, a.bound, events))
            if a.events_ab:
                off.append(await pods_to_running(a.nodes, a.bound, False))
        for b in runs:
            print(f"  run ({label}): {b.rate:,.0f}/s to Running ({b.cpu_rate:,.0f} per CPU-s); floors: creates "
                  f"{b.creates:,.0f}/s (ratio {b.rate / b.creates:.2f}), creates + status patches {b.writes:,.0f}/s "
                  f"(ratio {b.rate / b.writes:.2f}; per CPU-s {b.cpu_writes:,.0f}, ratio "
                  f"{b.cpu_rate / b.cpu_writes:.2f}); the kubelets' own CPU per pod, their Events included "
                  f"{(1 / b.cpu_rate - 1 / b.cpu_writes) * 1e3:.3f} ms; {b.patches} status patches; "
                  f"{b.events} Events, {b.occurrences} occurrences; load {_load()}")
        for b in off:
            print(f"  run (Events off, same process): {b.cpu_rate:,.0f} per CPU-s; the kubelets' own CPU per pod "
                  f"{(1 / b.cpu_rate - 1 / b.cpu_writes) * 1e3:.3f} ms")
        print(f"bound pods to Running ({label}): {med(b.rate for b in runs):,.0f}/s across {a.nodes} nodes "
              f"({med(b.cpu_rate for b in runs):,.0f} per CPU-second); floors: creates alone "
              f"{med(b.creates for b in runs):,.0f}/s (ratio {med(b.rate / b.creates for b in runs):.2f}), "
              f"creates + the same status patches {med(b.writes for b in runs):,.0f}/s "
              f"(ratio {med(b.rate / b.writes for b in runs):.2f}; per CPU-second "
              f"{med(b.cpu_rate / b.cpu_writes for b in runs):.2f}); the kubelets' own CPU per pod "
              f"{med((1 / b.cpu_rate - 1 / b.cpu_writes) * 1e3 for b in runs):.3f} ms; median of {a.runs}")
        if off:
            print(f"  Events off: {med(b.cpu_rate for b in off):,.0f} per CPU-second; the Events cost "
                  f"{med((1 / b.cpu_rate - 1 / o.cpu_rate) * 1e3 for b, o in zip(runs, off, strict=True)):.3f} ms "
                  f"of CPU per pod ({med(b.occurrences / a.bound for b in runs):.1f} Event writes per pod)")
    if a.only in (None, "census"):
        n = min(a.nodes, 20)
        counts, occurrences = await census(n, a.pods, a.hours)
        print(f"write census: {n} nodes x {a.pods} probed pods, {a.hours:g} h (Events on), writes per node-hour")
        for key, c in sorted(counts.items(), key=lambda kv: -kv[1]):
            upstream = UPSTREAM_WRITES.get(key, "NOT A WRITE UPSTREAM'S KUBELET MAKES HERE")
            print(f"  {c / (n * a.hours):8.1f}  {' '.join(k for k in key if k):<32} upstream: {upstream}")
        print(f"  Event occurrences at the pool's sink: {occurrences / (n * a.hours):.1f} per node-hour")
    if a.only in (None, "hour"):
        hruns, hoff = [], []
        for _ in range(a.runs):
            hruns.append(await speedup(a.nodes, a.pods, a.hours, events))
            if a.events_ab:
                hoff.append(await speedup(a.nodes, a.pods, a.hours, False, floors=False))
        for h in hruns:
            print(f"  run ({label}): {h.speedup:,.0f}x ({h.wall:.1f} s wall, {h.cpu:.1f} s CPU); floors: the same "
                  f"nodes with no pods (leases only) {h.leases_cpu:.1f} s CPU, {h.leases_wall:.1f} s wall (ratio "
                  f"{h.cpu / h.leases_cpu:.2f}); the heartbeat writes priced alone {h.writes_cpu:.1f} s CPU (ratio "
                  f"{h.writes_cpu / h.cpu:.2f}); empty cluster {h.empty:,.0f}x; {h.renewals} lease renewals, "
                  f"{h.reports} node status writes, {h.patches} pod status patches, {h.events} Events created "
                  f"({h.occurrences} occurrences); {h.rewatches} re-watches priced "
                  f"{h.rewatch_cpu:.2f} s CPU (ratio {h.rewatch_cpu / h.cpu:.3f}); load {_load()}")
        for h in hoff:
            print(f"  run (Events off, same process): {h.cpu:.1f} s CPU ({h.wall:.1f} s wall); {h.patches} pod "
                  f"status patches; load {_load()}")
        print(f"{a.nodes} nodes x {a.pods} probed pods, {a.hours:g} h ({label}): "
              f"{med(h.speedup for h in hruns):,.0f}x virtual-time speed-up ({med(h.wall for h in hruns):.1f} s "
              f"wall, {med(h.cpu for h in hruns):.1f} s CPU; leases only {med(h.leases_cpu for h in hruns):.1f} s "
              f"CPU, ratio {med(h.cpu / h.leases_cpu for h in hruns):.2f}; the heartbeat writes priced alone "
              f"{med(h.writes_cpu for h in hruns):.1f} s CPU, ratio {med(h.writes_cpu / h.cpu for h in hruns):.2f}; "
              f"empty-cluster floor {med(h.empty for h in hruns):,.0f}x; median of {a.runs})")
        if hoff:
            print(f"  Events off: {med(h.cpu for h in hoff):.1f} s CPU; the Events are "
                  f"{med(1 - o.cpu / h.cpu for h, o in zip(hruns, hoff, strict=True)):.1%} of the hour "
                  f"({med(h.occurrences for h in hruns):,.0f} occurrences, "
                  f"{med(h.occurrences / (a.nodes * a.hours) for h in hruns):.0f} per node-hour)")


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


if __name__ == "__main__":
    asyncio.run(main())
