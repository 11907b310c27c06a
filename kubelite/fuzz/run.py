"""One fuzz run, and the schedule file that records it.

A run (:func:`run_one`) starts a fresh cluster with the run's seed, wires the perturber, the trace and the
invariants into it, installs the target's CRDs, runs its setup, lets ``target.quiet`` seconds of virtual
time pass with perturbations on, then switches them off and waits for quiescence (``Cluster.quiesce``) to
check the ``at_quiescence`` invariants. ``always`` invariants are checked after every committed write on
the way. The outcome is a :class:`RunResult`: the decisions taken, the trace digest and the first
violation, if any. An exception escaping the setup or a component, and a cluster that never quiesces, are
violations too (named ``exception`` and ``quiescence``).

A schedule file (:meth:`RunResult.save`) is one JSON document: the target's reference, the seed, the
knobs, the decisions, the trace digest and the failure. :func:`replay` re-executes it (replaying the
decisions, drawing nothing) and reports whether the digest matched.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from kubelite.clock import VirtualClock
from kubelite.cluster import Cluster, NotQuiescent
from kubelite.fuzz.invariants import Change, ClusterView, Invariant, problems_of
from kubelite.fuzz.perturber import SchedulePerturber
from kubelite.fuzz.schedule import Decision, Knobs
from kubelite.fuzz.target import Env, FuzzTarget, load_target
from kubelite.fuzz.trace import Trace
from kubelite.store import StoredObject

__all__ = ["FORMAT", "ReplayMismatch", "RunResult", "Violation", "load_run", "replay", "run_one", "run_one_async"]

#: the schedule file format version
FORMAT = 1
#: how long (virtual seconds) the final quiescence may take before the run counts as not converging
QUIESCE_TIMEOUT = 600.0


class Violation(msgspec.Struct, frozen=True, kw_only=True):
    """An invariant that did not hold: its name, the message and where (a write or quiescence)."""

    invariant: str
    message: str
    at: str  # "write rv=N t=…ms" or "quiescence t=…ms"


class RunResult(msgspec.Struct, kw_only=True):
    """One fuzz run: target, seed, knobs, the decisions taken (its schedule), the trace digest, the violation (if any)
    and its story; saved as a replayable run file."""

    target: str | None
    seed: int
    knobs: Knobs
    schedule: list[Decision]
    digest: str
    failure: Violation | None = None
    points: list[str] = []
    trace_lines: int = 0
    story: list[str] = []

    @property
    def failed(self) -> bool:
        """Whether an invariant was violated."""
        return self.failure is not None

    def save(self, path: str | Path) -> Path:
        """Write the run file (JSON with the format version) to ``path`` and return the path."""
        p = Path(path)
        data = msgspec.to_builtins(self)
        data = {"kubelite_fuzz": FORMAT, **data}
        p.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
        return p


class ReplayMismatch(AssertionError):
    """A replay's trace digest differs from the recorded one: the run is not deterministic."""


def load_run(path: str | Path) -> RunResult:
    """Read a run file written by :meth:`RunResult.save`; ValueError if it is not one (or of another format version).
    Read a run file written by :meth:`RunResult.save`; ValueError if it is not one (or of another format version)."""
    data = json.loads(Path(path).read_text())
    version = data.pop("kubelite_fuzz", None)
    if version != FORMAT:
        raise ValueError(f"{path}: not a kubelite fuzz schedule file (format {version!r}, expected {FORMAT})")
    return msgspec.convert(data, RunResult)


class _Checker:
    """The store observer of one run: traces every commit and runs the invariants on it."""

    def __init__(self, trace: Trace, view: ClusterView, invariants: list[Invariant], clock: Any) -> None:
        self.trace = trace
        self.view = view
        self.clock = clock
        self.invariants = invariants
        self.observers = [i for i in invariants if type(i).observe is not Invariant.observe]
        self.always = [i for i in invariants if i.checks_always]
        self.violation: Violation | None = None

    def __call__(self, table: Any, typ: str, rv: int, cur: StoredObject, prev: StoredObject | None) -> None:
        resource = f"{table.plural}.{table.group}" if table.group else table.plural
        self.trace.commit(rv, typ, resource, cur.key, cur.data)
        if not self.observers and not self.always:
            return
        change = Change(self.view, resource, typ, rv, cur, prev)
        for inv in self.observers:
            inv.observe(change)
        if self.violation is not None:
            return
        for inv in self.always:
            try:
                problems = problems_of(inv.name, inv.always(self.view, change))
            except Exception as e:  # an invariant that crashes is reported, never swallowed
                problems = [f"the check raised {type(e).__name__}: {e}"]
            if problems:
                self.fail(inv.name, "; ".join(problems), f"write rv={rv}")
                return

    def fail(self, name: str, message: str, where: str) -> None:
        if self.violation is None:
            self.violation = Violation(invariant=name, message=message, at=f"{where} t={self.trace._t()}ms")
            self.trace.note(f"violated {name}: {message}")

    def at_quiescence(self) -> None:
        for inv in self.invariants:
            if not inv.checks_at_quiescence or self.violation is not None:
                continue
            try:
                problems = problems_of(inv.name, inv.at_quiescence(self.view))
            except TypeError:
                raise
            except Exception as e:
                problems = [f"the check raised {type(e).__name__}: {e}"]
            if problems:
                self.fail(inv.name, "; ".join(problems), "quiescence")


async def run_one_async(target: FuzzTarget, seed: int, *, knobs: Knobs | None = None,
                        schedule: Sequence[Decision] | None = None) -> RunResult:
    """One run (see the module docstring); ``schedule=None`` generates one from the seed and knobs."""
    return (await _run(target, seed, knobs=knobs, schedule=schedule))[0]


async def _run(target: FuzzTarget, seed: int, *, knobs: Knobs | None = None,
               schedule: Sequence[Decision] | None = None) -> tuple[RunResult, Trace]:
    knobs = knobs if knobs is not None else target.knobs
    cluster = Cluster(seed=seed, **target.cluster_options)
    trace = Trace(cluster.clock)
    perturber = SchedulePerturber(clock=cluster.clock, knobs=knobs, seed=seed, trace=trace, schedule=schedule)
    checker = _Checker(trace, ClusterView(cluster.store), [i.fresh() for i in target.invariants], cluster.clock)
    try:
        async with cluster:
            cluster.store.observers.append(checker)
            cluster.track(perturber)
            if isinstance(cluster.clock, VirtualClock):
                cluster.clock.ready_hook = perturber.reorder_ready
            env = Env(cluster, perturber, trace, knobs)
            try:
                if target.crds:
                    await env.install_crds(target.crds)
                await target.setup(env)
                await cluster.advance(target.quiet)
                perturber.stop()
                trace.note("quiet")
                await cluster.quiesce(timeout=QUIESCE_TIMEOUT)
                trace.note("quiescent")
                for name, mgr in env.managers.items():
                    for part, err in mgr.failed():
                        checker.fail("exception", f"{part} of manager {name} died: {type(err).__name__}: {err}",
                                     "quiescence")
                checker.at_quiescence()
            except NotQuiescent as e:
                checker.fail("quiescence", str(e), "quiescence")
            finally:
                cluster.store.observers.remove(checker)
                if isinstance(cluster.clock, VirtualClock):
                    cluster.clock.ready_hook = None
                await env.close()
    except Exception as e:  # the setup, or a component of the cluster, raised
        checker.fail("exception", f"{type(e).__name__}: {e}", "run")
    return RunResult(
        target=target.ref, seed=seed, knobs=knobs, schedule=list(perturber.taken), digest=trace.digest(),
        failure=checker.violation, points=sorted(perturber.points_reached), trace_lines=len(trace.lines),
    ), trace


def run_one(target: FuzzTarget, seed: int, *, knobs: Knobs | None = None,
            schedule: Sequence[Decision] | None = None) -> RunResult:
    """:func:`run_one_async` in a fresh event loop."""
    return asyncio.run(run_one_async(target, seed, knobs=knobs, schedule=schedule))


def replay(path_or_run: str | Path | RunResult, *, target: FuzzTarget | None = None,
           check: bool = True) -> RunResult:
    """Re-execute a recorded run from its schedule. With ``check`` (default) raise :class:`ReplayMismatch`
    if the trace digest differs from the recorded one."""
    rec = path_or_run if isinstance(path_or_run, RunResult) else load_run(path_or_run)
    if target is None:
        if rec.target is None:
            raise ValueError("the run does not name its target; pass target=")
        target = load_target(rec.target)
    result = run_one(target, rec.seed, knobs=rec.knobs, schedule=rec.schedule)
    result.story = rec.story
    if check and result.digest != rec.digest:
        raise ReplayMismatch(f"replay of seed {rec.seed} diverged: trace digest {result.digest[:16]} != recorded "
                             f"{rec.digest[:16]}")
    return result


