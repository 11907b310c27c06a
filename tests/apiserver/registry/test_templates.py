"""The per-template create memo (``kubelite/apiserver/registry/templates.py``) against the uncached path.

Every case runs one request sequence on two clusters with the same seed, one with the memo and one
without, and requires the same outcome for every request (the created object's bytes, or the rejection's
Status, and the warnings) and the same stored bytes at the end; each case also states how many requests the
memo served, so a memo that never hits fails instead of passing vacuously. Admission state the memo keys on
(LimitRanges, ServiceAccounts, PriorityClasses) changes between creates, per-object state (ResourceQuota
usage, a terminating namespace, name clashes) is enforced on hits, and invalid requests (metadata and spec)
must be rejected with the uncached path's Status each time. The uncached path also runs with the create
path's other shortcuts off (a create's managedFields in one walk and without the update path's request
handling, the per-string canonical quantities, a body parsed straight into its Struct, the admission
plugins resolved per resource), so the other three ways hold those to the plain path too. The property test does the same for pods made
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

from kubelite.api import quantity_fields
from kubelite.apiserver import ssa
from kubelite.apiserver.admission.certificates import (
    CertificateApproval,
    CertificateSigning,
    CertificateSubjectRestriction,
)
from kubelite.apiserver.admission.default_storage_class import DefaultStorageClass
from kubelite.apiserver.admission.default_toleration_seconds import DefaultTolerationSeconds
from kubelite.apiserver.admission.limit_ranger import LimitRanger
from kubelite.apiserver.admission.priority import PriorityAdmission
from kubelite.apiserver.admission.service_account import ServiceAccountAdmission
from kubelite.apiserver.admission.taint_nodes_by_condition import TaintNodesByCondition
from kubelite.apiserver.pipeline import Decoder
from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster
from kubelite.errors import ApiError
from kubelite.memo import ENCODED_KEYS

Step = Callable[[Cluster], Awaitable[Any]]

_PLUGIN_CLASSES = [LimitRanger, ServiceAccountAdmission, PriorityAdmission, DefaultTolerationSeconds,
                   DefaultStorageClass, TaintNodesByCondition, CertificateApproval, CertificateSigning,
                   CertificateSubjectRestriction]

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


async def run(
    steps: list[Step], *, memo: bool, decoded: bool = False, encoded_keys: bool = True, shortcuts: bool = True,
) -> tuple[list[Any], int, int]:
    """``decoded``: the client's create bodies reach the apiserver decoded (as HTTP's do), not as JSON bytes;
    ``encoded_keys=False``: the memo tables keyed on encodings (``kubelite.memo.ENCODED_KEYS``) are never
    consulted, as on a first sight; ``shortcuts=False``: the create path's other shortcuts are off too (a
    create's managedFields composed from the whole set, ``ssa.compare.created_fields`` unused, and so
    ``ssa.created_managed_fields`` too; every quantity string parsed, the per-string canonical memo unused;
    every body parsed to a dict and converted, ``Decoder.decode_json`` unused; every admission plugin asked
    about every resource, no ``resources`` declared). Returns the outcomes, the memo's hits and its first
    sights."""
    ENCODED_KEYS.on = encoded_keys
    saved = ssa.created_fields, quantity_fields._canonical_str, Decoder.decode_json
    declared = {cls: cls.resources for cls in _PLUGIN_CLASSES if "resources" in vars(cls)}
    if not shortcuts:
        ssa.created_fields = lambda *a: None  # type: ignore[assignment]
        quantity_fields._canonical_str = quantity_fields._canonical_of  # type: ignore[assignment]
        Decoder.decode_json = lambda self, *a: None  # type: ignore[method-assign]
        for cls in declared:  # (every plugin asked about every resource)
            del cls.resources
    try:
        return await _run(steps, memo=memo, decoded=decoded)
    finally:
        ENCODED_KEYS.on = True
        ssa.created_fields, quantity_fields._canonical_str, Decoder.decode_json = saved  # type: ignore[method-assign]
        for cls, res in declared.items():
            cls.resources = res


async def _run(steps: list[Step], *, memo: bool, decoded: bool) -> tuple[list[Any], int, int]:
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
        return out, templates.served, templates.first_sights


async def same_with_and_without_memo(steps: list[Step]) -> tuple[list[Any], int]:
    """Each request's outcome with the memo, from JSON bytes (the client's) and from decoded bodies (HTTP's),
    and with no memo table keyed on an encoding ever consulted, equals the uncached path's; both memo ways
    serve the same creates from the memo and see the same first sights (their keys are the same)."""
    return (await same_four_ways(steps))[:2]


async def same_four_ways(steps: list[Step]) -> tuple[list[Any], int, int]:
    """:func:`same_with_and_without_memo`, also returning the first sights. The uncached path runs with
    the create path's other shortcuts off as well (:func:`run`'s ``shortcuts``), so each of them is held
    to the plain path's bytes and Statuses too."""
    uncached, none, no_firsts = await run(steps, memo=False, shortcuts=False)
    cached, hits, firsts = await run(steps, memo=True)
    from_dicts, dict_hits, dict_firsts = await run(steps, memo=True, decoded=True)
    no_tables, _, _ = await run(steps, memo=False, encoded_keys=False)
    assert none == no_firsts == 0
    for i, (a, b, c, d) in enumerate(zip(uncached, cached, from_dicts, no_tables, strict=True)):
        assert a == b, f"request {i} differs"
        assert a == c, f"request {i} differs (decoded body)"
        assert a == d, f"request {i} differs (no memo table keyed on an encoding)"
    assert (dict_hits, dict_firsts) == (hits, firsts)
    return cached, hits, firsts


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


# --- first sights: specs never seen before skip the memo tables keyed on encodings ----------------------

def unique_spec(i: int) -> dict[str, Any]:
    """A realistic spec of its own (image, env, resources, probe, volume), as bare pods and workloads with
    unique images send them."""
    return {"containers": [{"name": "main", "image": f"ghcr.io/acme/api:1.{i}", "ports": [{"containerPort": 8080}],
                            "env": [{"name": f"VAR_{k}", "value": str(i * 7 + k)} for k in range(i % 3)],
                            "resources": {"requests": {"cpu": f"{100 + i}m", "memory": "128Mi"},
                                          "limits": {"memory": f"{128 + i}Mi"}},
                            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
                            "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}],
            "volumes": [{"name": "cache", "emptyDir": {"sizeLimit": f"{1 + i % 4}Gi"}}]}


def _spelled(i: int, quantity: str) -> dict[str, Any]:
    """:func:`unique_spec` with ``quantity`` as its CPU request and memory limit, as the user spelled it
    (stored canonical: ``1000m`` as ``1``, ``1.5Gi`` as ``1536Mi``; ``"1.5 cores"`` is a 400)."""
    spec = unique_spec(i)
    spec["containers"][0]["resources"] = {"requests": {"cpu": quantity}, "limits": {"memory": quantity}}
    return spec


_BAD = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]}


#: quantity spellings canonicalised (the per-string memo), bad quantities (a 400 each time), a LimitRange
#: change in between, a sent status (walked by a create's managedFields for its errors only)
_SPELLINGS: list[Step] = [
    *creates([pod(i, _spelled(i, q)) for i, q in enumerate(["1000m", "0.5", "1.5Gi", "1000m", "0.5"])]),
    *creates([pod(5, _spelled(5, "1.5 cores")), pod(6, _spelled(6, "1.5 cores"))]),  # 400 both times
    obj(limit_range(default={"cpu": "500m"}, defaultRequest={"cpu": "200m", "memory": "64Mi"})),
    *creates([pod(i, _spelled(i, "1.5Gi")) for i in range(7, 9)]),
    *creates([{**pod(9, _spelled(9, "2000m")), "status": {"conditions": [{"status": "True"}]}}]),
    *creates([pod(i, _spelled(1, "0.5")) for i in range(10, 13)]),  # pod 1's spec, under the new LimitRange
]


@pytest.mark.parametrize(("steps", "hits", "firsts"), [
    pytest.param(creates([pod(i, unique_spec(i)) for i in range(6)]), 0, 6, id="every-spec-its-own"),
    pytest.param([*creates([pod(i, unique_spec(i)) for i in range(4)]),
                  *creates([pod(4, _BAD), pod(5, _BAD)]),  # rejected as a first sight and again
                  obj(limit_range(default={"cpu": "500m"}, defaultRequest={"cpu": "200m", "memory": "64Mi"})),
                  *creates([pod(i, unique_spec(0)) for i in range(6, 9)]),  # seen, but LimitRange changed the key
                  *creates([pod(9, unique_spec(4))]),
                  delete("limitranges", "defaults"),
                  *creates([pod(i, unique_spec(4)) for i in range(10, 12)]),
                  *creates([pod(12, unique_spec(5), labels={"app": "-bad-"})])],  # bad metadata, a first sight
                 1, 7, id="first-sights-invalid-and-admission-changes"),
    pytest.param([*creates([pod(i, unique_spec(i)) for i in range(2)]), obj(SA),
                  *creates([pod(i, {**unique_spec(i), "serviceAccountName": "robot"}) for i in range(2, 4)]),
                  *creates([pod(i, {**unique_spec(2), "serviceAccountName": "robot"}) for i in range(4, 6)])],
                 1, 4, id="first-sights-with-a-serviceaccount"),
    pytest.param(creates([pod(i, {**unique_spec(i), "containers": [{**unique_spec(i)["containers"][0], "bogus": 1}]})
                          for i in range(2)]) + creates([pod(2, unique_spec(9))], field_validation="Strict")
                 + creates([pod(3, {**unique_spec(8), "hostname": None, "dnsPolicy": None})]), 0, 4,
                 id="first-sights-unknown-fields-and-nulls"),
    pytest.param(_SPELLINGS, 1, 9, id="first-sights-quantity-spellings-bad-quantities-and-a-sent-status"),
])
async def test_first_sights_equal_the_uncached_path(steps: list[Step], hits: int, firsts: int) -> None:
    """A first sight runs defaulting, the initial status, validation and managedFields with no memo table
    keyed on an encoding (and decodes its spec text straight into the typed spec): every outcome and
    stored byte is the uncached path's, valid or not, whatever admission state changed in between."""
    outcomes, served, first_sights = await same_four_ways(steps)
    assert (served, first_sights) == (hits, firsts)
    if steps is _SPELLINGS:  # canonical where stored, a 400 for each bad one
        assert [o[0] for o in outcomes[:7]] == ["ok"] * 5 + ["rejected"] * 2
        assert [msgspec.json.decode(o[1])["code"] for o in outcomes[5:7]] == [400, 400]
        assert [msgspec.json.decode(o[1])["spec"]["containers"][0]["resources"]["requests"]["cpu"]
                for o in outcomes[:5]] == ["1", "500m", "1536Mi", "1", "500m"]


class _CodecCalls:
    """msgspec's JSON encodes and decodes while installed as the profile function (C calls are seen
    whoever makes them)."""

    def __init__(self) -> None:
        self.encodes = self.decodes = 0

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event != "c_call":
            return
        owner = getattr(arg, "__self__", None)
        name = getattr(arg, "__name__", "")
        if isinstance(owner, msgspec.json.Encoder) or arg is msgspec.json.encode:
            self.encodes += 1
        elif (isinstance(owner, msgspec.json.Decoder) or arg is msgspec.json.decode) and name == "decode":
            self.decodes += 1


async def _counted(cluster: Cluster, body: dict[str, Any]) -> _CodecCalls:
    import sys

    from kubelite.api import jsonsafe

    data = jsonsafe.encode(body)  # the client's copy, made before counting: the apiserver's share alone
    calls = _CodecCalls()
    sys.setprofile(calls)
    try:
        await cluster.apiserver.create(cluster.client.user, "", "pods", "default", data)
    finally:
        sys.setprofile(None)
    return calls


async def test_a_create_decodes_its_body_once_and_encodes_once() -> None:
    """What the apiserver parses and writes per create, counted: a first sight parses its body once (the
    envelope's decode passes over the spec's text, which is then decoded straight into the typed spec)
    and encodes once (the stored object: no memo key is encoded); a template's hit decodes only its
    envelope; sent annotations are part of the memo key (one small encode more)."""
    async with Cluster(seed=5, scheduler=False, controllers=False, network=False) as cluster:
        templates = cluster.apiserver.generic_store.templates
        # the namespace's first create fills admission's caches (its Namespace, ServiceAccounts, LimitRanges)
        await cluster.client.create(pod(99, unique_spec(99)))
        first = await _counted(cluster, pod(0, unique_spec(0)))
        assert templates.first_sights == 2
        assert (first.encodes, first.decodes) == (1, 2)
        annotated = await _counted(cluster, pod(1, unique_spec(1), annotations={"team": "a"}))
        assert (annotated.encodes, annotated.decodes) == (2, 2)
        for i in range(2, 4):  # the template's first create (a first sight) and its recording one
            await _counted(cluster, pod(i, SPECS[0]))
        assert templates.first_sights == 4 and templates.served == 0
        for i in range(4, 6):  # a metadata shape's first hit also encodes its fieldsV1 (two owners: two shapes)
            await _counted(cluster, pod(i, SPECS[0]))
        hit = await _counted(cluster, pod(6, SPECS[0]))
        assert templates.served == 3
        # the envelope; two small keys of the metadata's (its shared checks', its managedFields shape's) and
        # the stored object around the recorded spec and status
        assert (hit.encodes, hit.decodes) == (3, 1)
        stored = [await cluster.client.get("pods", f"web-{i}") for i in range(7)]
        assert all(p["status"]["phase"] == "Pending" and p["metadata"]["managedFields"] for p in stored)


# --- names a caching plugin generates per object (upstream's projected token volume) -------------------

_TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def _projected_tokens(cl: Cluster) -> Awaitable[None]:
    """A step: the cluster's ServiceAccount plugin also mounts upstream's projected token volume, named by
    ``generate_name`` (``kube-api-access-<5 random chars>``, drawn from the cluster's RNG) as upstream's
    ``mountServiceAccountToken`` does: one volume, mounted in every container that has none at the path."""
    from kubelite.apiserver.admission.chain import generate_name

    (plugin,) = [p for p in cl.apiserver.admission.mutating_plugins if isinstance(p, ServiceAccountAdmission)]
    admit = plugin.admit

    def with_token(req: AdmissionRequest) -> None:
        admit(req)
        assert req.object is not None
        spec = req.object["spec"]
        name = generate_name(req, cl.rng, "kube-api-access-")
        spec["volumes"] = [*(spec.get("volumes") or []), {"name": name, "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                          "fieldPath": "metadata.namespace"}}]}}]}}]
        for c in spec.get("containers") or ():
            mounts = c.get("volumeMounts") or []
            if not any(m.get("mountPath") == _TOKEN_PATH for m in mounts):
                c["volumeMounts"] = [*mounts, {"name": name, "readOnly": True, "mountPath": _TOKEN_PATH}]

    plugin.admit = with_token  # type: ignore[method-assign]
    return _none()


_SHARES_BASE = {"containers": [{"name": "c", "image": "nginx", "env": [{"name": "V", "value": "kube-api-access-"}]}]}
_BAD_NAME = {"containers": [{"name": "Bad_Name", "image": "nginx"}]}


@pytest.mark.parametrize(("steps", "hits"), [
    pytest.param([_projected_tokens, *creates([pod(i, SPECS[i % 3]) for i in range(9)])], 3,
                 id="token-volume-on-every-pod"),
    pytest.param([_projected_tokens, *creates([pod(i, SPECS[1], name="", generateName="web-") for i in range(4)])], 2,
                 id="token-volume-then-generate-name-then-uid"),
    pytest.param([_projected_tokens, obj(DOOMED), *creates([pod(i, SPECS[0], ns="doomed") for i in range(3)]),
                  _terminate("doomed"), *creates([pod(i, SPECS[0], ns="doomed") for i in range(3, 5)]),
                  *creates([pod(i, SPECS[0]) for i in range(5, 8)])], 4,  # (rejected hits, which draw nothing, count)
                 id="token-volume-rejected-before-the-draw"),
    pytest.param([_projected_tokens, obj(limit_range(default={"cpu": "500m"})),
                  *creates([pod(i, SPECS[0]) for i in range(4)]), *creates([pod(i, _BAD_NAME) for i in range(4, 7)])],
                 2, id="token-volume-with-limitranger-and-an-invalid-spec"),
    pytest.param([_projected_tokens, *creates([pod(i, _SHARES_BASE) for i in range(4)])], 0,
                 id="a-sent-string-shares-the-base-no-template"),
])
async def test_generated_names_are_drawn_again_on_a_hit(steps: list[Step], hits: int) -> None:
    """A hit draws the names the skipped plugin drew, at the same step of the RNG's sequence, and writes
    them wherever the recorded ones stood: four ways byte for byte, every pod with its own volume name."""
    results, served = await same_with_and_without_memo(steps)
    assert served == hits
    names = [msgspec.json.decode(r[1])["spec"]["volumes"][-1]["name"] for r in results[:-1]
             if r[0] == "ok" and b'"kind":"Pod"' in r[1]]
    assert names and all(n.startswith("kube-api-access-") and len(n) == 21 for n in names)
    assert len(set(names)) == len(names)


async def test_a_renamed_hit_shares_the_template_and_records_its_own_fields() -> None:
    async with Cluster(seed=9, scheduler=False, controllers=False, network=False) as cluster:
        await _projected_tokens(cluster)
        templates = cluster.apiserver.generic_store.templates
        first = [await cluster.client.create(pod(i, SPECS[1])) for i in range(2)]
        (template,) = templates.entries()
        recorded = first[1]["spec"]["volumes"][-1]["name"]
        assert template.renames[0][:2] == ("kube-api-access-", recorded)
        before = msgspec.json.encode((template.spec, template.encoded))
        hit = await cluster.client.create(pod(2, SPECS[1]))
        assert templates.served == 1
        name = hit["spec"]["volumes"][-1]["name"]
        assert name != recorded
        assert [m["name"] for c in hit["spec"]["containers"] for m in c["volumeMounts"]
                if m["mountPath"] == _TOKEN_PATH] == [name, name]
        fields = msgspec.json.encode(hit["metadata"]["managedFields"])
        assert name.encode() in fields and recorded.encode() not in fields
        assert msgspec.json.encode((template.spec, template.encoded)) == before  # the template is untouched
        # the stored bytes name the new volume only
        stored = cluster.apiserver.tables.table(cluster.apiserver.tables.resource("", "pods")).objects
        data = next(s.data for k, s in stored.items() if "web-2" in str(k))
        assert name.encode() in data and recorded.encode() not in data


async def test_the_uncached_way_turns_off_every_resource_declaration() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        chain = cluster.apiserver.admission
        declaring = {type(p) for p in (*chain.mutating_plugins, *chain.validating_plugins) if hasattr(p, "resources")}
    assert declaring == set(_PLUGIN_CLASSES)
