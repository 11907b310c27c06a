"""The ReplicaSet controller's pod tracker keeps per-owner counts; an owner whose pods are all gone costs
nothing (it saw every pod of the cluster, so every finished Job used to leave an entry behind forever)."""

from __future__ import annotations

from kubelite.api.types import ObjectMeta, OwnerReference, Pod
from kubelite.controllers.replicaset.pod_tracker import PodTracker


def owned_pod(name: str, owner_uid: str, kind: str = "Job") -> Pod:
    ref = OwnerReference(api_version="batch/v1", kind=kind, name="owner", uid=owner_uid, controller=True)
    return Pod(metadata=ObjectMeta(name=name, namespace="default", owner_references=[ref]))


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
