"""The change-proportional update path stores exactly what the whole path stores.

Invariant (``kubelite.apiserver.delta``): for any sequence of writes, a cluster whose updates and
patches decode, copy and compare only what they changed returns the same responses, warnings and
errors, and ends with the same stored bytes (managedFields, resourceVersions, generations and key order
included), as a cluster that decodes and deep-copies every request whole. The writes are seeded random
heartbeats and their neighbours: pod and node status patches (merge and strategic, with unknown fields,
explicit nulls, wrong types and quantities to canonicalise), label/annotation/spec patches of the main
resource (a Deployment's spec change bumps its generation while its metadata is shared), and PUTs of
read-modify-write objects (a Lease renewal, reordered labels, stale resourceVersions).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest

import kubelite.apiserver.delta as delta
import kubelite.apiserver.handlers.patch as patch_handler
import kubelite.apiserver.heartbeat as heartbeat
import kubelite.apiserver.patch as patch_formats
from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.auth.decisions import Decisions
from kubelite.apiserver.patch import apply_strategic_merge_patch
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import ApiError

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
_encode = msgspec.json.encode


@contextmanager
def whole_path(mp: pytest.MonkeyPatch) -> Iterator[None]:
    """Every patch decoded whole and strategic patches applied to a deep copy; every update through
    every step (no heartbeat path: ``kubelite.apiserver.heartbeat``), every request authorized by RBAC afresh
    (no remembered decisions: ``apiserver/auth/decisions.py``)."""
    with mp.context() as m:
        m.setattr(patch_handler, "decode_changed", lambda *a: None)
        # the PATCH handler reads the formats from their package when a patch arrives (they load with the first)
        m.setattr(patch_formats, "apply_strategic_merge_patch_shared", apply_strategic_merge_patch)
        m.setattr(heartbeat, "validate_change", lambda *a: None)
        m.setattr(heartbeat, "retimed", lambda *a, **k: None)
        m.setattr(AdmissionChain, "sees", lambda self, req: True)
        m.setattr(Decisions, "get", lambda self, key: None)  # RBAC asked on every request
        yield


def _pod(i: int, r: random.Random) -> dict[str, Any]:
    containers = [{
        "name": f"c{k}", "image": f"img{k}:{r.randrange(9)}",
        "resources": {"requests": {"cpu": r.choice(["100m", "0.5", "1"]), "memory": r.choice(["64Mi", "1Gi"])}},
        "ports": [{"containerPort": 80 + k}],
    } for k in range(1 + r.randrange(2))]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default", "labels": {"app": f"a{i}", "tier": "web"}},
            "spec": {"containers": containers, "nodeName": "n0"}}


def _objects(r: random.Random) -> list[dict[str, Any]]:
    node = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"zone": "z"}},
             "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}
            for i in range(2)]
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "n0", "namespace": "kube-node-lease", "labels": {"a": "1", "b": "2"}},
             "spec": {"holderIdentity": "n0", "leaseDurationSeconds": 40, "renewTime": "2025-01-01T00:00:00.000000Z"}}
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d0", "namespace": "default"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}},
                       "template": {"metadata": {"labels": {"app": "d"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c0", "namespace": "default"},
          "data": {"k": "v"}}
    return [*node, lease, deploy, cm, *(_pod(i, r) for i in range(3))]


def _time(r: random.Random) -> str:
    return f"2025-01-01T{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}Z"


def _condition(r: random.Random, types: list[str]) -> dict[str, Any]:
    c: dict[str, Any] = {"type": r.choice(types), "status": r.choice(["True", "False", "Unknown"])}
    if r.random() < 0.7:
        c["lastTransitionTime"] = _time(r)
    if r.random() < 0.3:
        c["reason"] = r.choice(["A", "B"])
    return c


def _pod_status(r: random.Random) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if r.random() < 0.6:
        status["phase"] = r.choice(["Pending", "Running", "Succeeded"])
    if r.random() < 0.5:
        status["podIP"] = f"10.0.0.{r.randrange(1, 9)}"
    if r.random() < 0.6:
        status["conditions"] = [_condition(r, ["Ready", "PodScheduled", "Initialized"])
                                for _ in range(r.randrange(1, 3))]
    if r.random() < 0.15:
        status["hostIP"] = None  # merge patch: delete
    if r.random() < 0.1:
        status["bogus"] = 1  # unknown field: a warning (fieldValidation Warn), pruned
    if r.random() < 0.05:
        status["phase"] = 7  # wrong type: 400
    if r.random() < 0.15:
        status["message"] = ""  # Go's omitempty drops it
    return status


def _node_status(r: random.Random) -> dict[str, Any]:
    status: dict[str, Any] = {"conditions": [_condition(r, ["Ready", "MemoryPressure", "DiskPressure"])]}
    status["conditions"][0]["lastHeartbeatTime"] = _time(r)
    if r.random() < 0.3:
        status["capacity"] = {"cpu": r.choice(["8", "8000m", "7.5"]), "memory": r.choice(["32Gi", "32768Mi"])}
    if r.random() < 0.2:
        status["$setElementOrder/conditions"] = [{"type": c} for c in r.sample(
            ["Ready", "MemoryPressure", "DiskPressure"], 3)]
        status["conditions"] = [_condition(r, [t["type"]]) for t in status["$setElementOrder/conditions"][:2]]
    if r.random() < 0.05:
        status["allocatable"] = {"cpu": "not-a-quantity"}  # 400
    if r.random() < 0.1:
        status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": 10250}}
    if r.random() < 0.15:
        status["volumesInUse"] = []  # Go's omitempty drops it
    return status


Op = Callable[[Client], Awaitable[Any]]


def _op(r: random.Random) -> Op:
    """One random write, the same for both clusters."""
    kind = r.randrange(9)
    if kind == 0:
        name, body = f"p{r.randrange(3)}", {"status": _pod_status(r)}
        return lambda c: c.patch("pods", name, body, patch_type="merge", subresource="status",
                                 namespace="default")
    if kind == 1:
        name, body = f"n{r.randrange(2)}", {"status": _node_status(r)}
        return lambda c: c.patch("nodes", name, body, patch_type="strategic", subresource="status")
    if kind == 2:
        meta: dict[str, Any] = {"labels": {"rev": str(r.randrange(3)), "tier": None if r.random() < 0.3 else "web"}}
        if r.random() < 0.4:
            meta["annotations"] = {"note": str(r.randrange(3))}
        body = {"metadata": meta}
        if r.random() < 0.3:
            body["spec"] = {"activeDeadlineSeconds": r.randrange(100, 200)}
        name, ptype = f"p{r.randrange(3)}", r.choice(["merge", "strategic"])
        return lambda c: c.patch("pods", name, body, patch_type=ptype, namespace="default")
    if kind == 3:
        spec: dict[str, Any] = {"replicas": r.randrange(1, 4)}
        if r.random() < 0.4:
            spec["template"] = {"spec": {"containers": [{"name": "c", "image": f"nginx:{r.randrange(3)}"}]}}
        body = {"spec": spec}
        return lambda c: c.patch("deployments", "d0", body, patch_type="strategic", namespace="default")
    if kind == 4:
        body = {"status": {"replicas": r.randrange(3), "observedGeneration": r.randrange(1, 4),
                           "conditions": [{"type": "Available", "status": r.choice(["True", "False"])}]}}
        return lambda c: c.patch("deployments", "d0", body, patch_type="merge", subresource="status",
                                 namespace="default")
    if kind == 5:
        renew, reorder, stale = _time(r).replace("Z", ".000000Z"), r.random() < 0.3, r.random() < 0.1

        async def renew_lease(c: Client) -> Any:
            obj = await c.get("leases", "n0", namespace="kube-node-lease")
            obj["spec"]["renewTime"] = renew
            if reorder:
                obj["metadata"]["labels"] = dict(reversed(obj["metadata"]["labels"].items()))
            if stale:
                obj["metadata"]["resourceVersion"] = "1"
            return await c.replace(obj)
        return renew_lease
    if kind == 6:
        value, extra = str(r.randrange(3)), r.random() < 0.3

        async def put_configmap(c: Client) -> Any:
            obj = await c.get("configmaps", "c0", namespace="default")
            obj["data"]["k"] = value
            if extra:
                obj["data"]["x"] = value
            return await c.replace(obj)
        return put_configmap
    if kind == 7:
        ops = [{"op": "replace", "path": "/status/phase", "value": r.choice(["Running", "Failed"])}]
        name = f"p{r.randrange(3)}"
        return lambda c: c.patch("pods", name, ops, patch_type="json", subresource="status", namespace="default")
    name, body = f"n{r.randrange(2)}", {"metadata": {"labels": {"zone": r.choice(["z", None, "y"])}}}
    return lambda c: c.patch("nodes", name, body, patch_type="merge")


async def outcome(c: Client, op: Op) -> tuple[Any, ...]:
    c.warnings.clear()
    try:
        result = await op(c)
    except ApiError as e:
        return ("error", type(e).__name__, _encode(e.status), tuple(c.warnings))
    return ("ok", _encode(result), tuple(c.warnings))


# (group, plural, namespace, names) of the objects the property tests compare
_OBJECTS = (("", "pods", "default", ("p0", "p1", "p2")), ("", "nodes", "", ("n0", "n1")),
            ("coordination.k8s.io", "leases", "kube-node-lease", ("n0",)),
            ("apps", "deployments", "default", ("d0",)), ("", "configmaps", "default", ("c0",)))


def stored(cluster: Cluster, objects: Any = _OBJECTS) -> dict[str, bytes]:
    """The stored bytes of ``objects`` ((group, plural, namespace, names) rows), each of which must exist."""
    store, tables = cluster.store, cluster.apiserver.tables
    out: dict[str, bytes] = {}
    for group, plural, ns, names in objects:
        table = tables.table(tables.resource(group, plural))
        for name in names:
            got = store.get(table, ns, name)
            assert got is not None
            out[f"{plural}/{name}"] = bytes(got.data)
    return out


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
async def test_fast_and_whole_paths_store_the_same_bytes(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_hits = 0
    real = delta.decode_changed

    def counting(*a: Any) -> Any:
        nonlocal fast_hits
        out = real(*a)
        fast_hits += out is not None
        return out

    monkeypatch.setattr(patch_handler, "decode_changed", counting)
    r = random.Random(seed)
    objects = _objects(r)
    ops = [_op(r) for _ in range(60)]
    async with Cluster(seed=seed, **API_ONLY) as whole, Cluster(seed=seed, **API_ONLY) as fast:
        for obj in objects:
            with whole_path(monkeypatch):
                await whole.client.create(obj)
            await fast.client.create(obj)
        errors = 0
        for i, op in enumerate(ops):
            with whole_path(monkeypatch):
                want = await outcome(whole.client, op)
            got = await outcome(fast.client, op)
            assert got == want, f"write {i}"
            errors += want[0] == "error"
        assert stored(fast) == stored(whole)
    assert fast_hits >= 15  # the fast path really ran (and agreed)
    assert errors < len(ops) // 2  # most writes are real writes, not rejections


async def test_a_put_retried_after_a_concurrent_write_starts_from_its_own_body_again() -> None:
    """GuaranteedUpdate re-runs an unconditional PUT against the new state when someone wrote while the
    admission hooks ran; the PUT then starts from its body as sent, not the object the first attempt's
    hook mutated (the first attempt takes the decoded body without a copy)."""
    async with Cluster(seed=3, **API_ONLY) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
                        "data": {"k": "0"}})
        calls: list[str] = []

        async def hook(req: Any) -> None:
            if req.name != "c" or req.object["data"].get("k") != "1":
                return  # the hook's own concurrent write below
            ann = req.object["metadata"].setdefault("annotations", {})
            ann["seen"] = ann.get("seen", "") + "x"
            calls.append(ann["seen"])
            if len(calls) == 1:
                await c.patch("configmaps", "c", {"data": {"other": "y"}}, patch_type="merge", namespace="default")

        cluster.apiserver.admission.register(hook, mutating=True, resources=["configmaps"], operations=["UPDATE"])
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
                "data": {"k": "1"}}
        out = await c.replace(body)
    assert calls == ["x", "x"]  # two attempts, each from the unmutated body
    assert out["data"] == {"k": "1"}  # an unconditional PUT replaces the concurrent write's data
    assert out["metadata"]["annotations"] == {"seen": "x"}
