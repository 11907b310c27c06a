"""The per-template create memo (``kubelite/apiserver/registry/templates.py``) against the uncached path.

Every case runs one request sequence on two clusters with the same seed, one with the memo and one
without, and requires the same outcome for every request (the created object's bytes, or the rejection's
Status, and the warnings) and the same stored bytes at the end; each case also states how many requests the
memo served, so a memo that never hits fails instead of passing vacuously. Admission state the memo keys on
(LimitRanges, ServiceAccounts, PriorityClasses) changes between creates, per-object state (ResourceQuota
usage, a terminating namespace, name clashes) is enforced on hits, and invalid requests (metadata and spec)
must be rejected with the uncached path's Status each time. The property test does the same for pods made
from varied realistic specs with random edits (any field replaced by any JSON value, or removed), valid or
not.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster
from kubelite.errors import ApiError

Step = Callable[[Cluster], Awaitable[Any]]

SPECS: list[dict[str, Any]] = [
    {"containers": [{"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80, "name": "http"}],
                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "128Mi"}},
                     "readinessProbe": {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 5}}]},
    {"containers": [{"name": "api", "image": "ghcr.io/acme/api:2.1", "env": [{"name": "MODE", "value": "prod"}],
                     "args": ["--workers=4"], "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]},
                    {"name": "sidecar", "image": "envoyproxy/envoy:1.30",
                     "resources": {"limits": {"cpu": "1000m", "memory": "1Gi"}}}],
     "volumes": [{"name": "cache", "emptyDir": {"sizeLimit": "2Gi"}}], "nodeSelector": {"pool": "a"},
     "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]},
    {"containers": [{"name": "job", "image": "busybox:1.36", "command": ["sh", "-c", "echo hi"]}],
     "restartPolicy": "Never", "terminationGracePeriodSeconds": None, "serviceAccountName": "default"},
]


def pod(i: int, spec: dict[str, Any], *, ns: str = "default", **meta: Any) -> dict[str, Any]:
    """A pod as a ReplicaSet stamps it out: its own name, labels and owner, the template's spec."""
    metadata: dict[str, Any] = {
        "name": f"web-{i}", "namespace": ns, "labels": {"app": "web", "pod-template-hash": f"h{i % 3}"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": f"rs-{i % 2}",
                             "controller": True, "blockOwnerDeletion": True}],
    }
    metadata.update(meta)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": copy.deepcopy(spec)}


def creates(pods: list[dict[str, Any]], **kw: Any) -> list[Step]:
    return [lambda cl, p=p: cl.client.create(p, **kw) for p in pods]


def obj(body: dict[str, Any]) -> Step:
    return lambda cl: cl.client.create(body)


def delete(resource: str, name: str, ns: str = "default") -> Step:
    return lambda cl: cl.client.delete(resource, name, namespace=ns)


async def run(steps: list[Step], *, memo: bool, decoded: bool = False) -> tuple[list[Any], int]:
    """``decoded``: the client's create bodies reach the apiserver decoded (as HTTP's do), not as JSON bytes."""
    async with Cluster(seed=7, scheduler=False, controllers=False, network=False) as cluster:
        templates = cluster.apiserver.generic_store.templates
        templates.enabled = memo
        if decoded:
            server_create = cluster.apiserver.create

            def create(user: Any, group: str, plural: str, ns: str, body: Any, **kw: Any) -> Awaitable[Any]:
                assert isinstance(body, bytes)  # (what the in-process client sends)
                return server_create(user, group, plural, ns, msgspec.json.decode(body), **kw)

            cluster.apiserver.create = create  # type: ignore[method-assign]
        out: list[Any] = []
        for step in steps:
            cluster.client.warnings.clear()
            try:
                result = await step(cluster)
                out.append(("ok", msgspec.json.encode(result), list(cluster.client.warnings)))
            except ApiError as e:
                out.append(("rejected", msgspec.json.encode(e.status), list(cluster.client.warnings)))
        table = cluster.apiserver.tables.table(cluster.apiserver.tables.resource("", "pods"))
        out.append(sorted((key, stored.data) for key, stored in table.objects.items()))
        return out, templates.served


async def same_with_and_without_memo(steps: list[Step]) -> tuple[list[Any], int]:
    """Each request's outcome with the memo, from JSON bytes (the client's) and from decoded bodies (HTTP's),
    equals the uncached path's; both ways serve the same creates from the memo (their keys are the same)."""
    uncached, none = await run(steps, memo=False)
    cached, hits = await run(steps, memo=True)
    from_dicts, dict_hits = await run(steps, memo=True, decoded=True)
    assert none == 0
    for i, (a, b, c) in enumerate(zip(uncached, cached, from_dicts, strict=True)):
        assert a == b, f"request {i} differs"
        assert a == c, f"request {i} differs (decoded body)"
    assert dict_hits == hits
    return cached, hits


def limit_range(**defaults: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "default"},
            "spec": {"limits": [{"type": "Container", **defaults}]}}


SA = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot", "namespace": "default"}}
ROBOT = {**SPECS[0], "serviceAccountName": "robot"}
PRIORITY = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000, "globalDefault": True}
QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
         "spec": {"hard": {"pods": "3", "requests.cpu": "250m"}}}
DOOMED = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}}
UNKNOWN = {"containers": [{"name": "c", "image": "nginx", "bogus": 1}]}


_LR_NOTE = "LimitRanger plugin set: cpu limit for container web"


def _terminate(ns: str) -> Step:
    return lambda cl: cl.client.delete("namespaces", ns)


CASES = [
    pytest.param([*creates([pod(i, SPECS[i % 3]) for i in range(12)])], 6, id="replicaset-pods-from-three-templates"),
    pytest.param([*creates([pod(i, SPECS[0], name="", generateName="web-") for i in range(5)])], 3,
                 id="generate-name"),
    pytest.param([*creates([pod(i, SPECS[0]) for i in range(3)]),
                  obj(limit_range(default={"cpu": "500m"}, defaultRequest={"cpu": "200m", "memory": "64Mi"})),
                  *creates([pod(i, SPECS[i % 2]) for i in range(3, 8)]),
                  *creates([pod(i, SPECS[1], annotations={"team": "a"}) for i in range(8, 10)]),
                  delete("limitranges", "defaults"),
                  *creates([pod(i, SPECS[0]) for i in range(10, 13)])], 3, id="limitrange-added-then-removed"),
    pytest.param([obj(limit_range(default={"cpu": "500m"})),
                  *creates([pod(i, SPECS[0], annotations={"kubernetes.io/limit-ranger": _LR_NOTE}) for i in range(3)]),
                  *creates([pod(i, SPECS[0]) for i in range(3, 6)])], 2,
                 id="limitrange-annotation-sent-as-it-would-set-it"),
    pytest.param([obj(limit_range(max={"cpu": "150m"})), *creates([pod(i, SPECS[1]) for i in range(3)]),
                  *creates([pod(i, SPECS[0]) for i in range(3, 6)])], 1, id="limitrange-max-rejects-every-time"),
    pytest.param([*creates([pod(i, ROBOT) for i in range(2)]), obj(SA), *creates([pod(i, ROBOT) for i in range(2, 5)]),
                  delete("serviceaccounts", "robot"), *creates([pod(i, ROBOT) for i in range(5, 7)])], 1,
                 id="serviceaccount-appears-and-goes"),
    pytest.param([*creates([pod(i, SPECS[0]) for i in range(3)]), obj(PRIORITY),
                  *creates([pod(i, SPECS[0]) for i in range(3, 6)]),
                  *creates([pod(6, {**SPECS[0], "priority": 5})]),
                  *creates([pod(i, {**SPECS[0], "priorityClassName": "missing"}) for i in range(7, 9)])], 2,
                 id="priorityclass-global-default-appears"),
    pytest.param([obj(QUOTA), *creates([pod(i, SPECS[0]) for i in range(5)])], 3,
                 id="resourcequota-enforced-on-hits"),
    pytest.param([obj(DOOMED), *creates([pod(i, SPECS[0], ns="doomed") for i in range(3)]), _terminate("doomed"),
                  *creates([pod(i, SPECS[0], ns="doomed") for i in range(3, 5)])], 3,
                 id="namespace-terminating-rejects-hits"),
    pytest.param([*creates([pod(0, SPECS[0]), pod(100, SPECS[0])]),
                  *creates([pod(1, SPECS[0], labels={"app": "-bad-"}), pod(2, SPECS[0], name="Bad_Name"),
                            pod(3, SPECS[0], name=""), pod(4, SPECS[0], annotations={"a/b/c": "x"}),
                            pod(5, SPECS[0], ownerReferences=[{"apiVersion": "v1", "kind": "X", "name": ""}]),
                            pod(0, SPECS[0]), pod(6, SPECS[0], ns="other")])], 5,
                 id="invalid-metadata-on-a-cached-template"),
    pytest.param(creates([pod(i, {"containers": [{"name": "c"}]}) for i in range(3)])
                 + creates([pod(i, {"containers": []}) for i in range(3, 5)])
                 + creates([pod(i, {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"},
                                                                                           "limits": {"cpu": "1"}}}]})
                            for i in range(5, 7)]), 0, id="invalid-specs-are-rejected-every-time"),
    pytest.param(creates([pod(i, UNKNOWN) for i in range(3)])
                 + creates([pod(i, UNKNOWN) for i in range(3, 5)], field_validation="Strict")
                 + creates([pod(i, UNKNOWN) for i in range(5, 8)], field_validation="Ignore"), 1,
                 id="unknown-spec-fields-warn-or-fail-every-time"),
    pytest.param(creates([pod(0, SPECS[0])]) + creates([pod(i, SPECS[0], bogus=1) for i in range(1, 3)])
                 + creates([pod(i, SPECS[0], labels={"app": 5}) for i in range(3, 5)]), 0,
                 id="metadata-the-typed-decode-rejects-or-prunes"),
    pytest.param(creates([pod(0, SPECS[1])]) + creates([pod(i, SPECS[1]) for i in range(1, 3)], dry_run=True)
                 + creates([pod(3, SPECS[1]), pod(4, SPECS[1])]), 1, id="dry-run-is-never-templated"),
    pytest.param(creates([pod(i, {"containers": [{"name": "c", "image": "nginx", "args": None, "resources": {
        "requests": {"cpu": "1000m", "memory": "0.5Gi"}}}], "hostname": None}) for i in range(4)])
        + creates([pod(i, SPECS[0], labels=None, annotations=None, finalizers=None) for i in range(4, 7)]), 3,
        id="explicit-nulls-and-quantities"),
    pytest.param(creates([pod(0, SPECS[2])]) + creates([pod(i, SPECS[2], uid="u", resourceVersion="5", generation=9,
                                                            creationTimestamp="2020-01-01T00:00:00Z",
                                                            managedFields=[{"manager": "x", "operation": "Update"}])
                                                        for i in range(1, 3)]), 1,
                 id="a-copied-object-loses-its-server-fields"),
    pytest.param([*creates([pod(i, SPECS[0], ns="other") for i in range(2)]),
                  lambda cl: cl.client.create(pod(2, SPECS[0], ns="other"), namespace="default")], 0,
                 id="namespace-missing-or-mismatched"),
    # a hit's managedFields entry is remembered per template, metadata shape, manager and apiVersion
    pytest.param([*creates([pod(i, SPECS[0]) for i in range(2)]),
                  *[step for i in range(2, 8) for step in creates([pod(i, SPECS[0])],
                                                                  field_manager="kube-controller-manager" if i % 2
                                                                  else "kubectl-create")]], 6,
                 id="managers-alternate-on-one-template"),
    pytest.param([*creates([pod(i, SPECS[1]) for i in range(2)]),
                  *creates([pod(2, SPECS[1], labels={"app": "web", "extra": "x"}),
                            pod(3, SPECS[1], labels={}), pod(4, SPECS[1], labels={"app": "web"}),
                            pod(5, SPECS[1], ownerReferences=[]),
                            pod(6, SPECS[1], ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                               "name": "other", "uid": "rs-9"}]),
                            pod(7, SPECS[1], finalizers=["example.com/keep"]),
                            pod(8, SPECS[1], generateName="web-", annotations={"note": "n"}),
                            pod(9, SPECS[1])])], 7,  # (annotations as sent are part of the key: pod 8 misses)
                 id="metadata-shapes-on-one-template"),
    # the metadata checks objects share are remembered only when they pass
    pytest.param([*creates([pod(i, SPECS[0]) for i in range(3)]),
                  *creates([pod(i, SPECS[0], labels={"app": "web", "bad": "-x-"}) for i in range(3, 5)]),
                  *creates([pod(i, SPECS[0], finalizers=["orphan", "foregroundDeletion"]) for i in range(5, 7)]),
                  *creates([pod(i, SPECS[0], ownerReferences=[
                      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": True},
                      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": True},
                  ]) for i in range(7, 9)]),
                  *creates([pod(i, SPECS[0]) for i in range(9, 11)])], 9,  # (rejected hits are served too)
                 id="invalid-shared-metadata-rejected-every-time"),
]


@pytest.mark.parametrize(("steps", "hits"), CASES)
async def test_a_create_equals_the_uncached_path(steps: list[Step], hits: int) -> None:
    _, served = await same_with_and_without_memo(steps)
    assert served == hits


async def test_a_user_hook_on_pods_turns_the_memo_off() -> None:
    seen: list[str] = []

    async def label(req: AdmissionRequest) -> None:
        assert req.object is not None
        seen.append(req.object["metadata"]["name"])
        req.object["spec"]["containers"][0]["image"] = "nginx:patched"

    def register(cl: Cluster) -> Awaitable[None]:
        cl.apiserver.admission.register(label, mutating=True, resources=["pods"])
        return _none()

    steps = [*creates([pod(i, SPECS[0]) for i in range(3)]), register, *creates([pod(i, SPECS[0]) for i in range(3, 6)])]
    results, hits = await same_with_and_without_memo(steps)
    assert hits == 1  # before the hook only
    assert b"nginx:patched" in results[5][1]


async def _none() -> None:
    return None


async def test_managed_fields_off_and_on() -> None:
    def toggle(on: bool) -> Step:
        def step(cl: Cluster) -> Awaitable[None]:
            cl.apiserver.track_managed_fields = on
            return _none()
        return step

    steps = [*creates([pod(i, SPECS[0]) for i in range(2)]), toggle(False),
             *creates([pod(i, SPECS[0]) for i in range(2, 5)]), toggle(True),
             *creates([pod(i, SPECS[0]) for i in range(5, 7)])]
    _, hits = await same_with_and_without_memo(steps)
    assert hits == 3


async def test_a_hit_does_not_change_the_template() -> None:
    async with Cluster(seed=3, scheduler=False, controllers=False, network=False) as cluster:
        templates = cluster.apiserver.generic_store.templates
        await cluster.client.create(pod(0, SPECS[1]))
        assert templates.entries() == []  # a spec seen once is not recorded
        await cluster.client.create(pod(4, SPECS[1]))
        (template,) = templates.entries()
        before = msgspec.json.encode((template.spec, template.status, template.encoded))
        for i in range(1, 4):
            created = await cluster.client.create(pod(i, SPECS[1]))
            created["spec"]["containers"][0]["image"] = "mutated"  # the caller's copy
        assert templates.served == 3
        assert msgspec.json.encode((template.spec, template.status, template.encoded)) == before


async def test_typed_creates_are_served_and_equal_the_uncached_path() -> None:
    """A typed client's Pods (Structs) reach the apiserver as JSON bytes like dicts do, and hit the memo."""
    from kubelite.api.types import Pod

    typed = [msgspec.convert(pod(i, SPECS[0]), Pod) for i in range(5)]
    steps: list[Step] = [lambda cl, p=p: cl.client.create(p) for p in typed]
    results, hits = await same_with_and_without_memo(steps)
    assert hits == 3
    assert all(r[0] == "ok" for r in results[:5])


async def test_a_hit_encodes_only_its_metadata() -> None:
    """A hit writes the template's recorded spec and status JSON (spliced), and its managedFields entry
    around the fieldsV1 JSON remembered for the metadata's shape: the object the store encodes holds
    ``msgspec.Raw`` for exactly those."""
    async with Cluster(seed=5, scheduler=False, controllers=False, network=False) as cluster:
        store = cluster.store
        seen: list[dict[str, Any]] = []
        real_create = store.create

        def create(table: Any, obj: dict[str, Any], **kw: Any) -> Any:
            seen.append({**obj, **(kw.get("spliced") or {})})
            return real_create(table, obj, **kw)

        store.create = create  # type: ignore[method-assign]
        for i in range(4):
            await cluster.client.create(pod(i, SPECS[1]))
        assert cluster.apiserver.generic_store.templates.served == 2
        for obj in seen[:2]:  # the misses encode everything
            assert type(obj["spec"]) is dict
        for obj in seen[2:]:
            assert type(obj["spec"]) is msgspec.Raw and type(obj["status"]) is msgspec.Raw
            (entry,) = obj["metadata"]["managedFields"]
            assert type(entry["fieldsV1"]) is msgspec.Raw
        # what was written is what the whole path writes: the stored objects decode to the same JSON shape
        stored = [await cluster.client.get("pods", f"web-{i}") for i in range(4)]
        assert stored[3]["spec"] == stored[0]["spec"] and stored[3]["status"] == stored[0]["status"]
        assert stored[3]["metadata"]["managedFields"][0]["fieldsV1"] == stored[1]["metadata"]["managedFields"][0][
            "fieldsV1"]


# --- property: varied realistic specs, random edits ----------------------------------------------------

_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2, 70_000),
                  st.sampled_from(["", "100m", "1Gi", "0.5", "Always", "nginx:1", "a b", "-x", "TCP", "http"]))
_JSON = st.recursive(_LEAF, lambda c: st.lists(c, max_size=2) | st.dictionaries(
    st.sampled_from(["name", "image", "port", "x"]), c, max_size=2), max_leaves=4)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _edit(spec: dict[str, Any], choice: int, value: Any, remove: bool) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    path = _paths(spec)[choice % len(_paths(spec))]
    parent: Any = spec
    for p in path[:-1]:
        parent = parent[p]
    if remove and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return spec


_TEMPLATE = st.tuples(st.integers(0, len(SPECS) - 1),
                      st.lists(st.tuples(st.integers(0, 10_000), _JSON, st.booleans()), max_size=2))


@settings(max_examples=40)
@given(templates=st.lists(_TEMPLATE, min_size=1, max_size=3), stamps=st.lists(st.integers(0, 2), min_size=2, max_size=8))
async def test_property_varied_specs_equal_the_uncached_path(
    templates: list[tuple[int, list[tuple[int, Any, bool]]]], stamps: list[int],
) -> None:
    specs = []
    for base, edits in templates:
        spec = SPECS[base]
        for choice, value, remove in edits:
            spec = _edit(spec, choice, value, remove)
        specs.append(spec)
    pods = [pod(i, specs[t % len(specs)]) for i, t in enumerate(stamps)]
    results, served = await same_with_and_without_memo(creates(pods))
    # every stamp of a spec that two earlier creates stored cleanly (no warnings) is served by the memo
    clean: dict[bytes, int] = {}
    expected = 0
    for p, (outcome, _, warnings) in zip(pods, results, strict=False):
        raw = msgspec.json.encode(p["spec"])
        expected += clean.get(raw, 0) >= 2
        if outcome == "ok" and not warnings:
            clean[raw] = clean.get(raw, 0) + 1
    assert served == expected
