"""The worked example of docs/fuzzing.md: a ``ConfigSet`` operator, buggy and fixed.

A ConfigSet (``configsets.example.com``) asks for ``spec.copies`` ConfigMaps carrying its ``spec.data``. The
reconciler lists the ConfigMaps it owns from its informer cache and creates the missing ones.

- ``buggy`` creates them with ``generateName``. A cache is eventually consistent: right after a create, the
  informer may not have seen it yet, so a second reconcile (a duplicate event, a requeue, a slow watch)
  counts too few and creates extras.
- ``fixed`` names copy ``i`` ``<configset>-<i>``: a create that the cache did not know about yet fails with
  AlreadyExists, which is success. (Upstream's ReplicaSet controller solves the same problem with
  expectations: it remembers the creates it is still waiting to see.)

``kubelite fuzz run examples.fuzzing.configsets:buggy`` finds the bug; ``...:fixed`` passes.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kubelite.controllers import Manager, Request
from kubelite.errors import AlreadyExists, NotFound
from kubelite.fuzz import ClusterView, Env, FuzzTarget, at_quiescence

CONFIGSETS = "configsets.example.com"

CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": CONFIGSETS},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"kind": "ConfigSet", "plural": "configsets", "singular": "configset"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object", "properties": {
                     "copies": {"type": "integer", "minimum": 0},
                     "data": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}}]},
}


class ConfigSetReconciler:
    """Level-based: look at the ConfigSet and the ConfigMaps it owns (from the cache), create what is missing."""

    def __init__(self, mgr: Manager, *, fixed: bool) -> None:
        self.client = mgr.client
        self.configsets = mgr.informers.lister_for(CONFIGSETS)
        self.configmaps = mgr.informers.lister_for("configmaps")
        self.fixed = fixed

    async def reconcile(self, req: Request) -> None:
        try:
            cs = self.configsets.namespace(req.namespace).get(req.name)
        except NotFound:
            return
        uid = cs["metadata"]["uid"]
        owned = [c for c in self.configmaps.namespace(req.namespace).list()
                 if any(r["uid"] == uid for r in c["metadata"].get("ownerReferences") or ())]
        owner = {"apiVersion": "example.com/v1", "kind": "ConfigSet", "name": req.name, "uid": uid,
                 "controller": True, "blockOwnerDeletion": True}
        data = cs["spec"].get("data") or {}
        if self.fixed:
            have = {c["metadata"]["name"] for c in owned}
            for i in range(cs["spec"]["copies"]):
                if f"{req.name}-{i}" not in have:
                    with contextlib.suppress(AlreadyExists):  # our cache had not seen it yet
                        await self.client.create(self._configmap({"name": f"{req.name}-{i}"}, req, owner, data))
            return
        for _ in range(cs["spec"]["copies"] - len(owned)):
            await self.client.create(self._configmap({"generateName": f"{req.name}-"}, req, owner, data))

    @staticmethod
    def _configmap(name: dict[str, str], req: Request, owner: dict[str, Any], data: dict[str, str]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "ConfigMap", "data": data,
                "metadata": {**name, "namespace": req.namespace, "ownerReferences": [owner]}}


def start_operator(env: Env, *, fixed: bool) -> Manager:
    mgr = env.manager("configsets")
    # a factory, so a crash rebuilds the reconciler on the new informers' listers
    mgr.controller("configsets").for_(CONFIGSETS).owns("configmaps").complete(
        lambda: ConfigSetReconciler(mgr, fixed=fixed))
    return mgr


@at_quiescence
def copies_match(view: ClusterView) -> list[str]:
    """Once everything has settled, every ConfigSet owns exactly spec.copies ConfigMaps."""
    problems = []
    for cs in view.list(CONFIGSETS):
        uid = cs["metadata"]["uid"]
        n = sum(1 for c in view.list("configmaps", cs["metadata"]["namespace"])
                if any(r["uid"] == uid for r in c["metadata"].get("ownerReferences") or ()))
        if n != cs["spec"]["copies"]:
            problems.append(f"configset {cs['metadata']['name']} wants {cs['spec']['copies']} copies, has {n}")
    return problems


async def story(env: Env, *, fixed: bool) -> None:
    """The test's story: two ConfigSets, then one of them scaled up."""
    mgr = start_operator(env, fixed=fixed)
    await mgr.start()
    for name, copies in (("app", 2), ("db", 1)):
        await env.client.create({"apiVersion": "example.com/v1", "kind": "ConfigSet",
                                 "metadata": {"name": name, "namespace": "default"},
                                 "spec": {"copies": copies, "data": {"owner": name}}})
    await env.advance(5)
    await env.client.patch(CONFIGSETS, "app", {"spec": {"copies": 3}}, patch_type="merge", namespace="default")


async def buggy_story(env: Env) -> None:
    await story(env, fixed=False)


async def fixed_story(env: Env) -> None:
    await story(env, fixed=True)


INVARIANTS = [copies_match, "single_controller", "owners_exist", "no_leak_after_owner_deletion"]
buggy = FuzzTarget(buggy_story, crds=[CRD], invariants=INVARIANTS)
fixed = FuzzTarget(fixed_story, crds=[CRD], invariants=INVARIANTS)
