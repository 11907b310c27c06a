"""The ReplicaSet controller's pod tracker keeps per-owner counts; an owner whose pods are all gone costs
nothing (it saw every pod of the cluster, so every finished Job used to leave an entry behind forever)."""

from __future__ import annotations

from types import SimpleNamespace

import msgspec
import pytest

from kubelite.api.types import ObjectMeta, OwnerReference, Pod
from kubelite.controllers.replicaset.controller import PodHandler
from kubelite.controllers.replicaset.pod_tracker import PodTracker


def owned_pod(name: str, owner_uid: str, kind: str = "Job") -> Pod:
    ref = OwnerReference(api_version="batch/v1", kind=kind, name="owner", uid=owner_uid, controller=True)
    return Pod(metadata=ObjectMeta(name=name, namespace="default", owner_references=[ref], resource_version="1"))


def test_an_owner_with_no_pods_left_is_forgotten() -> None:
    tracker = PodTracker()
    for i in range(50):  # fifty finished Jobs, one pod each, observed and then deleted
        pod = owned_pod(f"job-{i}-pod", f"uid-{i}")
        tracker.observe(pod)
        tracker.forget(pod)
    assert tracker._owners == {}


def test_an_owner_keeps_its_counts_while_it_has_pods() -> None:
    tracker = PodTracker()
    a, b = owned_pod("a", "rs-1", "ReplicaSet"), owned_pod("b", "rs-1", "ReplicaSet")
    tracker.observe(a)
    tracker.observe(b)
    tracker.forget(a)
    assert list(tracker._owners) == ["rs-1"]
    assert [p.metadata.name for p, _flags in tracker._owners["rs-1"].pods.values()] == ["b"]


class _NoOwners:
    """An owner indexer with nothing cached (the handler then only feeds its tracker)."""

    def get_by_key(self, key: str) -> None:
        return None

    def by_index(self, name: str, value: str) -> list[object]:
        return []


@pytest.mark.parametrize(("controller_kind", "pod_kind", "tracked"), [
    ("ReplicaSet", "ReplicaSet", True),
    ("ReplicaSet", "Job", False),
    ("ReplicationController", "ReplicaSet", False),
    ("ReplicationController", "ReplicationController", True),
], ids=["rs-own-pod", "rs-ignores-job-pod", "rc-ignores-rs-pod", "rc-own-pod"])
def test_the_pod_handler_tracks_only_its_kinds_pods(controller_kind: str, pod_kind: str, tracked: bool) -> None:
    """Upstream resolves a pod's controllerRef by Kind (``resolveControllerRef``): the ReplicationController
    manager never counts ReplicaSet pods, so its tracker must not hold them (it used to hold every pod of the
    cluster, twice over with the ReplicaSet controller's)."""
    tracker = PodTracker()
    rsc = SimpleNamespace(kind=type(controller_kind, (), {}), rss=_NoOwners(), expectations=None,
                          enqueue_after=None, tracker=tracker)
    handler = PodHandler(rsc)  # type: ignore[arg-type]
    pod = owned_pod("p", "owner-1", pod_kind)
    handler.create(pod, lambda req: None)
    newer = msgspec.structs.replace(pod, metadata=msgspec.structs.replace(pod.metadata, resource_version="2"))
    handler.update(pod, newer, lambda req: None)
    assert (list(tracker._owners) == ["owner-1"]) is tracked
    handler.deleted(newer, lambda req: None, final=True)
    assert tracker._owners == {}
