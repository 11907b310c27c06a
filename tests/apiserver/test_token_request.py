"""TokenRequest (``serviceaccounts/token``) and the bound tokens it issues, as upstream's
``pkg/registry/core/serviceaccount/storage/token.go``, ``pkg/apis/authentication/validation`` and
``pkg/serviceaccount/claims.go`` define them: defaults, bounds, bound objects, and when a token stops
authenticating (expiry with go-jose's one-minute leeway, the account or the bound object deleted or recreated).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite
from kubelite.clock import parse_time
from kubelite.errors import BadRequest, Conflict, Forbidden, Invalid, NotFound, Unauthorized

NS = "default"
AUDIENCE = "https://kubernetes.default.svc.cluster.local"


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=7, nodes=0, controllers=False, scheduler=False, network=False) as c:
        await c.client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot",
                                                                                         "namespace": NS}})
        yield c


async def request_token(c: kubelite.Cluster, spec: dict[str, Any] | None = None, *, name: str = "robot",
                        meta: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": meta or {},
            "spec": spec or {}}
    return await c.client.create_subresource("serviceaccounts", name, "token", body, namespace=NS)


def authenticate(c: kubelite.Cluster, token: str) -> Any:
    return c.apiserver.authenticator.authenticate(token)


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))  # type: ignore[no-any-return]


async def test_defaults_and_status(cluster: kubelite.Cluster) -> None:
    tr = await request_token(cluster)
    assert tr["metadata"] == {"name": "robot", "namespace": NS, "creationTimestamp": cluster.clock.timestamp()}
    assert tr["spec"] == {"audiences": [AUDIENCE], "expirationSeconds": 3600}
    assert parse_time(tr["status"]["expirationTimestamp"]) == parse_time(tr["metadata"]["creationTimestamp"]) + 3600
    sa = await cluster.client.get("serviceaccounts", "robot", namespace=NS)
    c = claims(tr["status"]["token"])
    assert c["sub"] == "system:serviceaccount:default:robot" and c["aud"] == [AUDIENCE]
    assert c["iss"] == AUDIENCE and c["exp"] - c["iat"] == 3600 and c["nbf"] == c["iat"]
    assert c["kubernetes.io"] == {"namespace": NS, "serviceaccount": {"name": "robot", "uid": sa["metadata"]["uid"]}}
    user = authenticate(cluster, tr["status"]["token"])
    assert user.name == "system:serviceaccount:default:robot" and user.uid == sa["metadata"]["uid"]
    assert user.groups == ("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated")


async def test_same_seed_issues_the_same_token() -> None:
    tokens = []
    for _ in range(2):
        async with kubelite.Cluster(seed=3, nodes=0, controllers=False, scheduler=False, network=False) as c:
            await c.client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                                   "metadata": {"name": "robot", "namespace": NS}})
            tokens.append((await request_token(c))["status"]["token"])
    assert tokens[0] == tokens[1]


@pytest.mark.parametrize(("seconds", "error"), [
    (599, "may not specify a duration less than 10 minutes"),
    (600, None),
    (2 ** 32, None),
    (2 ** 32 + 1, "may not specify a duration larger than 2^32 seconds"),
], ids=["below-10m", "10m", "2^32", "above-2^32"])
async def test_expiration_bounds(cluster: kubelite.Cluster, seconds: int, error: str | None) -> None:
    if error is None:
        tr = await request_token(cluster, {"expirationSeconds": seconds})
        assert parse_time(tr["status"]["expirationTimestamp"]) - cluster.clock.now() == seconds
        return
    with pytest.raises(Invalid) as exc:
        await request_token(cluster, {"expirationSeconds": seconds})
    assert exc.value.causes[0].field == "spec.expirationSeconds" and error in exc.value.message


@pytest.mark.parametrize(("meta", "field"), [
    ({"name": "other"}, "metadata.name"), ({"namespace": "kube-system"}, "metadata.namespace"),
], ids=["name", "namespace"])
async def test_body_must_match_the_url(cluster: kubelite.Cluster, meta: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as exc:
        await request_token(cluster, meta=meta)
    assert exc.value.causes[0].field == field and "must match the service account" in exc.value.message


async def test_missing_service_account_is_not_found(cluster: kubelite.Cluster) -> None:
    with pytest.raises(NotFound, match='serviceaccounts "ghost" not found'):
        await request_token(cluster, name="ghost")


async def test_creating_a_token_needs_create_on_the_subresource(cluster: kubelite.Cluster) -> None:
    alice = cluster.client.as_user("alice")
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    with pytest.raises(Forbidden, match='cannot create resource "serviceaccounts/token"'):
        await alice.create_subresource("serviceaccounts", "robot", "token", body, namespace=NS)
    await cluster.client.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "tokens", "namespace": NS},
        "rules": [{"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]}]})
    await cluster.client.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "tokens", "namespace": NS},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "tokens"},
        "subjects": [{"kind": "User", "name": "alice"}]})
    tr = await alice.create_subresource("serviceaccounts", "robot", "token", body, namespace=NS)
    assert authenticate(cluster, tr["status"]["token"]).name == "system:serviceaccount:default:robot"


async def _pod(c: kubelite.Cluster, name: str, sa: str = "robot") -> dict[str, Any]:
    return await c.client.create({  # type: ignore[no-any-return]
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
        "spec": {"serviceAccountName": sa, "containers": [{"name": "c", "image": "busybox"}]}})


@pytest.mark.parametrize(("ref", "error", "message"), [
    ({"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}, BadRequest,
     "cannot bind token to object of type apps/v1, Kind=Deployment"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}, BadRequest, "cannot bind token to object of type"),
    ({"apiVersion": "v1", "kind": "Secret", "name": "missing"}, NotFound, 'secrets "missing" not found'),
    ({"apiVersion": "v1", "kind": "Pod", "name": "other-sa"}, BadRequest,
     'cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.'),
    ({"apiVersion": "v1", "kind": "Pod", "name": "mine", "uid": "not-its-uid"}, Conflict,
     "The object might have been deleted and then recreated"),
], ids=["other-group", "unbindable-kind", "missing-object", "pod-of-another-account", "stale-uid"])
async def test_bound_object_errors(cluster: kubelite.Cluster, ref: dict[str, Any], error: type[Exception],
                                   message: str) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                                 "metadata": {"name": "other", "namespace": NS}})
    await _pod(cluster, "other-sa", sa="other")
    await _pod(cluster, "mine")
    with pytest.raises(error) as exc:
        await request_token(cluster, {"boundObjectRef": ref})
    assert message in str(exc.value)


async def test_pod_bound_token_carries_the_pod(cluster: kubelite.Cluster) -> None:
    pod = await _pod(cluster, "mine")
    tr = await request_token(cluster, {"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "mine"}})
    assert claims(tr["status"]["token"])["kubernetes.io"]["pod"] == {"name": "mine", "uid": pod["metadata"]["uid"]}
    extra = dict(authenticate(cluster, tr["status"]["token"]).extra)
    assert extra["authentication.kubernetes.io/pod-name"] == ("mine",)
    assert extra["authentication.kubernetes.io/pod-uid"] == (pod["metadata"]["uid"],)


async def test_token_expires_after_the_leeway(cluster: kubelite.Cluster) -> None:
    tr = await request_token(cluster, {"expirationSeconds": 600})
    token = tr["status"]["token"]
    exp = claims(token)["exp"]
    await cluster.advance(exp + 59 - cluster.clock.now())
    assert authenticate(cluster, token).name == "system:serviceaccount:default:robot"
    await cluster.advance(2)
    with pytest.raises(Unauthorized):
        authenticate(cluster, token)


async def _delete_and_recreate_sa(c: kubelite.Cluster) -> None:
    await c.client.delete("serviceaccounts", "robot", namespace=NS)
    await c.client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot",
                                                                                     "namespace": NS}})


@pytest.mark.parametrize(("bind", "invalidate"), [
    (None, lambda c: c.client.delete("serviceaccounts", "robot", namespace=NS)),
    (None, _delete_and_recreate_sa),
    ("Secret", lambda c: c.client.delete("secrets", "key", namespace=NS)),
    ("Pod", lambda c: c.client.delete("pods", "mine", namespace=NS)),
], ids=["account-deleted", "account-recreated", "secret-deleted", "pod-deleted"])
async def test_token_dies_with_what_it_names(cluster: kubelite.Cluster, bind: str | None, invalidate: Any) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "key", "namespace": NS}})
    await _pod(cluster, "mine")
    spec: dict[str, Any] = {}
    if bind is not None:
        spec["boundObjectRef"] = {"apiVersion": "v1", "kind": bind, "name": "key" if bind == "Secret" else "mine"}
    token = (await request_token(cluster, spec))["status"]["token"]
    authenticate(cluster, token)
    await invalidate(cluster)
    with pytest.raises(Unauthorized):
        authenticate(cluster, token)


async def test_audiences_are_checked_by_the_apiserver_and_token_review(cluster: kubelite.Cluster) -> None:
    token = (await request_token(cluster, {"audiences": ["vault"]}))["status"]["token"]
    with pytest.raises(Unauthorized):  # not for the apiserver's audiences
        authenticate(cluster, token)

    async def review(audiences: list[str] | None) -> dict[str, Any]:
        spec: dict[str, Any] = {"token": token}
        if audiences is not None:
            spec["audiences"] = audiences
        out = await cluster.client.create({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                           "spec": spec})
        return out["status"]  # type: ignore[no-any-return]

    assert await review(None) == {"authenticated": False}
    status = await review(["vault", "other"])
    assert status["authenticated"] is True and status["audiences"] == ["vault"]
    assert status["user"]["username"] == "system:serviceaccount:default:robot"


async def test_a_forged_token_is_unauthorized(cluster: kubelite.Cluster) -> None:
    token = (await request_token(cluster))["status"]["token"]
    header, _payload, sig = token.split(".")
    c = claims(token)
    c["sub"] = "system:serviceaccount:kube-system:admin"
    forged = base64.urlsafe_b64encode(json.dumps(c).encode()).rstrip(b"=").decode()
    with pytest.raises(Unauthorized):
        authenticate(cluster, f"{header}.{forged}.{sig}")
