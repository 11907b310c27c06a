"""controllerutil: owner/controller references, finalizers, CreateOrUpdate and CreateOrPatch, following the
cases of controller-runtime's ``pkg/controller/controllerutil/controllerutil_test.go``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from kubelite.api.types import ConfigMap, Deployment, ObjectMeta
from kubelite.api.types.apps_v1 import DeploymentSpec
from kubelite.cluster import Cluster
from kubelite.controllers import (
    AlreadyOwnedError,
    OperationResult,
    add_finalizer,
    contains_finalizer,
    create_or_patch,
    create_or_update,
    has_controller_reference,
    has_owner_reference,
    ignore_not_found,
    remove_controller_reference,
    remove_finalizer,
    remove_owner_reference,
    set_controller_reference,
    set_owner_reference,
)
from kubelite.controllers.controllerutil import create_merge_patch


def rs(name: str = "rs", ns: str = "default", uid: str = "uid-rs") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": ns, "uid": uid}}


def deploy(name: str = "d", ns: str = "default", uid: str = "uid-d", api_version: str = "apps/v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "uid": uid}}


def test_set_controller_reference_sets_controller_and_block_owner_deletion() -> None:
    obj = rs()
    set_controller_reference(deploy(), obj)
    assert obj["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d",
                                                   "uid": "uid-d", "controller": True, "blockOwnerDeletion": True}]
    assert has_controller_reference(obj) and has_owner_reference(deploy(), obj)


def test_set_controller_reference_on_typed_objects() -> None:
    owner = Deployment(metadata=ObjectMeta(name="d", namespace="default", uid="u1"))
    obj = ConfigMap(metadata=ObjectMeta(name="cm", namespace="default"))
    set_controller_reference(owner, obj)
    (ref,) = obj.metadata.owner_references or []  # type: ignore[union-attr]
    assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == \
        ("apps/v1", "Deployment", "d", "u1", True, True)


def test_a_second_controller_is_already_owned_error() -> None:
    obj = rs()
    set_controller_reference(deploy("a", uid="ua"), obj)
    with pytest.raises(AlreadyOwnedError, match="Object default/rs is already owned by another Deployment controller a"):
        set_controller_reference(deploy("b", uid="ub"), obj)
    assert [r["name"] for r in obj["metadata"]["ownerReferences"]] == ["a"]  # unchanged


@pytest.mark.parametrize(
    ("owner", "message"),
    [
        (deploy(ns="other"), "cross-namespace owner references are disallowed"),
    ],
    ids=["cross-namespace"],
)
def test_invalid_owners_are_rejected(owner: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        set_controller_reference(owner, rs())


def test_cluster_scoped_object_cannot_have_a_namespaced_owner_but_the_reverse_is_fine() -> None:
    node_like = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv", "uid": "pv1"}}
    with pytest.raises(ValueError, match="cluster-scoped resource must not have a namespace-scoped owner"):
        set_owner_reference(deploy(), node_like)
    obj = rs()
    set_owner_reference(node_like, obj)
    assert obj["metadata"]["ownerReferences"][0]["kind"] == "PersistentVolume"


def test_references_upsert_by_group_kind_and_name() -> None:
    obj = rs()
    set_owner_reference(deploy(uid="old"), obj)
    set_owner_reference(rs("other", uid="o"), obj)
    # same group, kind and name (another version and uid): replaced in place, not duplicated
    set_controller_reference(deploy(uid="new", api_version="apps/v1beta1"), obj)
    refs = obj["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"], r["uid"], r.get("controller")) for r in refs] == \
        [("Deployment", "d", "new", True), ("ReplicaSet", "other", "o", None)]
    # set_owner_reference replaces the whole reference (upstream upsertOwnerRef): the controller flag goes
    set_owner_reference(deploy(uid="new"), obj)
    assert not has_controller_reference(obj)


def test_remove_owner_and_controller_references() -> None:
    obj = rs()
    set_controller_reference(deploy(), obj)
    set_owner_reference(rs("other", uid="o"), obj)
    with pytest.raises(ValueError, match="is not the controller"):
        remove_controller_reference(rs("other", uid="o"), obj)
    remove_controller_reference(deploy(), obj)
    assert [r["name"] for r in obj["metadata"]["ownerReferences"]] == ["other"]
    remove_owner_reference(rs("other", uid="o"), obj)
    assert obj["metadata"]["ownerReferences"] == []
    with pytest.raises(ValueError, match="does not have an owner reference"):
        remove_owner_reference(deploy(), obj)
    with pytest.raises(ValueError, match="does not have a controller reference"):
        remove_controller_reference(deploy(), obj)


@pytest.mark.parametrize(
    ("before", "op", "changed", "after"),
    [
        ([], "add", True, ["f"]),
        (["f"], "add", False, ["f"]),
        (["a"], "add", True, ["a", "f"]),
        (["f", "a", "f"], "remove", True, ["a"]),  # every occurrence
        (["a"], "remove", False, ["a"]),
        (None, "remove", False, None),
    ],
    ids=["add", "add-present", "add-appends", "remove-all-occurrences", "remove-absent", "remove-none"],
)
def test_finalizers(before: list[str] | None, op: str, changed: bool, after: list[str] | None) -> None:
    obj: dict[str, Any] = {"metadata": {"name": "x"} if before is None else {"name": "x", "finalizers": before}}
    fn = add_finalizer if op == "add" else remove_finalizer
    assert fn(obj, "f") is changed
    assert obj["metadata"].get("finalizers") == after
    assert contains_finalizer(obj, "f") is (op == "add")


def test_finalizers_on_typed_objects() -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="x"))
    assert add_finalizer(cm, "example.com/cleanup") and contains_finalizer(cm, "example.com/cleanup")
    assert remove_finalizer(cm, "example.com/cleanup") and cm.metadata.finalizers is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("before", "after", "patch"),
    [
        ({"a": 1}, {"a": 2}, {"a": 2}),
        ({"a": 1, "b": 2}, {"a": 1}, {"b": None}),
        ({"m": {"x": 1, "y": 2}}, {"m": {"x": 1, "y": 3, "z": 4}}, {"m": {"y": 3, "z": 4}}),
        ({"l": [1, 2]}, {"l": [2]}, {"l": [2]}),
        ({"a": 1}, {"a": 1}, {}),
    ],
    ids=["scalar", "removed-key", "nested", "list-replaced", "unchanged"],
)
def test_create_merge_patch(before: Any, after: Any, patch: Any) -> None:
    assert create_merge_patch(before, after) == patch


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c


def _deployment() -> Deployment:
    return Deployment(metadata=ObjectMeta(name="web", namespace="default"))


async def test_create_or_update(cluster: Cluster) -> None:
    c = cluster.client

    def mutate_typed(d: Deployment) -> None:
        base = msgspec.convert({"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                                "template": {"metadata": {"labels": {"app": "web"}},
                                             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
                               DeploymentSpec)
        if d.spec is None:
            d.spec = base
        d.spec.replicas = 2

    result, obj = await create_or_update(c, _deployment(), mutate_typed)
    assert result is OperationResult.CREATED and obj.metadata.uid  # type: ignore[union-attr]
    result, same = await create_or_update(c, _deployment(), mutate_typed)
    assert result is OperationResult.NONE
    assert same.metadata.resource_version == obj.metadata.resource_version  # type: ignore[union-attr]

    def scale(d: Deployment) -> None:
        assert d.spec is not None
        d.spec.replicas = 5

    result, updated = await create_or_update(c, _deployment(), scale)
    assert result is OperationResult.UPDATED and updated.spec.replicas == 5  # type: ignore[union-attr]
    assert (await c.get(Deployment, "web")).spec.replicas == 5  # type: ignore[union-attr]

    def rename(d: Deployment) -> None:
        d.metadata.name = "other"  # type: ignore[union-attr]

    with pytest.raises(ValueError, match="cannot mutate object name"):
        await create_or_update(c, _deployment(), rename)


async def test_create_or_patch_results(cluster: Cluster) -> None:
    c = cluster.client
    template = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"}}

    def spec(replicas: int) -> Any:
        def mutate(d: dict[str, Any]) -> None:
            # set only what we own: the server's defaults in the stored object are not a change
            d.setdefault("spec", {"selector": {"matchLabels": {"app": "web"}},
                                  "template": {"metadata": {"labels": {"app": "web"}},
                                               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}})
            d["spec"]["replicas"] = replicas
        return mutate

    def status(observed: int) -> Any:
        def mutate(d: dict[str, Any]) -> None:
            d.setdefault("status", {})["observedGeneration"] = observed
        return mutate

    def both(d: dict[str, Any]) -> None:
        spec(4)(d)
        status(9)(d)

    assert (await create_or_patch(c, dict(template), spec(1)))[0] is OperationResult.CREATED
    assert (await create_or_patch(c, dict(template), spec(1)))[0] is OperationResult.NONE
    assert (await create_or_patch(c, dict(template), spec(3)))[0] is OperationResult.UPDATED
    result, obj = await create_or_patch(c, dict(template), status(7))
    assert result is OperationResult.UPDATED_STATUS_ONLY and obj["status"]["observedGeneration"] == 7
    result, obj = await create_or_patch(c, dict(template), both)
    assert result is OperationResult.UPDATED_STATUS
    stored = await c.get("deployments", "web")
    assert stored["spec"]["replicas"] == 4 and stored["status"]["observedGeneration"] == 9
    assert OperationResult.UPDATED_STATUS_ONLY == "updatedStatusOnly"  # upstream's string values


async def test_ignore_not_found(cluster: Cluster) -> None:
    assert await ignore_not_found(cluster.client.get(ConfigMap, "missing")) is None
    await ignore_not_found(cluster.client.delete(ConfigMap, "missing"))
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="here")))
    got = await ignore_not_found(cluster.client.get(ConfigMap, "here"))
    assert got is not None and got.metadata.name == "here"  # type: ignore[union-attr]
