"""Who holds the memory per pod: an object walk from each component's roots (issue #17, memory).

    python bench/census.py --pods 900 --nodes 30 --steps 300 900

Runs bench/scale.py's workload (Deployments of 30 replicas with varied templates on a default cluster) and,
after each step, walks the objects reachable from each root in order (the store's tables, each node pool's,
scheduler's and controller manager's attributes, the data plane, the apiserver's attributes, then the
cluster, its tasks, clock and loop); an object reached from several roots counts for the first. It prints the
growth per added pod between the first and the last step, by root and its largest types. Sizes are
``sys.getsizeof`` (no allocator overhead), so the total is below the RSS growth; what it adds to tracemalloc
(``bench/scale.py --tracemalloc``, which says which line allocated) is who keeps the memory alive, and it
runs at full speed. Functions, tasks, coroutines, frames and timer handles are not walked into (they would
reach everything); msgspec Structs are walked through their fields (the API types are ``gc=False``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import sys
import types
from typing import Any

from scale import Running, deployment, fill

from kubelite.cluster import Cluster

_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType, types.FrameType,
           types.MethodType, functools.partial, asyncio.Task, asyncio.Future, types.CoroutineType,
           types.AsyncGeneratorType, types.GeneratorType, asyncio.Handle)


def walk(roots: list[Any], seen: set[int]) -> tuple[int, dict[str, int]]:
    """Bytes reachable from ``roots`` not already in ``seen`` (which it extends), and the same by type name."""
    size = 0
    by_type: dict[str, int] = {}
    stack = list(roots)
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, _OPAQUE):
            continue
        seen.add(id(o))
        s = sys.getsizeof(o)
        size += s
        name = type(o).__name__
        by_type[name] = by_type.get(name, 0) + s
        fields = getattr(type(o), "__struct_fields__", None)
        if fields is not None:  # (the API types are gc=False Structs: the collector cannot list their fields)
            stack.extend(getattr(o, f) for f in fields)
        else:
            stack.extend(gc.get_referents(o))
    return size, by_type


def roots(c: Cluster) -> list[tuple[str, list[Any]]]:
    out: list[tuple[str, list[Any]]] = []
    for t in c.store.tables.values():
        out += [(f"store {t.plural}: current", [t.objects]), (f"store {t.plural}: history", [t.history]),
                (f"store {t.plural}: pending", [t.pending, t.recent])]
    for pool in c.node_pools:
        out += [(f"node pool .{k}", [v]) for k, v in vars(pool).items()]
    for name, part in (("scheduler", c.scheduler), ("kcm", c.controller_manager)):
        if part is not None:
            out += [(f"{name} .{k}", [v]) for k, v in vars(part).items()]
    out += [("network", [c.network]), ("metrics-server", [c.metrics_server])]
    out += [(f"apiserver .{k}", [v]) for k, v in vars(c.apiserver).items()]
    out += [("cluster (rest)", [c]), ("tasks", [c._supervisor]), ("clock (timers)", [vars(c.clock)]),
            ("loop", [vars(asyncio.get_running_loop())])]
    return out


async def run(pods: int, nodes: int, steps: list[int]) -> None:
    results: list[tuple[int, dict[str, int], dict[tuple[str, str], int]]] = []
    async with Cluster(seed=1, tune_gc=True, nodes=nodes) as cluster:
        await cluster.settle()
        await cluster.advance(1)
        running = Running()
        cluster.store.observers.append(running)
        for ns in sorted({deployment(i, 1)["metadata"]["namespace"] for i in range(min(20, pods))}):
            await cluster.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        made = index = 0
        for target in steps:
            made, index = await fill(cluster, running, made, index, target)
            gc.collect()
            # the hubs everything refers back to are walked last
            seen = {id(cluster.clock), id(asyncio.get_running_loop()), id(cluster._supervisor)}
            by_root: dict[str, int] = {}
            by_type: dict[tuple[str, str], int] = {}
            for name, rs in roots(cluster):
                size, types_ = walk([r for r in rs if r is not None], seen)
                by_root[name] = by_root.get(name, 0) + size
                for t, v in types_.items():
                    by_type[(name, t)] = by_type.get((name, t), 0) + v
            results.append((made, by_root, by_type))
            print(f"  {made:,} pods Running: {sum(by_root.values()) / 2**20:,.1f} MiB reachable", flush=True)
    (a, ra, ta), (b, rb, tb) = results[0], results[-1]
    added = b - a
    total = sum(rb.values()) - sum(ra.values())
    print(f"  growth {a:,} -> {b:,} pods: {total / 1024 / added:.1f} KiB per added pod, by root (largest types):")
    for name in sorted(rb, key=lambda k: -(rb[k] - ra.get(k, 0))):
        d = (rb[name] - ra.get(name, 0)) / 1024 / added
        if abs(d) < 0.2:
            continue
        top = sorted(((t, (v - ta.get((r, t), 0)) / 1024 / added) for (r, t), v in tb.items() if r == name),
                     key=lambda x: -x[1])[:8]
        print(f"    {d:7.2f} KiB/pod  {name}  (" + ", ".join(f"{t} {v:.2f}" for t, v in top if v > 0.1) + ")")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", type=int, default=900)
    ap.add_argument("--nodes", type=int, default=30)
    ap.add_argument("--steps", type=int, nargs="*", default=None, help="cumulative pod counts (first and last compared)")
    args = ap.parse_args()
    steps = sorted(args.steps) if args.steps else [args.pods // 3, args.pods]
    asyncio.run(run(args.pods, args.nodes, steps))


if __name__ == "__main__":
    main()
