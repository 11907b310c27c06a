"""Privilege-escalation prevention for writes of roles and bindings (pkg/registry/rbac)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiserver.auth.rbac import RBACAuthorizer
from kubelite.apiserver.auth.user import ADMIN, UserInfo
from kubelite.errors import Forbidden

G = "rbac.authorization.k8s.io"
BOB = UserInfo(name="bob", groups=("system:authenticated",))


def held(*rules: dict[str, Any], namespace: str = "default") -> RBACAuthorizer:
    """An authorizer where bob holds ``rules`` in ``namespace`` (via a RoleBinding to a Role)."""
    authz = RBACAuthorizer()
    authz.upsert("Role", {"metadata": {"name": "held", "namespace": namespace}, "rules": list(rules)})
    authz.upsert("RoleBinding", {
        "metadata": {"name": "held", "namespace": namespace},
        "roleRef": {"apiGroup": G, "kind": "Role", "name": "held"},
        "subjects": [{"kind": "User", "apiGroup": G, "name": "bob"}],
    })
    return authz


def rule(verbs: list[str], resources: list[str], groups: list[str] | None = None, **extra: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "apiGroups": [""] if groups is None else groups, "resources": resources, **extra}


COVERS = [
    ("exact", [rule(["get"], ["pods"])], [rule(["get"], ["pods"])], True),
    ("subset-of-verbs", [rule(["get", "list", "watch"], ["pods"])], [rule(["list"], ["pods"])], True),
    ("extra-verb", [rule(["get"], ["pods"])], [rule(["get", "delete"], ["pods"])], False),
    ("star-verb", [rule(["*"], ["pods"])], [rule(["escalate"], ["pods"])], True),
    ("star-group", [rule(["get"], ["deployments"], ["*"])], [rule(["get"], ["deployments"], ["apps"])], True),
    ("other-group", [rule(["get"], ["deployments"], ["apps"])], [rule(["get"], ["deployments"], ["extensions"])], False),
    ("star-resource", [rule(["get"], ["*"])], [rule(["get"], ["pods", "pods/log"])], True),
    ("star-slash-subresource", [rule(["get"], ["*/scale"], ["*"])], [rule(["get"], ["deployments/scale"], ["apps"])], True),
    ("star-slash-not-resource", [rule(["get"], ["*/scale"])], [rule(["get"], ["pods"])], False),
    ("resource-not-subresource", [rule(["get"], ["pods"])], [rule(["get"], ["pods/status"])], False),
    ("names-narrower", [rule(["get"], ["secrets"])], [rule(["get"], ["secrets"], resourceNames=["a"])], True),
    ("names-held", [rule(["get"], ["secrets"], resourceNames=["a", "b"])],
     [rule(["get"], ["secrets"], resourceNames=["b"])], True),
    ("names-wider", [rule(["get"], ["secrets"], resourceNames=["a"])], [rule(["get"], ["secrets"])], False),
    ("names-other", [rule(["get"], ["secrets"], resourceNames=["a"])],
     [rule(["get"], ["secrets"], resourceNames=["c"])], False),
    ("split-across-rules", [rule(["get"], ["pods"]), rule(["list"], ["pods"])], [rule(["get", "list"], ["pods"])], True),
    ("nothing-requested", [], [], True),
]


@pytest.mark.parametrize(("owner", "requested", "ok"), [c[1:] for c in COVERS], ids=[c[0] for c in COVERS])
def test_confirm_no_escalation_covers(owner: list[dict[str, Any]], requested: list[dict[str, Any]], ok: bool) -> None:
    authz = held(*owner)
    if ok:
        authz.confirm_no_escalation(BOB, "default", requested)
    else:
        with pytest.raises(Forbidden):
            authz.confirm_no_escalation(BOB, "default", requested)


def test_non_resource_urls_need_cluster_wide_grant() -> None:
    authz = RBACAuthorizer()
    authz.upsert("ClusterRole", {"metadata": {"name": "u"}, "rules": [{"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}]})
    authz.upsert("ClusterRoleBinding", {"metadata": {"name": "u"}, "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "u"},
                                        "subjects": [{"kind": "User", "apiGroup": G, "name": "bob"}]})
    authz.confirm_no_escalation(BOB, "", [{"verbs": ["get"], "nonResourceURLs": ["/apis/apps"]}])
    with pytest.raises(Forbidden, match=r'\{NonResourceURLs:\["/api"\], Verbs:\["get"\]\}'):
        authz.confirm_no_escalation(BOB, "", [{"verbs": ["get"], "nonResourceURLs": ["/api"]}])


def test_escalation_message_matches_upstream() -> None:
    authz = held(rule(["get"], ["pods"]))
    with pytest.raises(Forbidden) as exc:
        authz.check_role_write(BOB, "Role", {
            "metadata": {"name": "r", "namespace": "default"},
            "rules": [rule(["get", "list"], ["pods", "secrets"]), rule(["get"], ["configmaps"], resourceNames=["c"])],
        })
    assert exc.value.status.code == 403
    assert exc.value.message == (
        'roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["c"], Verbs:["get"]}\n'
        '{APIGroups:[""], Resources:["pods"], Verbs:["list"]}\n'
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}'
    )


def test_role_write_within_held_rules_allowed() -> None:
    authz = held(rule(["get", "list"], ["pods"]))
    authz.check_role_write(BOB, "Role", {"metadata": {"name": "r", "namespace": "default"},
                                         "rules": [rule(["list"], ["pods"])]})
    with pytest.raises(Forbidden):  # rules held in "default" do not count in "other"
        authz.check_role_write(BOB, "Role", {"metadata": {"name": "r", "namespace": "other"},
                                             "rules": [rule(["list"], ["pods"])]})


def test_escalate_verb_allows_any_rules() -> None:
    authz = held(rule(["escalate"], ["roles"], [G]))
    authz.check_role_write(BOB, "Role", {"metadata": {"name": "r", "namespace": "default"},
                                         "rules": [rule(["*"], ["*"], ["*"])]})
    with pytest.raises(Forbidden):  # escalate on roles says nothing about clusterroles
        authz.check_role_write(BOB, "ClusterRole", {"metadata": {"name": "r"}, "rules": [rule(["get"], ["pods"])]})


def test_aggregation_rule_needs_full_authority() -> None:
    authz = held(rule(["get"], ["pods"]))
    authz.upsert("ClusterRoleBinding", {"metadata": {"name": "h"}, "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "c"},
                                        "subjects": [{"kind": "User", "apiGroup": G, "name": "bob"}]})
    authz.upsert("ClusterRole", {"metadata": {"name": "c"}, "rules": [rule(["get"], ["pods"])]})
    obj = {"metadata": {"name": "agg"}, "rules": [],
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]}}
    with pytest.raises(Forbidden) as exc:
        authz.check_role_write(BOB, "ClusterRole", obj)
    assert exc.value.message == ('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: '
                                 "must have cluster-admin privileges to use the aggregationRule")
    authz.check_role_write(ADMIN, "ClusterRole", obj)


def test_binding_requires_bind_verb_or_held_rules() -> None:
    authz = held(rule(["get"], ["pods"]))
    authz.upsert("ClusterRole", {"metadata": {"name": "pod-reader"}, "rules": [rule(["get"], ["pods"])]})
    authz.upsert("ClusterRole", {"metadata": {"name": "secret-reader"}, "rules": [rule(["get"], ["secrets"])]})

    def rb(role: str) -> dict[str, Any]:
        return {"metadata": {"name": "x", "namespace": "default"},
                "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": role},
                "subjects": [{"kind": "User", "apiGroup": G, "name": "eve"}]}

    authz.check_binding_write(BOB, "RoleBinding", rb("pod-reader"))
    with pytest.raises(Forbidden) as exc:
        authz.check_binding_write(BOB, "RoleBinding", rb("secret-reader"))
    assert exc.value.message.startswith('rolebindings.rbac.authorization.k8s.io "x" is forbidden: user "bob"')
    with pytest.raises(Forbidden) as exc:
        authz.check_binding_write(BOB, "RoleBinding", rb("missing"))
    assert exc.value.message == ('rolebindings.rbac.authorization.k8s.io "x" is forbidden: '
                                 'clusterroles.rbac.authorization.k8s.io "missing" not found')
    # the bind verb on that one ClusterRole lifts the requirement
    authz.upsert("Role", {"metadata": {"name": "held", "namespace": "default"}, "rules": [
        rule(["get"], ["pods"]), rule(["bind"], ["clusterroles"], [G], resourceNames=["secret-reader"])]})
    authz.check_binding_write(BOB, "RoleBinding", rb("secret-reader"))


def test_gc_only_update_is_not_an_escalation() -> None:
    authz = held()
    old = {"metadata": {"name": "r", "namespace": "default", "resourceVersion": "5"}, "rules": [rule(["*"], ["*"], ["*"])]}
    new = {"metadata": {"name": "r", "namespace": "default", "resourceVersion": "5", "finalizers": ["f"],
                        "ownerReferences": [{"name": "o"}]}, "rules": [rule(["*"], ["*"], ["*"])]}
    authz.check_role_write(BOB, "Role", new, old)
    with pytest.raises(Forbidden):
        authz.check_role_write(BOB, "Role", {**new, "metadata": {**new["metadata"], "labels": {"a": "b"}}}, old)


def test_system_masters_may_grant_anything() -> None:
    authz = RBACAuthorizer()
    authz.confirm_no_escalation(ADMIN, "", [rule(["*"], ["*"], ["*"])])
    authz.check_binding_write(ADMIN, "ClusterRoleBinding", {
        "metadata": {"name": "x"}, "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "missing"}})
