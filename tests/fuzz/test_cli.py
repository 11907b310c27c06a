"""``kubelite fuzz run | replay | shrink`` and ``kubelite run --seeds``, and exact replay in a fresh process
with another hash seed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubelite.cli import main

ROOT = Path(__file__).resolve().parents[2]


def kubelite(*args: str, hashseed: str = "0", cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "KUBELITE_LOG_LEVEL": "error"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "kubelite.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_run_finds_writes_shrinks_and_exits_1(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fuzz", "run", "tests.fuzz.planted:config_buggy", "--runs", "20", "--budget",
                                  "60s", "--out", str(tmp_path)])
    assert r.exit_code == 1, r.output
    m = re.search(r"FAILED seed (\d+): one_configmap_each", r.output)
    assert m, r.output
    files = sorted(p.name for p in tmp_path.iterdir())
    stem = f"tests-fuzz-planted-config_buggy-seed{m.group(1)}"
    assert files == [f"{stem}.json", f"{stem}.min.json"]
    assert "replay: kubelite fuzz replay" in r.output
    assert any(cause in r.output for cause in ("crashed right after its write", "answered 504", "failed with"))
    small = json.loads((tmp_path / files[1]).read_text())
    assert small["kubelite_fuzz"] == 1 and 1 <= len(small["schedule"]) <= 5 and small["story"]


def test_run_of_a_correct_operator_exits_0(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fuzz", "run", "tests.fuzz.planted:config_fixed", "--runs", "10",
                                  "--knobs", "crash=0.2", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "no failure found" in r.output and "runs 10" in r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["tests.fuzz.planted"], ["tests.fuzz.planted:nothing_here"],
                                  ["tests.fuzz.planted:config_buggy", "--knobs", "bogus=1"]],
                         ids=["no-attribute", "missing-attribute", "bad-knob"])
def test_run_rejects_bad_arguments(args: list[str]) -> None:
    r = CliRunner().invoke(main, ["fuzz", "run", *args, "--runs", "1"])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: ")


def test_found_failure_replays_byte_for_byte_in_fresh_processes(tmp_path: Path) -> None:
    """Two campaigns in two processes with different PYTHONHASHSEEDs write the same schedule file byte for
    byte, and a third process with yet another hash seed replays it with the same trace digest."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for out, seed in ((a, "1"), (b, "4242")):
        r = kubelite("fuzz", "run", "tests.fuzz.planted:replicas_buggy", "--runs", "20", "--no-shrink",
                     "--out", str(out), hashseed=seed)
        assert r.returncode == 1, r.stdout + r.stderr
    (fa,), (fb,) = list(a.iterdir()), list(b.iterdir())
    assert fa.read_bytes() == fb.read_bytes()
    r = kubelite("fuzz", "replay", str(fa), hashseed="99")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "trace digest matches" in r.stdout


def test_replay_exits_1_when_the_trace_differs(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fuzz", "run", "tests.fuzz.planted:config_buggy", "--runs", "20", "--no-shrink",
                                  "--out", str(tmp_path)])
    assert r.exit_code == 1
    (path,) = list(tmp_path.iterdir())
    data = json.loads(path.read_text())
    data["target"] = "tests.fuzz.planted:config_fixed"  # "after the fix": same seed and schedule
    path.write_text(json.dumps(data))
    r = CliRunner().invoke(main, ["fuzz", "replay", str(path)])
    assert r.exit_code == 1, r.output
    assert "trace digest DIFFERS" in r.output and "no failure" in r.output


def test_shrink_command(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fuzz", "run", "tests.fuzz.planted:tally_buggy", "--runs", "30", "--no-shrink",
                                  "--out", str(tmp_path)])
    assert r.exit_code == 1, r.output
    (path,) = list(tmp_path.iterdir())
    r = CliRunner().invoke(main, ["fuzz", "shrink", str(path)])
    assert r.exit_code == 0, r.output
    small = path.with_name(path.name.replace(".json", ".min.json"))
    assert small.exists()
    n = len(json.loads(small.read_text())["schedule"])
    assert f"-> {n} decision{'' if n == 1 else 's'}: {small}" in r.output
    assert "violated tally_matches" in r.output


def test_run_seeds_reports_pass_rates() -> None:
    r = CliRunner().invoke(main, ["run", str(ROOT / "scenarios" / "job-completion.yaml"), "--seeds", "1..2"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "scenario job-completion: 2 seeds, 2 passed every expectation"
    assert "  the Job completes                 2/2 (100.0%)" in r.output


def test_seed_tally_marks_flaky_expectations() -> None:
    from kubelite.fuzz.seeds import ExpectationTally, SeedsReport, parse_seeds, render_seeds

    assert parse_seeds("1..3,7") == [1, 2, 3, 7]
    report = SeedsReport(scenario="s", seeds=[1, 2, 3], failed_seeds=[2], expectations=[
        ExpectationTally(name="ok", passed=3), ExpectationTally(name="shaky", passed=2, failed_seeds=[2])])
    text = render_seeds(report, "s.yaml")
    assert "  shaky  2/3 (66.7%)  FLAKY  failing seeds: 2" in text
    assert "  ok     3/3 (100.0%)\n" in text
    assert text.endswith("replay one: kubelite run s.yaml --seed 2\n")


def test_run_seeds_rejects_an_empty_range(tmp_path: Path) -> None:
    scenario = ROOT / "scenarios" / "nginx-example.yaml"
    r = CliRunner().invoke(main, ["run", str(scenario), "--seeds", "5..1"])
    assert r.exit_code == 2 and "--seeds" in r.output
