"""The one request pipeline: every verb and subresource is authorized for every verb it implies, decoded,
admitted, validated and stored through the same steps, and a rejected request changes nothing.

Each case is an upstream decision (kube-apiserver's handlers and registry) that kubelite got wrong while
requests could skip parts of the pipeline.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import ConfigMap, Node, ObjectMeta, Pod, PodDisruptionBudget, Secret
from kubelite.apiserver.admission import AdmissionDenied
from kubelite.apiserver.auth.user import ADMIN
from kubelite.apiserver.request import AdmissionRequest, Options, Request, Response
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    MethodNotAllowed,
    NotFound,
    TooManyRequests,
)

G = "rbac.authorization.k8s.io"


async def grant(cluster: Cluster, user: str, rules: list[dict[str, Any]], namespace: str = "default") -> Client:
    """``user`` holding exactly ``rules`` in ``namespace`` (a Role and a RoleBinding)."""
    c = cluster.client
    await c.create({"apiVersion": f"{G}/v1", "kind": "Role", "metadata": {"name": user, "namespace": namespace},
                    "rules": rules})
    await c.create({"apiVersion": f"{G}/v1", "kind": "RoleBinding",
                    "metadata": {"name": user, "namespace": namespace},
                    "subjects": [{"kind": "User", "apiGroup": G, "name": user}],
                    "roleRef": {"apiGroup": G, "kind": "Role", "name": user}})
    return cluster.client_as(user)


def rule(verbs: list[str], resources: list[str], **extra: Any) -> dict[str, Any]:
    return {"apiGroups": [""], "resources": resources, "verbs": verbs, **extra}


def cm(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": dict(data)}


def pod(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


# --- authorization of every verb a request implies ----------------------------------------------------


async def test_apply_that_creates_needs_create_as_well_as_patch(cluster: Cluster) -> None:
    """handlers/patch.go wraps the patcher's create path in withAuthorization(create): holding only
    ``patch`` lets a user apply to an existing object, never create one."""
    alice = await grant(cluster, "alice", [rule(["patch", "get"], ["configmaps"])])
    with pytest.raises(Forbidden) as e:
        await alice.apply(cm("new", a="1"), field_manager="alice")
    assert e.value.status.message == 'configmaps "new" is forbidden: '  # withAuthorization: NewForbidden(gr, name, reason)
    with pytest.raises(NotFound):
        await cluster.client.get(ConfigMap, "new")
    await cluster.client.create(cm("old", a="1"))
    applied = await alice.apply(cm("old", a="2"), field_manager="alice", force=True)
    assert applied["data"] == {"a": "2"}


async def test_apply_creates_with_create_and_patch(cluster: Cluster) -> None:
    bob = await grant(cluster, "bob", [rule(["patch", "create"], ["configmaps"])])
    created = await bob.apply(cm("new", a="1"), field_manager="bob")
    assert created["data"] == {"a": "1"}


async def test_put_creates_where_the_strategy_allows_create_on_update(cluster: Cluster) -> None:
    """AllowCreateOnUpdate (Services, Endpoints, Events, Leases, RBAC kinds): a PUT of a missing object
    creates it, and needs ``create`` as well as ``update``; other kinds answer 404."""
    ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e", "namespace": "default"}}
    carol = await grant(cluster, "carol", [rule(["update"], ["endpoints", "configmaps"])])
    with pytest.raises(Forbidden):
        await carol.replace(ep)
    with pytest.raises(NotFound):
        await carol.replace(cm("x"))
    created = await cluster.client.replace(ep)
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    with pytest.raises(NotFound):
        await cluster.client.replace(cm("x"))
    # a resourceVersion precondition on a missing object is 404, not a create (Store.Update)
    with pytest.raises(NotFound):
        await cluster.client.replace({**ep, "metadata": {"name": "f", "namespace": "default",
                                                         "resourceVersion": "5"}})


async def test_forbidden_create_names_no_object(cluster: Cluster) -> None:
    """A create is a request on the collection: RequestInfo carries no name, so a rule restricted by
    resourceNames never allows it and the message names none."""
    dave = await grant(cluster, "dave", [rule(["create"], ["configmaps"], resourceNames=["x"])])
    with pytest.raises(Forbidden) as e:
        await dave.create(cm("x"))
    assert e.value.status.message == (
        'configmaps is forbidden: User "dave" cannot create resource "configmaps" in API group "" in the '
        'namespace "default"')


async def test_create_pods_eviction_is_enough_to_evict(cluster: Cluster) -> None:
    """The eviction storage deletes the pod itself: no second ``delete pods`` authorization."""
    await cluster.client.create(pod("web"))
    erin = await grant(cluster, "erin", [rule(["create"], ["pods/eviction"])])
    await erin.evict("default", "web")
    with pytest.raises(NotFound):
        await cluster.client.get(Pod, "web")


async def test_deletecollection_needs_no_list(cluster: Cluster) -> None:
    """Upstream authorizes the request's verb only: ``deletecollection``."""
    await cluster.client.create(cm("a"))
    frank = await grant(cluster, "frank", [rule(["deletecollection"], ["configmaps"])])
    await frank.delete_collection("configmaps")
    assert [o["metadata"]["name"] for o in await cluster.client.list("configmaps")] == ["kube-root-ca.crt"] or \
        not any(o["metadata"]["name"] == "a" for o in await cluster.client.list("configmaps"))


# --- subresources are their own REST objects ----------------------------------------------------------


@pytest.mark.parametrize("verb", ["patch", "update", "get"], ids=["patch", "put", "get"])
async def test_status_of_a_resource_without_one_is_404_and_writes_nothing(cluster: Cluster, verb: str) -> None:
    """Secrets have no status subresource: the route does not exist (404), whatever the verb."""
    await cluster.client.create(Secret(metadata=ObjectMeta(name="s"), data={"k": "dg=="}))
    before = await cluster.client.get(Secret, "s")
    c = cluster.client
    requests = {
        "patch": lambda: c.patch("secrets", "s", {"metadata": {"finalizers": ["x"], "annotations": {"a": "b"}},
                                                  "data": {"k": "eQ=="}}, subresource="status", patch_type="merge"),
        "update": lambda: c.replace_status({**msgspec.to_builtins(before), "data": {"k": "eQ=="}}),
        "get": lambda: c.get(Secret, "s", subresource="status"),
    }
    with pytest.raises(NotFound):
        await requests[verb]()
    after = await cluster.client.get(Secret, "s")
    assert after == before


async def test_verb_a_subresource_does_not_serve_is_405(cluster: Cluster) -> None:
    await cluster.client.create(pod("web"))
    with pytest.raises(MethodNotAllowed):
        await cluster.client.create_subresource("pods", "web", "status", {})
    with pytest.raises(NotFound):
        await cluster.client.create_subresource("configmaps", "x", "binding", {})


async def test_legacy_bindings_resource_binds_the_pod(cluster: Cluster) -> None:
    """POST /api/v1/namespaces/{ns}/bindings is LegacyBindingREST: it binds the pod the Binding names and
    stores no Binding object."""
    await cluster.client.create(pod("web"))
    out = await cluster.client.create({"apiVersion": "v1", "kind": "Binding",
                                       "metadata": {"name": "web", "namespace": "default"},
                                       "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}})
    assert out["status"] == "Success"
    bound = await cluster.client.get(Pod, "web")
    assert bound.spec is not None and bound.spec.node_name == "node-1"
    conds = {c.type: c.status for c in (bound.status.conditions if bound.status else None) or ()}
    assert conds["PodScheduled"] == "True"
    assert cluster.store.list(cluster.apiserver.table(cluster.apiserver.resource("", "bindings"))).items == []
    with pytest.raises(NotFound):
        await cluster.client.create({"apiVersion": "v1", "kind": "Binding",
                                     "metadata": {"name": "missing", "namespace": "default"},
                                     "target": {"kind": "Node", "name": "node-1"}})


@pytest.mark.parametrize("annotations", [{"a": 1}, {"a": None}, {"a": ["x"]}, "not-a-map"],
                         ids=["int", "null", "list", "string"])
async def test_binding_annotations_are_decoded_before_they_are_merged(
    cluster: Cluster, annotations: Any,
) -> None:
    """A Binding is decoded like any object (annotations are map[string]string): a bad one is 400 and the
    pod is untouched, so the stored pod stays decodable for every informer."""
    await cluster.client.create(pod("web"))
    with pytest.raises(BadRequest):
        await cluster.client.create_subresource("pods", "web", "binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web", "annotations": annotations},
            "target": {"kind": "Node", "name": "node-1"},
        })
    stored = await cluster.client.get(Pod, "web")  # typed: decodes
    assert stored.spec is not None and stored.spec.node_name is None


async def test_binding_name_must_match_the_url(cluster: Cluster) -> None:
    await cluster.client.create(pod("web"))
    with pytest.raises(BadRequest, match="name in URL does not match name in Binding object"):
        await cluster.client.create_subresource("pods", "web", "binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "other"},
            "target": {"kind": "Node", "name": "node-1"}})


# --- a rejected eviction spends no budget --------------------------------------------------------------


async def _budgeted(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(pod("web", {"app": "web"}))
    await c.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": "pdb", "namespace": "default"},
                    "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 1}})
    live = await c.get("poddisruptionbudgets", "pdb")
    await c.patch("poddisruptionbudgets", "pdb", {"status": {
        "observedGeneration": live["metadata"]["generation"], "disruptionsAllowed": 1, "currentHealthy": 1,
        "desiredHealthy": 0, "expectedPods": 1}}, subresource="status", patch_type="merge")


async def _allowed(cluster: Cluster) -> int:
    pdb = await cluster.client.get(PodDisruptionBudget, "pdb")
    assert pdb.status is not None
    return pdb.status.disruptions_allowed or 0


async def test_eviction_rejected_by_admission_spends_no_budget(cluster: Cluster) -> None:
    await _budgeted(cluster)

    async def deny(req: AdmissionRequest) -> None:
        raise AdmissionDenied("pods stay")

    cluster.apiserver.admission.register(deny, resources=[("", "pods")], operations=["DELETE"], name="keep")
    with pytest.raises(ApiError) as e:
        await cluster.client.evict("default", "web")
    assert e.value.status.code == 403
    assert await _allowed(cluster) == 1
    assert (await cluster.client.get(Pod, "web")).metadata.deletion_timestamp is None  # type: ignore[union-attr]


async def test_eviction_with_failed_precondition_spends_no_budget(cluster: Cluster) -> None:
    await _budgeted(cluster)
    with pytest.raises(Conflict):
        await cluster.client.create_subresource("pods", "web", "eviction", {
            "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"},
            "deleteOptions": {"preconditions": {"uid": "not-the-uid"}}})
    assert await _allowed(cluster) == 1


async def test_successful_eviction_spends_the_budget_once(cluster: Cluster) -> None:
    await _budgeted(cluster)
    await cluster.client.evict("default", "web")
    assert await _allowed(cluster) == 0
    pdb = await cluster.client.get("poddisruptionbudgets", "pdb")
    assert list(pdb["status"]["disruptedPods"]) == ["web"]
    await cluster.client.create(pod("web2", {"app": "web"}))
    with pytest.raises(TooManyRequests):
        await cluster.client.evict("default", "web2")


async def test_dry_run_eviction_spends_no_budget(cluster: Cluster) -> None:
    await _budgeted(cluster)
    await cluster.client.create_subresource("pods", "web", "eviction", {
        "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}}, dry_run=True)
    assert await _allowed(cluster) == 1
    await cluster.client.get(Pod, "web")


# --- the request entry point ---------------------------------------------------------------------------


async def test_handle_is_the_one_entry_point(cluster: Cluster) -> None:
    """What the HTTP layer calls: one Request in, a Response (or ApiError) out."""
    resp = await cluster.apiserver.handle(Request(
        verb="create", group="", resource="configmaps", namespace="default", body=cm("h", k="v"), user=ADMIN,
        options=Options(field_manager="http"),
    ))
    assert isinstance(resp, Response)
    got = await cluster.client.get(ConfigMap, "h")
    assert got.data == {"k": "v"}
    assert [e.manager for e in got.metadata.managed_fields or ()] == ["http"]  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        await cluster.apiserver.handle(Request(verb="get", group="", resource="nope", name="x", user=ADMIN))


async def test_dry_run_create_of_a_service_keeps_no_cluster_ip(cluster: Cluster) -> None:
    """A dry run changes nothing, allocators included: the IP a dry run showed is free for the real create."""
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"},
           "spec": {"clusterIP": "10.96.0.50", "ports": [{"port": 80}]}}
    await cluster.client.create(svc, dry_run=True)
    created = await cluster.client.create(svc)
    assert created["spec"]["clusterIP"] == "10.96.0.50"


async def test_node_status_is_kept_on_create(cluster: Cluster) -> None:
    node = await cluster.client.create(Node(metadata=ObjectMeta(name="n1"), status={"capacity": {"cpu": "4"}}))
    assert node.status is not None and node.status.capacity == {"cpu": "4"}


# --- strategies' hooks -----------------------------------------------------------------------------------


def _ep(subsets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e", "namespace": "default"},
            "subsets": subsets}


P80 = {"name": "http", "port": 80, "protocol": "TCP"}
P443 = {"name": "https", "port": 443, "protocol": "TCP"}


@pytest.mark.parametrize(("subsets", "expected"), [
    ([{"addresses": [{"ip": "10.0.0.2"}], "ports": [P80]}, {"addresses": [{"ip": "10.0.0.1"}], "ports": [P80]}],
     [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [P80]}]),
    ([{"addresses": [{"ip": "10.0.0.1"}], "ports": [P80]}, {"notReadyAddresses": [{"ip": "10.0.0.1"}], "ports": [P80]}],
     [{"notReadyAddresses": [{"ip": "10.0.0.1"}], "ports": [P80]}]),
    ([{"addresses": [{"ip": "10.0.0.1"}], "ports": [P80]}, {"addresses": [{"ip": "10.0.0.1"}], "ports": [P443]}],
     [{"addresses": [{"ip": "10.0.0.1"}], "ports": [P80, P443]}]),
    ([{"addresses": [{"ip": "10.0.0.1"}]}], [{"addresses": [{"ip": "10.0.0.1"}]}]),
    ([{"addresses": [{"ip": "10.0.0.1", "targetRef": {"kind": "Pod", "name": "a", "uid": "u1"}},
                     {"ip": "10.0.0.1", "targetRef": {"kind": "Pod", "name": "b", "uid": "u2"}}], "ports": [P80]}],
     [{"addresses": [{"ip": "10.0.0.1", "targetRef": {"kind": "Pod", "name": "a", "uid": "u1"}},
                     {"ip": "10.0.0.1", "targetRef": {"kind": "Pod", "name": "b", "uid": "u2"}}], "ports": [P80]}]),
], ids=["merge-same-ports", "not-ready-trumps-ready", "merge-same-addresses", "no-ports-kept", "same-ip-two-pods"])
async def test_endpoints_are_stored_repacked(cluster: Cluster, subsets: Any, expected: Any) -> None:
    """The Endpoints strategy's Canonicalize is RepackSubsets (upstream endpoints/util.go)."""
    created = await cluster.client.create(_ep(subsets))
    assert created["subsets"] == expected


async def test_a_bug_is_a_500_and_writes_nothing(cluster: Cluster) -> None:
    """Every request either succeeds or raises an ApiError: anything else is upstream's panic recovery, a
    500 InternalError carrying the original exception as its cause."""

    async def broken(req: AdmissionRequest) -> None:
        raise ZeroDivisionError("division by zero")

    cluster.apiserver.admission.register(broken, resources=[("", "configmaps")], name="broken")
    with pytest.raises(ApiError) as e:
        await cluster.client.create(cm("x"))
    assert e.value.status.code == 500 and e.value.status.reason == "InternalError"
    assert e.value.status.message == "Internal error occurred: division by zero"
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    with pytest.raises(NotFound):
        await cluster.client.get(ConfigMap, "x")


# --- a rejected request changes nothing, whatever rejects it ---------------------------------------------


def _rejections() -> dict[str, Any]:
    """Requests that must each be rejected; every one runs against the same prepared cluster."""
    sub = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"},
           "target": {"kind": "Node", "name": "node-1"}}
    return {
        "invalid-create": lambda c: c.create({**cm("Bad_Name")}),
        "invalid-update": lambda c: c.patch("pods", "web", {"spec": {"containers": [{"name": "c", "image": ""}]}},
                                            patch_type="strategic"),
        "stale-resource-version": lambda c: c.patch("configmaps", "cm", {"metadata": {"resourceVersion": "1"},
                                                                         "data": {"a": "2"}}, patch_type="merge"),
        "status-of-secret": lambda c: c.patch("secrets", "s", {"metadata": {"annotations": {"a": "b"}}},
                                              subresource="status", patch_type="merge"),
        "binding-bad-annotations": lambda c: c.create_subresource(
            "pods", "web", "binding", {**sub, "metadata": {"name": "web", "annotations": {"a": 1}}}),
        "binding-no-target": lambda c: c.create_subresource("pods", "web", "binding", {**sub, "target": {}}),
        "eviction-precondition": lambda c: c.create_subresource("pods", "web", "eviction", {
            "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"},
            "deleteOptions": {"preconditions": {"uid": "x"}}}),
        "delete-bad-propagation": lambda c: c.delete("configmaps", "cm", cascade="Sideways"),
        "apply-without-manager": lambda c: c.apply(cm("cm", a="9"), field_manager=""),
        "strict-unknown-field": lambda c: c.create({**cm("u"), "bogus": 1}, field_validation="Strict"),
        "scale-negative": lambda c: c.patch("deployments", "d", {"spec": {"replicas": -1}}, subresource="scale",
                                            patch_type="merge"),
        "service-ip-taken": lambda c: c.create({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "s2", "namespace": "default"},
            "spec": {"clusterIP": "10.96.0.60", "ports": [{"port": 80}]}}),
    }


REJECTIONS = _rejections()


def _snapshot(cluster: Cluster) -> tuple[int, dict[tuple[str, str, str], bytes]]:
    objects = {}
    for (_group, plural), table in cluster.apiserver.tables.items():  # aggregated APIs have no table
        for o in cluster.store.list(table).items:
            objects[(plural, o.namespace, o.name)] = o.data
    return cluster.store.revision, objects


@pytest.mark.parametrize("case", sorted(REJECTIONS), ids=sorted(REJECTIONS))
async def test_a_rejected_request_changes_nothing(cluster: Cluster, case: str) -> None:
    c = cluster.client
    await _budgeted(cluster)
    await c.create(cm("cm", a="1"))
    await c.create(Secret(metadata=ObjectMeta(name="s")))
    await c.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
                    "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {
                        "metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    await c.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s1", "namespace": "default"},
                    "spec": {"clusterIP": "10.96.0.60", "ports": [{"port": 80}]}})
    before = _snapshot(cluster)
    with pytest.raises(ApiError) as e:
        await REJECTIONS[case](c)
    assert 400 <= e.value.status.code < 500
    assert _snapshot(cluster) == before
