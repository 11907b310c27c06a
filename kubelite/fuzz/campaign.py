"""Campaigns: run seed after seed against a target until a wall-clock budget or a run count is spent.

- Seeds are ``seed, seed + 1, ...``; each run generates its own schedule from its seed and the knobs
  (:mod:`kubelite.fuzz.run`), so any run of a campaign is reproduced by its seed alone.
- ``workers=1`` runs everything in this process, one event loop, run after run. ``workers=N`` hands chunks of
  consecutive seeds to N local processes (``concurrent.futures``: each
  worker imports the target by its ``module:attribute`` reference; ``fork`` where that is safe, which
  starts a worker in milliseconds). ``dask=`` shards the same chunks over a
  Dask ``distributed`` cluster instead (an address, or ``"local"`` for a ``LocalCluster`` of ``workers``
  processes; the ``kubelite[distributed]`` extra). Whatever runs them, chunk results merge into one
  :class:`CampaignReport`, and with ``stop_on_failure`` no new chunk starts after the first failure.
- The budget is wall-clock time of the campaign driver only: it decides how many runs happen, never what
  happens inside one.
- ``progress`` is called about once a second with a :class:`CampaignReport` so far (the CLI prints it as
  one line: runs, runs/s, failures, coverage of the decision points).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import multiprocessing
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from kubelite.fuzz.run import RunResult, run_one_async
from kubelite.fuzz.schedule import ACTIONS, Knobs
from kubelite.fuzz.target import FuzzTarget, load_target

__all__ = ["CampaignReport", "fuzz", "parse_budget"]

#: seeds per chunk handed to a worker (about a second of work for a small operator)
CHUNK = 24
#: every kind of decision a run can take, for the coverage figure
ALL_DECISIONS = sorted(f"{family}.{action}" if not family.endswith(action) else family
                       for family, actions in ACTIONS.items() for action in actions)


class CampaignReport(msgspec.Struct, kw_only=True):
    """The outcome of a campaign: runs, failures and their seeds, the first failing run (and where it was saved),
    coverage of decision kinds and points, and the elapsed time."""

    target: str | None
    runs: int = 0
    failures: int = 0
    failing_seeds: list[int] = []
    elapsed: float = 0.0
    #: decision kinds ("watch.delay", "crash", ...) taken at least once, with how many runs took them
    coverage: dict[str, int] = {}
    #: perturbation point families reached at least once
    points: list[str] = []
    failure: RunResult | None = None
    path: str | None = None

    @property
    def runs_per_second(self) -> float:
        """Runs per second of elapsed time (0 before any time has passed)."""
        return self.runs / self.elapsed if self.elapsed > 0 else 0.0

    def line(self) -> str:
        """The progress line."""
        return (f"runs {self.runs}  {self.runs_per_second:.0f}/s  failures {self.failures}  "
                f"points {len(self.points)}/{len(ACTIONS)}  decisions {len(self.coverage)}/{len(ALL_DECISIONS)}"
                f"  {self.elapsed:.1f}s")

    def merge(self, chunk: _Chunk) -> None:
        """Add one worker's chunk of runs (counts, coverage, failures) to this report."""
        self.runs += chunk.runs
        for kind, n in chunk.coverage.items():
            self.coverage[kind] = self.coverage.get(kind, 0) + n
        self.points = sorted(set(self.points) | set(chunk.points))
        for f in chunk.failures:
            self.failures += 1
            self.failing_seeds.append(f.seed)
            if self.failure is None or f.seed < self.failure.seed:
                self.failure = f
        self.failing_seeds.sort()


class _Chunk(msgspec.Struct, kw_only=True):
    runs: int = 0
    coverage: dict[str, int] = {}
    points: list[str] = []
    failures: list[RunResult] = []


def parse_budget(budget: float | str | None) -> float | None:
    """``60``, ``"60s"``, ``"2m"``, ``"1h"`` → seconds (None: no time limit)."""
    if budget is None or isinstance(budget, int | float):
        return None if budget is None else float(budget)
    text = budget.strip()
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    return float(text)


def _kind(d: Any) -> str:
    return d.family if d.family.endswith(d.action) or d.family == "crash" else f"{d.family}.{d.action}"


async def _run_chunk(target: FuzzTarget, seeds: list[int], knobs: Knobs | None, deadline: float | None,
                     stop_on_failure: bool, on_run: Callable[[RunResult], None] | None = None) -> _Chunk:
    chunk = _Chunk()
    points: set[str] = set()
    for seed in seeds:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        result = await run_one_async(target, seed, knobs=knobs)
        chunk.runs += 1
        for kind in {_kind(d) for d in result.schedule}:
            chunk.coverage[kind] = chunk.coverage.get(kind, 0) + 1
        points.update(result.points)
        if on_run is not None:
            on_run(result)
        if result.failed:
            chunk.failures.append(result)
            if stop_on_failure:
                break
    chunk.points = sorted(points)
    return chunk


def _chunk_in_worker(ref: str, crds: list[str], seeds: list[int], knobs: dict[str, Any] | None,
                     seconds_left: float | None, stop_on_failure: bool) -> bytes:
    """Runs in a worker process (local or Dask): the target is imported by reference."""
    from kubelite.logs import configure

    configure("error")
    target = load_target(ref, crds=crds)
    deadline = None if seconds_left is None else time.perf_counter() + seconds_left
    k = msgspec.convert(knobs, Knobs) if knobs is not None else None
    chunk = asyncio.run(_run_chunk(target, seeds, k, deadline, stop_on_failure))
    return msgspec.msgpack.encode(chunk)


def fuzz(
    target: FuzzTarget | str, *, budget: float | str | None = 60.0, knobs: Knobs | None = None, seed: int = 0,
    runs: int | None = None, workers: int = 1, dask: str | None = None, stop_on_failure: bool = True,
    crds: list[str] | None = None, out: str | Path | None = None,
    progress: Callable[[CampaignReport], None] | None = None,
) -> CampaignReport:
    """Fuzz ``target`` (a :class:`FuzzTarget` or its ``"module:attribute"``) for ``budget`` (seconds, or
    ``"60s"``/``"2m"``) and/or ``runs`` runs; see the module docstring. With ``out`` (a ``.json`` file, or a
    directory, created if need be, for ``<target>-seed<N>.json``) the first failing run's schedule file is written there."""
    if isinstance(target, str):
        target = load_target(target, crds=crds or [])
    seconds = parse_budget(budget)
    if seconds is None and runs is None:
        raise ValueError("give a budget, a number of runs, or both")
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    report = CampaignReport(target=target.ref)
    last = [start]

    def tick(force: bool = False) -> None:
        report.elapsed = time.perf_counter() - start
        if progress is not None and (force or time.perf_counter() - last[0] >= 1.0):
            last[0] = time.perf_counter()
            progress(report)

    if workers <= 1 and dask is None:
        end = seed + runs if runs is not None else None
        next_seed = seed
        while (end is None or next_seed < end) and (deadline is None or time.perf_counter() < deadline):
            seeds = list(range(next_seed, next_seed + CHUNK if end is None else min(end, next_seed + CHUNK)))
            next_seed += len(seeds)
            chunk = asyncio.run(_run_chunk(target, seeds, knobs, deadline, stop_on_failure))
            report.merge(chunk)
            tick()
            if stop_on_failure and report.failure is not None:
                break
    else:
        _distributed(target, report, seed=seed, runs=runs, deadline=deadline, knobs=knobs, workers=workers,
                     dask=dask, stop_on_failure=stop_on_failure, crds=crds or [], tick=tick)
    tick(force=True)
    if report.failure is not None and out is not None:
        path = Path(out)
        if not path.exists() and path.suffix != ".json":
            path.mkdir(parents=True)
        if path.is_dir():
            name = str(target.ref or target.name).replace(":", "-").replace(".", "-")
            path = path / f"{name}-seed{report.failure.seed}.json"
        report.failure.save(path)
        report.path = str(path)
    return report


def _distributed(target: FuzzTarget, report: CampaignReport, *, seed: int, runs: int | None,
                 deadline: float | None, knobs: Knobs | None, workers: int, dask: str | None,
                 stop_on_failure: bool, crds: list[str], tick: Callable[[], None]) -> None:
    ref = target.ref
    if ref is None:
        raise ValueError(f"{target!r} cannot be loaded by reference (define it at module level) for workers")
    k = msgspec.to_builtins(knobs) if knobs is not None else None
    end = seed + runs if runs is not None else None
    state = {"next": seed}

    def next_args() -> tuple[Any, ...] | None:
        if stop_on_failure and report.failure is not None:
            return None
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        lo = state["next"]
        hi = lo + CHUNK if end is None else min(end, lo + CHUNK)
        if hi <= lo:
            return None
        state["next"] = hi
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        return (ref, crds, list(range(lo, hi)), k, left, stop_on_failure)

    if dask is not None:
        _with_dask(dask, workers, next_args, report, tick)
        return
    ctx = multiprocessing.get_context(_start_method())
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        pending: set[cf.Future[bytes]] = set()
        for _ in range(2 * workers):
            args = next_args()
            if args is None:
                break
            pending.add(pool.submit(_chunk_in_worker, *args))
        while pending:
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            if stop_on_failure and report.failure is not None:
                for fut in pending:
                    fut.cancel()
            for fut in done:
                report.merge(msgspec.msgpack.decode(fut.result(), type=_Chunk))
                tick()
                args = next_args()
                if args is not None:
                    pending.add(pool.submit(_chunk_in_worker, *args))


def _start_method() -> str:
    """``fork`` where it is safe (POSIX, this process runs no other thread): workers start in milliseconds
    and inherit the imported target; otherwise ``spawn`` (each worker imports the target afresh)."""
    import threading

    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def _with_dask(address: str, workers: int, next_args: Callable[[], tuple[Any, ...] | None],
               report: CampaignReport, tick: Callable[[], None]) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise RuntimeError("dask= needs the distributed extra: pip install 'kubelite[distributed]'") from e
    # No dashboard; the scheduler still serves HTTP (/metrics, /health) and, left alone, binds it to 0.0.0.0:8787,
    # warning when that is taken (an error under -W error): a free loopback port instead, so campaigns run
    # side by side and beside a real Dask dashboard.
    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    ) if address == "local" else None
    try:
        with Client(cluster if cluster is not None else address) as client:  # type: ignore[no-untyped-call]
            futures = []
            for _ in range(2 * max(1, workers)):
                args = next_args()
                if args is None:
                    break
                futures.append(client.submit(_chunk_in_worker, *args, pure=False))
            queue = as_completed(futures)  # type: ignore[no-untyped-call]
            for fut in queue:
                report.merge(msgspec.msgpack.decode(fut.result(), type=_Chunk))
                tick()
                args = next_args()
                if args is not None:
                    queue.add(client.submit(_chunk_in_worker, *args, pure=False))  # type: ignore[no-untyped-call]
    finally:
        if cluster is not None:
            cluster.close()
