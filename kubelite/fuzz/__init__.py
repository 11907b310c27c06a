"""``kubelite.fuzz``: find an operator's ordering bugs by seeded exploration, with invariants, shrinking and
exact replay.

::

    from kubelite.fuzz import FuzzTarget, fuzz, replay, shrink

    target = FuzzTarget(setup, crds=["crds/"], invariants=["owners_exist", one_configmap_per_widget])
    report = fuzz(target, budget=30)           # seconds of wall time; runs seed after seed
    if report.failure is not None:
        small = shrink(report.failure)         # delta debugging over the schedule's decisions
        print("\\n".join(small.story))
        replay(small)                           # raises if the trace digest differs

See ``docs/fuzzing.md``: the perturbation points (:mod:`kubelite.perturb`), schedules
(:mod:`kubelite.fuzz.schedule`), invariants (:mod:`kubelite.fuzz.invariants`), runs and schedule files
(:mod:`kubelite.fuzz.run`), shrinking (:mod:`kubelite.fuzz.minimize`) and campaigns
(:mod:`kubelite.fuzz.campaign`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubelite.fuzz.campaign import CampaignReport, fuzz
    from kubelite.fuzz.invariants import (
        BUILTIN,
        Change,
        ClusterView,
        Invariant,
        NoLeakAfterOwnerDeletion,
        OwnersExist,
        SingleController,
        StatusNeverRegresses,
        always,
        at_quiescence,
    )
    from kubelite.fuzz.minimize import shrink
    from kubelite.fuzz.run import (
        ReplayMismatch,
        RunResult,
        Violation,
        load_run,
        replay,
        run_one,
        run_one_async,
    )
    from kubelite.fuzz.schedule import Decision, Knobs, parse_knobs
    from kubelite.fuzz.target import Env, FuzzTarget, load_target

# Imported on first use (PEP 562), so that loading the pytest plugin does not import the control plane.
_HOMES = {
    **dict.fromkeys(["BUILTIN", "Change", "ClusterView", "Invariant", "NoLeakAfterOwnerDeletion", "OwnersExist",
                     "SingleController", "StatusNeverRegresses", "always", "at_quiescence"], "invariants"),
    **dict.fromkeys(["ReplayMismatch", "RunResult", "Violation", "load_run", "replay", "run_one", "run_one_async"],
                    "run"),
    **dict.fromkeys(["Decision", "Knobs", "parse_knobs"], "schedule"),
    **dict.fromkeys(["Env", "FuzzTarget", "load_target"], "target"),
    **dict.fromkeys(["CampaignReport", "fuzz"], "campaign"),
    "shrink": "minimize",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kubelite.fuzz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"kubelite.fuzz.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN",
    "CampaignReport",
    "Change",
    "ClusterView",
    "Decision",
    "Env",
    "FuzzTarget",
    "Invariant",
    "Knobs",
    "NoLeakAfterOwnerDeletion",
    "OwnersExist",
    "ReplayMismatch",
    "RunResult",
    "SingleController",
    "StatusNeverRegresses",
    "Violation",
    "always",
    "at_quiescence",
    "fuzz",
    "load_run",
    "load_target",
    "parse_knobs",
    "replay",
    "run_one",
    "run_one_async",
    "shrink",
]
