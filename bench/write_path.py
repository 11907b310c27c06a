"""The apiserver's write path, per request, in CPU time (issue #13: the registry split must not cost more
than 5%).

    python bench/write_path.py [--pods 5000] [--repeat 5]

For pod creates, merge patches, ``/status`` merge patches (the kubelets' hot path), server-side applies
and deletes through the in-process client, prints the best of ``--repeat`` runs in microseconds of
*process* CPU time per request (``time.process_time``), which a machine shared with other work disturbs
much less than wall time. To compare two trees run the same command with each on ``PYTHONPATH``,
alternating, and compare the best figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.client import Client
from kubelite.cluster import Cluster

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}


def pod(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i:06d}", "namespace": "default", "labels": {"app": f"app-{i % 50}", "tier": "web"}},
        "spec": {"containers": [{
            "name": "main", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "200m", "memory": "256Mi"}},
        }]},
    }


async def timed(n: int, fn: Callable[[int], Awaitable[Any]]) -> float:
    gc.collect()
    t0 = time.process_time()
    for i in range(n):
        await fn(i)
    return (time.process_time() - t0) / n * 1e6


async def one_run(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        c = cluster.client
        with await c.open_watch("pods", capacity=5 * n + 10):
            out.update(await _writes(c, n))
    return out


async def _writes(c: Client, n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    out["create"] = await timed(n, lambda i: c.create(pod(i)))
    out["merge patch"] = await timed(n, lambda i: c.patch(
        "pods", f"pod-{i:06d}", {"metadata": {"labels": {"rev": "2"}}}, patch_type="merge"))
    out["status patch"] = await timed(n, lambda i: c.patch("pods", f"pod-{i:06d}", {"status": {
        "phase": "Running", "podIP": f"10.0.{i // 250 % 256}.{i % 250 + 1}",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}],
    }}, patch_type="merge", subresource="status"))
    out["apply (create)"] = await timed(n, lambda i: c.apply(
        {**pod(i), "metadata": {"name": f"applied-{i:06d}", "namespace": "default"}}, field_manager="bench"))
    out["delete"] = await timed(n, lambda i: c.delete("pods", f"pod-{i:06d}"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for k, v in asyncio.run(one_run(args.pods)).items():
            best[k] = min(v, best.get(k, v))
    print(f"write path, {args.pods} pods, best of {args.repeat} (us of CPU per request)")
    for k, v in best.items():
        print(f"  {k:<16} {v:8.1f}")


if __name__ == "__main__":
    main()
