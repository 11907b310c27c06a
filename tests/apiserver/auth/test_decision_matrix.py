"""An RBAC decision matrix through the public client: users x verbs x resources x subresources x namespaces.

Every expected decision is what kube-apiserver with its bootstrap policy (plugin/pkg/auth/authorizer/rbac/
bootstrappolicy) decides for the same bindings, with RequestInfoFactory's attributes (a create has no
name; a Namespace's own URL carries its name as the namespace), the impersonation filter's checks, and the
policy-based RBAC storages' escalation checks. A denial is a 403 with upstream's message; an allowed
request may still fail for other reasons (404 for an object that does not exist), never with 403.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Forbidden

G = "rbac.authorization.k8s.io"
NS, OTHER = "team", "other"


def rb(name: str, ns: str, ref_kind: str, ref: str, user: str) -> dict[str, Any]:
    return {"apiVersion": f"{G}/v1", "kind": "RoleBinding", "metadata": {"name": name, "namespace": ns},
            "subjects": [{"kind": "User", "apiGroup": G, "name": user}],
            "roleRef": {"apiGroup": G, "kind": ref_kind, "name": ref}}


def role(kind: str, name: str, rules: list[dict[str, Any]], ns: str = "") -> dict[str, Any]:
    meta = {"name": name, "namespace": ns} if ns else {"name": name}
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta, "rules": rules}


def crb(name: str, ref: str, user: str) -> dict[str, Any]:
    return {"apiVersion": f"{G}/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "subjects": [{"kind": "User", "apiGroup": G, "name": user}],
            "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": ref}}


POLICY = [
    rb("admin", NS, "ClusterRole", "admin", "adam"),
    rb("edit", NS, "ClusterRole", "edit", "eddie"),
    rb("view", NS, "ClusterRole", "view", "vera"),
    role("Role", "evictor", [{"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]}], NS),
    rb("evictor", NS, "Role", "evictor", "evan"),
    role("Role", "named", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", "get", "delete"],
                            "resourceNames": ["x"]}], NS),
    rb("named", NS, "Role", "named", "nina"),
    role("Role", "sweeper", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["deletecollection"]}], NS),
    rb("sweeper", NS, "Role", "sweeper", "sam"),
    role("ClusterRole", "impersonator", [
        {"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"], "resourceNames": ["bob"]},
        {"apiGroups": [""], "resources": ["groups"], "verbs": ["impersonate"], "resourceNames": ["devs"]},
        {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]},
    ]),
    crb("impersonator", "impersonator", "ian"),
    crb("reader", "view", "rita"),
]


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False) as c:
        for name in (NS, OTHER):
            await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            await c.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": "x", "namespace": name}})
            await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": name},
                                   "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        for obj in POLICY:
            await c.client.create(obj)
        yield c


def cm(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}}


Call = Callable[[Client], Awaitable[Any]]

# action id -> (call, the 403 message upstream gives a user with no permission for it, {user})
ACTIONS: dict[str, Call] = {
    "get-namespace-own": lambda c: c.get("namespaces", NS),
    "get-namespace-other": lambda c: c.get("namespaces", OTHER),
    "list-namespaces": lambda c: c.list("namespaces"),
    "delete-namespace-own": lambda c: c.delete("namespaces", NS),
    "get-namespace-status-own": lambda c: c.get("namespaces", NS, subresource="status"),
    "create-pod": lambda c: c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new", "namespace": NS},
                                      "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    "create-pod-other-ns": lambda c: c.create({"apiVersion": "v1", "kind": "Pod",
                                               "metadata": {"name": "new", "namespace": OTHER},
                                               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    "get-pod": lambda c: c.get("pods", "p", namespace=NS),
    "get-pod-status": lambda c: c.get("pods", "p", namespace=NS, subresource="status"),
    "delete-pod": lambda c: c.delete("pods", "p", namespace=NS),
    "evict-pod": lambda c: c.evict(NS, "p"),
    "get-secret-missing": lambda c: c.get("secrets", "nope", namespace=NS),
    "list-configmaps": lambda c: c.list("configmaps", namespace=NS),
    "deletecollection-configmaps": lambda c: c.delete_collection("configmaps", namespace=NS),
    "create-configmap-x": lambda c: c.create(cm("x2", NS) | {"metadata": {"name": "x", "namespace": NS}}),
    "get-configmap-x": lambda c: c.get("configmaps", "x", namespace=NS),
    "delete-configmap-x": lambda c: c.delete("configmaps", "x", namespace=NS),
    "create-role-within-own-rights": lambda c: c.create(role("Role", "r", [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}], NS)),
    "create-role-escalating": lambda c: c.create(role("Role", "r2", [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}], NS)),
    "bind-edit-in-ns": lambda c: c.create(rb("b1", NS, "ClusterRole", "edit", "someone")),
    "bind-cluster-admin-in-ns": lambda c: c.create(rb("b2", NS, "ClusterRole", "cluster-admin", "someone")),
    "impersonate-bob": lambda c: _probe(c.as_user("bob")),
    "impersonate-bob-devs": lambda c: _probe(c.as_user("bob", ["devs"])),
    "impersonate-bob-admins": lambda c: _probe(c.as_user("bob", ["admins"])),
    "impersonate-carol": lambda c: _probe(c.as_user("carol")),
    "impersonate-sa": lambda c: _probe(c.as_user(f"system:serviceaccount:{NS}:default")),
}


async def _probe(c: Client) -> None:
    """An impersonated client that exists; what it may do is a different row."""
    assert c.user.name


USERS = ["adam", "eddie", "vera", "evan", "nina", "sam", "ian", "rita", "nobody"]

# action -> the users upstream allows (everyone else is denied)
MATRIX: dict[str, set[str]] = {
    "get-namespace-own": {"adam", "eddie", "vera", "rita"},
    "get-namespace-other": {"rita"},
    "list-namespaces": {"rita"},
    "delete-namespace-own": set(),
    "get-namespace-status-own": {"adam", "eddie", "vera", "rita"},
    "create-pod": {"adam", "eddie"},
    "create-pod-other-ns": set(),
    "get-pod": {"adam", "eddie", "vera", "rita"},
    "get-pod-status": {"adam", "eddie", "vera", "rita"},
    "delete-pod": {"adam", "eddie"},
    "evict-pod": {"adam", "eddie", "evan"},
    "get-secret-missing": {"adam", "eddie"},
    "list-configmaps": {"adam", "eddie", "vera", "rita"},
    "deletecollection-configmaps": {"adam", "eddie", "sam"},
    "create-configmap-x": {"adam", "eddie"},  # nina's create is restricted by resourceNames: never allowed
    "get-configmap-x": {"adam", "eddie", "vera", "nina", "rita"},
    "delete-configmap-x": {"adam", "eddie", "nina"},
    "create-role-within-own-rights": {"adam"},
    "create-role-escalating": set(),  # adam may create roles, but not grant rights he lacks
    "bind-edit-in-ns": {"adam"},
    "bind-cluster-admin-in-ns": set(),
    "impersonate-bob": {"ian"},
    "impersonate-bob-devs": {"ian"},
    "impersonate-bob-admins": set(),
    "impersonate-carol": set(),
    "impersonate-sa": {"ian", "adam", "eddie"},  # edit aggregates `impersonate serviceaccounts`
}

CASES = [pytest.param(user, action, user in allowed, id=f"{user}-{action}")
         for action, allowed in MATRIX.items() for user in USERS]


@pytest.mark.parametrize(("user", "action", "allowed"), CASES)
async def test_decision(cluster: Cluster, user: str, action: str, allowed: bool) -> None:
    client = cluster.client_as(user)
    before = cluster.store.revision
    outcome = "allowed"
    try:
        await ACTIONS[action](client)
    except Forbidden:
        outcome = "forbidden"
    except ApiError:
        outcome = "allowed, then failed"  # e.g. 404: authorization passed
    assert (outcome != "forbidden") == allowed, f"{user} {action}: {outcome}"
    if outcome == "forbidden":
        assert cluster.store.revision == before  # a denied request changes nothing


# --- upstream's exact messages ------------------------------------------------------------------------

MESSAGES = [
    pytest.param("nobody", "create-pod",
                 'pods is forbidden: User "nobody" cannot create resource "pods" in API group "" in the namespace '
                 '"team"', id="create-has-no-object-name"),
    pytest.param("nina", "create-configmap-x",
                 'configmaps is forbidden: User "nina" cannot create resource "configmaps" in API group "" in the '
                 'namespace "team"', id="create-with-resource-names"),
    pytest.param("vera", "delete-pod",
                 'pods "p" is forbidden: User "vera" cannot delete resource "pods" in API group "" in the namespace '
                 '"team"', id="delete-names-the-object"),
    pytest.param("nobody", "get-namespace-own",
                 'namespaces "team" is forbidden: User "nobody" cannot get resource "namespaces" in API group "" in '
                 'the namespace "team"', id="namespace-own-url-is-in-the-namespace"),
    pytest.param("nobody", "list-namespaces",
                 'namespaces is forbidden: User "nobody" cannot list resource "namespaces" in API group "" at the '
                 'cluster scope', id="cluster-scope"),
    pytest.param("vera", "evict-pod",
                 'pods "p" is forbidden: User "vera" cannot create resource "pods/eviction" in API group "" in the '
                 'namespace "team"', id="eviction-subresource"),
    pytest.param("nobody", "impersonate-carol",
                 'users "carol" is forbidden: User "nobody" cannot impersonate resource "users" in API group "" at '
                 'the cluster scope', id="impersonate-user"),
    pytest.param("ian", "impersonate-bob-admins",
                 'groups "admins" is forbidden: User "ian" cannot impersonate resource "groups" in API group "" at '
                 'the cluster scope', id="impersonate-group"),
    pytest.param("vera", "impersonate-sa",
                 'serviceaccounts "default" is forbidden: User "vera" cannot impersonate resource "serviceaccounts" '
                 'in API group "" in the namespace "team"', id="impersonate-service-account"),
]


@pytest.mark.parametrize(("user", "action", "message"), MESSAGES)
async def test_forbidden_message(cluster: Cluster, user: str, action: str, message: str) -> None:
    with pytest.raises(Forbidden) as e:
        await ACTIONS[action](cluster.client_as(user))
    assert e.value.message == message


async def test_escalation_message(cluster: Cluster) -> None:
    with pytest.raises(Forbidden) as e:
        await ACTIONS["create-role-escalating"](cluster.client_as("adam"))
    assert e.value.message.startswith(
        'roles.rbac.authorization.k8s.io "r2" is forbidden: user "adam" (groups=["system:authenticated"]) is '
        "attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}')


async def test_impersonated_identity_is_what_upstream_builds(cluster: Cluster) -> None:
    ian = cluster.client_as("ian")
    assert ian.as_user("bob").user.groups == ("system:authenticated",)
    assert ian.as_user("bob", ["devs"]).user.groups == ("devs", "system:authenticated")
    sa = ian.as_user(f"system:serviceaccount:{NS}:default").user
    assert sa.groups == ("system:serviceaccounts", f"system:serviceaccounts:{NS}", "system:authenticated")


async def test_token_client_needs_impersonate(cluster: Cluster) -> None:
    cluster.add_token("t-nobody", "nobody")
    cluster.add_token("t-ian", "ian")
    with pytest.raises(Forbidden):
        cluster.client_with_token("t-nobody").as_user("bob")
    bob = cluster.client_with_token("t-ian").as_user("bob")
    with pytest.raises(Forbidden):  # bob himself holds nothing
        await bob.get("pods", "p", namespace=NS)


async def test_deletecollection_without_list_deletes(cluster: Cluster) -> None:
    await cluster.client_as("sam").delete_collection("configmaps", namespace=NS)
    assert [o["metadata"]["name"] for o in await cluster.client.list("configmaps", namespace=NS)] == []


async def test_eviction_with_only_create_eviction_deletes_the_pod(cluster: Cluster) -> None:
    await cluster.client_as("evan").evict(NS, "p")
    assert await cluster.client.list("pods", namespace=NS) == []
