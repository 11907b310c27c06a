"""Namespace deletion: everything inside goes (custom resources too), conditions report what is left,
then the finalizer and the namespace go."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster
from kubelite.errors import NotFound

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


async def gone(c: Cluster, name: str) -> bool:
    try:
        await c.client.get("namespaces", name)
    except NotFound:
        return True
    return False


def conditions(ns: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {x["type"]: (x["status"], x["reason"], x["message"]) for x in ns["status"].get("conditions") or ()}


async def test_namespace_deletion_removes_everything_then_the_namespace() -> None:
    async with Cluster(seed=1, nodes=1, controllers=["namespace", "nodelifecycle"]) as c:
        await c.client.create(CRD)
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "team"}})
        await c.client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team"}})
        await c.client.create({"apiVersion": "example.com/v1", "kind": "Widget",
                               "metadata": {"name": "w", "namespace": "team"}})
        await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"},
                               "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "nginx"}]}})
        await c.advance(10)
        await c.client.delete("namespaces", "team")
        await c.wait_for(lambda: gone(c, "team"), timeout=60)
        for res in ("configmaps", "secrets", "pods", "widgets.example.com"):
            assert await c.client.list(res, namespace="team") == []
        assert not await gone(c, "default")


async def test_finalizers_remaining_keep_the_namespace_terminating() -> None:
    async with Cluster(seed=2, controllers=["namespace"]) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "held", "namespace": "team", "finalizers": ["example.com/x"]}})
        await c.client.delete("namespaces", "team")
        await c.advance(5)
        ns = await c.client.get("namespaces", "team")
        assert ns["status"]["phase"] == "Terminating"
        conds = conditions(ns)
        assert conds["NamespaceContentRemaining"] == (
            "True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances")
        assert conds["NamespaceFinalizersRemaining"] == (
            "True", "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: example.com/x in 1 resource instances")
        assert conds["NamespaceDeletionDiscoveryFailure"][:2] == ("False", "ResourcesDiscovered")
        assert conds["NamespaceDeletionContentFailure"][:2] == ("False", "ContentDeleted")
        await c.client.patch("configmaps", "held", {"metadata": {"finalizers": None}}, namespace="team",
                             patch_type="merge")
        await c.wait_for(lambda: gone(c, "team"), timeout=30)


async def test_a_live_namespace_is_left_alone() -> None:
    async with Cluster(seed=3, controllers=["namespace"]) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "team"}})
        await c.advance(5)
        assert len(await c.client.list("configmaps", namespace="team")) >= 1
        assert (await c.client.get("namespaces", "team"))["spec"]["finalizers"] == ["kubernetes"]
