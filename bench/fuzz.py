"""Fuzzing benchmarks (issue #10). Prints figures, never asserts them.

    python bench/fuzz.py [--runs 200] [--campaigns 10] [--workers 2]

- **Runs per second** of the docs' small operator (``examples/fuzzing/configsets.py:fixed``: an API-only
  cluster, its CRD, one controller, a short story and 120 s of virtual quiet time, every run perturbed) on
  one core (``workers=1``: wall time and this process's CPU time) and with ``--workers`` local processes
  (wall time; CPU time of the children). CPU seconds are what "per core" means and stay meaningful on a
  loaded machine, where wall time also counts other processes' turns.
- **Time to first finding** for each planted bug of ``tests/fuzz/planted.py``: ``--campaigns`` campaigns,
  each from its own first seed (0, 1000, 2000, ...), stopping at the first failure; the median wall and CPU
  time, and the median number of runs.
- **Shrinking** each campaign's first failure: median wall/CPU time and the median and worst size of the
  minimal schedule.

Targets (issue #10): >= 50 runs/s per core; each planted bug found in <= 10 s median; shrinking to
<= 5 decisions in <= 5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KUBELITE_LOG_LEVEL", "error")

from examples.fuzzing import configsets  # noqa: E402
from kubelite.fuzz import fuzz, shrink  # noqa: E402
from kubelite.logs import configure  # noqa: E402
from tests.fuzz import planted  # noqa: E402

BUGS = {"stale-cache": planted.replicas_buggy, "event-counter": planted.tally_buggy,
        "crash-between-writes": planted.config_buggy}


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def throughput(runs: int, workers: int) -> None:
    wall, cpu, kids = time.perf_counter(), time.process_time(), children_cpu()
    report = fuzz(configsets.fixed, budget=None, runs=runs, workers=workers, stop_on_failure=False)
    wall, cpu, kids = time.perf_counter() - wall, time.process_time() - cpu, children_cpu() - kids
    spent = cpu if workers == 1 else kids
    print({"phase": "throughput", "workers": workers, "runs": report.runs, "failures": report.failures,
           "wall_s": round(wall, 2), "runs_per_s_wall": round(report.runs / wall, 1),
           "cpu_s": round(spent, 2), "runs_per_cpu_s": round(report.runs / spent, 1) if spent else None,
           "decision_kinds": len(report.coverage)}, flush=True)


def findings(campaigns: int) -> None:
    for name, target in BUGS.items():
        walls, cpus, runs, shrink_walls, shrink_cpus, sizes, before = [], [], [], [], [], [], []
        for k in range(campaigns):
            wall, cpu = time.perf_counter(), time.process_time()
            report = fuzz(target, budget=60, seed=1000 * k)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            runs.append(report.runs)
            if report.failure is None:
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            small = shrink(report.failure, target=target)
            shrink_walls.append(time.perf_counter() - wall)
            shrink_cpus.append(time.process_time() - cpu)
            sizes.append(len(small.schedule))
            before.append(len(report.failure.schedule))
        print({"phase": "first finding", "bug": name, "campaigns": campaigns, "found": len(sizes),
               "median_wall_s": round(statistics.median(walls), 3), "median_cpu_s": round(statistics.median(cpus), 3),
               "median_runs": statistics.median(runs), "max_runs": max(runs)}, flush=True)
        if sizes:
            print({"phase": "shrink", "bug": name, "median_wall_s": round(statistics.median(shrink_walls), 3),
                   "median_cpu_s": round(statistics.median(shrink_cpus), 3), "median_from": statistics.median(before),
                   "median_size": statistics.median(sizes), "max_size": max(sizes)}, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--campaigns", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    configure("error")
    print({"load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}, flush=True)
    throughput(args.runs, 1)
    throughput(args.runs, args.workers)
    findings(args.campaigns)


if __name__ == "__main__":
    main()
