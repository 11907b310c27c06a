"""Scenarios (layer 7): a cluster, workload behaviour, a timeline of actions and faults, and expectations,
played on virtual time. See ``docs/scenarios.md``.

::

    from kubelite.scenario import load_scenario, run_scenario, render_text
    result = run_scenario(load_scenario("scenarios/nginx-example.yaml"), seed=7)
    print(render_text(result)); assert result.passed

``run_scenario(scenario, seed=...)`` is the one entry point per seed: it validates every manifest
against a scratch apiserver first (``validate=False`` skips that when a caller runs many seeds of one
scenario it has already checked with :func:`check_manifests`), and raises
:class:`~kubelite.watchdog.LivelockError` rather than hang.
"""

from kubelite.scenario.expressions import Expression, ExpressionError, Unknown, Verdict, compile_expression
from kubelite.scenario.format import Scenario, ScenarioError, load_scenario, parse_duration, parse_scenario
from kubelite.scenario.printing import render_text
from kubelite.scenario.result import (
    EventRecord,
    ExpectationResult,
    PodInterval,
    RunResult,
    Series,
    encode_json,
)
from kubelite.scenario.runner import run_scenario, run_scenario_async
from kubelite.scenario.validate import check_manifests

__all__ = [
    "EventRecord", "ExpectationResult", "Expression", "ExpressionError", "PodInterval", "RunResult", "Scenario",
    "ScenarioError", "Series", "Unknown", "Verdict", "check_manifests", "compile_expression", "encode_json",
    "load_scenario", "parse_duration", "parse_scenario", "render_text", "run_scenario", "run_scenario_async",
]
