"""Custom resources through the API: schema validation, defaults, pruning, status/scale, selectableFields."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import BadRequest, Conflict, Invalid, NotFound


def widget_crd(**extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                         "statusReplicasPath": ".status.replicas"}},
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {"type": "object", "required": ["color"], "properties": {
                            "color": {"type": "string", "enum": ["red", "blue"]},
                            "replicas": {"type": "integer", "minimum": 0, "default": 1},
                            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        }},
                        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                    },
                }},
                **extra,
            }],
        },
    }


def widget(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


@pytest.fixture
async def crd_cluster(cluster: Cluster) -> Cluster:
    await cluster.client.create(widget_crd())
    return cluster


async def test_crd_is_established(crd_cluster: Cluster) -> None:
    crd = await crd_cluster.client.get("customresourcedefinitions", "widgets.example.com")
    conds = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
    assert conds == {"NamesAccepted": "True", "Established": "True"}


async def test_defaults_and_pruning(crd_cluster: Cluster) -> None:
    w = await crd_cluster.client.create({**widget("a", color="red", unknown=1, extra={"anything": [1]})})
    assert w["spec"] == {"color": "red", "replicas": 1, "extra": {"anything": [1]}}
    assert crd_cluster.client.warnings == ['unknown field "spec.unknown"']


@pytest.mark.parametrize(
    ("spec", "field", "fragment"),
    [
        ({}, "spec.color", "Required value"),
        ({"color": "pink"}, "spec.color", 'Unsupported value: "pink"'),
        ({"color": "red", "replicas": -1}, "spec.replicas", "greater than or equal to 0"),
        ({"color": "red", "replicas": "x"}, "spec.replicas", "must be of type integer"),
    ],
    ids=["required", "enum", "minimum", "type"],
)
async def test_schema_validation(crd_cluster: Cluster, spec: dict[str, Any], field: str, fragment: str) -> None:
    with pytest.raises(Invalid) as e:
        await crd_cluster.client.create(widget("bad", **spec))
    assert any(c.field == field and fragment in (c.message or "") for c in e.value.causes), e.value.causes
    assert await crd_cluster.client.list("widgets") == []


async def test_strict_unknown_fields_rejected(crd_cluster: Cluster) -> None:
    with pytest.raises(BadRequest):
        await crd_cluster.client.create(widget("a", color="red", nope=1), field_validation="Strict")


async def test_status_and_scale_subresources(crd_cluster: Cluster) -> None:
    c = crd_cluster.client
    w = await c.create({**widget("a", color="red"), "status": {"replicas": 9}})
    assert "status" not in w  # reset on create
    w["status"] = {"replicas": 2}
    w = await c.replace_status(w)
    assert w["status"] == {"replicas": 2}
    await c.patch("widgets", "a", {"spec": {"replicas": 3}}, subresource="scale", patch_type="merge")
    scale = await c.get("widgets", "a", subresource="scale")
    assert scale["spec"]["replicas"] == 3 and scale["status"]["replicas"] == 2


async def test_selectable_fields(crd_cluster: Cluster) -> None:
    c = crd_cluster.client
    await c.create(widget("a", color="red"))
    await c.create(widget("b", color="blue"))
    assert [w["metadata"]["name"] for w in await c.list("widgets", fields="spec.color=blue")] == ["b"]
    with pytest.raises(BadRequest):
        await c.list("widgets", fields="spec.size=1")


async def test_short_name_and_generation(crd_cluster: Cluster) -> None:
    c = crd_cluster.client
    w = await c.create(widget("a", color="red"))
    assert w["metadata"]["generation"] == 1
    w["spec"]["color"] = "blue"
    w = await c.replace(w)
    assert w["metadata"]["generation"] == 2
    assert [x["metadata"]["name"] for x in await c.list("wd")] == ["a"]


async def test_invalid_crd_rejected(cluster: Cluster) -> None:
    bad = widget_crd()
    bad["spec"]["versions"][0]["storage"] = False
    with pytest.raises(Invalid):
        await cluster.client.create(bad)
    with pytest.raises(BadRequest):
        await cluster.client.list("widgets")


async def test_deleting_crd_removes_resources(crd_cluster: Cluster) -> None:
    c = crd_cluster.client
    await c.create(widget("a", color="red"))
    await c.delete("customresourcedefinitions", "widgets.example.com")
    with pytest.raises(NotFound):
        await c.get("customresourcedefinitions", "widgets.example.com")
    with pytest.raises(BadRequest):
        await c.list("widgets")


async def test_server_side_apply_on_a_custom_resource(crd_cluster: Cluster) -> None:
    # upstream adds apiVersion, kind and metadata to every CRD schema for field tracking, whether or not the
    # CRD declares them (the widget CRD does not)
    c = crd_cluster.client
    w = await c.apply(widget("a", color="red"), field_manager="alice")
    assert w["spec"]["color"] == "red"
    assert {m["manager"] for m in w["metadata"]["managedFields"]} == {"alice"}
    relabeled = widget("a", color="red")
    relabeled["metadata"]["labels"] = {"team": "x"}
    w = await c.apply(relabeled, field_manager="alice")
    assert w["metadata"]["labels"] == {"team": "x"}
    with pytest.raises(Conflict):
        await c.apply(widget("a", color="blue"), field_manager="bob")


# --- explicit nulls (apiextensions-apiserver PruneNonNullableNullsWithoutDefaults, then Default) ---

NULLS = [
    pytest.param({"color": "red", "replicas": None}, {"color": "red", "replicas": 1}, id="null-with-default-defaulted"),
    pytest.param({"color": "red", "extra": None}, {"color": "red", "replicas": 1}, id="null-without-default-pruned"),
    pytest.param({"color": "red", "note": None}, {"color": "red", "replicas": 1, "note": None}, id="nullable-kept"),
]


@pytest.mark.parametrize(("spec", "stored"), NULLS)
async def test_explicit_null_in_non_nullable_field_is_pruned(
    cluster: Cluster, spec: dict[str, Any], stored: dict[str, Any],
) -> None:
    crd = widget_crd()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["note"] = {
        "type": "string", "nullable": True}
    await cluster.client.create(crd)
    out = await cluster.client.create(widget("a", **spec))
    assert out["spec"] == stored
    applied = await cluster.client.apply(widget("b", **spec), field_manager="m")
    assert applied["spec"] == stored


# --- a served, non-storage version through the client ---

def two_version_crd() -> dict[str, Any]:
    crd = widget_crd()
    v1 = crd["spec"]["versions"][0]
    v1.pop("selectableFields")
    v2 = {**v1, "name": "v2", "storage": False}
    crd["spec"]["versions"] = [v1, v2]
    return crd


@pytest.mark.parametrize("verb", ["create", "apply", "replace"])
async def test_served_non_storage_version_through_the_client(cluster: Cluster, verb: str) -> None:
    c = cluster.client
    await c.create(two_version_crd())
    body = {**widget("a", color="blue"), "apiVersion": "example.com/v2"}
    if verb == "create":
        out = await c.create(body)
    elif verb == "apply":
        out = await c.apply(body, field_manager="m")
    else:
        await c.create(widget("a", color="red"))
        live = await c.get("widgets.example.com", "a", namespace="default")
        out = await c.replace({**body, "metadata": live["metadata"]})
    assert out["apiVersion"] == "example.com/v2"
    assert out["spec"] == {"color": "blue", "replicas": 1}
    assert (await c.get("widgets.example.com", "a", namespace="default"))["spec"]["color"] == "blue"


async def test_unserved_version_is_still_no_match(cluster: Cluster) -> None:
    c = cluster.client
    crd = two_version_crd()
    crd["spec"]["versions"][1]["served"] = False
    await c.create(crd)
    with pytest.raises(BadRequest) as e:
        await c.create({**widget("a", color="blue"), "apiVersion": "example.com/v2"})
    assert e.value.message == 'no matches for kind "Widget" in version "example.com/v2"'
