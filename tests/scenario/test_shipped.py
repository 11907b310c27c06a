"""Every shipped scenario passes; the same seed gives byte-identical output; the CLI's exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubelite.cli import main
from kubelite.scenario import (
    encode_json,
    load_scenario,
    parse_scenario,
    render_text,
    run_scenario,
    run_scenario_async,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml"))


def test_the_seed_stories_are_shipped() -> None:
    names = {p.stem for p in SHIPPED}
    assert {"nginx-example", "ecommerce-frontend-scale", "vllm-rolling-update", "node-failure", "pending-gpu",
            "containercreating", "imagepullbackoff", "crashloopbackoff", "oomkilled", "preemption",
            "job-completion"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
async def test_shipped_scenario_passes(path: Path) -> None:
    result = await run_scenario_async(load_scenario(path))
    failed = [f"{e.name}: {e.diagnosis}" for e in result.expectations if not e.passed]
    assert result.passed, failed
    assert result.expectations
    assert result.events and result.objects


def test_same_seed_same_output() -> None:
    sc = load_scenario(ROOT / "scenarios" / "node-failure.yaml")
    a, b = run_scenario(sc), run_scenario(sc)
    assert render_text(a) == render_text(b)
    assert encode_json(a) == encode_json(b)


def test_text_output_sections() -> None:
    text = render_text(run_scenario(load_scenario(ROOT / "scenarios" / "nginx-example.yaml")))
    assert "LAST SEEN   TYPE      REASON" in text
    assert "READY     STATUS    RESTARTS   AGE       IP" in text
    assert "PASS  the pod reaches Running" in text
    assert "pod_startup.ready.p99 = " in text
    order = [text.index(f"   {r}   ") for r in ("Scheduled", "Pulling", "Pulled", "Created", "Started")]
    assert order == sorted(order)


FAILING = """
name: failing
until: 30s
cluster:
  nodePools: [{count: 1}]
manifests:
  - apiVersion: v1
    kind: Pod
    metadata: {name: big}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "64"}}}]
expect:
  - name: big runs
    eventually: pod("big").status.phase == "Running"
    within: 20s
"""


def test_failing_expectation_has_a_pending_diagnosis() -> None:
    result = run_scenario(parse_scenario(FAILING))
    assert not result.passed
    (e,) = result.expectations
    assert e.kind == "eventually" and e.at == 20.0
    assert e.diagnosis is not None
    assert "pod default/big is Pending" in e.diagnosis
    assert "node-0: NodeResourcesFit: Insufficient cpu" in e.diagnosis


def test_cli_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["run", str(ROOT / "scenarios" / "nginx-example.yaml")])
    assert ok.exit_code == 0, ok.output
    assert "PASS: 4/4 expectations hold" in ok.output
    bad = tmp_path / "failing.yaml"
    bad.write_text(FAILING)
    failed = runner.invoke(main, ["run", str(bad), "--until", "25s", "--seed", "3"])
    assert failed.exit_code == 1
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("name: x\nuntil: soon\n")
    res = runner.invoke(main, ["run", str(invalid)])
    assert res.exit_code == 2
    assert f"{invalid}:2: until: invalid duration 'soon'" in res.output


def test_cli_json() -> None:
    import json

    res = CliRunner().invoke(main, ["run", str(ROOT / "scenarios" / "pending-gpu.yaml"), "-o", "json"])
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["passed"] is True and data["scenario"] == "pending-gpu"
    assert {"pod_startup", "scheduling", "convergence", "traffic"} <= set(data["metrics"])


def test_json_times_carry_no_float_noise() -> None:
    """Event and interval times are virtual seconds to the microsecond (was 0.7000000476837158)."""
    result = run_scenario(load_scenario(ROOT / "scenarios" / "nginx-example.yaml"))
    times = [e.time for e in result.events] + [iv.start for iv in result.pod_intervals]
    assert times and all(t == round(t, 6) for t in times), times
    assert b"0000000" not in encode_json(result).split(b'"objects"')[0]
