"""Planted-bug operators for the fuzz tests, each with a fixed twin (issue #10).

Every operator serves the ``Widget`` custom resource (``widgets.example.com``) and is written the way
such bugs are written in real operators:

- **stale cache** (``replicas_buggy``): a Widget wants ``spec.replicas`` ConfigMaps. The reconciler counts
  the owned ConfigMaps in its informer cache and creates the missing ones with ``generateName``. When the
  cache lags behind its own writes (a delayed watch event, a duplicate request right after the
  reconcile), it creates too many. Twin: deterministic names ``<widget>-<i>``, AlreadyExists is success
  (what controller-runtime operators do; upstream's ReplicaSet controller uses expectations instead).
- **event counter** (``tally_buggy``): ``status.count`` should be the number of ConfigMaps labelled
  ``tally=<widget>``. The operator adds +1 per ADDED event and -1 per DELETED event seen by its handler
  and adds the pending delta to the stored count. Replayed events (a restart's initial list) and retried
  writes (a 504 after the write committed) count twice. Twin: level-based, the count of the labelled
  ConfigMaps in the cache.
- **crash between two writes** (``config_buggy``): the reconciler creates a ConfigMap with
  ``generateName`` and then records its name in ``status.configMap``; it reads the Widget fresh from the
  API, so only losing the process (or the response) between the two writes shows the bug: a second
  ConfigMap. Twin: a deterministic name, so the create after a restart finds the first one.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kubelite.controllers import Request
from kubelite.errors import AlreadyExists, NotFound
from kubelite.fuzz import ClusterView, Env, FuzzTarget, at_quiescence

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget"},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 0}}},
                "status": {"type": "object", "properties": {
                    "count": {"type": "integer"}, "configMap": {"type": "string"},
                    "observedGeneration": {"type": "integer"}}},
            }}},
        }],
    },
}

WIDGETS = "widgets.example.com"


def widget(name: str, replicas: int = 1) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas}}


def owner_ref(w: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "name": w["metadata"]["name"],
            "uid": w["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def owned_by(obj: dict[str, Any], w: dict[str, Any]) -> bool:
    return any(r.get("uid") == w["metadata"]["uid"] for r in obj["metadata"].get("ownerReferences") or ())


# --- 1. double create from a stale cache ---

def replicas_operator(env: Env, *, fixed: bool) -> Any:
    mgr = env.manager("replicas")
    client = mgr.client

    async def reconcile(req: Request) -> None:
        w = _get(mgr, WIDGETS, req)
        if w is None:
            return
        have = [c for c in _list(mgr, "configmaps", req.namespace) if owned_by(c, w)]
        want = w["spec"].get("replicas", 1)
        if fixed:
            names = {c["metadata"]["name"] for c in have}
            for i in range(want):
                name = f"{req.name}-{i}"
                if name in names:
                    continue
                with contextlib.suppress(AlreadyExists):  # created already; our cache is behind
                    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                        "name": name, "namespace": req.namespace, "ownerReferences": [owner_ref(w)]}})
            return
        for _ in range(want - len(have)):
            await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "generateName": f"{req.name}-", "namespace": req.namespace, "ownerReferences": [owner_ref(w)]}})

    mgr.controller("replicas").for_(WIDGETS).owns("configmaps").complete(reconcile)
    return mgr


def _get(mgr: Any, resource: str, req: Request) -> dict[str, Any] | None:
    """The object from the manager's *current* informer cache (a crash replaces the informers)."""
    obj: dict[str, Any] | None = mgr.informers.informer_for(resource).get_indexer().get_by_key(
        f"{req.namespace}/{req.name}")
    return obj


def _list(mgr: Any, resource: str, namespace: str) -> list[dict[str, Any]]:
    return [o for o in mgr.informers.informer_for(resource).get_indexer().list()
            if o["metadata"].get("namespace") == namespace]


@at_quiescence
def replicas_match(view: ClusterView) -> Any:
    problems = []
    cms = view.list("configmaps", "default")
    for w in view.list(WIDGETS):
        n = sum(1 for c in cms if owned_by(c, w))
        if n != w["spec"].get("replicas", 1):
            problems.append(f"widget {w['metadata']['name']} wants {w['spec'].get('replicas', 1)} configmaps, "
                            f"owns {n}")
    return problems


async def _replicas_story(env: Env, fixed: bool) -> None:
    mgr = replicas_operator(env, fixed=fixed)
    await mgr.start()
    await env.client.create(widget("w1", replicas=2))
    await env.client.create(widget("w2", replicas=1))
    await env.advance(5)
    await env.client.patch(WIDGETS, "w1", {"spec": {"replicas": 3}}, patch_type="merge", namespace="default")


async def replicas_buggy_setup(env: Env) -> None:
    await _replicas_story(env, fixed=False)


async def replicas_fixed_setup(env: Env) -> None:
    await _replicas_story(env, fixed=True)


replicas_buggy = FuzzTarget(replicas_buggy_setup, crds=[WIDGET_CRD], invariants=[replicas_match])
replicas_fixed = FuzzTarget(replicas_fixed_setup, crds=[WIDGET_CRD], invariants=[replicas_match])


# --- 2. a counter acting on watch events instead of current state ---

class _Tally:
    """The buggy handler: pending deltas per widget, from ADDED/DELETED events."""

    def __init__(self) -> None:
        self.pending: dict[str, int] = {}

    def _widget(self, obj: Any) -> str | None:
        obj = getattr(obj, "obj", obj)  # a DeletedFinalStateUnknown tombstone carries the last state
        return ((obj or {}).get("metadata", {}).get("labels") or {}).get("tally")

    def create(self, obj: Any, enqueue: Any) -> None:
        w = self._widget(obj)
        if w:
            self.pending[w] = self.pending.get(w, 0) + 1
            enqueue(Request("default", w))

    def update(self, old: Any, new: Any, enqueue: Any) -> None:
        pass

    def delete(self, obj: Any, enqueue: Any) -> None:
        w = self._widget(obj)
        if w:
            self.pending[w] = self.pending.get(w, 0) - 1
            enqueue(Request("default", w))


def tally_operator(env: Env, *, fixed: bool) -> Any:
    mgr = env.manager("tally")
    client = mgr.client
    tally = _Tally()

    async def reconcile(req: Request) -> None:
        w = _get(mgr, WIDGETS, req)
        if w is None:
            return
        if fixed:
            count = sum(1 for c in _list(mgr, "configmaps", req.namespace)
                        if (c["metadata"].get("labels") or {}).get("tally") == req.name)
        else:
            fresh = await client.get(WIDGETS, req.name, namespace=req.namespace)
            count = (fresh.get("status") or {}).get("count", 0) + tally.pending.get(req.name, 0)
        await client.patch(WIDGETS, req.name, {"status": {"count": count}}, patch_type="merge",
                           subresource="status", namespace=req.namespace)
        tally.pending[req.name] = 0

    ctrl = mgr.controller("tally").for_(WIDGETS)
    if fixed:
        ctrl = ctrl.watches("configmaps", lambda obj: [Request("default", t)] if (
            t := (obj["metadata"].get("labels") or {}).get("tally")) else [])
    else:
        ctrl = ctrl.watches("configmaps", tally)
    ctrl.complete(reconcile)
    return mgr


@at_quiescence
def tally_matches(view: ClusterView) -> Any:
    problems = []
    cms = view.list("configmaps", "default")
    for w in view.list(WIDGETS):
        name = w["metadata"]["name"]
        n = sum(1 for c in cms if (c["metadata"].get("labels") or {}).get("tally") == name)
        got = (w.get("status") or {}).get("count")
        if got != n:
            problems.append(f"widget {name} counts {got} configmaps, {n} exist")
    return problems


async def _tally_story(env: Env, fixed: bool) -> None:
    mgr = tally_operator(env, fixed=fixed)
    await mgr.start()
    await env.client.create(widget("t1"))
    await env.advance(1)
    for i in range(3):
        await env.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": f"item-{i}", "namespace": "default", "labels": {"tally": "t1"}}})
        await env.advance(2)
    await env.client.delete("configmaps", "item-0", namespace="default")


async def tally_buggy_setup(env: Env) -> None:
    await _tally_story(env, fixed=False)


async def tally_fixed_setup(env: Env) -> None:
    await _tally_story(env, fixed=True)


tally_buggy = FuzzTarget(tally_buggy_setup, crds=[WIDGET_CRD], invariants=[tally_matches])
tally_fixed = FuzzTarget(tally_fixed_setup, crds=[WIDGET_CRD], invariants=[tally_matches])


# --- 3. a crash between two writes ---

def config_operator(env: Env, *, fixed: bool) -> Any:
    mgr = env.manager("config")
    client = mgr.client

    async def reconcile(req: Request) -> None:
        try:
            w = await client.get(WIDGETS, req.name, namespace=req.namespace)  # fresh, not from the cache
        except NotFound:
            return
        recorded = (w.get("status") or {}).get("configMap")
        if recorded:
            return
        meta: dict[str, Any] = {"namespace": req.namespace, "ownerReferences": [owner_ref(w)]}
        if fixed:
            meta["name"] = f"{req.name}-cfg"
        else:
            meta["generateName"] = f"{req.name}-cfg-"
        try:
            cm = await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
            name = cm["metadata"]["name"]
        except AlreadyExists:
            name = meta["name"]
        await client.patch(WIDGETS, req.name, {"status": {"configMap": name}}, patch_type="merge",
                           subresource="status", namespace=req.namespace)

    mgr.controller("config").for_(WIDGETS).owns("configmaps").complete(reconcile)
    return mgr


@at_quiescence
def one_configmap_each(view: ClusterView) -> Any:
    problems = []
    cms = view.list("configmaps", "default")
    for w in view.list(WIDGETS):
        owned = sorted(c["metadata"]["name"] for c in cms if owned_by(c, w))
        if len(owned) != 1:
            problems.append(f"widget {w['metadata']['name']} owns {len(owned)} configmaps: {', '.join(owned)}")
    return problems


async def _config_story(env: Env, fixed: bool) -> None:
    mgr = config_operator(env, fixed=fixed)
    await mgr.start()
    for name in ("c1", "c2"):
        await env.client.create(widget(name))


async def config_buggy_setup(env: Env) -> None:
    await _config_story(env, fixed=False)


async def config_fixed_setup(env: Env) -> None:
    await _config_story(env, fixed=True)


config_buggy = FuzzTarget(config_buggy_setup, crds=[WIDGET_CRD], invariants=[one_configmap_each])
config_fixed = FuzzTarget(config_fixed_setup, crds=[WIDGET_CRD], invariants=[one_configmap_each])
