"""A PUT decoded in proportion to its change gives what the whole decode gives (apiserver/put_delta.py).

Invariant: for any body over a stored object, ``decode_put`` returns ``Decoder.decode``'s result (equal as
JSON data) or None, and None whenever the whole decode fails or warns. The bodies are the stored Lease
with seeded random edits: the kubelet's renewal, and the neighbours a JSON-typed comparison must refuse
to take as unchanged (``True`` for ``1``, ``40.0`` for ``40``, a tuple for a list), nulls, unknown fields,
bad types, metadata edits, managedFields changed, system fields left out, nested removals.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from kubelite.apiserver.put_delta import decode_put, same_json
from kubelite.cluster import Cluster
from kubelite.errors import ApiError

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
LEASES = "kube-node-lease"


def _edit(r: random.Random, body: dict[str, Any]) -> str:
    spec = body["spec"] if type(body.get("spec")) is dict else {}  # (an earlier edit may have replaced it)
    meta = body["metadata"]
    edits = {
        "renew": lambda: spec.__setitem__("renewTime", f"2025-01-01T00:00:{r.randrange(60):02d}.000000Z"),
        "holder": lambda: spec.__setitem__("holderIdentity", "someone"),
        "duration-bool": lambda: spec.__setitem__("leaseDurationSeconds", True),
        "duration-float": lambda: spec.__setitem__("leaseDurationSeconds", 40.0),
        "duration-string": lambda: spec.__setitem__("leaseDurationSeconds", "40"),
        "duration-null": lambda: spec.__setitem__("leaseDurationSeconds", None),
        "duration-new": lambda: spec.__setitem__("leaseDurationSeconds", 15),
        "transitions": lambda: spec.__setitem__("leaseTransitions", r.randrange(3)),
        "unknown-spec": lambda: spec.__setitem__("bogus", 1),
        "unknown-top": lambda: body.__setitem__("status", {"x": 1}),
        "spec-emptied": lambda: body.__setitem__("spec", {}),
        "spec-dropped": lambda: body.pop("spec", None),
        "spec-null": lambda: body.__setitem__("spec", None),
        "spec-list": lambda: body.__setitem__("spec", ["x"]),
        "holder-removed": lambda: spec.pop("holderIdentity", None),
        "label": lambda: meta.__setitem__("labels", {"a": "b"}),
        "uid-dropped": lambda: meta.pop("uid", None),
        "rv-int": lambda: meta.__setitem__("resourceVersion", 7),
        "rv-dropped": lambda: meta.pop("resourceVersion", None),
        "mf-dropped": lambda: meta.pop("managedFields", None),
        "mf-changed": lambda: meta.__setitem__("managedFields", [{**e, "manager": "other"}
                                                                 for e in meta.get("managedFields") or [{}]]),
        "mf-tuple": lambda: meta.__setitem__("managedFields", tuple(meta.get("managedFields") or ())),
        "name-dropped": lambda: meta.pop("name", None),
        "kind": lambda: body.__setitem__("kind", "Pod"),
        "api-version-dropped": lambda: body.pop("apiVersion", None),
        "acquire": lambda: spec.__setitem__("acquireTime", "2025-01-01T00:00:00.000000Z"),
        "acquire-bad": lambda: spec.__setitem__("acquireTime", 5),
    }
    name = r.choice(sorted(edits))
    edits[name]()
    return name


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed-{s}")
async def test_decode_put_is_the_whole_decode_or_none(seed: int) -> None:
    r = random.Random(seed)
    async with Cluster(seed=seed, **API_ONLY) as cluster:
        kubelet = cluster.client.with_field_manager("kubelet")
        await kubelet.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                              "metadata": {"name": "n0", "namespace": LEASES},
                              "spec": {"holderIdentity": "n0", "leaseDurationSeconds": 40,
                                       "renewTime": "2025-01-01T00:00:00.000000Z"}})
        decoder, tables = cluster.apiserver.scope.decoder, cluster.apiserver.tables
        info = tables.resource("coordination.k8s.io", "leases")
        stored = cluster.store.get(tables.table(info), LEASES, "n0")
        assert stored is not None
        live = stored.decode()
        took: set[str] = set()
        bad = 0  # bodies the whole decode rejects or warns about: each must have been refused
        for _ in range(80):
            body = copy.deepcopy(live)
            edits = sorted({_edit(r, body) for _ in range(1 + r.randrange(2))})
            sent = copy.deepcopy(body)
            pristine = copy.deepcopy(live)
            got = decode_put(info, body, live, "")
            assert body == sent and live == pristine, edits  # mutates neither
            warnings: list[str] = []
            try:
                want: Any = decoder.decode(info, copy.deepcopy(body), None, warnings)
            except ApiError as e:
                want = e
            if isinstance(want, ApiError) or warnings:
                bad += 1
                assert got is None, edits
                continue
            if got is None:
                continue
            took.add(",".join(edits))
            assert same_json(got, want), edits
            assert _shares_nothing(got, body), edits
        # the renewal took the short way, and the hostile neighbours were really there (and refused)
        assert "renew" in took and bad > 10, (took, bad)


def _ids(v: Any) -> set[int]:
    out = {id(v)} if isinstance(v, dict | list) else set()
    for x in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()):
        out |= _ids(x)
    return out


def _shares_nothing(got: Any, body: Any) -> bool:
    return not (_ids(got) & _ids(body))


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"x": 1}, {"x": 1}, True),
    ({"x": True}, {"x": 1}, False),
    ({"x": 1.0}, {"x": 1}, False),
    ({"x": 1}, {"x": 1.0}, False),
    ((1, 2), [1, 2], False),
    ([{"a": "b"}], [{"a": "b"}], True),
    ({"a": None}, {}, False),
    ({}, {"a": None}, False),
    ({"a": {"b": [1, {"c": False}]}}, {"a": {"b": [1, {"c": False}]}}, True),
    ({"a": {"b": [1, {"c": 0}]}}, {"a": {"b": [1, {"c": False}]}}, False),
], ids=["equal", "bool-for-int", "float-for-int", "int-for-float", "tuple", "nested", "null-key", "missing-key",
        "deep", "deep-int-for-bool"])
def test_same_json_compares_json_types(a: Any, b: Any, same: bool) -> None:
    assert same_json(a, b) is same
