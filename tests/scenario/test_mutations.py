"""A mutation test of the shipped scenarios: each must notice when its story did not happen.

For every shipped scenario and each mutation (rename its first workload, drop it, break every image),
some expectation must fail. A scenario whose every expectation still passes checks nothing about
its story (the guide: an expectation that passes when its subject does not exist is a defect)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubelite.scenario import Scenario, load_scenario, run_scenario_async
from kubelite.scenario import format as f

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml"))
WORKLOADS = ("Pod", "Deployment", "StatefulSet", "DaemonSet", "Job")
BROKEN = "registry.invalid/broken:0"


def _first_workload(objects: list[dict[str, Any]]) -> int:
    return next(i for i, o in enumerate(objects) if o.get("kind") in WORKLOADS)


def _images(obj: Any) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "image" and isinstance(v, str):
                obj[k] = BROKEN
            else:
                _images(v)
    elif isinstance(obj, list):
        for v in obj:
            _images(v)


def mutate(sc: Scenario, how: str) -> Scenario:
    objects = copy.deepcopy(sc.objects)
    steps = list(sc.steps)
    i = _first_workload(objects)
    if how == "rename":
        objects[i]["metadata"]["name"] += "-renamed"
    elif how == "drop":
        del objects[i]
    else:
        _images(objects)
        for j, st in enumerate(steps):
            if isinstance(st, f.Apply) and st.manifest is not None:
                m = copy.deepcopy(st.manifest)
                _images(m)
                steps[j] = msgspec.structs.replace(st, manifest=m)
    if how == "break-image":  # every reference exists by default: this one is marked never published
        return msgspec.structs.replace(sc, objects=objects, steps=steps, missing_images=[BROKEN])
    return msgspec.structs.replace(sc, objects=objects, steps=steps)


#: scenarios whose story *is* a broken image: breaking it again changes nothing
_STORY_IS_A_BROKEN_IMAGE = {"imagepullbackoff"}
CASES = [(p, how) for p in SHIPPED for how in ("rename", "drop", "break-image")
         if not (how == "break-image" and p.stem in _STORY_IS_A_BROKEN_IMAGE)]


@pytest.mark.parametrize(("path", "how"), CASES, ids=[f"{p.stem}-{how}" for p, how in CASES])
async def test_some_expectation_fails_when_the_story_did_not_happen(path: Path, how: str) -> None:
    sc = mutate(load_scenario(path), how)
    result = await run_scenario_async(sc, validate=False, stall_seconds=None)
    assert not result.passed, f"{path.stem} with its first workload {how}: every expectation still passed"
    failed = [e for e in result.expectations if not e.passed]
    assert all(e.diagnosis for e in failed if e.kind != "always" or e.at is not None)
