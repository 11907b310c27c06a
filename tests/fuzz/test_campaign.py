"""Campaigns: budgets, workers (local processes, Dask distributed), merged reports, the pytest fixture."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kubelite.fuzz import fuzz
from kubelite.fuzz.campaign import parse_budget

from . import planted

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("text", "seconds"), [("60s", 60.0), ("2m", 120.0), ("1h", 3600.0), ("500ms", 0.5),
                                                (7, 7.0), (None, None)], ids=["s", "m", "h", "ms", "number", "none"])
def test_parse_budget(text: str | int | None, seconds: float | None) -> None:
    assert parse_budget(text) == seconds


def test_a_campaign_needs_a_limit() -> None:
    with pytest.raises(ValueError, match="budget"):
        fuzz(planted.config_fixed, budget=None)


def test_two_local_workers_merge_into_one_report() -> None:
    one = fuzz(planted.replicas_buggy, budget=None, runs=48, stop_on_failure=False)
    two = fuzz(planted.replicas_buggy, budget=None, runs=48, workers=2, stop_on_failure=False)
    assert two.runs == one.runs == 48
    assert two.failing_seeds == one.failing_seeds  # each seed is its own run, wherever it runs
    assert two.failure is not None and one.failure is not None
    assert two.failure.seed == one.failure.seed and two.failure.digest == one.failure.digest
    assert two.coverage == one.coverage


def test_dask_local_cluster_shards_the_same_seeds() -> None:
    """Also with Dask's default HTTP port taken (before, the scheduler's 'Port 8787 is already in use' warning
    failed the campaign under -W error, so this test needed 8787 free)."""
    pytest.importorskip("distributed")
    one = fuzz(planted.config_buggy, budget=None, runs=24, stop_on_failure=False)
    with socket.socket() as taken:
        with contextlib.suppress(OSError):  # already taken by someone else: the same situation
            taken.bind(("0.0.0.0", 8787))
            taken.listen()
        dask = fuzz(planted.config_buggy, budget=None, runs=24, workers=2, dask="local", stop_on_failure=False)
    assert dask.runs == 24
    assert dask.failing_seeds == one.failing_seeds


def test_stop_on_failure_stops_early() -> None:
    report = fuzz(planted.config_buggy, budget=None, runs=200)
    assert report.failure is not None
    assert report.runs < 200


def test_pytest_fixture_fails_with_seed_story_and_replay_command(tmp_path: Path) -> None:
    test = tmp_path / "test_operator_fuzz.py"
    test.write_text("""\
import pytest
from tests.fuzz import planted

@pytest.mark.kubelite_fuzz(runs=20)
def test_buggy(kubelite_fuzz):
    kubelite_fuzz(planted.config_buggy)

@pytest.mark.kubelite_fuzz(runs=5)
def test_fixed(kubelite_fuzz):
    report = kubelite_fuzz(planted.config_fixed)
    assert report.runs == 5
""")
    env = {**os.environ, "KUBELITE_LOG_LEVEL": "error"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "kubelite.testing.plugin",
                        f"--rootdir={tmp_path}", str(test)], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "1 failed, 1 passed" in out
    assert re.search(r"kubelite fuzz found a failure after \d+ runs: seed \d+", out), out
    assert re.search(r"one_configmap_each: widget c\d owns 2 configmaps", out), out
    assert "replay: kubelite fuzz replay" in out
