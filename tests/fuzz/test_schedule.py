"""Knobs, their parsing and their scoping of the perturbation points."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from kubelite.fuzz import Knobs, parse_knobs
from kubelite.fuzz.run import _run
from kubelite.fuzz.schedule import PROBABILITIES

from . import planted


@pytest.mark.parametrize(("text", "field", "value"), [
    ("crash=0.5", "crash", 0.5),
    ("api-yield=1", "api_yield", 1.0),
    ("max_hold=7", "max_hold", 7),
    ("users=a+b", "users", ("a", "b")),
    ("resources=example.com/widgets/status", "resources", ("example.com/widgets/status",)),
    ("fail_codes=409+503", "fail_codes", (409, 503)),
], ids=["float", "dash", "int", "users", "subresource", "codes"])
def test_parse_knobs(text: str, field: str, value: object) -> None:
    assert getattr(parse_knobs(text), field) == value


def test_parse_knobs_keeps_the_base_and_rejects_unknown_names() -> None:
    base = Knobs(crash=0.9)
    assert parse_knobs("api_yield=0", base).crash == 0.9
    with pytest.raises(ValueError, match="unknown knob 'nope=1'"):
        parse_knobs("nope=1")


def test_off_perturbs_nothing() -> None:
    off = Knobs.off()
    assert all(getattr(off, p) == 0.0 for p in PROBABILITIES)
    assert set(PROBABILITIES) <= set(msgspec.structs.asdict(off))


def test_api_points_scoped_to_a_subresource() -> None:
    knobs = msgspec.structs.replace(Knobs.off(), api_yield=1.0, resources=("example.com/widgets/status",))
    result, trace = asyncio.run(_run(planted.tally_buggy, 1, knobs=knobs))
    decided = [line for line in trace.lines if " decide " in line]
    assert decided, "no decision was taken"
    assert all("patch example.com/widgets/status" in line for line in decided)
    assert {d.family for d in result.schedule} <= {"api.before", "api.after"}


def test_users_scope_excludes_everyone_else() -> None:
    # the event loop's ready point belongs to no user: only ready_shuffle=0 switches it off
    knobs = msgspec.structs.replace(Knobs(), users=("nobody",))
    result, _ = asyncio.run(_run(planted.tally_buggy, 1, knobs=knobs))
    assert {d.family for d in result.schedule} <= {"ready"} and set(result.points) <= {"ready"}
    knobs = msgspec.structs.replace(knobs, ready_shuffle=0.0)
    result, _ = asyncio.run(_run(planted.tally_buggy, 1, knobs=knobs))
    assert result.schedule == [] and result.points == []
