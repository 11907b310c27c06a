"""The history window's compaction on the raw store write (issue #17): a pod status update's ``Store.update``.

    python bench/compaction.py                 # 600 pods from a default cluster, 20 interleaved rounds
    python bench/compaction.py --pods 300 --rounds 6

The pods are real: a default cluster (controllers, scheduler, kubelets, managedFields and Events on) runs
Deployments of bench/scale.py's varied templates to Running, and their stored JSON (status, managedFields and
all, ~4 KiB each) is what the bench writes. Each round, for each variant in turn (interleaved, so load on the
machine hits them alike), a fresh store gets the pods and then ``--updates`` status updates of them (a
container's ``ready`` and a condition's time flipping, as the kubelet's status patches do), timed in CPU time:

- ``eager``: every superseded version deflated when it is superseded (``batch_bytes=1, batch_count=1``: stop 21's
  shape, one deflate stream per write);
- ``lazy``: the store's default batches (:data:`~kubelite.store.COMPACT_BATCH_BYTES` /
  :data:`~kubelite.store.COMPACT_BATCH_COUNT`);
- ``cold``: the default batches, and every current version cold one write after it was written
  (``cold_after=1``), so every update reads (inflates) a cold version: the worst case of coldness;
- the floor, ``plain``: nothing ever deflated (the store before stop 21).

It prints the best round's µs per update of each, the ratios between them, and the history bytes each keeps
per superseded version.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any

import msgspec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scale import deployment

from kubelite.cluster import Cluster
from kubelite.store import COMPACT_BATCH_BYTES, COMPACT_BATCH_COUNT, Store

#: (batch bytes, batch versions, cold after) per variant
VARIANTS: dict[str, tuple[int, int, int]] = {
    "eager": (1, 1, 2**62),
    "lazy": (COMPACT_BATCH_BYTES, COMPACT_BATCH_COUNT, 2**62),
    "cold": (COMPACT_BATCH_BYTES, COMPACT_BATCH_COUNT, 1),
    "plain": (2**62, 2**62, 2**62),
}


async def running_pods(n: int) -> list[dict[str, Any]]:
    """``n`` pods' stored JSON, from a default cluster that ran them to Running."""
    async with Cluster(seed=1, nodes=max(2, n // 30)) as cluster:
        await cluster.settle()
        client = cluster.client
        for i in range((n + 29) // 30):
            ns = deployment(i, 1)["metadata"]["namespace"]
            if cluster.store.get(cluster.store.table("", "namespaces"), "", ns) is None:
                await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            await client.create(deployment(i, min(30, n - 30 * i)))
        table = cluster.store.table("", "pods")
        while len(table) < n or not all(b'"phase":"Running"' in o.data for o in table.objects.values()):
            await cluster.advance(1)
        return [o.decode() for o in table.objects.values()]


def status_update(pod: dict[str, Any], k: int) -> dict[str, Any]:
    """``pod`` after its ``k``-th status change (a fresh dict: the store keeps nothing it was handed)."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(pod))
    status = out.setdefault("status", {})
    for cs in status.get("containerStatuses", []):
        cs["ready"] = k % 2 == 0
    for cond in status.get("conditions", []):
        if cond.get("type") == "Ready":
            cond["status"] = "True" if k % 2 == 0 else "False"
            cond["lastTransitionTime"] = f"2026-12-01T00:{k // 60 % 60:02d}:{k % 60:02d}Z"
    return out


def one_round(pods: list[dict[str, Any]], batch: tuple[int, int, int], updates: int) -> tuple[float, float]:
    """(CPU µs per status update, history bytes per superseded version) of one fresh store."""
    store = Store(batch_bytes=batch[0], batch_count=batch[1], cold_after=batch[2])
    table = store.add_table("", "pods", namespaced=True)
    for p in pods:
        store.create(table, msgspec.json.decode(msgspec.json.encode(p)))
    bodies = [status_update(pods[i % len(pods)], i // len(pods)) for i in range(updates)]
    t0 = time.process_time()
    for body in bodies:
        store.update(table, body)
    cpu = time.process_time() - t0
    old = [ev.size for ev in table.history if table.objects.get(ev.cur.key) is not ev.cur]
    held = sum(old) / max(1, len(old))
    return cpu / updates * 1e6, held


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", type=int, default=600)
    ap.add_argument("--updates", type=int, default=6000)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    pods = asyncio.run(running_pods(args.pods))
    size = sum(len(msgspec.json.encode(p)) for p in pods) / len(pods)
    print(f"compaction: {len(pods)} Running pods from a default cluster ({size:,.0f} B of JSON each), "
          f"{args.updates:,} status updates per round, {args.rounds} interleaved rounds; "
          f"load {os.getloadavg()[0]:.1f}")
    best: dict[str, float] = {}
    held: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, batch in VARIANTS.items():
            us, h = one_round(pods, batch, args.updates)
            if us < best.get(name, float("inf")):
                best[name] = us
            held[name] = h
    for name in VARIANTS:
        print(f"  {name:6s} {best[name]:7.1f} µs per raw status update  {held[name]:7,.0f} B of history per "
              f"superseded version")
    print(f"  eager/plain {best['eager'] / best['plain']:.2f}x   lazy/plain {best['lazy'] / best['plain']:.2f}x   "
          f"cold/plain {best['cold'] / best['plain']:.2f}x   lazy/eager {best['lazy'] / best['eager']:.2f}x; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
