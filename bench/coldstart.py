"""Cold start: the first cluster in a fresh process, against the import floor of the design card's dependencies.

Issue #17's target: the first cluster in a fresh process (imports included, bytecode cached) costs at most
100 ms more than importing the design card's dependencies (anyio, msgspec, sortedcontainers, structlog,
click, PyYAML). Each sample is a fresh interpreter; the floor and the cluster runs alternate, so both see
the same machine load, and the figures are medians. Times are taken inside the child from its first line
(interpreter start-up, the same for both, is not counted).

    python bench/coldstart.py                 # 7 samples of each, plus the -X importtime breakdown
    python bench/coldstart.py --runs 15 --top 25

What a sample of the cluster run does: ``from kubelite import Cluster``, then ``async with Cluster(seed=1)``
(the default cluster: apiserver, every built-in controller, the scheduler) and exit; it also times a second
cluster in the same process, which shows what is start-up work rather than import work.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

DEPENDENCIES = ("anyio", "msgspec", "sortedcontainers", "structlog", "click", "yaml")

FLOOR = f"""
import time
t0 = time.perf_counter()
import {", ".join(DEPENDENCIES)}
import json; print(json.dumps({{"deps": time.perf_counter() - t0}}))
"""

CLUSTER = f"""
import time
t0 = time.perf_counter()
import {", ".join(DEPENDENCIES)}
t1 = time.perf_counter()
import asyncio
from kubelite import Cluster
t2 = time.perf_counter()

async def one() -> None:
    async with Cluster(seed=1):
        pass

asyncio.run(one())
t3 = time.perf_counter()
asyncio.run(one())
t4 = time.perf_counter()
import json; print(json.dumps({{"deps": t1 - t0, "kubelite_import": t2 - t1, "first_cluster": t3 - t2,
                                "total": t3 - t0, "second_cluster": t4 - t3}}))
"""


#: bytecode is cached in a private directory (written by the warm-up run): the target is "bytecode cached",
#: and an environment with PYTHONDONTWRITEBYTECODE=1 (as on this machine) would otherwise compile every
#: module from source in every sample
PYCACHE = tempfile.mkdtemp(prefix="kubelite-coldstart-pycache-")


def _child(code: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PYTHONPYCACHEPREFIX": PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run([sys.executable, *extra, "-c", code], env=env, capture_output=True, text=True,
                          check=True, cwd=ROOT)


def _sample(code: str) -> dict[str, float]:
    out: dict[str, float] = json.loads(_child(code).stdout.strip().splitlines()[-1])
    return out


def importtime(top: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(kubelite modules by self time, top-level packages by cumulative time), in microseconds."""
    err = _child(CLUSTER, "-X", "importtime").stderr
    own: list[tuple[str, int]] = []
    packages: dict[str, int] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:"):].split("|")
        mod = name.strip()
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        if mod.startswith("kubelite"):
            own.append((mod, int(self_us)))
        if depth == 0:
            top_name = mod.split(".")[0]
            packages[top_name] = packages.get(top_name, 0) + int(cumulative_us)
    own.sort(key=lambda kv: -kv[1])
    return own[:top], sorted(packages.items(), key=lambda kv: -kv[1])[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="samples of each (default 7)")
    ap.add_argument("--top", type=int, default=15, help="rows of the import-time breakdown (default 15)")
    args = ap.parse_args()

    _sample(CLUSTER)  # warm-up: bytecode cached, as the target says
    _sample(CLUSTER)
    floors: list[float] = []
    runs: list[dict[str, float]] = []
    for _ in range(args.runs):
        floors.append(_sample(FLOOR)["deps"])
        runs.append(_sample(CLUSTER))

    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs) * 1000

    floor = statistics.median(floors) * 1000
    total = med("total")
    load = os.getloadavg()[0]
    print(f"cold start, median of {args.runs} fresh processes (load average {load:.1f}, {os.cpu_count()} CPUs):")
    print(f"  dependency import floor      {floor:8.1f} ms   ({', '.join(DEPENDENCIES)})")
    print(f"  first cluster, imports incl. {total:8.1f} ms   = deps {med('deps'):.1f} + kubelite import "
          f"{med('kubelite_import'):.1f} + first start/exit {med('first_cluster'):.1f}")
    print(f"  above the floor              {total - floor:8.1f} ms   (target: <= 100 ms)")
    print(f"  a second cluster             {med('second_cluster'):8.1f} ms")
    own, packages = importtime(args.top)
    print(f"\n-X importtime, kubelite modules by self time (top {args.top}):")
    for mod, us in own:
        print(f"  {us / 1000:8.1f} ms  {mod}")
    print("\n-X importtime, top-level imports by cumulative time:")
    for mod, us in packages:
        print(f"  {us / 1000:8.1f} ms  {mod}")


if __name__ == "__main__":
    main()
