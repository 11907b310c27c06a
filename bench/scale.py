"""Scale benchmark (issue #17): Deployments of 30 replicas to all Running on a default cluster.

    python bench/scale.py                          # the full curve: 10k, 50k, 100k, 150k pods on 5,000 nodes
    python bench/scale.py --pods 3000 --nodes 100  # a small run (CI / development)
    python bench/scale.py --pods 1500 --nodes 50 --tracemalloc   # where the live memory is

What runs is the default cluster: every built-in controller, the default kube-scheduler profile, one fake
kubelet per node, the data plane, managedFields on and Events on. The pods are Deployments of 30 replicas
(the last one smaller when ``--pods`` is not a multiple of 30) whose templates all differ: their own image
(a distinct repository and tag per Deployment, so no memo table can hit across them), requests and limits,
labels, environment variables, ports and liveness/readiness probes, as real workloads differ.

The pods are created in steps (``--steps``, default the curve's 10k/50k/100k/150k, scaled down to the
requested size); after each step the bench waits until every pod of the cluster is Running as the API
stores it, then prints a row: pods, CPU seconds, wall seconds and the RSS so far, plus the marginal
cost of the step per 1,000 pods (the curve is linear when the marginal figures stay flat). The final line
gives peak RSS (the kernel's high-water mark) and KiB per pod (RSS growth over the empty cluster with its
nodes, divided by pods). An in-run floor: the process's RSS with the nodes registered and no pods.

``--tracemalloc`` traces allocations during the run and prints the live memory at the end, grouped by
kubelite module (and the top lines): which layer holds what.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import msgspec

from kubelite.api.views import STATS
from kubelite.cluster import Cluster
from kubelite.store import CompactObject

#: the full run (the issue's curve); ``--pods`` scales it down
CURVE = (10_000, 50_000, 100_000, 150_000)
REPLICAS = 30
_RUNNING = b'"phase":"Running"'


def rss_kib() -> tuple[int, int]:
    """(current RSS, peak RSS) in KiB, from /proc (ru_maxrss as a fallback for the peak)."""
    cur = peak = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    cur = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1])
    except OSError:
        pass
    return cur, peak or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def deployment(i: int, replicas: int) -> dict[str, Any]:
    """Deployment ``i``: a template unlike any other's (image, resources, labels, env, probes)."""
    team = f"team-{i % 37}"
    app = f"svc-{i:05d}"
    cpu = 20 + (i * 7) % 180  # 20m..199m: 30 of them fit an 8-CPU node
    mem = 32 + (i * 13) % 224  # 32Mi..255Mi
    port = 8000 + i % 1000
    labels = {"app": app, "team": team, "tier": ("web", "api", "worker", "cache")[i % 4],
              "version": f"v{1 + i % 9}"}
    probe_http = {"httpGet": {"path": "/healthz", "port": port}, "periodSeconds": 10 + i % 5,
                  "timeoutSeconds": 1 + i % 3}
    container: dict[str, Any] = {
        "name": "app",
        "image": f"registry.example.com/{team}/{app}:1.{i % 17}.{i % 101}",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"name": "http", "containerPort": port}],
        "env": [{"name": "APP_NAME", "value": app}, {"name": "TEAM", "value": team},
                {"name": "LOG_LEVEL", "value": ("info", "debug", "warn")[i % 3]},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"},
                      "limits": {"cpu": f"{cpu * 2}m", "memory": f"{mem * 2}Mi"}},
        "readinessProbe": probe_http,
    }
    if i % 2 == 0:
        container["livenessProbe"] = {"tcpSocket": {"port": port}, "periodSeconds": 15, "failureThreshold": 3}
    containers = [container]
    if i % 5 == 0:  # a sidecar on every fifth workload
        containers.append({"name": "log-shipper", "image": f"registry.example.com/infra/shipper:{i % 7}.0",
                           "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}})
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app, "namespace": f"ns-{i % 20}", "labels": {"app": app, "team": team}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": labels, "annotations": {"example.com/owner": team}},
                         "spec": {"containers": containers, "terminationGracePeriodSeconds": 10 + i % 20}},
        },
    }


def plan(pods: int, steps: list[int] | None) -> list[int]:
    """The cumulative pod counts after each step."""
    if steps:
        return sorted(s for s in steps if s <= pods) or [pods]
    if pods >= CURVE[-1]:
        return [*CURVE[:-1], pods] if pods > CURVE[-1] else list(CURVE)
    scale = pods / CURVE[-1]
    out = sorted({max(REPLICAS, round(c * scale / REPLICAS) * REPLICAS) for c in CURVE[:-1]})
    return [c for c in out if c < pods] + [pods]


class Running:
    """Counts pods whose stored status says Running (a store observer: what the API says, no decode)."""

    def __init__(self) -> None:
        self.running: set[str] = set()

    def __call__(self, table: Any, type_: str, rv: int, cur: Any, prev: Any) -> None:
        if table.plural != "pods" or table.group:
            return
        if type_ != "DELETED" and _RUNNING in cur.data:
            self.running.add(cur.key)
        else:
            self.running.discard(cur.key)


async def fill(cluster: Cluster, running: Running, made: int, index: int, target: int) -> tuple[int, int]:
    """Create Deployments from ``index`` on until ``target`` pods are asked for, then wait until all are Running;
    returns the pods made and the next Deployment's index."""
    while made < target:
        n = min(REPLICAS, target - made)
        await cluster.client.create(deployment(index, n))
        index += 1
        made += n
        if index % 20 == 0:
            await cluster.settle()
    while len(running.running) < made:
        await cluster.advance(1)
    return made, index


async def run(pods: int, nodes: int, steps: list[int], trace: bool) -> None:
    load = os.getloadavg()[0]
    print(f"scale: {pods:,} pods (Deployments of {REPLICAS}) on {nodes:,} nodes; default cluster; load {load:.1f}")
    t_start, c_start = time.perf_counter(), time.process_time()
    async with Cluster(seed=1, tune_gc=True, nodes=nodes) as cluster:
        await cluster.settle()
        await cluster.advance(1)
        v0 = cluster.now
        running = Running()
        cluster.store.observers.append(running)
        gc.collect()
        base_rss, _ = rss_kib()
        print(f"  cluster with {nodes:,} nodes up: {time.perf_counter() - t_start:.1f} s wall, "
              f"{time.process_time() - c_start:.1f} s CPU, RSS {base_rss / 1024:,.0f} MiB (the floor)")
        print(f"  {'pods':>8} {'CPU s':>8} {'wall s':>8} {'RSS MiB':>8} {'KiB/pod':>8} | per 1k pods this step: "
              f"{'CPU s':>6} {'wall s':>6} {'MiB':>6}")
        client = cluster.client
        for ns in sorted({deployment(i, 1)["metadata"]["namespace"] for i in range(min(20, pods))}):
            await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        made = 0
        index = 0
        t0, c0 = time.perf_counter(), time.process_time()
        prev = (0, 0.0, 0.0, base_rss)
        snaps: list[tuple[int, tracemalloc.Snapshot, dict[str, int]]] = []
        for target in steps:
            made, index = await fill(cluster, running, made, index, target)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            rss, _ = rss_kib()
            k = (made - prev[0]) / 1000
            print(f"  {made:>8,} {cpu:>8.1f} {wall:>8.1f} {rss / 1024:>8,.0f} {(rss - base_rss) / made:>8.1f} | "
                  f"{'':>22}{(cpu - prev[1]) / k:>6.2f} {(wall - prev[2]) / k:>6.2f} "
                  f"{(rss - prev[3]) / 1024 / k:>6.1f}")
            prev = (made, cpu, wall, rss)
            if trace:
                gc.collect()
                snaps.append((made, tracemalloc.take_snapshot(), store_census(cluster)))
        rss, peak = rss_kib()
        print(f"  all {made:,} Running: {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU "
              f"({cluster.now - v0:.0f} s of cluster time); "
              f"peak RSS {peak / 1024:,.0f} MiB; {(rss - base_rss) / made:.1f} KiB per pod over the floor; "
              f"load {os.getloadavg()[0]:.1f}")
        writes = cluster.store.writes
        print(f"  informer decodes: {STATS.decoded:,} shared views built, {STATS.hits:,} handed out again, "
              f"{STATS.fresh:,} private (superseded or re-encoded versions); {writes:,} store writes")
        if trace:
            report_tracemalloc()
            if len(snaps) >= 2:
                report_attribution(snaps[0], snaps[-1])


def _module(filename: str) -> str:
    """``kubelite/informer/store.py`` -> ``kubelite.informer``; anything else -> its top directory."""
    parts = filename.replace(os.sep, "/").split("/")
    if "kubelite" in parts:
        i = len(parts) - 1 - parts[::-1].index("kubelite")
        mod = parts[i:-1] or ["kubelite"]
        return ".".join(mod[:2])
    for marker in ("site-packages", "lib"):
        if marker in parts:
            j = parts.index(marker)
            return parts[j + 1] if j + 1 < len(parts) else filename
    return parts[-1]


def report_tracemalloc() -> None:
    gc.collect()
    snap = tracemalloc.take_snapshot()
    stats = snap.statistics("lineno")
    total = sum(s.size for s in stats)
    by_mod: dict[str, int] = {}
    for s in stats:
        mod = _module(s.traceback[0].filename)
        by_mod[mod] = by_mod.get(mod, 0) + s.size
    print(f"  tracemalloc: {total / 2**20:,.1f} MiB live, by module:")
    for mod, size in sorted(by_mod.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    {size / 2**20:8.1f} MiB {size / total:6.1%}  {mod}")
    print("  top lines:")
    for s in _top(stats, 12):
        fr = s.traceback[0]
        print(f"    {s.size / 2**20:8.1f} MiB {s.size / total:6.1%}  {fr.filename.split('kubelite/')[-1]}:{fr.lineno}")


#: subsystem of an allocation: the innermost kubelite frame whose path starts with one of these (first match)
SUBSYSTEMS = (
    ("kubelite/store/watch.py", "store: watch queues"),
    ("kubelite/store/", "store: JSON per version (current + history)"),
    ("kubelite/apiserver/ssa/", "apiserver: managedFields (ssa)"),
    ("kubelite/apiserver/event_ttl.py", "events (TTL)"),
    ("kubelite/apiserver/", "apiserver (other)"),
    ("kubelite/api/views.py", "shared views (frozen, interned)"),
    ("kubelite/informer/", "informer indexers, FIFOs"),
    ("kubelite/client/", "client decodes (private copies)"),
    ("kubelite/kubelet/", "kubelet state"),
    ("kubelite/scheduler/", "scheduler (cache, queue, explanations)"),
    ("kubelite/events/", "events (recorder, correlator)"),
    ("kubelite/workqueue/", "workqueues"),
    ("kubelite/controllers/", "controllers' own maps"),
    ("kubelite/network/", "data plane"),
    ("kubelite/metricsserver/", "metrics-server"),
    ("kubelite/scenario/", "metrics/scenario"),
)
#: frames that only pass an allocation through (a decode helper): attribute to their caller
_PASS_THROUGH = ("kubelite/api/codec.py", "kubelite/memo.py", "kubelite/api/types/")


def subsystem(tb: tracemalloc.Traceback) -> tuple[str, str]:
    """The subsystem that holds an allocation (see :data:`SUBSYSTEMS`) and the line, from its innermost
    kubelite frame."""
    for frame in reversed(tb):  # innermost first (a Traceback runs oldest first)
        path = frame.filename.replace(os.sep, "/")
        i = path.rfind("kubelite/")
        if i < 0 or "/bench/" in path:
            continue
        rel = path[i:]
        if rel.startswith(_PASS_THROUGH):
            continue
        where = f"{rel.removeprefix('kubelite/')}:{frame.lineno}"
        for prefix, name in SUBSYSTEMS:
            if rel.startswith(prefix):
                return name, where
        return "other kubelite: " + ".".join(rel.split("/")[1:3]).removesuffix(".py"), where
    return "outside kubelite (asyncio, msgspec internals, ...)", ""


def store_census(cluster: Cluster) -> dict[str, int]:
    """What the store holds, counted directly: per table the current JSON, the history's versions that are not
    current, and the managedFields share of the current pods' JSON."""
    out: dict[str, int] = {}
    for table in cluster.store.tables.values():
        name = table.plural
        cur = sum(len(o.data) for o in table.objects.values())
        held = sum(o.held if isinstance(o, CompactObject) else len(o.data) for o in table.objects.values())
        out[f"{name}: current bytes held"] = out.get(f"{name}: current bytes held", 0) + held
        hist_events = [ev for ev in table.history if ev.cur is not table.objects.get(ev.cur.key)]
        hist = sum(len(ev.cur.data) for ev in hist_events)
        out[f"{name}: history-only bytes held"] = (
            out.get(f"{name}: history-only bytes held", 0) + sum(ev.size for ev in hist_events))
        out[f"{name}: current JSON"] = out.get(f"{name}: current JSON", 0) + cur
        out[f"{name}: history-only JSON"] = out.get(f"{name}: history-only JSON", 0) + hist
        out[f"{name}: objects"] = out.get(f"{name}: objects", 0) + len(table.objects)
        if name == "pods" and not table.group:
            mf = 0
            for o in table.objects.values():
                d = msgspec.json.decode(o.data)
                mf += len(msgspec.json.encode(d["metadata"].get("managedFields") or []))
            out["pods: managedFields JSON (current)"] = mf
    return out


def report_attribution(a: tuple[int, tracemalloc.Snapshot, dict[str, int]],
                       b: tuple[int, tracemalloc.Snapshot, dict[str, int]]) -> None:
    """The live-memory growth between two steps, per added pod, by subsystem (tracemalloc), and the store's
    census at both steps."""
    (pods_a, snap_a, census_a), (pods_b, snap_b, census_b) = a, b
    added = pods_b - pods_a
    grown: dict[str, int] = {}
    lines: dict[str, dict[str, int]] = {}
    for diff in snap_b.compare_to(snap_a, "traceback"):
        key, where = subsystem(diff.traceback)
        grown[key] = grown.get(key, 0) + diff.size_diff
        per = lines.setdefault(key, {})
        per[where] = per.get(where, 0) + diff.size_diff
    total = sum(grown.values())
    print(f"  live heap growth {pods_a:,} -> {pods_b:,} pods: {total / 2**20:,.1f} MiB, "
          f"{total / 1024 / added:.1f} KiB per added pod, by subsystem (and its largest lines):")
    for key, size in sorted(grown.items(), key=lambda kv: -kv[1]):
        if abs(size) >= 0.002 * abs(total):
            top = sorted(lines[key].items(), key=lambda kv: -kv[1])[:3]
            detail = ", ".join(f"{w} {v / 1024 / added:.2f}" for w, v in top if w and v > 0.1 * size)
            print(f"    {size / 1024 / added:7.2f} KiB/pod {size / total:6.1%}  {key}" + (f"  ({detail})" if detail else ""))
    print("  store census (bytes; per added pod):")
    for key in sorted(census_b):
        va, vb = census_a.get(key, 0), census_b[key]
        if vb - va:
            unit = "" if key.endswith("objects") else " B"
            print(f"    {key:<40} {va:>12,} -> {vb:>12,}{unit}  ({(vb - va) / added:,.1f} per pod)")


def _top(stats: list[tracemalloc.Statistic], n: int) -> Iterator[tracemalloc.Statistic]:
    yield from sorted(stats, key=lambda s: -s.size)[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", type=int, default=CURVE[-1])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--steps", type=int, nargs="*", help="cumulative pod counts to report at")
    ap.add_argument("--tracemalloc", action="store_true", help="attribute live memory by module at the end")
    args = ap.parse_args()
    if args.tracemalloc:
        tracemalloc.start(5)
    asyncio.run(run(args.pods, args.nodes, plan(args.pods, args.steps), args.tracemalloc))


if __name__ == "__main__":
    main()
