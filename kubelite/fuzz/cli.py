"""``kubelite fuzz run | replay | shrink``: the command line of :mod:`kubelite.fuzz`.

- ``run MODULE:SETUP``: a campaign (:func:`kubelite.fuzz.campaign.fuzz`). A progress line (runs, runs/s,
  failures, coverage of the decision points) goes to stderr. On a failure the schedule file is written
  (``--out``, default the current directory), shrunk (unless ``--no-shrink``) into ``*.min.json``, the story
  and the replay command are printed, and the exit code is 1. Exit 0: no failure within the budget.
- ``replay FILE``: re-execute a schedule file; exit 0 when the trace digest matches the recorded one, 1 when
  it differs (the run is not what was recorded: the code changed, or something is not deterministic).
- ``shrink FILE``: delta-debug the schedule to a minimal one, write ``FILE.min.json``, print its story.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

__all__ = ["fuzz"]


def _quiet_logs() -> None:
    if "KUBELITE_LOG_LEVEL" not in os.environ:
        from kubelite.logs import configure

        configure("error")  # injected faults make components log warnings; a campaign would drown in them


def _decisions(n: int) -> str:
    return f"{n} decision{'' if n == 1 else 's'}"


class _Progress:
    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = -1.0

    def __call__(self, report: Any) -> None:
        if self.tty:
            click.echo(f"\r{report.line()}   ", err=True, nl=False)
        elif report.elapsed - self.last >= 10.0:
            self.last = report.elapsed
            click.echo(report.line(), err=True)

    def done(self) -> None:
        if self.tty:
            click.echo("", err=True)


@click.group()
def fuzz() -> None:
    """Find an operator's ordering bugs: seeded perturbations, invariants, shrinking, exact replay."""


@fuzz.command("run")
@click.argument("target", metavar="MODULE:SETUP")
@click.option("--crds", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="A CRD file or a directory of them to install before the setup (repeatable).")
@click.option("--budget", default="60s", show_default=True, help="Wall-clock time: 60s, 5m, 1h.")
@click.option("--runs", type=int, default=None, help="Stop after this many runs.")
@click.option("--seed", type=int, default=0, show_default=True, help="The first seed.")
@click.option("--knobs", default=None, help="Perturbation knobs, e.g. crash=0.1,api_yield=0.5,users=webapp.")
@click.option("--workers", type=int, default=1, show_default=True, help="Local worker processes.")
@click.option("--dask", default=None, metavar="ADDRESS",
              help="Shard over a Dask distributed scheduler at ADDRESS ('local': a LocalCluster of --workers).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="Where to write the failing schedule (a directory or a file).")
@click.option("--shrink/--no-shrink", default=True, show_default=True)
def run_cmd(target: str, crds: tuple[Path, ...], budget: str, runs: int | None, seed: int, knobs: str | None,
            workers: int, dask: str | None, out: Path, shrink: bool) -> None:
    """Fuzz MODULE:SETUP (a FuzzTarget or an `async def setup(env)`); exit 1 on a failure."""
    from kubelite.fuzz.campaign import fuzz as run_campaign
    from kubelite.fuzz.minimize import shrink as do_shrink
    from kubelite.fuzz.schedule import parse_knobs
    from kubelite.fuzz.target import load_target

    _quiet_logs()
    try:
        t = load_target(target, crds=[str(c) for c in crds])
        k = parse_knobs(knobs, t.knobs)
    except (ValueError, ImportError, AttributeError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    progress = _Progress()
    report = run_campaign(t, budget=budget, runs=runs, knobs=k, seed=seed, workers=workers, dask=dask,
                          crds=[str(c) for c in crds], out=out, progress=progress)
    progress.done()
    click.echo(report.line())
    if report.failure is None:
        click.echo("no failure found")
        sys.exit(0)
    f = report.failure
    assert f.failure is not None and report.path is not None
    click.echo(f"FAILED seed {f.seed}: {f.failure.invariant}: {f.failure.message} ({f.failure.at})")
    click.echo(f"schedule: {report.path} ({_decisions(len(f.schedule))})")
    path = report.path
    if shrink:
        small = do_shrink(f, target=t)
        path = str(Path(report.path).with_suffix(".min.json"))
        small.save(path)
        click.echo(f"shrunk to {_decisions(len(small.schedule))}: {path}")
        for line in small.story:
            click.echo(f"  {line}")
    click.echo(f"replay: kubelite fuzz replay {path}")
    sys.exit(1)


@fuzz.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def replay_cmd(file: Path) -> None:
    """Re-execute a schedule FILE; exit 1 if its trace digest differs from the recorded one."""
    from kubelite.fuzz.run import load_run, replay

    _quiet_logs()
    rec = load_run(file)
    result = replay(rec, check=False)
    same = result.digest == rec.digest
    click.echo(f"replayed seed {rec.seed} with {_decisions(len(rec.schedule))}: trace digest "
               f"{'matches' if same else 'DIFFERS'} ({result.digest[:16]}{'' if same else ' != ' + rec.digest[:16]})")
    if result.failure is not None:
        click.echo(f"failure: {result.failure.invariant}: {result.failure.message} ({result.failure.at})")
    else:
        click.echo("no failure")
    for line in rec.story:
        click.echo(f"  {line}")
    sys.exit(0 if same else 1)


@fuzz.command("shrink")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the minimal schedule (default: FILE with .min.json).")
def shrink_cmd(file: Path, out: Path | None) -> None:
    """Shrink a failing schedule FILE to a minimal one and print its story."""
    from kubelite.fuzz.minimize import shrink
    from kubelite.fuzz.run import load_run

    _quiet_logs()
    rec = load_run(file)
    if rec.failure is None:
        click.echo("error: the schedule did not fail; nothing to shrink", err=True)
        sys.exit(2)
    tty = sys.stderr.isatty()

    def progress(tried: int, size: int) -> None:
        if tty:
            click.echo(f"\rshrinking: {tried} runs, trying {size} of {len(rec.schedule)} decisions   ",
                       err=True, nl=False)

    small = shrink(rec, progress=progress)
    if tty:
        click.echo("", err=True)
    target = out if out is not None else file.with_name(file.name.removesuffix(".json") + ".min.json")
    small.save(target)
    click.echo(f"shrunk {len(rec.schedule)} -> {_decisions(len(small.schedule))}: {target}")
    for line in small.story:
        click.echo(f"  {line}")
