"""The ``kubelite_fuzz`` pytest fixture (part of the kubelite pytest plugin, ``kubelite.testing.plugin``).

An operator's repository adds one test::

    from my_operator.fuzzing import target      # a kubelite.fuzz.FuzzTarget

    @pytest.mark.kubelite_fuzz(budget="20s")
    def test_fuzz_my_operator(kubelite_fuzz):
        kubelite_fuzz(target)

``kubelite_fuzz(target, *, budget=None, runs=None, knobs=None, seed=0, workers=1)`` runs a campaign
(keywords override the marker's; ``--kubelite-fuzz-budget 5m`` on the command line overrides both, to run
longer campaigns locally than in CI). Without a budget or runs it runs for 10 s. On a failure it shrinks
the schedule, writes it under the test's ``tmp_path`` and fails the test with the failing seed, the
invariant, the shrunk story and the ``kubelite fuzz replay`` command; otherwise it returns the
:class:`~kubelite.fuzz.campaign.CampaignReport`. Call it from a plain (sync) test: a campaign runs its own
event loops.

Importing this module imports nothing of kubelite beyond it; the fuzzer is imported when the fixture runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["addoption", "configure", "kubelite_fuzz"]

DEFAULT_BUDGET = "10s"


def addoption(group: Any) -> None:
    group.addoption("--kubelite-fuzz-budget", default=None, metavar="TIME",
                    help="Run every kubelite_fuzz campaign for TIME (60s, 5m) instead of its marker's budget.")


def configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "kubelite_fuzz(budget=, runs=, knobs=, seed=, workers=): options of the kubelite_fuzz fixture")


@pytest.fixture
def kubelite_fuzz(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Any]:
    """Run a fuzz campaign against a FuzzTarget; fail the test on a finding (see the module docstring)."""
    marker = request.node.get_closest_marker("kubelite_fuzz")
    defaults: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    override = request.config.getoption("--kubelite-fuzz-budget", None)

    def run(target: Any, **options: Any) -> Any:
        from kubelite.fuzz.campaign import fuzz
        from kubelite.fuzz.minimize import shrink

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("kubelite_fuzz runs its own event loops: call it from a sync test function")
        opts = {**defaults, **options}
        if override is not None:
            opts["budget"], opts["runs"] = override, None
        elif "budget" not in opts and "runs" not in opts:
            opts["budget"] = DEFAULT_BUDGET
        opts.setdefault("budget", None)
        report = fuzz(target, out=tmp_path, **opts)
        if report.failure is None:
            return report
        small = shrink(report.failure, target=target if not isinstance(target, str) else None)
        path = Path(report.path or tmp_path / "failure.json").with_suffix(".min.json")
        small.save(path)
        f = small.failure
        assert f is not None
        story = "\n".join(f"  {line}" for line in small.story)
        pytest.fail(
            f"kubelite fuzz found a failure after {report.runs} runs: seed {report.failure.seed}\n"
            f"{f.invariant}: {f.message} ({f.at})\n"
            f"minimal schedule ({len(small.schedule)} decisions), {path}:\n{story}\n"
            f"replay: kubelite fuzz replay {path}", pytrace=False)

    return run
