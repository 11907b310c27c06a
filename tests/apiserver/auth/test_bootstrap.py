"""Bootstrap policy: shape of the objects and what the default roles grant."""

from __future__ import annotations

import pytest

from kubelite.apiserver.auth.bootstrap import bootstrap_objects
from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer
from kubelite.apiserver.auth.user import ANONYMOUS, UserInfo, node_user, service_account_user

G = "rbac.authorization.k8s.io"


def cluster() -> RBACAuthorizer:
    authz = RBACAuthorizer()
    for obj in bootstrap_objects():
        authz.upsert(obj["kind"], obj)
    return authz


def test_objects_are_deterministic_and_labelled() -> None:
    objs = bootstrap_objects()
    assert objs == bootstrap_objects()
    assert objs is not bootstrap_objects()
    kinds = [o["kind"] for o in objs]
    assert kinds == sorted(kinds, key=lambda k: k != "ClusterRole")  # roles before bindings
    for o in objs:
        assert o["apiVersion"] == f"{G}/v1"
        assert o["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
        assert o["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    names = [(o["kind"], o["metadata"]["name"]) for o in objs]
    assert len(names) == len(set(names))


def test_every_binding_references_a_bootstrap_role() -> None:
    objs = bootstrap_objects()
    roles = {o["metadata"]["name"] for o in objs if o["kind"] == "ClusterRole"}
    for o in objs:
        if o["kind"] == "ClusterRoleBinding":
            assert o["roleRef"] == {"apiGroup": G, "kind": "ClusterRole", "name": o["metadata"]["name"]}
            assert o["roleRef"]["name"] in roles


def test_aggregated_roles_carry_resolved_rules() -> None:
    by_name = {o["metadata"]["name"]: o for o in bootstrap_objects() if o["kind"] == "ClusterRole"}
    authz = cluster()
    for name in ("admin", "edit", "view"):
        assert by_name[name]["aggregationRule"]["clusterRoleSelectors"] == [
            {"matchLabels": {f"{G}/aggregate-to-{name}": "true"}}]
        assert by_name[name]["rules"] == authz.cluster_role_rules(name)
        assert by_name[name]["rules"]
    assert by_name["edit"]["metadata"]["labels"][f"{G}/aggregate-to-admin"] == "true"


def bound(role: str, ns: str = "team") -> tuple[RBACAuthorizer, UserInfo]:
    """bob bound to ClusterRole ``role`` in namespace ``ns`` via a RoleBinding."""
    authz = cluster()
    authz.upsert("RoleBinding", {"metadata": {"name": "b", "namespace": ns},
                                 "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": role},
                                 "subjects": [{"kind": "User", "apiGroup": G, "name": "bob"}]})
    return authz, UserInfo(name="bob", groups=("system:authenticated",))


GRANTS = [
    ("view", "list", "", "pods", "", True),
    ("view", "get", "", "pods", "log", True),
    ("view", "list", "", "secrets", "", False),
    ("view", "create", "", "pods", "", False),
    ("view", "watch", "apps", "deployments", "", True),
    ("edit", "create", "apps", "deployments", "", True),
    ("edit", "update", "apps", "deployments", "scale", True),
    ("edit", "get", "", "secrets", "", True),
    ("edit", "create", G, "roles", "", False),
    ("edit", "create", G, "rolebindings", "", False),
    ("edit", "update", "", "pods", "status", False),
    ("admin", "create", G, "roles", "", True),
    ("admin", "create", G, "rolebindings", "", True),
    ("admin", "delete", "batch", "jobs", "", True),
    ("admin", "update", "", "resourcequotas", "", False),
    ("cluster-admin", "deletecollection", "example.com", "widgets", "", True),
]


@pytest.mark.parametrize(("role", "verb", "group", "resource", "sub", "allowed"), GRANTS,
                         ids=[f"{g[0]}-{g[1]}-{g[3]}{'-' + g[4] if g[4] else ''}" for g in GRANTS])
def test_user_facing_roles_grant_what_upstream_grants(
        role: str, verb: str, group: str, resource: str, sub: str, allowed: bool) -> None:
    authz, bob = bound(role)
    assert authz.authorize(Attributes(bob, verb, "team", group, resource, sub, ""))[0] is allowed
    assert not authz.authorize(Attributes(bob, verb, "other", group, resource, sub, ""))[0]


KCM = "kube-system"
SYSTEM = [
    ("scheduler-binds-pods", UserInfo(name="system:kube-scheduler", groups=("system:authenticated",)),
     ("create", "ns", "", "pods", "binding", ""), True),
    ("scheduler-cannot-create-pods", UserInfo(name="system:kube-scheduler", groups=("system:authenticated",)),
     ("create", "ns", "", "pods", "", ""), False),
    ("scheduler-leader-lease", UserInfo(name="system:kube-scheduler", groups=("system:authenticated",)),
     ("update", KCM, "coordination.k8s.io", "leases", "", "kube-scheduler"), True),
    ("scheduler-other-lease", UserInfo(name="system:kube-scheduler", groups=("system:authenticated",)),
     ("update", KCM, "coordination.k8s.io", "leases", "", "kube-controller-manager"), False),
    ("kcm-lists-everything", UserInfo(name="system:kube-controller-manager", groups=("system:authenticated",)),
     ("list", "", "example.com", "widgets", "", ""), True),
    ("replicaset-controller-creates-pods", service_account_user(KCM, "replicaset-controller"),
     ("create", "ns", "", "pods", "", ""), True),
    ("replicaset-controller-updates-status", service_account_user(KCM, "replicaset-controller"),
     ("update", "ns", "apps", "replicasets", "status", ""), True),
    ("deployment-controller-creates-replicasets", service_account_user(KCM, "deployment-controller"),
     ("create", "ns", "apps", "replicasets", "", ""), True),
    ("deployment-controller-cannot-create-pods", service_account_user(KCM, "deployment-controller"),
     ("create", "ns", "", "pods", "", ""), False),
    ("job-controller-creates-pods", service_account_user(KCM, "job-controller"),
     ("create", "ns", "", "pods", "", ""), True),
    ("gc-deletes-anything", service_account_user(KCM, "generic-garbage-collector"),
     ("delete", "ns", "example.com", "widgets", "", "w"), True),
    ("namespace-controller-finalizes", service_account_user(KCM, "namespace-controller"),
     ("update", "", "", "namespaces", "finalize", "ns"), True),
    ("node-controller-deletes-pods", service_account_user(KCM, "node-controller"),
     ("delete", "ns", "", "pods", "", "p"), True),
    ("endpointslice-controller-writes-slices", service_account_user(KCM, "endpointslice-controller"),
     ("create", "ns", "discovery.k8s.io", "endpointslices", "", ""), True),
    ("controller-sa-in-wrong-namespace", service_account_user("default", "replicaset-controller"),
     ("create", "ns", "", "pods", "", ""), False),
    ("node-updates-pod-status", node_user("n1"), ("patch", "ns", "", "pods", "status", "p"), True),
    ("node-cannot-delete-nodes", node_user("n1"), ("delete", "", "", "nodes", "", "n1"), False),
    ("anonymous-reads-nothing", ANONYMOUS, ("get", "ns", "", "pods", "", "p"), False),
]


@pytest.mark.parametrize(("who", "attrs", "allowed"), [s[1:] for s in SYSTEM], ids=[s[0] for s in SYSTEM])
def test_system_identities(who: UserInfo, attrs: tuple[str, str, str, str, str, str], allowed: bool) -> None:
    verb, ns, group, resource, sub, name = attrs
    assert cluster().authorize(Attributes(who, verb, ns, group, resource, sub, name))[0] is allowed


URLS = [
    (ANONYMOUS, "/version", True),
    (ANONYMOUS, "/healthz", True),
    (ANONYMOUS, "/apis", False),
    (UserInfo(name="bob", groups=("system:authenticated",)), "/apis/apps/v1", True),
    (UserInfo(name="bob", groups=("system:authenticated",)), "/metrics", False),
]


@pytest.mark.parametrize(("who", "path", "allowed"), URLS, ids=[f"{u.name}-{p}" for u, p, _ in URLS])
def test_discovery_and_public_info(who: UserInfo, path: str, allowed: bool) -> None:
    assert cluster().authorize(Attributes(who, "get", "", "", "", "", "", False, path))[0] is allowed
