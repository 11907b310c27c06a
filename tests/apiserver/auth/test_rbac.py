"""RBAC authorizer: rule matching, binding scope, subjects, Forbidden messages, aggregation, caching."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer, forbidden
from kubelite.apiserver.auth.user import ADMIN, UserInfo, service_account_user
from kubelite.errors import Forbidden

G = "rbac.authorization.k8s.io"
BOB = UserInfo(name="bob", groups=("dev", "system:authenticated"))


def role(kind: str, name: str, rules: list[dict[str, Any]], namespace: str = "",
         labels: dict[str, str] | None = None, aggregate: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    obj: dict[str, Any] = {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta, "rules": rules}
    if aggregate is not None:
        obj["aggregationRule"] = {"clusterRoleSelectors": aggregate}
    return obj


def binding(kind: str, name: str, ref_kind: str, ref_name: str, subjects: list[dict[str, str]],
            namespace: str = "") -> dict[str, Any]:
    meta = {"name": name, "namespace": namespace} if namespace else {"name": name}
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta, "subjects": subjects,
            "roleRef": {"apiGroup": G, "kind": ref_kind, "name": ref_name}}


def user(name: str) -> dict[str, str]:
    return {"kind": "User", "apiGroup": G, "name": name}


def group(name: str) -> dict[str, str]:
    return {"kind": "Group", "apiGroup": G, "name": name}


def load(authz: RBACAuthorizer, *objs: dict[str, Any]) -> RBACAuthorizer:
    for o in objs:
        authz.upsert(o["kind"], o)
    return authz


def req(verb: str, resource: str, *, ns: str = "default", group: str = "", sub: str = "", name: str = "",
        who: UserInfo = BOB) -> Attributes:
    return Attributes(who, verb, ns, group, resource, sub, name)


def url(verb: str, path: str, who: UserInfo = BOB) -> Attributes:
    return Attributes(who, verb, "", "", "", "", "", resource_request=False, path=path)


# --- rule matching (evaluation_helpers.go) ------------------------------------------------------------

R = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
MATCHING = [
    ("verb-exact", R, req("get", "pods"), True),
    ("verb-mismatch", R, req("list", "pods"), False),
    ("verb-wildcard", {**R, "verbs": ["*"]}, req("delete", "pods"), True),
    ("group-mismatch", R, req("get", "pods", group="apps"), False),
    ("group-wildcard", {**R, "apiGroups": ["*"]}, req("get", "pods", group="example.com"), True),
    ("group-exact-named", {**R, "apiGroups": ["apps"], "resources": ["deployments"]},
     req("get", "deployments", group="apps"), True),
    ("resource-mismatch", R, req("get", "services"), False),
    ("resource-does-not-grant-subresource", R, req("get", "pods", sub="status"), False),
    ("subresource-exact", {**R, "resources": ["pods/status"]}, req("get", "pods", sub="status"), True),
    ("subresource-does-not-grant-resource", {**R, "resources": ["pods/status"]}, req("get", "pods"), False),
    ("star-slash-subresource", {**R, "apiGroups": ["*"], "resources": ["*/scale"]},
     req("get", "deployments", group="apps", sub="scale"), True),
    ("star-slash-wrong-subresource", {**R, "resources": ["*/scale"]}, req("get", "pods", sub="status"), False),
    ("star-slash-not-main-resource", {**R, "resources": ["*/scale"]}, req("get", "pods"), False),
    ("resource-wildcard-grants-subresource", {**R, "resources": ["*"]}, req("get", "pods", sub="log"), True),
    ("resource-name-match", {**R, "resourceNames": ["a", "b"]}, req("get", "pods", name="b"), True),
    ("resource-name-mismatch", {**R, "resourceNames": ["a"]}, req("get", "pods", name="c"), False),
    ("resource-name-list-denied", {**R, "verbs": ["list"], "resourceNames": ["a"]}, req("list", "pods"), False),
    ("no-resource-names-any-name", R, req("get", "pods", name="zzz"), True),
    ("url-exact", {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, url("get", "/healthz"), True),
    ("url-exact-mismatch", {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, url("get", "/healthz/etcd"), False),
    ("url-prefix", {"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}, url("get", "/apis/apps/v1"), True),
    ("url-prefix-not-parent", {"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}, url("get", "/api"), False),
    ("url-all", {"verbs": ["*"], "nonResourceURLs": ["*"]}, url("post", "/anything"), True),
    ("url-verb-mismatch", {"verbs": ["get"], "nonResourceURLs": ["*"]}, url("post", "/x"), False),
    ("resource-rule-no-urls", {**R, "resources": ["*"], "apiGroups": ["*"]}, url("get", "/healthz"), False),
    ("url-rule-no-resources", {"verbs": ["*"], "nonResourceURLs": ["*"]}, req("get", "pods"), False),
]


@pytest.mark.parametrize(("rule", "attrs", "allowed"), [c[1:] for c in MATCHING], ids=[c[0] for c in MATCHING])
def test_rule_matching(rule: dict[str, Any], attrs: Attributes, allowed: bool) -> None:
    authz = load(RBACAuthorizer(), role("ClusterRole", "r", [rule]),
                 binding("ClusterRoleBinding", "b", "ClusterRole", "r", [user("bob")]))
    assert authz.authorize(attrs)[0] is allowed


# --- binding scope and subjects -------------------------------------------------------------------------

POD_READER = [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]
SA = service_account_user("team", "robot")
SCOPE = [
    ("rolebinding-role-in-namespace", binding("RoleBinding", "b", "Role", "reader", [user("bob")], "team"),
     req("get", "pods", ns="team"), True),
    ("rolebinding-role-other-namespace", binding("RoleBinding", "b", "Role", "reader", [user("bob")], "team"),
     req("get", "pods", ns="default"), False),
    ("rolebinding-not-cluster-scope", binding("RoleBinding", "b", "Role", "reader", [user("bob")], "team"),
     req("list", "pods", ns=""), False),
    ("rolebinding-clusterrole-in-namespace",
     binding("RoleBinding", "b", "ClusterRole", "pod-reader", [user("bob")], "team"),
     req("get", "pods", ns="team"), True),
    ("rolebinding-clusterrole-other-namespace",
     binding("RoleBinding", "b", "ClusterRole", "pod-reader", [user("bob")], "team"),
     req("get", "pods", ns="other"), False),
    ("rolebinding-clusterrole-not-cluster-scope",
     binding("RoleBinding", "b", "ClusterRole", "pod-reader", [user("bob")], "team"),
     req("list", "pods", ns=""), False),
    ("clusterrolebinding-any-namespace", binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [user("bob")]),
     req("get", "pods", ns="other"), True),
    ("clusterrolebinding-cluster-scope", binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [user("bob")]),
     req("list", "pods", ns=""), True),
    ("other-user-denied", binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [user("alice")]),
     req("get", "pods"), False),
    ("group-subject", binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [group("dev")]),
     req("get", "pods"), True),
    ("sa-subject-with-namespace",
     binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader",
             [{"kind": "ServiceAccount", "name": "robot", "namespace": "team"}]),
     req("get", "pods", who=SA), True),
    ("sa-subject-wrong-namespace",
     binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader",
             [{"kind": "ServiceAccount", "name": "robot", "namespace": "other"}]),
     req("get", "pods", who=SA), False),
    ("sa-subject-no-namespace-in-rolebinding-defaults",
     binding("RoleBinding", "b", "ClusterRole", "pod-reader", [{"kind": "ServiceAccount", "name": "robot"}], "team"),
     req("get", "pods", ns="team", who=SA), True),
    ("sa-subject-no-namespace-in-clusterrolebinding-never",
     binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [{"kind": "ServiceAccount", "name": "robot"}]),
     req("get", "pods", ns="team", who=SA), False),
    ("sa-namespace-group", binding("RoleBinding", "b", "Role", "reader", [group("system:serviceaccounts:team")], "team"),
     req("get", "pods", ns="team", who=SA), True),
    ("all-service-accounts-group",
     binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader", [group("system:serviceaccounts")]),
     req("list", "pods", ns="x", who=SA), True),
    ("sa-group-does-not-match-user", binding("RoleBinding", "b", "Role", "reader",
                                             [group("system:serviceaccounts:team")], "team"),
     req("get", "pods", ns="team"), False),
    ("unknown-subject-kind", binding("ClusterRoleBinding", "b", "ClusterRole", "pod-reader",
                                     [{"kind": "Robot", "name": "bob"}]),
     req("get", "pods"), False),
]


@pytest.mark.parametrize(("bind", "attrs", "allowed"), [c[1:] for c in SCOPE], ids=[c[0] for c in SCOPE])
def test_binding_scope_and_subjects(bind: dict[str, Any], attrs: Attributes, allowed: bool) -> None:
    authz = load(RBACAuthorizer(), role("Role", "reader", POD_READER, namespace="team"),
                 role("ClusterRole", "pod-reader", POD_READER), bind)
    assert authz.authorize(attrs)[0] is allowed


@pytest.mark.parametrize(
    "attrs",
    [req("delete", "nodes", ns=""), url("post", "/anything"), req("escalate", "clusterroles", group=G)],
    ids=["cluster-resource", "non-resource", "escalate"],
)
def test_system_masters_always_allowed(attrs: Attributes) -> None:
    allowed, _ = RBACAuthorizer().authorize(attrs._replace(user=ADMIN))
    assert allowed


def test_allowed_reason_names_binding_and_subject() -> None:
    authz = load(RBACAuthorizer(), role("ClusterRole", "pod-reader", POD_READER),
                 binding("RoleBinding", "rb", "ClusterRole", "pod-reader",
                         [user("alice"), {"kind": "ServiceAccount", "name": "robot"}], "team"))
    assert authz.authorize(req("get", "pods", ns="team", who=SA)) == (
        True, 'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "pod-reader" to ServiceAccount "robot/team"')


def test_denial_reason_lists_unresolvable_roles() -> None:
    authz = load(RBACAuthorizer(),
                 binding("ClusterRoleBinding", "b1", "ClusterRole", "missing", [user("bob")]),
                 binding("RoleBinding", "b2", "Role", "gone", [user("bob")], "default"))
    assert authz.authorize(req("get", "pods")) == (
        False, 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, '
               'role.rbac.authorization.k8s.io "gone" not found]')
    assert authz.authorize(req("get", "pods", who=UserInfo(name="carol"))) == (False, "")


# --- Forbidden messages -------------------------------------------------------------------------------

FORBIDDEN = [
    ("namespaced-get", req("get", "pods", name="x"),
     'pods "x" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "default"'),
    ("cluster-scoped-list", req("list", "nodes", ns=""),
     'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope'),
    ("grouped-subresource", req("update", "deployments", group="apps", sub="scale", name="web"),
     'deployments.apps "web" is forbidden: User "bob" cannot update resource "deployments/scale" '
     'in API group "apps" in the namespace "default"'),
    ("non-resource", url("get", "/metrics"), 'forbidden: User "bob" cannot get path "/metrics"'),
]


@pytest.mark.parametrize(("attrs", "message"), [c[1:] for c in FORBIDDEN], ids=[c[0] for c in FORBIDDEN])
def test_forbidden_message(attrs: Attributes, message: str) -> None:
    authz = RBACAuthorizer()
    allowed, reason = authz.authorize(attrs)
    assert not allowed
    err = forbidden(attrs, reason)
    assert isinstance(err, Forbidden)
    assert err.status.code == 403
    assert err.status.reason == "Forbidden"
    assert err.message == message


def test_forbidden_message_carries_reason() -> None:
    err = forbidden(req("get", "pods"), 'RBAC: role.rbac.authorization.k8s.io "r" not found')
    assert err.message.endswith('in the namespace "default": RBAC: role.rbac.authorization.k8s.io "r" not found')


# --- aggregation ----------------------------------------------------------------------------------------

SEL = {"matchLabels": {"agg": "yes"}}


def test_aggregated_cluster_role_follows_labelled_roles() -> None:
    authz = load(RBACAuthorizer(),
                 role("ClusterRole", "combined", [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                      aggregate=[SEL]),
                 binding("ClusterRoleBinding", "b", "ClusterRole", "combined", [user("bob")]))
    # the stored rules of an aggregated role are replaced by the aggregation (none yet)
    assert not authz.authorize(req("get", "pods"))[0]
    load(authz, role("ClusterRole", "part", POD_READER, labels={"agg": "yes"}))
    assert authz.authorize(req("get", "pods"))[0]
    assert authz.cluster_role_rules("combined") == POD_READER
    load(authz, role("ClusterRole", "part", POD_READER, labels={"agg": "no"}))
    assert not authz.authorize(req("get", "pods"))[0]
    load(authz, role("ClusterRole", "part", POD_READER, labels={"agg": "yes"}))
    authz.remove("ClusterRole", "", "part")
    assert not authz.authorize(req("get", "pods"))[0]


def test_aggregation_is_transitive_deduplicated_and_name_ordered() -> None:
    svc = [{"verbs": ["get"], "apiGroups": [""], "resources": ["services"]}]
    authz = load(RBACAuthorizer(),
                 role("ClusterRole", "top", [], aggregate=[{"matchLabels": {"to-top": "true"}}]),
                 role("ClusterRole", "mid", [], labels={"to-top": "true"}, aggregate=[SEL]),
                 role("ClusterRole", "b-leaf", svc, labels={"agg": "yes"}),
                 role("ClusterRole", "a-leaf", POD_READER + svc, labels={"agg": "yes", "to-top": "true"}))
    assert authz.cluster_role_rules("top") == POD_READER + svc


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}, {"tier": "b"}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}, {"tier": "b"}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": "x"}, False),
        ({}, {"anything": "x"}, True),
    ],
    ids=["in", "not-in-set", "notin-absent", "exists", "does-not-exist", "empty-selects-all"],
)
def test_aggregation_selectors(selector: dict[str, Any], labels: dict[str, str], matches: bool) -> None:
    authz = load(RBACAuthorizer(), role("ClusterRole", "agg", [], aggregate=[selector]),
                 role("ClusterRole", "part", POD_READER, labels=labels))
    assert (authz.cluster_role_rules("agg") == POD_READER) is matches


def test_aggregation_cycle_terminates() -> None:
    authz = load(RBACAuthorizer(),
                 role("ClusterRole", "a", [], labels={"x": "a"}, aggregate=[{"matchLabels": {"x": "b"}}]),
                 role("ClusterRole", "b", [], labels={"x": "b"}, aggregate=[{"matchLabels": {"x": "a"}}]))
    assert authz.cluster_role_rules("a") == []
    assert authz.cluster_role_rules("missing") is None


# --- the view stays current -----------------------------------------------------------------------------

def test_upsert_and_remove_invalidate_cached_decisions() -> None:
    authz = load(RBACAuthorizer(), role("Role", "reader", POD_READER, namespace="default"))
    assert not authz.authorize(req("get", "pods"))[0]
    load(authz, binding("RoleBinding", "b", "Role", "reader", [user("bob")], "default"))
    assert authz.authorize(req("get", "pods"))[0]
    load(authz, role("Role", "reader", [{"verbs": ["get"], "apiGroups": [""], "resources": ["services"]}],
                     namespace="default"))
    assert not authz.authorize(req("get", "pods"))[0]
    assert authz.authorize(req("get", "services"))[0]
    # rebinding to another subject must drop the old index entry
    load(authz, binding("RoleBinding", "b", "Role", "reader", [user("alice")], "default"))
    assert not authz.authorize(req("get", "services"))[0]
    load(authz, binding("RoleBinding", "b", "Role", "reader", [user("bob")], "default"))
    authz.remove("RoleBinding", "default", "b")
    assert not authz.authorize(req("get", "services"))[0]


def test_view_does_not_alias_caller_objects() -> None:
    obj = role("ClusterRole", "r", [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}])
    authz = load(RBACAuthorizer(), obj, binding("ClusterRoleBinding", "b", "ClusterRole", "r", [user("bob")]))
    obj["rules"][0]["verbs"].append("delete")
    assert not authz.authorize(req("delete", "pods"))[0]
    out = authz.rules_for(BOB, "default")
    out[0]["verbs"].append("delete")
    assert authz.rules_for(BOB, "default") == [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]


def test_rules_for_includes_cluster_and_namespace_rules() -> None:
    svc = [{"verbs": ["get"], "apiGroups": [""], "resources": ["services"]}]
    authz = load(RBACAuthorizer(), role("ClusterRole", "pod-reader", POD_READER),
                 role("Role", "svc", svc, namespace="team"),
                 binding("ClusterRoleBinding", "c", "ClusterRole", "pod-reader", [group("dev")]),
                 binding("RoleBinding", "r", "Role", "svc", [user("bob")], "team"))
    assert authz.rules_for(BOB, "team") == POD_READER + svc
    assert authz.rules_for(BOB, "other") == POD_READER


@pytest.mark.parametrize("kind", ["Pod", "role"], ids=["not-rbac", "wrong-case"])
def test_unknown_kind_rejected(kind: str) -> None:
    with pytest.raises(ValueError, match="not an RBAC kind"):
        RBACAuthorizer().upsert(kind, {"metadata": {"name": "x"}})
    with pytest.raises(ValueError, match="not an RBAC kind"):
        RBACAuthorizer().remove(kind, "", "x")
