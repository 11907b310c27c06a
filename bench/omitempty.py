"""What Go's ``omitempty`` rule (``kubelite/api/omitempty.py``) costs the write path: an in-run A/B.

    python bench/omitempty.py [--rounds 4] [--n 150]

- The walk alone: one running pod's object (with status and managedFields), ``timeit`` min of 7 × 500, CPU time.
- Writes through the in-process client, CPU µs each: pod creates whose every spec is its own, creates from one
  template (the per-template memo's hit), and pod ``/status`` merge patches; rounds alternate the rule on and
  off (off: the walk replaced by a no-op) in the same process, and each figure is the minimum over its rounds.

Figures only, no assertions (the latest are in bench/RESULTS.md under "#11 GET over HTTP, and the cost of
Go's omitempty on writes").
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kubelite
from kubelite.api import omitempty


def _pod(name: str, image: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": image, "ports": [{"containerPort": 80}],
                                     "env": [{"name": "A", "value": "1"}],
                                     "readinessProbe": {"httpGet": {"path": "/", "port": 80}},
                                     "resources": {"requests": {"cpu": "10m"}}}]}}


async def _walk_us() -> float:
    async with kubelite.Cluster(seed=1, nodes=1) as cluster:
        await cluster.client.create(_pod("p", "nginx:1.25"), namespace="default")
        await cluster.advance(30)
        pod = await cluster.client.get("pods", "p", namespace="default")
    return min(timeit.repeat(lambda: omitempty.omit_empty(pod), number=500, repeat=7, timer=time.process_time)) / 500 * 1e6


async def _writes(rounds: int, n: int, clock: Any) -> dict[str, dict[str, float]]:
    """CPU µs per write (``clock``: ``time.process_time``), or Python calls per write (a cProfile counter)."""
    real = omitempty._walk
    out: dict[str, dict[str, float]] = {"on": {}, "off": {}}
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as cluster:
        c = cluster.client
        for rnd in range(rounds * 2):
            mode = "on" if rnd % 2 == 0 else "off"
            omitempty._walk = real if mode == "on" else (lambda obj, plan: None)  # type: ignore[assignment]
            time = clock
            try:
                figures: dict[str, float] = {}
                t = time.process_time()
                for i in range(n):
                    await c.create(_pod(f"d{rnd}-{i}", f"nginx:{rnd}-{i}"), namespace="default")
                figures["distinct create"] = (time.process_time() - t) / n * 1e6
                t = time.process_time()
                for i in range(n):
                    await c.create(_pod(f"t{rnd}-{i}", "nginx:same"), namespace="default")
                figures["templated create"] = (time.process_time() - t) / n * 1e6
                t = time.process_time()
                for i in range(n):
                    await c.patch("pods", f"t{rnd}-{i}", {"status": {
                        "phase": "Running", "podIP": f"10.0.{rnd}.{i % 250}",
                        "conditions": [{"type": "Ready", "status": "True"}]}},
                        namespace="default", subresource="status", patch_type="merge")
                figures["pod status patch"] = (time.process_time() - t) / n * 1e6
            finally:
                omitempty._walk = real
            if rnd >= 2:  # the first pair warms the memo tables
                for k, v in figures.items():
                    out[mode][k] = min(out[mode].get(k, v), v)
    return out


class _Calls:
    """A stand-in for the ``time`` module whose ``process_time()`` is the Python calls made so far (a cProfile
    running for the whole A/B), so ``_writes`` reports calls per write instead of µs."""

    def __init__(self) -> None:
        self.prof = cProfile.Profile()
        self.prof.enable()

    def process_time(self) -> float:
        self.prof.disable()
        calls = pstats.Stats(self.prof).total_calls
        self.prof.enable()
        return calls / 1e6  # _writes multiplies by 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--n", type=int, default=150)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    walk = asyncio.run(_walk_us())
    writes = asyncio.run(_writes(args.rounds, args.n, time))
    calls = asyncio.run(_writes(2, args.n, _Calls()))
    print(f"load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end (2 cores)")
    print(f"walk of a running pod (status, managedFields)   {walk:7.1f} us")
    for k in writes["on"]:
        on, off = writes["on"][k], writes["off"][k]
        con, coff = calls["on"][k], calls["off"][k]
        print(f"{k:20s} rule on {on:7.1f} us CPU   off {off:7.1f}   on/off {on / off:.3f}   "
              f"Python calls {con:6.0f} vs {coff:6.0f} (+{con - coff:.0f}, load-independent)")


if __name__ == "__main__":
    main()
