"""The binder's matching rules as tables: which volume fits which claim (``FindMatchingVolume``)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import PersistentVolume, PersistentVolumeClaim
from kubelite.controllers.volume_binder.util import (
    check_volume_satisfy_claim,
    find_matching_volume,
    is_volume_bound_to_claim,
    node_affinity_matches,
)


def pv(name: str, size: str = "1Gi", *, modes: tuple[str, ...] = ("ReadWriteOnce",), klass: str = "",
       phase: str = "Available", labels: dict[str, str] | None = None, claim: dict[str, Any] | None = None,
       mode: str | None = None, hosts: list[str] | None = None, deleting: bool = False) -> PersistentVolume:
    meta: dict[str, Any] = {"name": name, "labels": labels or {}}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    spec: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": list(modes), "storageClassName": klass,
                            "hostPath": {"path": f"/data/{name}"}}
    if claim is not None:
        spec["claimRef"] = claim
    if mode is not None:
        spec["volumeMode"] = mode
    if hosts is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": hosts}]}]}}
    return msgspec.convert({"metadata": meta, "spec": spec, "status": {"phase": phase}}, PersistentVolume)


def pvc(size: str = "1Gi", *, modes: tuple[str, ...] = ("ReadWriteOnce",), klass: str = "",
        selector: dict[str, Any] | None = None, mode: str | None = None, volume: str | None = None) -> PersistentVolumeClaim:
    spec: dict[str, Any] = {"accessModes": list(modes), "storageClassName": klass,
                            "resources": {"requests": {"storage": size}}}
    if selector is not None:
        spec["selector"] = selector
    if mode is not None:
        spec["volumeMode"] = mode
    if volume is not None:
        spec["volumeName"] = volume
    return msgspec.convert({"metadata": {"name": "data", "namespace": "default", "uid": "u1"}, "spec": spec},
                           PersistentVolumeClaim)


MATCH_CASES = [
    ("smallest-fitting", pvc("3Gi"), [pv("a", "1Gi"), pv("b", "10Gi"), pv("c", "5Gi"), pv("d", "2Gi")], {}, "c"),
    ("exact-size", pvc("5Gi"), [pv("a", "10Gi"), pv("b", "5Gi")], {}, "b"),
    ("units-compared-exactly", pvc("1G"), [pv("a", "1Gi"), pv("b", "1000M")], {}, "b"),
    ("none-big-enough", pvc("30Gi"), [pv("a", "10Gi"), pv("b", "20Gi")], {}, None),
    ("class-must-match", pvc("1Gi", klass="fast"), [pv("a", klass="slow"), pv("b", "2Gi", klass="fast")], {}, "b"),
    ("empty-class-only-empty", pvc("1Gi"), [pv("a", klass="fast")], {}, None),
    ("not-available-skipped", pvc(), [pv("a", phase="Released"), pv("b", "2Gi")], {}, "b"),
    ("pending-skipped", pvc(), [pv("a", phase="Pending")], {}, None),
    ("access-modes-contained", pvc(modes=("ReadWriteMany",)), [pv("a"), pv("b", "5Gi", modes=("ReadWriteMany",))],
     {}, "b"),
    ("fewest-modes-before-size", pvc("1Gi"),
     [pv("a", "1Gi", modes=("ReadWriteOnce", "ReadOnlyMany")), pv("b", "9Gi")], {}, "b"),
    ("volume-mode", pvc(mode="Block"), [pv("a"), pv("b", "2Gi", mode="Block")], {}, "b"),
    ("filesystem-default", pvc(mode="Filesystem"), [pv("a", mode="Block"), pv("b")], {}, "b"),
    ("selector", pvc(selector={"matchLabels": {"tier": "gold"}}),
     [pv("a", labels={"tier": "silver"}), pv("b", "5Gi", labels={"tier": "gold"})], {}, "b"),
    ("bound-elsewhere-skipped", pvc(), [pv("a", claim={"namespace": "default", "name": "other", "uid": "x"})], {},
     None),
    ("pre-bound-wins-over-smaller", pvc(),
     [pv("a"), pv("b", "50Gi", phase="Pending", claim={"namespace": "default", "name": "data"})], {}, "b"),
    ("pre-bound-uid-mismatch", pvc(), [pv("a", claim={"namespace": "default", "name": "data", "uid": "old"})], {},
     None),
    ("deleting-skipped", pvc(), [pv("a", deleting=True)], {}, None),
    ("delay-binding-without-node", pvc(), [pv("a")], {"delay_binding": True}, None),
    ("delay-binding-pre-bound", pvc(), [pv("a", claim={"namespace": "default", "name": "data", "uid": "u1"})],
     {"delay_binding": True}, "a"),
    ("node-affinity", pvc(), [pv("a", hosts=["n1"]), pv("b", "5Gi", hosts=["n2"])],
     {"delay_binding": True, "node": ("n2", {"kubernetes.io/hostname": "n2"})}, "b"),
    ("node-affinity-none-fit", pvc(), [pv("a", hosts=["n1"])],
     {"delay_binding": True, "node": ("n2", {"kubernetes.io/hostname": "n2"})}, None),
]


@pytest.mark.parametrize(("claim", "volumes", "kw", "want"), [c[1:] for c in MATCH_CASES], ids=[c[0] for c in MATCH_CASES])
def test_find_matching_volume(claim: PersistentVolumeClaim, volumes: list[PersistentVolume], kw: dict[str, Any],
                              want: str | None) -> None:
    got = find_matching_volume(claim, volumes, **kw)
    assert (got.metadata.name if got is not None and got.metadata is not None else None) == want


SATISFY_CASES = [
    ("fits", pv("a", "2Gi"), pvc("1Gi"), None),
    ("too-small", pv("a", "1Gi"), pvc("2Gi"), "requested PV is too small"),
    ("class", pv("a", klass="x"), pvc(), "storageClassName does not match"),
    ("volume-mode", pv("a", mode="Block"), pvc(), "incompatible volumeMode"),
    ("access-mode", pv("a"), pvc(modes=("ReadWriteMany",)), "incompatible accessMode"),
    ("deleting", pv("a", deleting=True), pvc(), 'the volume is marked for deletion "a"'),
]


@pytest.mark.parametrize(("volume", "claim", "want"), [c[1:] for c in SATISFY_CASES], ids=[c[0] for c in SATISFY_CASES])
def test_check_volume_satisfy_claim(volume: PersistentVolume, claim: PersistentVolumeClaim, want: str | None) -> None:
    assert check_volume_satisfy_claim(volume, claim) == want


BOUND_CASES = [
    ("no-claim-ref", None, False),
    ("pre-bound-by-name", {"namespace": "default", "name": "data"}, True),
    ("same-uid", {"namespace": "default", "name": "data", "uid": "u1"}, True),
    ("other-uid", {"namespace": "default", "name": "data", "uid": "u2"}, False),
    ("other-namespace", {"namespace": "prod", "name": "data"}, False),
]


@pytest.mark.parametrize(("ref", "want"), [c[1:] for c in BOUND_CASES], ids=[c[0] for c in BOUND_CASES])
def test_is_volume_bound_to_claim(ref: dict[str, Any] | None, want: bool) -> None:
    assert is_volume_bound_to_claim(pv("a", claim=ref), pvc()) is want


def _affinity(*terms: dict[str, Any]) -> PersistentVolume:
    return msgspec.convert({"metadata": {"name": "a"}, "spec": {"nodeAffinity": {"required": {
        "nodeSelectorTerms": list(terms)}}}}, PersistentVolume)


AFFINITY_CASES = [
    ("in", _affinity({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}), True),
    ("not-in", _affinity({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}), False),
    ("exists", _affinity({"matchExpressions": [{"key": "zone", "operator": "Exists"}]}), True),
    ("does-not-exist", _affinity({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}), True),
    ("gt", _affinity({"matchExpressions": [{"key": "rank", "operator": "Gt", "values": ["3"]}]}), True),
    ("lt", _affinity({"matchExpressions": [{"key": "rank", "operator": "Lt", "values": ["3"]}]}), False),
    ("any-term", _affinity({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["x"]}]},
                           {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}), True),
    ("empty-term-matches-nothing", _affinity({}), False),
]


@pytest.mark.parametrize(("volume", "want"), [c[1:] for c in AFFINITY_CASES], ids=[c[0] for c in AFFINITY_CASES])
def test_node_affinity_matches(volume: PersistentVolume, want: bool) -> None:
    assert node_affinity_matches(volume, "n1", {"zone": "a", "rank": "5"}) is want
