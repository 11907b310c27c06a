"""A bound pod's updates in the scheduler cache: a status write swaps the cached PodInfo in place (no node
totals recomputed, no change-log entry, no generation bump); a change of anything the scheduler accounts
(labels, deletionTimestamp, spec) goes through remove + add as upstream's ``cache.UpdatePod``."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import Pod
from kubelite.cluster import Cluster
from kubelite.scheduler.framework.types import PodInfo
from tests.scheduler.helpers import create_node, create_pod, make_pod, node_info, node_of, running_scheduler

_ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}


async def _write(cluster: Cluster, change: str) -> None:
    c = cluster.client
    if change == "status":
        await c.patch(Pod, "web", {"status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True"}]}}, namespace="default", subresource="status")
    elif change == "annotations":  # nothing the scheduler reads
        await c.patch(Pod, "web", {"metadata": {"annotations": {"note": "x"}}}, namespace="default")
    elif change == "labels":
        await c.patch(Pod, "web", {"metadata": {"labels": {"app": "api"}}}, namespace="default")
    else:  # a graceful delete sets deletionTimestamp; no kubelet finishes it
        await c.delete(Pod, "web", namespace="default", grace_period=30)


@pytest.mark.parametrize(("change", "in_place"), [
    ("status", True), ("annotations", True), ("labels", False), ("deletion", False),
], ids=["status", "annotations", "labels", "deletion-timestamp"])
async def test_bound_pod_update_in_cache(cluster: Cluster, change: str, in_place: bool) -> None:
    await create_node(cluster, "n1")
    async with running_scheduler(cluster) as sched:
        await create_pod(cluster, "web", cpu="250m", labels={"app": "web"}, affinity=_ANTI)
        await cluster.settle()
        assert await node_of(cluster, "web") == "n1"
        cache = sched.cache
        ni = cache.nodes["n1"]
        (before,) = ni.pods
        uid = before.uid
        _, seq = cache.changes_since(0)
        gen, requested, res_key = ni.generation, dict(ni.requested), ni.res_key
        await _write(cluster, change)
        await cluster.settle()
        after = cache.pod_info(uid)
        assert after is not None and after is not before
        live = await cluster.client.get(Pod, "web", namespace="default")
        assert after.pod.metadata.resource_version == live.metadata.resource_version  # the newest version
        assert ni.pods == [after] and ni.pods_with_affinity == [after]
        assert ni.pods_with_required_anti_affinity == [after]
        assert ni.requested == requested and ni.requested["cpu"] == 250 and ni.res_key == res_key
        changed, _ = cache.changes_since(seq)
        if in_place:
            assert changed == [] and ni.generation == gen
            assert after.requests is before.requests  # the derived fields are shared, not recomputed
        else:
            assert changed and set(changed) == {"n1"} and ni.generation != gen
        by_label = cache.nodes_with_label("default", "app", "web")
        assert dict(by_label) == ({} if change == "labels" else {"n1": 1})


def test_replace_pod_keeps_totals_and_order() -> None:
    a, b = make_pod("a", cpu="1", node_name="n1"), make_pod("b", cpu="1", node_name="n1", affinity=_ANTI,
                                                              labels={"app": "web"})
    ni = node_info("n1", [a, b])
    pa, pb = ni.pods
    gen, req = ni.generation, dict(ni.requested)
    b2: Any = make_pod("b", cpu="1", node_name="n1", affinity=_ANTI, labels={"app": "web"})
    nb = pb.status_update(b2)
    assert nb is not None and ni.replace_pod(pb, nb)
    assert ni.pods == [pa, nb] and ni.pods_with_affinity == [nb] and ni.pods_with_required_anti_affinity == [nb]
    assert ni.generation == gen and ni.requested == req
    assert not ni.replace_pod(pb, nb)  # pb is no longer there: nothing changes
    assert ni.pods == [pa, nb]
    other = PodInfo(make_pod("b", cpu="2", node_name="n1"))
    assert pb.status_update(other.pod) is None  # another spec: not a status update


# --- the binding of an assumed pod (upstream cache.AddPod of an assumed pod: the same totals on the same node) ---


async def test_binding_confirms_the_assumed_entry_in_place(cluster: Cluster) -> None:
    """The informer's bind event turns the assumed entry into the bound one without rebuilding the PodInfo
    or touching the node's totals, label index or change log (the assumed entry already held them)."""
    await create_node(cluster, "n1")
    async with running_scheduler(cluster) as sched:
        cache = sched.cache
        assumed: list[PodInfo] = []
        seqs: list[int] = []
        assume = cache.assume_pod

        def spy(pod: PodInfo, node_name: str) -> None:
            assume(pod, node_name)
            assumed.append(pod)
            seqs.append(cache.changes_since(0)[1])

        cache.assume_pod = spy  # type: ignore[method-assign]
        assert dict(cache.nodes_with_label("default", "app", "web")) == {}  # index the label from the start
        await create_pod(cluster, "web", cpu="250m", labels={"app": "web"}, affinity=_ANTI)
        await cluster.settle()
        assert await node_of(cluster, "web") == "n1"
        (was,) = assumed
        bound = cache.pod_info(was.uid)
        assert bound is not None and bound is not was and not cache.is_assumed(was.uid)
        assert bound.node_name == "n1" and bound.pod.spec is not None and bound.pod.spec.node_name == "n1"
        assert bound.requests is was.requests and bound.required_anti_affinity_terms is was.required_anti_affinity_terms
        ni = cache.nodes["n1"]
        assert ni.pods == [bound] and ni.pods_with_required_anti_affinity == [bound]
        assert ni.requested["cpu"] == 250
        assert cache.changes_since(seqs[0])[0] == []  # nothing logged after the assume
        assert dict(cache.nodes_with_label("default", "app", "web")) == {"n1": 1}


def _bound(pod: Pod, node: str, **changes: Any) -> Any:
    """``pod`` as a binding to ``node`` wrote it, with ``changes`` to its spec."""
    assert pod.spec is not None
    return msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec, node_name=node, **changes))


@pytest.mark.parametrize(("change", "shares"), [
    ({}, True),
    ({"priority": 7}, False),
    ({"containers": []}, False),
], ids=["only-node-name", "priority", "containers"])
def test_bound_update_shares_only_when_the_binding_changed_nothing_but_the_node(
    change: dict[str, Any], shares: bool,
) -> None:
    pi = PodInfo(make_pod("web", cpu="1", labels={"app": "web"}))
    out = pi.bound_update(_bound(pi.pod, "n1", **change))
    if shares:
        assert out is not None and out.node_name == "n1" and out.requests is pi.requests and pi.node_name == ""
    else:
        assert out is None


def test_bound_update_refuses_other_labels() -> None:
    pi = PodInfo(make_pod("web", cpu="1", labels={"app": "web"}))
    other = make_pod("web", cpu="1", labels={"app": "api"})
    assert pi.bound_update(_bound(other, "n1")) is None


def test_confirm_pod_refuses_another_node_and_a_bound_entry() -> None:
    from kubelite.scheduler.cache import Cache

    cache = Cache()
    pi = PodInfo(make_pod("web", cpu="1"))
    cache.assume_pod(pi, "n1")
    elsewhere = pi.bound_update(_bound(pi.pod, "n2"))
    assert elsewhere is not None and not cache.confirm_pod(pi, elsewhere)
    assert cache.is_assumed(pi.uid)  # unchanged: the handler then re-adds it where it landed
    here = pi.bound_update(_bound(pi.pod, "n1"))
    assert here is not None and cache.confirm_pod(pi, here) and not cache.is_assumed(pi.uid)
    assert not cache.confirm_pod(here, here)  # a bound entry is not confirmed again
