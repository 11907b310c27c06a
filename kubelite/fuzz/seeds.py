"""``kubelite run SCENARIO --seeds 1..500``: one scenario across many seeds, with the pass rate of each
expectation and the seeds where it failed.

A scenario is a story with expectations; run once, it checks one interleaving. Run across seeds (each seed
changes the cluster's RNG: uids, jitter, tie-breaks, the order of equal-time events), an expectation that
passes on some seeds and fails on others is flaky, which is a finding in itself: the story depends on luck.
Each seed is one ordinary run of the scenario runner (:func:`kubelite.scenario.run_scenario`); this module
only loops and tallies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

__all__ = ["ExpectationTally", "SeedsReport", "parse_seeds", "render_seeds", "run_seeds"]


class ExpectationTally(msgspec.Struct, kw_only=True):
    name: str
    passed: int = 0
    failed_seeds: list[int] = []

    @property
    def runs(self) -> int:
        return self.passed + len(self.failed_seeds)

    @property
    def flaky(self) -> bool:
        return self.passed > 0 and bool(self.failed_seeds)


class SeedsReport(msgspec.Struct, kw_only=True):
    scenario: str
    seeds: list[int]
    expectations: list[ExpectationTally] = []
    failed_seeds: list[int] = []

    @property
    def passed(self) -> bool:
        return not self.failed_seeds


def parse_seeds(text: str) -> list[int]:
    """``"1..500"`` (inclusive), ``"1,5,9"``, or both mixed (``"1..10,42"``)."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("..")
        if sep:
            a, b = int(lo), int(hi)
            if b < a:
                raise ValueError(f"empty seed range {part!r}")
            seeds.extend(range(a, b + 1))
        else:
            seeds.append(int(part))
    if not seeds:
        raise ValueError(f"no seeds in {text!r}")
    return seeds


def run_seeds(scenario: Any, seeds: Sequence[int], *, until: float | None = None,
              progress: Callable[[int, int], None] | None = None) -> SeedsReport:
    """Run ``scenario`` (a loaded :class:`~kubelite.scenario.Scenario`) once per seed and tally."""
    from kubelite.scenario import run_scenario

    tallies: dict[str, ExpectationTally] = {}
    report = SeedsReport(scenario=getattr(scenario, "name", "") or "", seeds=list(seeds))
    for i, seed in enumerate(seeds):
        result = run_scenario(scenario, seed=seed, until=until)
        report.scenario = report.scenario or result.scenario
        for ex in result.expectations:
            t = tallies.setdefault(ex.name, ExpectationTally(name=ex.name))
            if ex.passed:
                t.passed += 1
            else:
                t.failed_seeds.append(seed)
        if not result.passed:
            report.failed_seeds.append(seed)
        if progress is not None:
            progress(i + 1, len(seeds))
    report.expectations = list(tallies.values())
    return report


def _seed_list(seeds: list[int], limit: int = 12) -> str:
    shown = ", ".join(map(str, seeds[:limit]))
    return shown + (f", ... ({len(seeds) - limit} more)" if len(seeds) > limit else "")


def render_seeds(report: SeedsReport, path: str | None = None) -> str:
    lines = [f"scenario {report.scenario}: {len(report.seeds)} seeds, "
             f"{len(report.seeds) - len(report.failed_seeds)} passed every expectation"]
    width = max((len(t.name) for t in report.expectations), default=10)
    for t in report.expectations:
        rate = 100.0 * t.passed / t.runs if t.runs else 0.0
        flag = "  FLAKY" if t.flaky else ("  FAIL" if t.failed_seeds else "")
        line = f"  {t.name:<{width}}  {t.passed}/{t.runs} ({rate:.1f}%){flag}"
        if t.failed_seeds:
            line += f"  failing seeds: {_seed_list(t.failed_seeds)}"
        lines.append(line)
    if report.failed_seeds:
        lines.append(f"replay one: kubelite run {path or report.scenario} --seed {report.failed_seeds[0]}")
    return "\n".join(lines) + "\n"
