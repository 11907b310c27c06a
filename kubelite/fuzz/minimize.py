"""Shrinking: delta debugging (Zeller and Hildebrandt's ddmin) over a failing run's decisions, and the
story of the minimal schedule.

A candidate schedule is a subset of the failing run's decisions (in their original order); it
*reproduces* when replaying it with the same seed breaks the same invariant. ddmin first tries the empty
schedule (a bug that needs no perturbation at all), then splits the schedule into ``n`` chunks and keeps any
chunk, or any complement of a chunk, that reproduces, doubling ``n`` when none does, until no single
decision can be removed (the result is 1-minimal: dropping any one decision makes the failure go away).
Every candidate is a full deterministic run, so the result replays exactly like any other run.

:func:`story` renders a schedule file's trace as a few lines a person can follow: the decisions that
matter, the writes of the perturbed users around them, crashes and restarts, and the violation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from kubelite.fuzz.run import RunResult, _run, load_run
from kubelite.fuzz.schedule import Decision
from kubelite.fuzz.target import FuzzTarget, load_target
from kubelite.fuzz.trace import Trace

__all__ = ["ddmin", "describe_decision", "shrink", "story"]

Progress = Callable[[int, int], None]


def ddmin(items: Sequence[Decision], reproduces: Callable[[Sequence[Decision]], bool]) -> list[Decision]:
    """The 1-minimal subsequence of ``items`` for which ``reproduces`` holds (it must hold for ``items``)."""
    current = list(items)
    if reproduces([]):
        return []
    n = 2
    while len(current) >= 2:
        size = -(-len(current) // n)
        chunks = [current[i:i + size] for i in range(0, len(current), size)]
        for chunk in chunks:
            if len(chunk) < len(current) and reproduces(chunk):
                current, n = chunk, 2
                break
        else:
            for i in range(len(chunks)):
                complement = [d for j, c in enumerate(chunks) if j != i for d in c]
                if reproduces(complement):
                    current, n = complement, max(n - 1, 2)
                    break
            else:
                if n >= len(current):
                    break
                n = min(2 * n, len(current))
    return current


def shrink(run: RunResult | str | Path, *, target: FuzzTarget | None = None, progress: Progress | None = None,
           max_runs: int = 2000) -> RunResult:
    """The smallest schedule (ddmin) that still breaks the same invariant as the failing ``run`` (a result or
    a schedule file), as a new :class:`RunResult` with its :attr:`~RunResult.story` filled in."""
    rec = run if isinstance(run, RunResult) else load_run(run)
    if rec.failure is None:
        raise ValueError("the run did not fail; there is nothing to shrink")
    if target is None:
        if rec.target is None:
            raise ValueError("the run does not name its target; pass target=")
        target = load_target(rec.target)
    want = rec.failure.invariant
    cache: dict[tuple[tuple[str, int], ...], tuple[RunResult, Trace] | None] = {}
    tried = 0

    def attempt(schedule: Sequence[Decision]) -> tuple[RunResult, Trace] | None:
        nonlocal tried
        key = tuple(d.key() for d in schedule)
        if key in cache:
            return cache[key]
        if tried >= max_runs:
            return None
        tried += 1
        result, trace = asyncio.run(_run(target, rec.seed, knobs=rec.knobs, schedule=schedule))
        hit = (result, trace) if result.failure is not None and result.failure.invariant == want else None
        cache[key] = hit
        if progress is not None:
            progress(tried, len(schedule))
        return hit

    minimal = ddmin(rec.schedule, lambda s: attempt(s) is not None)
    final = attempt(minimal)
    if final is None:  # the budget ran out before the minimal schedule was re-run: run it now
        result, trace = asyncio.run(_run(target, rec.seed, knobs=rec.knobs, schedule=minimal))
    else:
        result, trace = final
    result.story = story(trace.lines, result)
    return result


def describe_decision(d: Decision, context: str = "") -> str:
    """One decision in words."""
    family, site = d.family, d.site
    user, _, rest = site.partition("/")
    nth = f"#{d.n + 1}"
    what = f" ({context})" if context else ""
    if family == "watch":
        where = f"informer {rest} of {user}"
        return {
            "delay": f"{where} delayed event {nth}{what} by {d.value}s",
            "hold": f"{where} held event {nth}{what} back until {d.value} more arrived (batch)",
            "relist": f"{where} lost its watch at event {nth}{what} and relisted {d.value}s later",
            "expire": f"{where} lost its watch at event {nth}{what} and relisted {d.value}s later from the latest "
                      "revision, as after a compaction (deletions come back as tombstones)",
        }.get(d.action, f"{where}: {d.action} {d.value}")
    if family in ("api.before", "api.after"):
        when = "before" if family == "api.before" else "after"
        return {
            "yield": f"request {nth} of {site}{what} yielded to other tasks {d.value}x {when} the server",
            "latency": f"request {nth} of {site}{what} took {d.value}s {'to reach' if when == 'before' else 'back from'}"
                       " the server",
            "fail": f"request {nth} of {site}{what} failed with {d.value} before reaching the server",
            "timeout": f"request {nth} of {site}{what} was committed but answered 504 (timeout)",
        }.get(d.action, f"request {nth} of {site}: {d.action} {d.value}")
    if family == "crash":
        return f"manager {site} crashed right after its write {nth}{what}, then restarted from the API"
    if family == "ready":
        return f"the event loop ran the {context or 'several'} ready at once in a shuffled order"
    if family == "queue.defer":
        return f"controller {rest} of {user} sent request {context or nth} to the back of its queue"
    if family == "queue.dup":
        return f"controller {rest} of {user} got request {context or nth} again right after reconciling it"
    return f"{d.point}#{d.n}: {d.action} {d.value}"


def story(lines: Sequence[str], result: RunResult, *, limit: int = 40) -> list[str]:
    """The trace of a (shrunk) run as lines a person can follow (see the module docstring)."""
    out: list[str] = []
    for line in lines:
        t, _, rest = line.partition(" ")
        stamp = f"t={int(t) / 1000:g}s"
        if rest.startswith("decide "):
            head, _, context = rest[len("decide "):].partition(" | ")
            ref, action, value = head.split(" ", 2)
            point, _, n = ref.rpartition("#")
            d = Decision(point=point, n=int(n), action=action, value=_number(value))
            out.append(f"{stamp} {describe_decision(d, context)}")
        elif rest.startswith(("api ", "crashed ", "restarted ", "violated ")):
            out.append(f"{stamp} {rest[4:] if rest.startswith('api ') else rest}")
    if result.failure is not None and not any(" violated " in f" {o}" for o in out):
        out.append(f"{result.failure.at}: violated {result.failure.invariant}: {result.failure.message}")
    if len(out) > limit:
        out = [*out[:limit // 2], f"... {len(out) - limit} more ...", *out[-limit // 2:]]
    return out


def _number(text: str) -> float | int | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


