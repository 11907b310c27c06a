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
