"""The garbage collector with each propagation policy, dangling references, partial ownership and
custom resources, on virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster

GC = ["garbagecollector"]


def cm(name: str, *owners: dict[str, Any], block: bool = False, finalizers: list[str] | None = None
       ) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owners:
        meta["ownerReferences"] = [ref(o, block=block) for o in owners]
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


def ref(owner: dict[str, Any], *, block: bool = False) -> dict[str, Any]:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "blockOwnerDeletion": block}


async def names(c: Cluster) -> list[str]:
    return sorted(x["metadata"]["name"] for x in await c.client.list("configmaps", namespace="default"))


async def test_background_deletes_dependents_and_their_dependents() -> None:
    async with Cluster(seed=1, controllers=GC) as c:
        owner = await c.client.create(cm("owner"))
        child = await c.client.create(cm("child", owner))
        await c.client.create(cm("grandchild", child))
        await c.client.create(cm("bystander"))
        await c.settle()
        await c.client.delete("configmaps", "owner", namespace="default")  # default: background
        await c.advance(1)
        assert await names(c) == ["bystander"]


async def test_foreground_deletes_blocking_dependents_before_the_owner() -> None:
    async with Cluster(seed=2, controllers=GC) as c:
        owner = await c.client.create(cm("owner"))
        # a blocking dependent held by a finalizer: the owner must wait for it
        await c.client.create(cm("blocker", owner, block=True, finalizers=["example.com/hold"]))
        await c.client.create(cm("loose", owner))
        await c.settle()
        await c.client.delete("configmaps", "owner", namespace="default", cascade="Foreground")
        await c.advance(2)
        o = await c.client.get("configmaps", "owner", namespace="default")
        assert o["metadata"]["finalizers"] == ["foregroundDeletion"] and o["metadata"]["deletionTimestamp"]
        b = await c.client.get("configmaps", "blocker", namespace="default")
        assert b["metadata"].get("deletionTimestamp")  # deleted, but held
        assert await names(c) == ["blocker", "owner"]  # the non-blocking one is gone already
        await c.client.patch("configmaps", "blocker", {"metadata": {"finalizers": None}}, namespace="default",
                             patch_type="merge")
        await c.advance(1)
        assert await names(c) == []


async def test_orphan_keeps_dependents_and_drops_the_reference() -> None:
    async with Cluster(seed=3, controllers=GC) as c:
        owner = await c.client.create(cm("owner"))
        other = await c.client.create(cm("other"))
        await c.client.create(cm("dep", owner, other, block=True))
        await c.settle()
        await c.client.delete("configmaps", "owner", namespace="default", cascade="Orphan")
        await c.advance(1)
        assert await names(c) == ["dep", "other"]
        dep = await c.client.get("configmaps", "dep", namespace="default")
        assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["other"]


@pytest.mark.parametrize("uid", ["0000-not-the-owner", None], ids=["uid-mismatch", "owner-absent"])
async def test_dangling_references_count_as_gone(uid: str | None) -> None:
    async with Cluster(seed=4, controllers=GC) as c:
        real = await c.client.create(cm("ghost"))
        fake = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "ghost" if uid else "nobody", "uid": uid or "1234"}}
        await c.client.create(cm("dep", fake))
        await c.advance(1)
        assert await names(c) == ["ghost"]
        assert real["metadata"]["uid"] != "1234"


async def test_one_live_owner_keeps_a_dependent_and_loses_the_dead_reference() -> None:
    async with Cluster(seed=5, controllers=GC) as c:
        a = await c.client.create(cm("a"))
        b = await c.client.create(cm("b"))
        await c.client.create(cm("dep", a, b))
        await c.settle()
        await c.client.delete("configmaps", "a", namespace="default")
        await c.advance(1)
        dep = await c.client.get("configmaps", "dep", namespace="default")
        assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["b"]


async def test_custom_resources_are_collected() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    async with Cluster(seed=6, controllers=GC) as c:
        await c.client.create(crd)
        await c.advance(1)
        owner = await c.client.create(cm("owner"))
        w = await c.client.create({"apiVersion": "example.com/v1", "kind": "Widget",
                                   "metadata": {"name": "w", "namespace": "default",
                                                "ownerReferences": [ref(owner)]}})
        await c.client.create(cm("owned-by-widget", w))
        await c.advance(1)
        await c.client.delete("configmaps", "owner", namespace="default")
        await c.advance(2)
        assert await c.client.list("widgets.example.com", namespace="default") == []
        assert await names(c) == []


async def test_pods_of_a_deleted_owner_are_deleted() -> None:
    async with Cluster(seed=7, controllers=GC) as c:
        owner = await c.client.create(cm("owner"))
        await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "p", "namespace": "default", "ownerReferences": [ref(owner, block=True)]},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        await c.settle()
        await c.client.delete("configmaps", "owner", namespace="default", cascade="Foreground")
        await c.advance(2)
        assert await c.client.list("pods", namespace="default") == []
        assert await names(c) == []
