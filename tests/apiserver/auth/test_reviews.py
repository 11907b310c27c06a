"""TokenReview, SelfSubjectReview and the access reviews, against the bootstrap RBAC policy plus a few bindings.

Upstream behaviour followed: ``pkg/registry/authentication/{tokenreview,selfsubjectreview}`` and
``pkg/registry/authorization/{subjectaccessreview,selfsubjectaccessreview,localsubjectaccessreview,
selfsubjectrulesreview}`` (answered from the apiserver's own authenticator and authorizer, never stored),
``pkg/apis/authorization/validation`` (422 on a malformed spec), ``pkg/registry/authorization/util`` (the
subject of a SubjectAccessReview is exactly the user and groups named: no ``system:authenticated`` added) and
NamespaceLifecycle's ``accessReviewResources`` exemption.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite
from kubelite.errors import BadRequest, Forbidden, Invalid, MethodNotAllowed

_AUTHZ = "authorization.k8s.io/v1"
_AUTHN = "authentication.k8s.io/v1"


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=11, controllers=False, scheduler=False, network=False) as c:
        c.add_token("alice-token", "alice", groups=("dev",))
        c.add_token("bob-token", "bob")
        rbac = "rbac.authorization.k8s.io"
        await c.client.create({"apiVersion": f"{rbac}/v1", "kind": "RoleBinding",
                               "metadata": {"name": "dev-edit", "namespace": "default"},
                               "roleRef": {"apiGroup": rbac, "kind": "ClusterRole", "name": "edit"},
                               "subjects": [{"apiGroup": rbac, "kind": "Group", "name": "dev"}]})
        await c.client.create({"apiVersion": f"{rbac}/v1", "kind": "ClusterRoleBinding",
                               "metadata": {"name": "bob-delegator"},
                               "roleRef": {"apiGroup": rbac, "kind": "ClusterRole", "name": "system:auth-delegator"},
                               "subjects": [{"apiGroup": rbac, "kind": "User", "name": "bob"}]})
        await c.client.create({"apiVersion": f"{rbac}/v1", "kind": "RoleBinding",
                               "metadata": {"name": "broken", "namespace": "default"},
                               "roleRef": {"apiGroup": rbac, "kind": "Role", "name": "missing"},
                               "subjects": [{"apiGroup": rbac, "kind": "User", "name": "carol"}]})
        yield c


def _sar(user: str | None, groups: list[str] | None, **attrs: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"resourceAttributes": attrs}
    if user is not None:
        spec["user"] = user
    if groups is not None:
        spec["groups"] = groups
    return {"apiVersion": _AUTHZ, "kind": "SubjectAccessReview", "spec": spec}


@pytest.mark.parametrize(("user", "groups", "attrs", "allowed"), [
    ("alice", ["dev"], {"verb": "create", "resource": "deployments", "group": "apps", "namespace": "default"}, True),
    ("alice", ["dev"], {"verb": "create", "resource": "deployments", "group": "apps", "namespace": "other"}, False),
    ("alice", ["dev"], {"verb": "get", "resource": "pods", "subresource": "log", "namespace": "default"}, True),
    ("alice", ["dev"], {"verb": "delete", "resource": "nodes"}, False),
    # the subject is exactly who is named: alice alone is not in "dev", nor system:authenticated
    ("alice", None, {"verb": "get", "resource": "pods", "namespace": "default"}, False),
    ("alice", None, {"verb": "create", "resource": "selfsubjectaccessreviews", "group": "authorization.k8s.io"},
     False),
    (None, ["system:authenticated"], {"verb": "create", "resource": "selfsubjectaccessreviews",
                                      "group": "authorization.k8s.io"}, True),
    ("root", ["system:masters"], {"verb": "delete", "resource": "nodes"}, True),
    ("system:serviceaccount:kube-system:x", ["system:serviceaccounts"], {"verb": "list", "resource": "pods"}, False),
], ids=["edit-in-namespace", "edit-elsewhere", "edit-reads-logs", "no-nodes", "user-without-groups",
        "basic-user-needs-the-group", "basic-user-by-group", "masters", "service-account"])
async def test_subject_access_review_table(cluster: kubelite.Cluster, user: str | None, groups: list[str] | None,
                                           attrs: dict[str, str], allowed: bool) -> None:
    before = cluster.store.revision
    answer = await cluster.client.create(_sar(user, groups, **attrs))
    assert answer["status"]["allowed"] is allowed
    assert "denied" not in answer["status"]  # RBAC has no opinion, it never denies
    if allowed and "system:masters" not in (groups or ()):
        assert answer["status"]["reason"].startswith("RBAC: allowed by ")
    assert cluster.store.revision == before  # answered, not stored


@pytest.mark.parametrize(("spec", "message"), [
    ({"user": "alice"}, "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or "
                        "resourceAttributes must be specified"),
    ({"user": "alice", "resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"path": "/x", "verb": "get"}},
     "spec.nonResourceAttributes: Invalid value"),
    ({"resourceAttributes": {"verb": "get", "resource": "pods"}}, "spec.user: Invalid value: \"\": at least one of "
                                                                   "user or group must be specified"),
], ids=["no-attributes", "both-attributes", "no-subject"])
async def test_subject_access_review_validation(cluster: kubelite.Cluster, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(Invalid) as exc:
        await cluster.client.create({"apiVersion": _AUTHZ, "kind": "SubjectAccessReview", "spec": spec})
    assert exc.value.status.message.startswith('SubjectAccessReview.authorization.k8s.io "" is invalid: ')
    assert message in exc.value.status.message


async def test_subject_access_review_metadata_must_be_empty(cluster: kubelite.Cluster) -> None:
    review = _sar("alice", ["dev"], verb="get", resource="pods")
    review["metadata"] = {"name": "why"}
    with pytest.raises(Invalid, match=r"metadata: Invalid value: .*must be empty"):
        await cluster.client.create(review)


@pytest.mark.parametrize(("path", "allowed"), [("/healthz", True), ("/version", True), ("/metrics", False),
                                               ("/apis/apps", True)], ids=["healthz", "version", "metrics", "discovery"])
async def test_self_subject_access_review_of_non_resource_urls(cluster: kubelite.Cluster, path: str,
                                                               allowed: bool) -> None:
    alice = cluster.client_with_token("alice-token")
    answer = await alice.create({"apiVersion": _AUTHZ, "kind": "SelfSubjectAccessReview",
                                 "spec": {"nonResourceAttributes": {"path": path, "verb": "get"}}})
    assert answer["status"]["allowed"] is allowed


async def test_self_subject_access_review_answers_for_the_requester(cluster: kubelite.Cluster) -> None:
    alice = cluster.client_with_token("alice-token")
    ask = {"apiVersion": _AUTHZ, "kind": "SelfSubjectAccessReview",
           "spec": {"resourceAttributes": {"verb": "patch", "resource": "configmaps", "namespace": "default"}}}
    assert (await alice.create(ask))["status"]["allowed"] is True
    assert (await cluster.client_with_token("bob-token").create(ask))["status"]["allowed"] is False
    # a selector that does not parse is ignored by authorization, and the status says so
    ask["spec"]["resourceAttributes"]["labelSelector"] = {"rawSelector": "a in (b"}
    answer = await alice.create(ask)
    assert answer["status"]["evaluationError"] == "spec.resourceAttributes.labelSelector ignored due to parse error"


async def test_local_subject_access_review(cluster: kubelite.Cluster) -> None:
    ask = {"apiVersion": _AUTHZ, "kind": "LocalSubjectAccessReview", "metadata": {"namespace": "default"},
           "spec": {"groups": ["dev"], "resourceAttributes": {"verb": "create", "resource": "secrets",
                                                              "namespace": "default"}}}
    assert (await cluster.client.create(ask, namespace="default"))["status"]["allowed"] is True
    # a namespace that does not exist is not revealed (NamespaceLifecycle lets access reviews through)
    ghost = {**ask, "metadata": {"namespace": "ghost"},
             "spec": {**ask["spec"], "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "ghost"}}}
    assert (await cluster.client.create(ghost, namespace="ghost"))["status"]["allowed"] is False
    with pytest.raises(Invalid, match=re.escape('spec.resourceAttributes.namespace: Invalid value: "other": must '
                                                'match metadata.namespace')):
        await cluster.client.create({**ask, "spec": {**ask["spec"], "resourceAttributes": {
            "verb": "get", "resource": "pods", "namespace": "other"}}}, namespace="default")


async def test_self_subject_rules_review(cluster: kubelite.Cluster) -> None:
    alice = cluster.client_with_token("alice-token")
    review = await alice.create({"apiVersion": _AUTHZ, "kind": "SelfSubjectRulesReview",
                                 "spec": {"namespace": "default"}})
    status = review["status"]
    assert status["incomplete"] is False and "evaluationError" not in status
    deployments = [r for r in status["resourceRules"] if "deployments" in r.get("resources", ())
                   and "apps" in r["apiGroups"]]
    assert deployments and {"create", "delete", "patch"} <= set(deployments[0]["verbs"])
    assert {"verbs": ["get"], "nonResourceURLs": ["/healthz"]} in [
        {**r, "nonResourceURLs": [u for u in r["nonResourceURLs"] if u == "/healthz"]}
        for r in status["nonResourceRules"] if "/healthz" in r["nonResourceURLs"]]
    elsewhere = await alice.create({"apiVersion": _AUTHZ, "kind": "SelfSubjectRulesReview",
                                    "spec": {"namespace": "other"}})
    assert not [r for r in elsewhere["status"]["resourceRules"] if "deployments" in r.get("resources", ())]
    with pytest.raises(BadRequest, match="no namespace on request"):
        await alice.create({"apiVersion": _AUTHZ, "kind": "SelfSubjectRulesReview", "spec": {}})


async def test_self_subject_rules_review_reports_unresolved_roles(cluster: kubelite.Cluster) -> None:
    cluster.add_token("carol-token", "carol")
    review = await cluster.client_with_token("carol-token").create(
        {"apiVersion": _AUTHZ, "kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}})
    assert review["status"]["incomplete"] is True
    assert review["status"]["evaluationError"] == 'role.rbac.authorization.k8s.io "missing" not found'  # the lister's NotFound


@pytest.mark.parametrize(("token", "status"), [
    ("alice-token", {"authenticated": True, "audiences": ["https://kubernetes.default.svc.cluster.local"],
                     "user": {"username": "alice", "groups": ["dev", "system:authenticated"]}}),
    ("no-such-token", {"authenticated": False}),
], ids=["known", "unknown"])
async def test_token_review(cluster: kubelite.Cluster, token: str, status: dict[str, Any]) -> None:
    bob = cluster.client_with_token("bob-token")  # system:auth-delegator may create TokenReviews
    review = await bob.create({"apiVersion": _AUTHN, "kind": "TokenReview", "spec": {"token": token}})
    assert review["status"] == status


async def test_token_review_audiences_and_errors(cluster: kubelite.Cluster) -> None:
    review = await cluster.client.create({"apiVersion": _AUTHN, "kind": "TokenReview",
                                          "spec": {"token": "alice-token", "audiences": ["vault"]}})
    assert review["status"]["audiences"] == ["vault"]
    with pytest.raises(BadRequest, match="token is required for TokenReview in authentication"):
        await cluster.client.create({"apiVersion": _AUTHN, "kind": "TokenReview", "spec": {}})
    with pytest.raises(Forbidden, match='User "alice" cannot create resource "tokenreviews"'):
        await cluster.client_with_token("alice-token").create(
            {"apiVersion": _AUTHN, "kind": "TokenReview", "spec": {"token": "bob-token"}})
    with pytest.raises(BadRequest):  # decoded as the kind: a wrong type is the decoder's 400
        await cluster.client.create({"apiVersion": _AUTHN, "kind": "TokenReview", "spec": {"token": 7}})


async def test_self_subject_review_and_create_only(cluster: kubelite.Cluster) -> None:
    review = await cluster.client_with_token("alice-token").create({"apiVersion": _AUTHN,
                                                                    "kind": "SelfSubjectReview"})
    assert review["status"]["userInfo"] == {"username": "alice", "groups": ["dev", "system:authenticated"]}
    assert review["metadata"]["creationTimestamp"] == cluster.clock.timestamp()
    with pytest.raises(MethodNotAllowed):
        await cluster.client.list("selfsubjectreviews.authentication.k8s.io")
