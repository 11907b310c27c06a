"""Server-side printing: GET and LIST with ``as_table`` answer with a meta.k8s.io/v1 Table from the
kind's strategy (upstream's DefaultTableConvertor; apiextensions' tableconvertor for custom resources)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.apiserver.auth.user import ADMIN
from kubelite.apiserver.registry.jsonpath import find
from kubelite.apiserver.request import Options, Request
from kubelite.cluster import Cluster

COLUMNS = [
    {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
     "description": "whether it is ready"},
    {"name": "Tags", "type": "string", "jsonPath": ".spec.tags"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]


def crd(columns: list[dict[str, Any]] | None) -> dict[str, Any]:
    version: dict[str, Any] = {
        "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
    }
    if columns is not None:
        version["additionalPrinterColumns"] = columns
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "versions": [version],
                     "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"}}}


async def table(cluster: Cluster, group: str, resource: str, name: str = "") -> dict[str, Any]:
    resp = await cluster.apiserver.handle(Request(
        verb="get" if name else "list", group=group, resource=resource, namespace="default", name=name,
        user=ADMIN, options=Options(as_table=True)))
    out: dict[str, Any] = msgspec.json.decode(resp.data)
    return out


async def test_custom_resource_columns(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(crd(COLUMNS))
    await c.create({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "namespace": "default"},
                    "spec": {"color": "red", "replicas": 3, "tags": ["a", "b"]}})
    await c.patch("gadgets", "g", {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                  subresource="status", patch_type="merge")
    await cluster.advance(150)
    t = await table(cluster, "example.com", "gadgets")
    assert [col["name"] for col in t["columnDefinitions"]] == ["Name", "Color", "Replicas", "Ready", "Tags", "Age"]
    assert t["columnDefinitions"][2]["priority"] == 1
    assert t["columnDefinitions"][3]["description"] == "whether it is ready"
    assert t["columnDefinitions"][1]["description"] == \
        "Custom resource definition column (in JSONPath format): .spec.color"
    assert [r["cells"] for r in t["rows"]] == [["g", "red", 3, "True", '["a","b"]', "2m30s"]]
    assert t["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert t["metadata"]["resourceVersion"]


async def test_custom_resource_without_columns_prints_age(cluster: Cluster) -> None:
    await cluster.client.create(crd(None))
    await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Gadget",
                                 "metadata": {"name": "g", "namespace": "default"}, "spec": {}})
    t = await table(cluster, "example.com", "gadgets", "g")
    assert [col["name"] for col in t["columnDefinitions"]] == ["Name", "Age"]
    assert t["rows"][0]["cells"] == ["g", "0s"]


async def test_missing_values_are_none(cluster: Cluster) -> None:
    await cluster.client.create(crd(COLUMNS))
    await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Gadget",
                                 "metadata": {"name": "g", "namespace": "default"}, "spec": {"replicas": "x"}})
    t = await table(cluster, "example.com", "gadgets", "g")
    assert t["rows"][0]["cells"][1:5] == [None, None, None, None]


async def test_builtin_default_table(cluster: Cluster) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
    t = await table(cluster, "", "configmaps", "a")
    assert [col["name"] for col in t["columnDefinitions"]] == ["Name", "Created At"]
    cm = await cluster.client.get("configmaps", "a")
    assert t["rows"][0]["cells"] == ["a", cm["metadata"]["creationTimestamp"]]


@pytest.mark.parametrize(("path", "expected"), [
    (".spec.a", [1]),
    (".spec.missing", []),
    (".spec.list[1]", ["y"]),
    (".spec.list[-1]", ["y"]),
    (".spec.list[5]", []),
    (".spec.list[*]", ["x", "y"]),
    (".spec['dotted.key']", [2]),
    ('.spec.items[?(@.k=="b")].v', [20]),
    ('.spec.items[?(@.k!="b")].v', [10]),
    (".spec.items[?(@.n==1)].k", ["a"]),
    ("{.spec.a}", [1]),
    (".spec..a", []),
], ids=["field", "missing", "index", "negative-index", "out-of-range", "star", "quoted", "filter-eq",
        "filter-ne", "filter-number", "braces", "unsupported-recursive"])
def test_jsonpath_subset(path: str, expected: list[Any]) -> None:
    obj = {"spec": {"a": 1, "list": ["x", "y"], "dotted.key": 2,
                    "items": [{"k": "a", "v": 10, "n": 1}, {"k": "b", "v": 20}]}}
    assert find(obj, path) == expected
