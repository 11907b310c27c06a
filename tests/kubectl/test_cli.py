"""``kubelite get`` and ``kubelite describe`` on a scenario replayed to a virtual time."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubelite.cli import main

SCENARIO = str(Path(__file__).resolve().parents[2] / "scenarios" / "nginx-example.yaml")


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


def test_get_pods_wide_at_the_end(runner: CliRunner) -> None:
    result = runner.invoke(main, ["get", "pods", SCENARIO, "-o", "wide"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
                                "READINESS", "GATES"]
    assert lines[1].split()[:5] == ["nginx-example", "1/1", "Running", "0", "2m"]
    # same scenario, same seed: the same bytes
    assert runner.invoke(main, ["get", "pods", SCENARIO, "-o", "wide"]).output == result.output


def test_get_events_at_a_time_sorted_by_creation(runner: CliRunner) -> None:
    result = runner.invoke(main, ["get", "ev", SCENARIO, "--at", "10s"])
    assert result.exit_code == 0, result.output
    reasons = [line.split()[2] for line in result.output.splitlines()[1:] if "pod/nginx-example" in line]
    assert reasons == ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
    assert result.output.splitlines()[1].startswith("10s ")


def test_get_nodes_and_empty_and_unknown(runner: CliRunner) -> None:
    nodes = runner.invoke(main, ["get", "nodes", SCENARIO, "--at", "5s"])
    assert nodes.exit_code == 0
    assert [line.split()[:2] for line in nodes.output.splitlines()[1:]] == [["node-0", "Ready"], ["node-1", "Ready"]]
    empty = runner.invoke(main, ["get", "deploy", SCENARIO, "--at", "1s"])
    assert (empty.exit_code, empty.output) == (0, "No resources found in default namespace.\n")
    unknown = runner.invoke(main, ["get", "widgets", SCENARIO])
    assert unknown.exit_code == 1
    assert 'the server doesn\'t have a resource type "widgets"' in unknown.output


def test_describe_pod_and_not_found(runner: CliRunner) -> None:
    result = runner.invoke(main, ["describe", "pod/nginx-example", SCENARIO, "--at", "30s"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Name:             nginx-example\nNamespace:        default\n")
    assert "  Normal  Started    29s   kubelet            Started container nginx\n" in result.output
    missing = runner.invoke(main, ["describe", "pod/nope", SCENARIO, "--at", "1s"])
    assert missing.exit_code == 1
    assert 'Error from server (NotFound): pods "nope" not found' in missing.output
    bad = runner.invoke(main, ["describe", "configmap/x", SCENARIO])
    assert bad.exit_code == 1


def test_invalid_scenario_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nuntil: forever\n")
    result = runner.invoke(main, ["get", "pods", str(bad)])
    assert result.exit_code == 2
    assert "error:" in result.output
