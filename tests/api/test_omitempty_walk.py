"""The omitempty walk that skips what cannot be dropped decides exactly what the plain rule decides.

``kubelite.api.omitempty`` enters only the subtrees whose message can hold a field Go omits at its zero
(its ``live`` messages) and scans each dict for a zero in C before looking at its keys. The reference
below is the rule read straight off the generated table, walking every key of every struct it reaches (the
walk before stop 24): the two must leave every object identical, on random objects of every built-in kind
(zeros, non-zeros, wrong types, empty and non-empty slices and maps, at any depth) and on the objects the
table tests use.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from kubelite.api import omitempty
from kubelite.api.omitempty import omit_empty, omit_empty_message
from kubelite.api.protobuf_tables import KINDS, MESSAGES

_VALUES = omitempty._VALUES


def _reference(obj: dict[str, Any], message: str) -> None:
    """Go's omitempty by the table, every key looked at: drop an omitempty scalar at 0/""/false and an
    omitempty slice or map when empty; walk every struct, every struct in a slice and every struct value
    of a map."""
    fields = {name: (kind, flags) for name, kind, flags in omitempty._fields(message)}
    for key in list(obj):
        if key not in fields:
            continue
        kind, flags = fields[key]
        value, omit = obj[key], "z" not in flags
        struct = kind in MESSAGES and kind not in _VALUES
        if "r" in flags or "m" in flags:
            if type(value) in (list, dict) and not value:
                if omit:
                    del obj[key]
            elif struct and "r" in flags and type(value) is list:
                for item in value:
                    if type(item) is dict:
                        _reference(item, kind)
            elif struct and "m" in flags and type(value) is dict:
                for item in value.values():
                    if type(item) is dict:
                        _reference(item, kind)
        elif struct:
            if type(value) is dict and value:
                _reference(value, kind)
        elif omit and kind not in MESSAGES and kind not in _VALUES and (value == 0 or value == ""):
            del obj[key]


_ZEROS: list[Any] = [0, 0.0, -0.0, False, "", [], {}]
_OTHERS: list[Any] = [1, 2.5, True, "x", None, [1], {"k": "v"}, ["a", ""], {"k": ""}]


def _random(message: str, rng: random.Random, depth: int) -> dict[str, Any]:
    """A random value of ``message``: each field absent, a zero, another value (of any type), or (for a
    struct, a slice or a map of structs) random items of its message, down to ``depth``."""
    out: dict[str, Any] = {}
    for name, kind, flags in omitempty._fields(message):
        roll = rng.random()
        if roll < 0.35:
            continue
        struct = kind in MESSAGES and kind not in _VALUES
        if struct and depth > 0 and roll < 0.8:
            if "r" in flags:
                out[name] = [_random(kind, rng, depth - 1) for _ in range(rng.randrange(3))]
            elif "m" in flags:
                out[name] = {f"k{i}": _random(kind, rng, depth - 1) for i in range(rng.randrange(3))}
            else:
                out[name] = _random(kind, rng, depth - 1)
        else:
            out[name] = copy.deepcopy(rng.choice(_ZEROS if roll < 0.6 else _OTHERS))
    if rng.random() < 0.2:
        out["notAField"] = copy.deepcopy(rng.choice(_ZEROS))  # unknown keys are never the rule's
    return out


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed{s}")
def test_the_walk_is_the_reference_rule_on_random_objects_of_every_kind(seed: int) -> None:
    rng = random.Random(seed)
    nested = 0
    for (api_version, kind), message in sorted(KINDS.items()):
        for _ in range(3):
            obj = _random(message, rng, 4)
            expected = copy.deepcopy(obj)
            _reference(expected, message)
            nested += any(expected.get(k) != v for k, v in obj.items() if k in expected)  # a drop below the top
            assert omit_empty(obj, api_version, kind) == expected, (api_version, kind)
    assert nested > len(KINDS)  # the inputs do reach into the kinds' structs


@pytest.mark.parametrize(("message", "depth"), [("core.v1.PodSpec", 6), ("core.v1.NodeStatus", 6),
                                               ("meta.v1.ObjectMeta", 6), ("apiextensions.v1.JSONSchemaProps", 3)],
                         ids=["PodSpec", "NodeStatus", "ObjectMeta", "JSONSchemaProps"])
def test_the_walk_is_the_reference_rule_deep_inside_one_message(message: str, depth: int) -> None:
    rng = random.Random(message)
    dropped = 0
    for _ in range(40):
        obj = _random(message, rng, depth)
        expected = copy.deepcopy(obj)
        _reference(expected, message)
        before = copy.deepcopy(obj)
        assert omit_empty_message(obj, message) == expected
        dropped += obj != before
    assert dropped > 0  # the inputs do hold zeros the rule drops


def test_a_message_that_keeps_every_zero_is_not_entered() -> None:
    # LeaseSpec's fields are all pointers (*string, *int32, *MicroTime): Go keeps their zeros, so a Lease's
    # spec is never walked; ObjectMeta holds omitempty fields, so it is
    lease = omitempty.plan_for("coordination.k8s.io/v1", "Lease")
    assert lease is not None
    assert "spec" not in lease.descend and "metadata" in lease.descend
    assert "coordination.v1.LeaseSpec" not in omitempty._live_messages()
    obj = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "n", "labels": {}},
           "spec": {"holderIdentity": "", "leaseDurationSeconds": 0, "leaseTransitions": 0}}
    assert omit_empty(obj) == {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "n"},
                               "spec": {"holderIdentity": "", "leaseDurationSeconds": 0, "leaseTransitions": 0}}
    # a live message reached only through a recursive one is still entered (JSONSchemaProps reaches itself)
    assert "apiextensions.v1.JSONSchemaProps" in omitempty._live_messages()
