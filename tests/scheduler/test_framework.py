"""Profiles, the adaptive percentageOfNodesToScore, FitError text, and binding failures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import Invalid
from kubelite.scheduler import Scheduler
from kubelite.scheduler.framework import SKIP, UNSCHEDULABLE, CycleState, FitError, PodInfo, Status
from kubelite.scheduler.framework.profile import build_plans
from kubelite.scheduler.plugins import in_tree_registry
from kubelite.scheduler.schedule_one import num_feasible_nodes_to_find
from tests.scheduler.helpers import create_node, create_pod, node_of, running_scheduler


def _implements(name: str, method: str) -> bool | None:
    reg = in_tree_registry()
    factory = reg.get(name)
    if factory is None:
        return None
    return callable(getattr(factory({}, None), method, None))


@pytest.mark.parametrize(("profiles", "fragment"), [
    ([{"plugins": {"queueSort": {"disabled": [{"name": "*"}]}}}], "exactly one queue sort plugin"),
    ([{"plugins": {"bind": {"disabled": [{"name": "*"}]}}}], "at least one bind plugin is needed"),
    ([{"plugins": {"multiPoint": {"enabled": [{"name": "Nope"}]}}}], "plugin not registered"),
    ([{"plugins": {"score": {"enabled": [{"name": "NodeName"}]}}}], "does not extend score plugin"),
    ([{"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 0}]}}}], "weight must be positive"),
    ([{"schedulerName": "x"}, {"schedulerName": "x"}], "Duplicate value"),
], ids=["no-queue-sort", "no-bind", "unknown", "wrong-point", "zero-weight", "duplicate-name"])
def test_invalid_profiles_are_rejected(profiles: list[dict[str, Any]], fragment: str) -> None:
    with pytest.raises(Invalid) as e:
        build_plans(profiles, _implements)
    assert fragment in str(e.value.status.message)


def test_default_profile_has_upstream_weights_and_points() -> None:
    (plan,) = build_plans([{}], _implements)
    assert dict(plan.points["score"]) == {
        "TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
        "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
    assert [n for n, _ in plan.points["queueSort"]] == ["PrioritySort"]
    assert [n for n, _ in plan.points["bind"]] == ["DefaultBinder"]
    assert [n for n, _ in plan.points["postFilter"]] == ["DefaultPreemption"]


@pytest.mark.parametrize(("pct", "nodes", "want"), [
    (None, 50, 50), (None, 100, 100), (None, 1000, 420), (None, 5000, 500), (None, 6000, 300),
    (None, 100_000, 5000), (10, 5000, 500), (100, 5000, 5000), (1, 5000, 100),
], ids=["small", "min", "1k", "5k", "6k", "100k-floor-5pct", "explicit", "all", "at-least-100"])
def test_num_feasible_nodes_to_find(pct: int | None, nodes: int, want: int) -> None:
    assert num_feasible_nodes_to_find(pct, nodes) == want


def test_fit_error_prefilter_message_replaces_histogram() -> None:
    st = Status(UNSCHEDULABLE, "pod has unbound immediate PersistentVolumeClaims")
    fe = FitError("ns/p", 2, {"a": st, "b": st}, pre_filter_msg=st.message,
                  post_filter_msg="preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    assert str(fe) == ("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                       "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")


class FlakyBinder:
    name = "FlakyBinder"

    def __init__(self) -> None:
        self.calls = 0

    async def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        self.calls += 1
        if self.calls == 1:
            return Status.error("connection reset")
        return Status(SKIP)  # let DefaultBinder do it


async def test_bind_failure_forgets_assumed_pod_and_retries_with_backoff(cluster: Cluster) -> None:
    await create_node(cluster, "n1")
    flaky = FlakyBinder()

    def setup(s: Scheduler) -> None:
        def factory(args: Mapping[str, Any], handle: Any) -> FlakyBinder:
            return flaky

        s.register_plugin("FlakyBinder", factory)

    profiles = [{"plugins": {"bind": {"enabled": [{"name": "FlakyBinder"}, {"name": "DefaultBinder"}],
                                      "disabled": [{"name": "*"}]}}}]
    async with running_scheduler(cluster, profiles=profiles, setup=setup) as sched:
        await create_pod(cluster, "p", cpu="100m")
        await cluster.wait_for(lambda: sched.statistics().scheduled == 1, timeout=30)
        stats = sched.statistics()
        assert stats.attempts["error"] == 1 and stats.assumed == 0
        assert stats.e2e_latency.max >= 1.0  # waited out the 1 s backoff
        assert await node_of(cluster, "p") == "n1"
        assert flaky.calls == 2


async def test_scheduling_gates_hold_pod(cluster: Cluster) -> None:
    # Removing the gate is covered by the queue tests: kubelite's pod update validation does not yet
    # allow removing schedulingGates (upstream does).
    await create_node(cluster, "n1")
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "gated", schedulingGates=[{"name": "example.com/quota"}])
        await cluster.advance(5)
        assert sched.statistics().gated == 1 and await node_of(cluster, "gated") is None
        assert sched.statistics().attempts == {"scheduled": 0, "unschedulable": 0, "error": 0}


_BASE = {"cpu": "500m", "memory": "1Gi", "node_name": "n1", "labels": {"app": "web"}, "priority": 5,
         "ports": [{"containerPort": 80, "hostPort": 8080}]}


@pytest.mark.parametrize(("change", "shared"), [
    ({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}, True),
    ({"cpu": "750m"}, False),
    ({"labels": {"app": "api"}}, False),
    ({"priority": 7}, False),
    ({"ports": [{"containerPort": 80, "hostPort": 9090}]}, False),
], ids=["status-only", "requests", "labels", "priority", "host-ports"])
def test_pod_info_updated_shares_only_what_did_not_change(change: dict[str, Any], shared: bool) -> None:
    """``PodInfo.updated`` (upstream ``PodInfo.Update``) reuses what it derived from the identity, labels and
    spec when only the status moved (a kubelet's status write); any other change is derived afresh, and the
    result always equals a PodInfo built from scratch."""
    from tests.scheduler.helpers import _decode_pod, _encode, pod_dict

    old = PodInfo(_decode_pod(_encode(pod_dict("p", **_BASE))))
    kw = {**_BASE, **{k: v for k, v in change.items() if k != "status"}}
    body = pod_dict("p", **kw)
    if "status" in change:
        body["status"] = change["status"]
    new = _decode_pod(_encode(body))
    got, fresh = old.updated(new), PodInfo(new)
    assert got.pod is new and old.pod is not new
    assert {s: getattr(got, s) for s in PodInfo.__slots__} == {s: getattr(fresh, s) for s in PodInfo.__slots__}
    assert (got.requests is old.requests) is shared


def _frozen_spec(spec: dict[str, Any]) -> Any:
    import msgspec

    from kubelite.api.types.core_v1 import PodSpec
    from kubelite.api.views import freeze

    return freeze(msgspec.convert(spec, PodSpec))


_SPEC = {"containers": [{"name": "c", "image": "nginx:1.25", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
         "nodeSelector": {"a": "1", "b": "2"}, "nodeName": "n1"}


@pytest.mark.parametrize(("a", "b", "same"), [
    (_SPEC, _SPEC, True),
    (_SPEC, {**_SPEC, "nodeSelector": {"b": "2", "a": "1"}}, True),  # other key order: encodings differ, == decides
    (_SPEC, {**_SPEC, "nodeName": "n2"}, False),
    (_SPEC, {**_SPEC, "containers": [{"name": "c", "image": "nginx:1.26"}]}, False),
    (_SPEC, {**_SPEC, "nodeSelector": {"a": "1"}}, False),
    (_SPEC, None, False),
    (None, None, True),
], ids=["equal", "key-order", "node-name", "image", "selector", "none", "both-none"])
def test_same_spec_is_equality(a: dict[str, Any] | None, b: dict[str, Any] | None, same: bool) -> None:
    """``same_spec`` answers exactly what ``==`` answers on shared (frozen) views, which the scheduler's pod
    update handlers ask of every pod write (upstream ``PodInfo.Update`` / ``isPodUpdated``)."""
    from kubelite.scheduler.framework.types import same_spec

    x = _frozen_spec(a) if a is not None else None
    y = _frozen_spec(b) if b is not None else None
    assert same_spec(x, y) is same
    assert (x == y) is same
    assert same_spec(x, x) is True
