"""Shared views (issue #17 item 1): what freezing costs and what interning saves, per stored pod version.

    python bench/views.py                 # 8 Deployments x 30 replicas of bench/scale.py's varied templates

The pods are bench/scale.py's (every template differs: image, resources, labels, env, probes), run to Running on
a default cluster, so each stored version has managedFields, a status and the fields defaulting adds. For each
pod's stored JSON the bench times, in CPU seconds (best of ``--rounds``):

- ``decode``: what an informer paid per consumer before views were shared (a msgspec decode into ``Pod``, with
  managedFields dropped);
- ``view``: what :func:`kubelite.api.views.shared_view` pays once per version for every consumer together (the
  same decode, then :func:`~kubelite.api.views.freeze`: read-only twins, frozen lists and dicts, strings interned);

and the live memory of all the pods' views (tracemalloc), typed (the control plane's) and dict (the kubelets'),
frozen and interned against a plain private decode. In-run ratios only: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import msgspec

sys.path.insert(0, os.path.dirname(__file__))

from scale import deployment

from kubelite.api.types import Pod
from kubelite.api.views import StoredBytes, _strip_managed_fields, shared_view
from kubelite.cluster import Cluster

_pod_decoder = msgspec.json.Decoder(Pod)
_untyped = msgspec.json.Decoder()


async def stored_pods(deployments: int) -> list[bytes]:
    """The stored JSON of every pod of ``deployments`` Deployments of 30, once all are Running."""
    async with Cluster(seed=1, nodes=max(2, deployments)) as cluster:
        for ns in sorted({deployment(i, 1)["metadata"]["namespace"] for i in range(deployments)}):
            await cluster.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        for i in range(deployments):
            await cluster.client.create(deployment(i, 30))
        table = cluster.store.table("", "pods")
        while sum(b'"phase":"Running"' in o.data for o in table.objects.values()) < 30 * deployments:
            await cluster.advance(1)
        return [bytes(o.data) for o in table.objects.values()]


def per_call(fn: Callable[[bytes], Any], blobs: list[bytes], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for b in blobs:
            fn(b)
        best = min(best, (time.process_time() - t) / len(blobs))
    return best


def live(make: Callable[[bytes], Any], blobs: list[bytes]) -> float:
    """Live bytes per object of ``make(blob)`` for every blob, all held at once."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    held = [make(b) for b in blobs]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del held
    return (after - before) / len(blobs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deployments", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    blobs = asyncio.run(stored_pods(args.deployments))
    size = sum(map(len, blobs)) / len(blobs)
    print(f"views: {len(blobs)} Running pods, stored JSON {size:,.0f} B each; load {os.getloadavg()[0]:.1f}")
    for name, tp, plain in (("typed", Pod, _pod_decoder.decode), ("dict", None, _untyped.decode)):
        def private(b: bytes, plain: Callable[[bytes], Any] = plain) -> Any:
            return _strip_managed_fields(plain(b))

        def view(b: bytes, tp: Any = tp) -> Any:
            return shared_view(StoredBytes(b), tp)

        d, v = per_call(private, blobs, args.rounds), per_call(view, blobs, args.rounds)
        mp, mv = live(private, blobs), live(view, blobs)
        print(f"  {name:>5}: private decode {d * 1e6:6.1f} us, frozen view {v * 1e6:6.1f} us ({v / d:.2f}x, paid once "
              f"per version for all consumers); live {mp / 1024:5.1f} KiB private, {mv / 1024:5.1f} KiB frozen and "
              f"interned ({mv / mp:.2f}x)")


if __name__ == "__main__":
    main()
