"""The run watchdog: a run that stops making virtual progress ends with LivelockError (exit 3), never a hang."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kubelite.cli import main
from kubelite.scenario import parse_scenario, run_scenario_async
from kubelite.scenario import stall as stall_mod
from kubelite.scenario import steps as steps_mod
from kubelite.watchdog import LivelockError

SC = """\
name: spin
until: 1m
cluster: {nodePools: [{count: 1}]}
manifests:
  - {apiVersion: v1, kind: Service, metadata: {name: c}, spec: {ports: [{port: 80}]}}
steps:
  - at: 5s
    action: wait
    duration: 1s
expect:
  - atEnd: 'true'
"""


def _spinning_wait(monkeypatch: pytest.MonkeyPatch, *, write: bool) -> None:
    real = steps_mod._run

    async def spin(ctx: Any, step: Any) -> str:
        if type(step).__name__ != "Wait":
            return await real(ctx, step)
        n = 0
        while True:  # a livelock: busy at one virtual instant forever
            n += 1
            if write:  # as two controllers fighting over an object do, through the API
                await ctx.cluster.client.patch("services", "c", {"metadata": {"labels": {"n": str(n)}}},
                                               patch_type="merge")
            await asyncio.sleep(0)

    monkeypatch.setattr(steps_mod, "_run", spin)


async def test_writes_without_virtual_progress_are_a_livelock(monkeypatch: pytest.MonkeyPatch) -> None:
    _spinning_wait(monkeypatch, write=True)
    monkeypatch.setattr(stall_mod, "MAX_CHANGES_PER_INSTANT", 300)
    with pytest.raises(LivelockError) as ei:
        await run_scenario_async(parse_scenario(SC), stall_seconds=None)
    assert ei.value.at == 5.0
    assert "changes at t=5s without virtual time moving" in ei.value.diagnosis
    assert "services/default/c" in ei.value.diagnosis


async def test_a_busy_loop_without_writes_is_stopped_by_the_wall_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _spinning_wait(monkeypatch, write=False)
    with pytest.raises(LivelockError) as ei:
        await run_scenario_async(parse_scenario(SC), stall_seconds=1.0)
    assert "no virtual progress for 1 s of wall time at t=5s" in ei.value.diagnosis


def test_cli_maps_a_livelock_to_exit_3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import kubelite.scenario as scenario

    def livelocked(*args: Any, **kwargs: Any) -> Any:
        raise LivelockError("the scenario run stopped making virtual progress",
                            diagnosis="pods/default/web (9000)", at=3.0)

    monkeypatch.setattr(scenario, "run_scenario", livelocked)
    f = tmp_path / "s.yaml"
    f.write_text(SC)
    for args in (["run", str(f)], ["get", "pods", str(f)], ["describe", "pod/x", str(f)]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 3, (args, res.output)
        assert "pods/default/web (9000)" in res.output
