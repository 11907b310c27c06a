"""Status conditions: apimachinery's ``meta.SetStatusCondition`` and friends, ported from the cases of
upstream's ``conditions_test.go`` (dict and typed conditions alike)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.conditions import (
    find_status_condition,
    is_status_condition_false,
    is_status_condition_present_and_equal,
    is_status_condition_true,
    remove_status_condition,
    set_status_condition,
)
from kubelite.api.types import Condition

OLD, NOW = "2025-01-01T00:00:00Z", "2025-01-01T01:00:00Z"


def cond(type_: str, status: str, *, reason: str = "", message: str = "", gen: int | None = None,
         ltt: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"type": type_, "status": status, "reason": reason, "message": message}
    if gen is not None:
        c["observedGeneration"] = gen
    if ltt is not None:
        c["lastTransitionTime"] = ltt
    return c


@pytest.mark.parametrize(
    ("conditions", "to_add", "expected", "changed"),
    [
        # upstream "should-add": a new type is appended, stamped now
        ([cond("first", "True", ltt=OLD), cond("third", "True", ltt=OLD)], cond("second", "True"),
         [cond("first", "True", ltt=OLD), cond("third", "True", ltt=OLD), cond("second", "True", ltt=NOW)], True),
        # upstream "use-supplied-time": a new condition's own lastTransitionTime is kept
        ([], cond("second", "False", ltt=OLD), [cond("second", "False", ltt=OLD)], True),
        # upstream "update-fields": status changes -> time changes; reason/message/generation copied
        ([cond("first", "True", ltt=OLD), cond("second", "True", ltt=OLD)],
         cond("second", "False", reason="Bad", message="broke", gen=3),
         [cond("first", "True", ltt=OLD), cond("second", "False", reason="Bad", message="broke", gen=3, ltt=NOW)],
         True),
        # same status, new reason: the transition time does NOT move
        ([cond("ready", "True", reason="A", ltt=OLD)], cond("ready", "True", reason="B"),
         [cond("ready", "True", reason="B", ltt=OLD)], True),
        # nothing differs: unchanged
        ([cond("ready", "True", reason="A", ltt=OLD)], cond("ready", "True", reason="A"),
         [cond("ready", "True", reason="A", ltt=OLD)], False),
        # status change with a supplied time: that time is used
        ([cond("ready", "True", ltt=OLD)], cond("ready", "False", ltt="2025-01-01T00:30:00Z"),
         [cond("ready", "False", ltt="2025-01-01T00:30:00Z")], True),
    ],
    ids=["add", "use-supplied-time", "update-fields", "same-status-keeps-time", "unchanged", "supplied-time-on-change"],
)
def test_set_status_condition(conditions: list[Any], to_add: dict[str, Any], expected: list[Any],
                              changed: bool) -> None:
    assert set_status_condition(conditions, to_add, now=NOW) is changed
    assert conditions == expected


def test_set_status_condition_on_typed_conditions_and_a_clock() -> None:
    class Clock:
        def timestamp(self) -> str:
            return NOW

    conds = [Condition(type="Ready", status="False", reason="Starting", message="", last_transition_time=OLD)]
    assert set_status_condition(conds, Condition(type="Ready", status="True", reason="Up", message=""), now=Clock())
    assert (conds[0].status, conds[0].reason, conds[0].last_transition_time) == ("True", "Up", NOW)
    assert not set_status_condition(conds, Condition(type="Ready", status="True", reason="Up", message=""), now=OLD)
    assert conds[0].last_transition_time == NOW


@pytest.mark.parametrize(
    ("conditions", "type_", "removed", "left"),
    [
        ([cond("first", "True"), cond("second", "True")], "second", True, ["first"]),
        ([cond("first", "True")], "missing", False, ["first"]),
        ([], "any", False, []),
    ],
    ids=["present", "absent", "empty"],
)
def test_remove_status_condition(conditions: list[Any], type_: str, removed: bool, left: list[str]) -> None:
    assert remove_status_condition(conditions, type_) is removed
    assert [c["type"] for c in conditions] == left


def test_find_and_is_status_condition() -> None:
    conds = [cond("Ready", "True"), cond("Degraded", "False"), cond("Progressing", "Unknown")]
    assert find_status_condition(conds, "Degraded") is conds[1]
    assert find_status_condition(conds, "Missing") is None
    assert find_status_condition(None, "Ready") is None
    assert is_status_condition_true(conds, "Ready") and not is_status_condition_false(conds, "Ready")
    assert is_status_condition_false(conds, "Degraded") and not is_status_condition_true(conds, "Degraded")
    # Unknown and absent are neither true nor false
    for t in ("Progressing", "Missing"):
        assert not is_status_condition_true(conds, t) and not is_status_condition_false(conds, t)
    assert is_status_condition_present_and_equal(conds, "Progressing", "Unknown")
