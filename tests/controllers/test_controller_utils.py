"""The controller toolkit (pkg/controller/controller_utils.go, controller_ref_manager.go): owner resolution,
the owned-object event handler, adoption's fresh re-check; and a restart of the ReplicaSet controller."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import OwnerReference, Pod, ReplicaSet
from kubelite.clock import VirtualClock
from kubelite.cluster import Cluster
from kubelite.controllers.controller_utils import (
    OwnedObjectHandler,
    UIDTrackingControllerExpectations,
    claim_objects,
    is_controlled_by,
    label_selector,
    owner_reference,
    resolve_controller_ref,
)
from kubelite.controllers.reconcile import Request
from kubelite.informer import NAMESPACE_INDEX, Indexer, meta_namespace_index_func


def rs(name: str, uid: str, *, min_ready: int = 0, deleting: bool = False) -> ReplicaSet:
    return msgspec.convert({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": "1",
                     **({"deletionTimestamp": "2026-01-01T00:00:00Z"} if deleting else {})},
        "spec": {"selector": {"matchLabels": {"app": name}}, "minReadySeconds": min_ready,
                 "template": {"metadata": {"labels": {"app": name}}}},
    }, ReplicaSet)


def pod(name: str, labels: dict[str, str], *, owner: ReplicaSet | None = None, api_version: str = "apps/v1",
        rv: str = "1", ready: bool = False, deleting: bool = False) -> Pod:
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": f"uid-{name}", "labels": labels,
                            "resourceVersion": rv}
    if owner is not None:
        meta["ownerReferences"] = [{**owner_reference(owner), "apiVersion": api_version}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    status = {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    return msgspec.convert({"metadata": meta, "status": status}, Pod)


def indexer(*objs: Any) -> Indexer:
    idx = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    for o in objs:
        idx.add(o)
    return idx


WEB, API = rs("web", "u-web"), rs("api", "u-api")


@pytest.mark.parametrize(("ref", "want"), [
    ({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u-web"}, "web"),
    ({"apiVersion": "extensions/v1beta1", "kind": "ReplicaSet", "name": "web", "uid": "u-web"}, "web"),
    ({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u-other"}, None),
    ({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "u-web"}, None),
    ({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "gone", "uid": "u-web"}, None),
], ids=["same", "other-api-version", "other-uid", "other-kind", "absent"])
def test_resolve_controller_ref_compares_kind_and_uid_only(ref: dict[str, Any], want: str | None) -> None:
    """Upstream ``resolveControllerRef``: Kind and UID decide, the apiVersion does not."""
    got = resolve_controller_ref(indexer(WEB, API), "ns", msgspec.convert(ref, OwnerReference), "ReplicaSet")
    assert (got.metadata.name if got is not None else None) == want


def test_is_controlled_by() -> None:
    assert is_controlled_by(pod("a", {}, owner=WEB), WEB)
    assert not is_controlled_by(pod("a", {}, owner=WEB), API)
    assert not is_controlled_by(pod("a", {}), WEB)


class Recorder:
    def __init__(self) -> None:
        self.now: list[Request] = []
        self.later: list[tuple[Request, float]] = []

    def __call__(self, r: Request) -> None:
        self.now.append(r)

    def after(self, r: Request, delay: float) -> None:
        self.later.append((r, delay))


def handler(*owners: ReplicaSet, **kw: Any) -> tuple[OwnedObjectHandler, Recorder, UIDTrackingControllerExpectations]:
    exp = UIDTrackingControllerExpectations(clock=VirtualClock())
    rec = Recorder()
    return OwnedObjectHandler("ReplicaSet", indexer(*owners), expectations=exp, enqueue_after=rec.after, **kw), rec, exp


def test_owned_add_wakes_its_owner_whatever_the_owner_api_version() -> None:
    h, rec, exp = handler(WEB, API)
    exp.expect_creations("ns/web", 1)
    h.create(pod("a", {"app": "web"}, owner=WEB, api_version="extensions/v1beta1"), rec)
    assert rec.now == [Request("ns", "web")]
    assert exp.satisfied("ns/web")


@pytest.mark.parametrize(("orphans", "want"), [(True, [Request("ns", "web")]), (False, [])], ids=["adopters", "none"])
def test_orphan_add_wakes_matching_owners_and_observes_nothing(orphans: bool, want: list[Request]) -> None:
    h, rec, exp = handler(WEB, API, orphans=orphans)
    exp.expect_creations("ns/web", 1)
    h.create(pod("stray", {"app": "web"}), rec)
    assert rec.now == want
    assert not exp.satisfied("ns/web")  # no owner waits for an orphan


def test_update_wakes_old_and_new_owner_when_the_controller_ref_changes() -> None:
    h, rec, _ = handler(WEB, API)
    h.update(pod("a", {"app": "web"}, owner=WEB), pod("a", {"app": "web"}, owner=API, rv="2"), rec)
    assert rec.now == [Request("ns", "web"), Request("ns", "api")]


def test_resync_is_ignored_and_ready_with_min_ready_seconds_looks_again_later() -> None:
    slow = rs("slow", "u-slow", min_ready=10)
    h, rec, _ = handler(slow)
    old = pod("a", {"app": "slow"}, owner=slow)
    h.update(old, old, rec)
    assert rec.now == []
    h.update(old, pod("a", {"app": "slow"}, owner=slow, rv="2", ready=True), rec)
    assert rec.now == [Request("ns", "slow")]
    assert rec.later == [(Request("ns", "slow"), 11.0)]  # minReadySeconds + 1, upstream's skew second


def test_a_deletion_seen_twice_is_observed_once() -> None:
    h, rec, exp = handler(WEB)
    exp.expect_deletions_of("ns/web", ["ns/a", "ns/b"])
    live = pod("a", {"app": "web"}, owner=WEB)
    h.update(live, pod("a", {"app": "web"}, owner=WEB, rv="2", deleting=True), rec)
    h.delete(pod("a", {"app": "web"}, owner=WEB, rv="2", deleting=True), rec)
    assert exp.get("ns/web") == (0, 1)  # "b" is still expected
    assert rec.now == [Request("ns", "web")] * 2


class FakeClient:
    """Enough of the client for claim_objects: a fresh owner read and patches."""

    def __init__(self, fresh: ReplicaSet) -> None:
        self.fresh = fresh
        self.gets: list[tuple[Any, str]] = []
        self.patches: list[tuple[str, dict[str, Any]]] = []

    async def get(self, resource: Any, name: str, namespace: str | None = None) -> ReplicaSet:
        self.gets.append((resource, name))
        return self.fresh

    async def patch(self, resource: Any, name: str, body: dict[str, Any], namespace: str | None = None) -> None:
        self.patches.append((name, body))


@pytest.mark.parametrize(("fresh", "adopted"), [
    (WEB, True), (rs("web", "u-web", deleting=True), False), (rs("web", "u-new"), False),
], ids=["same", "being-deleted", "replaced"])
async def test_adoption_rechecks_the_owner_with_a_fresh_read(fresh: ReplicaSet, adopted: bool) -> None:
    """``RecheckDeletionTimestamp``: the cached owner may be stale, so adoption reads it from the API first."""
    client = FakeClient(fresh)
    orphans = [pod("o1", {"app": "web"}), pod("o2", {"app": "web"})]
    out = await claim_objects(client, Pod, WEB, label_selector(WEB.spec.selector), orphans)  # type: ignore[arg-type]
    assert client.gets == [(ReplicaSet, "web")]  # once, whatever the number of orphans
    assert [p.metadata.name for p in out.claimed] == (["o1", "o2"] if adopted else [])
    assert len(client.patches) == (2 if adopted else 0)
    assert len(out.errors) == (0 if adopted else 2)


async def test_claim_without_orphans_reads_nothing() -> None:
    client = FakeClient(WEB)
    mine = pod("a", {"app": "web"}, owner=WEB)
    released = pod("b", {"app": "other"}, owner=WEB)
    out = await claim_objects(client, Pod, WEB, label_selector(WEB.spec.selector), [mine, released])  # type: ignore[arg-type]
    assert out.claimed == [mine] and client.gets == []
    assert client.patches == [("b", {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": "u-web"}],
                                                  "uid": "uid-b"}})]


async def test_replicaset_restart_forgets_what_its_handler_saw() -> None:
    """A restarted controller's handler is reset before the informer replays its cache: a pod deleted while
    the controller was down must not still be counted (the pod tracker is the handler's state)."""
    async with Cluster(seed=5, nodes=2, controllers=["replicaset"]) as c:
        await c.settle()
        for n in await c.client.list("nodes"):
            await c.client.patch("nodes", n["metadata"]["name"], {"spec": {"taints": None}}, patch_type="merge")
        await c.client.create({
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}})
        await c.advance(30)
        mgr = c.controller_manager
        await mgr.crash_controller("replicaset")
        victim = (await c.client.list(Pod, labels={"app": "web"}))[0]
        await c.client.delete(Pod, victim.metadata.name, namespace="default", grace_period=0)
        await c.advance(5)
        mgr.restart_controller("replicaset")
        await c.advance(30)
        live = [p for p in await c.client.list(Pod, labels={"app": "web"}) if p.metadata.deletion_timestamp is None]
        assert len(live) == 3
        assert victim.metadata.name not in {p.metadata.name for p in live}
        assert (await c.client.get(ReplicaSet, "web")).status.replicas == 3
