"""Deployment helpers: fencepost rounding, hashes, revision annotations, rollout status messages."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import Deployment, ReplicaSet
from kubelite.api.types.core_v1 import PodTemplateSpec
from kubelite.controllers.deployment import compute_hash, resolve_fenceposts, rollout_status
from kubelite.controllers.deployment.rollback import RolloutError
from kubelite.controllers.deployment.util import (
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    equal_ignore_hash,
    set_new_replica_set_annotations,
)
from kubelite.rand import SUFFIX_ALPHABET


@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "expected"),
    [
        ("25%", "25%", 10, (3, 2)),  # surge rounds up, unavailable down
        ("25%", "25%", 1, (1, 0)),
        (0, 0, 5, (0, 1)),  # both zero: one may be unavailable
        ("0%", "0%", 3, (0, 1)),
        (2, "50%", 5, (2, 2)),
        ("10%", 0, 4, (1, 0)),
    ],
    ids=["defaults-10", "defaults-1", "both-zero", "both-zero-percent", "mixed", "small-surge"],
)
def test_resolve_fenceposts(surge: Any, unavailable: Any, desired: int, expected: tuple[int, int]) -> None:
    assert resolve_fenceposts(surge, unavailable, desired) == expected


def template(image: str, **labels: str) -> PodTemplateSpec:
    return msgspec.convert({"metadata": {"labels": {"app": "web", **labels}},
                            "spec": {"containers": [{"name": "c", "image": image}]}}, PodTemplateSpec)


def test_hash_is_stable_safe_and_collision_count_sensitive() -> None:
    h = compute_hash(template("nginx:1"), None)
    assert h == compute_hash(template("nginx:1"), None)
    assert h != compute_hash(template("nginx:2"), None)
    assert h != compute_hash(template("nginx:1"), 1)
    assert set(h) <= set(SUFFIX_ALPHABET) and 1 <= len(h) <= 10


def test_equal_ignore_hash() -> None:
    assert equal_ignore_hash(template("nginx:1", **{"pod-template-hash": "abc"}), template("nginx:1"))
    assert not equal_ignore_hash(template("nginx:1", **{"pod-template-hash": "abc"}), template("nginx:2"))


def test_revision_history_annotation() -> None:
    d = msgspec.convert({"metadata": {"name": "web", "annotations": {"team": "a"}}, "spec": {"replicas": 4}}, Deployment)
    rs = msgspec.convert({"metadata": {"name": "web-1", "annotations": {REVISION_ANNOTATION: "1"}}}, ReplicaSet)
    assert set_new_replica_set_annotations(d, rs, "3", True)
    assert rs.metadata.annotations == {"team": "a", REVISION_ANNOTATION: "3", REVISION_HISTORY_ANNOTATION: "1"}
    assert set_new_replica_set_annotations(d, rs, "5", True)
    assert rs.metadata.annotations[REVISION_HISTORY_ANNOTATION] == "1,3"


def status(gen: int, observed: int, replicas: int, updated: int, available: int, total: int,
           reason: str = "ReplicaSetUpdated") -> Deployment:
    return msgspec.convert({
        "metadata": {"name": "web", "generation": gen}, "spec": {"replicas": replicas},
        "status": {"observedGeneration": observed, "updatedReplicas": updated, "availableReplicas": available,
                   "replicas": total, "conditions": [{"type": "Progressing", "status": "True", "reason": reason}]},
    }, Deployment)


@pytest.mark.parametrize(
    ("d", "expected"),
    [
        (status(2, 1, 3, 3, 3, 3), (False, "Waiting for deployment spec update to be observed...")),
        (status(1, 1, 3, 1, 1, 4), (False, 'Waiting for deployment "web" rollout to finish: 1 out of 3 new '
                                           "replicas have been updated...")),
        (status(1, 1, 3, 3, 2, 4), (False, 'Waiting for deployment "web" rollout to finish: 1 old replicas are '
                                           "pending termination...")),
        (status(1, 1, 3, 3, 1, 3), (False, 'Waiting for deployment "web" rollout to finish: 1 of 3 updated '
                                           "replicas are available...")),
        (status(1, 1, 3, 3, 3, 3), (True, 'deployment "web" successfully rolled out')),
    ],
    ids=["not-observed", "updating", "old-pending", "available", "done"],
)
def test_rollout_status_messages(d: Deployment, expected: tuple[bool, str]) -> None:
    assert rollout_status(d) == expected


def test_rollout_status_deadline_exceeded() -> None:
    with pytest.raises(RolloutError, match='deployment "web" exceeded its progress deadline'):
        rollout_status(status(1, 1, 3, 1, 1, 3, reason="ProgressDeadlineExceeded"))
