"""Toleration matching and the toleration time, as upstream's table tests state them."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import Node
from kubelite.api.types.core_v1 import Taint, Toleration
from kubelite.controllers.nodelifecycle.taints import (
    condition_taints,
    get_matching_tolerations,
    min_toleration_seconds,
    tolerates,
)

T = Taint(key="node.kubernetes.io/unreachable", effect="NoExecute")
V = Taint(key="dedicated", value="gpu", effect="NoExecute")


@pytest.mark.parametrize(("tol", "taint", "want"), [
    (Toleration(key=T.key, operator="Exists", effect="NoExecute"), T, True),
    (Toleration(key=T.key, operator="Exists"), T, True),
    (Toleration(operator="Exists"), T, True),
    (Toleration(key=T.key, operator="Exists", effect="NoSchedule"), T, False),
    (Toleration(key="other", operator="Exists"), T, False),
    (Toleration(key="dedicated", value="gpu"), V, True),
    (Toleration(key="dedicated", operator="Equal", value="cpu"), V, False),
    (Toleration(key="", operator="Equal", value="gpu"), V, False),
], ids=["exact", "any-effect", "wildcard", "wrong-effect", "wrong-key", "equal", "unequal", "empty-key-equal"])
def test_tolerates(tol: Toleration, taint: Taint, want: bool) -> None:
    assert tolerates(tol, taint) is want


@pytest.mark.parametrize(("secs", "want"), [
    ([], 0.0), ([None], -1.0), ([300, 20, None], 20.0), ([-5, 300], 0.0), ([600], 600.0),
], ids=["none", "forever", "min", "negative", "one"])
def test_min_toleration_seconds(secs: list[int | None], want: float) -> None:
    tols = [Toleration(operator="Exists", toleration_seconds=s) for s in secs]
    assert min_toleration_seconds(tols) == want


def test_matching_tolerations_needs_every_taint() -> None:
    tol = Toleration(key=T.key, operator="Exists")
    assert get_matching_tolerations([T], [tol]) == (True, [tol])
    assert get_matching_tolerations([T, V], [tol]) == (False, [])


@pytest.mark.parametrize(("conds", "unschedulable", "want"), [
    ({"Ready": "True", "MemoryPressure": "False"}, False, []),
    ({"Ready": "False"}, False, ["node.kubernetes.io/not-ready"]),
    ({"Ready": "Unknown", "PIDPressure": "True"}, False,
     ["node.kubernetes.io/unreachable", "node.kubernetes.io/pid-pressure"]),
    ({"Ready": "True", "NetworkUnavailable": "True"}, True,
     ["node.kubernetes.io/network-unavailable", "node.kubernetes.io/unschedulable"]),
], ids=["healthy", "not-ready", "unknown-pid", "network-cordoned"])
def test_condition_taints(conds: dict[str, str], unschedulable: bool, want: list[str]) -> None:
    body: dict[str, Any] = {"spec": {"unschedulable": unschedulable},
                            "status": {"conditions": [{"type": k, "status": v} for k, v in conds.items()]}}
    assert condition_taints(msgspec.convert(body, Node)) == want


_NS = Taint(key="node.kubernetes.io/not-ready", effect="NoSchedule")


@pytest.mark.parametrize(("old", "new", "want"), [
    ([], [], False),
    ([T], [T], False),
    ([T, _NS], [T], False),
    ([], [_NS], False),
    ([], [T], True),
    ([T], [], True),
    ([T], [V], True),
], ids=["none", "same-no-execute", "no-schedule-removed", "no-schedule-added", "no-execute-added",
        "no-execute-removed", "no-execute-replaced"])
def test_taint_eviction_wakes_on_node_updates_only_when_no_execute_taints_change(
    old: list[Taint], new: list[Taint], want: bool,
) -> None:
    """Upstream ``NodeUpdated`` returns at once when the NoExecute taints are unchanged (a node status write),
    so those updates never walk the node's pods."""
    from kubelite.api.types.core_v1 import NodeSpec
    from kubelite.controllers.nodelifecycle import _no_execute_taints_changed

    assert _no_execute_taints_changed(Node(spec=NodeSpec(taints=old)), Node(spec=NodeSpec(taints=new))) is want


_TOL = Toleration(key="node.kubernetes.io/unreachable", operator="Exists", effect="NoExecute", toleration_seconds=300)


@pytest.mark.parametrize(("old", "new", "want"), [
    ({"node_name": "n1"}, {"node_name": "n1"}, False),
    ({"node_name": "n1", "tolerations": [_TOL]}, {"node_name": "n1", "tolerations": [_TOL]}, False),
    ({}, {"node_name": "n1"}, True),
    ({"node_name": "n1"}, {"node_name": "n2"}, True),
    ({"node_name": "n1"}, {"node_name": "n1", "tolerations": [_TOL]}, True),
    ({"node_name": "n1", "tolerations": [_TOL]}, {"node_name": "n1"}, True),
], ids=["status-only", "same-tolerations", "bound", "moved", "toleration-added", "toleration-removed"])
def test_taint_eviction_wakes_on_pod_updates_only_when_node_or_tolerations_change(
    old: dict[str, Any], new: dict[str, Any], want: bool,
) -> None:
    """Upstream ``PodUpdated`` returns at once when the node name and tolerations are unchanged (a kubelet's
    status write), so those pod updates never reach the taint-eviction queue."""
    from kubelite.api.types import Pod
    from kubelite.api.types.core_v1 import Container, PodSpec
    from kubelite.controllers.nodelifecycle import _placement_or_tolerations_changed

    def pod(fields: dict[str, Any]) -> Pod:
        return Pod(spec=PodSpec(containers=[Container(name="c", image="i")], **fields))

    assert _placement_or_tolerations_changed(pod(old), pod(new)) is want
