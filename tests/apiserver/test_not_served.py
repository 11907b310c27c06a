"""A verb a resource does not serve is answered as kube-apiserver's routing answers it, in process and over HTTP.

Upstream's installer registers a route per path and HTTP method, so a create-only review kind has one route
(``POST .../tokenreviews``). go-restful answers a request for a registered path with another method 405, turned
into a Status by ``serviceErrorHandler`` (``NewGenericServerResponse``: "the server does not allow this method on
the requested resource", empty details); a path that is not registered at all (``.../tokenreviews/x``) is 404.
A watch where the list route exists reaches the list handler, which answers ``NewMethodNotSupported``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

import kubelite
from kubelite.errors import ApiError, MethodNotAllowed, NotFound

NO_ROUTE = "the server does not allow this method on the requested resource"
NO_PATH = "the server could not find the requested resource"

# (resource as the client names it, its collection path over HTTP)
REVIEWS = [
    ("tokenreviews.authentication.k8s.io", "/apis/authentication.k8s.io/v1/tokenreviews"),
    ("selfsubjectreviews.authentication.k8s.io", "/apis/authentication.k8s.io/v1/selfsubjectreviews"),
    ("subjectaccessreviews.authorization.k8s.io", "/apis/authorization.k8s.io/v1/subjectaccessreviews"),
    ("selfsubjectaccessreviews.authorization.k8s.io", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
    ("selfsubjectrulesreviews.authorization.k8s.io", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"),
    ("localsubjectaccessreviews.authorization.k8s.io",
     "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"),
]
REVIEW_IDS = [r.split(".")[0] for r, _ in REVIEWS]

Call = Callable[[Any, str], Awaitable[Any]]

# (id, the client call, expected error class, expected message)
CLIENT_CASES: list[tuple[str, Call, type[ApiError], str]] = [
    ("list", lambda c, r: c.list(r, namespace="default"), MethodNotAllowed, NO_ROUTE),
    ("watch", lambda c, r: c.open_watch(r, namespace="default"), MethodNotAllowed, NO_ROUTE),
    ("deletecollection", lambda c, r: c.delete_collection(r, namespace="default"), MethodNotAllowed, NO_ROUTE),
    ("get", lambda c, r: c.get(r, "x", namespace="default"), NotFound, NO_PATH),
    ("delete", lambda c, r: c.delete(r, "x", namespace="default"), NotFound, NO_PATH),
    ("patch", lambda c, r: c.patch(r, "x", {"metadata": {"labels": {"a": "b"}}}, patch_type="merge",
                                   namespace="default"), NotFound, NO_PATH),
]


@pytest.fixture
async def cluster() -> Any:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False,
                                metrics_server=True) as c:
        yield c


@pytest.mark.parametrize("resource", [r for r, _ in REVIEWS], ids=REVIEW_IDS)
@pytest.mark.parametrize(("call", "error", "message"), [c[1:] for c in CLIENT_CASES],
                         ids=[c[0] for c in CLIENT_CASES])
async def test_a_create_only_resource_through_the_client(cluster: kubelite.Cluster, resource: str, call: Call,
                                                         error: type[ApiError], message: str) -> None:
    with pytest.raises(error) as caught:
        await call(cluster.client, resource)
    assert caught.value.message == message
    assert caught.value.status.code == (405 if error is MethodNotAllowed else 404)


@pytest.fixture
async def api(cluster: kubelite.Cluster) -> Any:
    app = cluster.asgi_app(admin_token="admin-token")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://kubelite",
                                 headers={"Authorization": "Bearer admin-token"}) as client:
        yield client


# (id, method, path suffix, expected code, expected body) as kube-apiserver answers them
HTTP_CASES = [
    ("GET-list", "GET", "", 405,
     {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": NO_ROUTE,
      "reason": "MethodNotAllowed", "details": {}, "code": 405}),
    ("GET-watch", "GET", "?watch=true", 405, None),
    ("DELETE-collection", "DELETE", "", 405, None),
    ("PUT-collection", "PUT", "", 405, None),
    ("GET-named", "GET", "/x", 404,
     {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": NO_PATH,
      "reason": "NotFound", "details": {}, "code": 404}),
    ("POST-named", "POST", "/x", 404, None),
    ("PUT-named", "PUT", "/x", 404, None),
    ("DELETE-named", "DELETE", "/x", 404, None),
]


@pytest.mark.parametrize(("_", "path"), REVIEWS, ids=REVIEW_IDS)
@pytest.mark.parametrize(("method", "suffix", "code", "body"), [c[1:] for c in HTTP_CASES],
                         ids=[c[0] for c in HTTP_CASES])
async def test_a_create_only_resource_over_http(api: httpx.AsyncClient, _: str, path: str, method: str,
                                                suffix: str, code: int, body: dict[str, Any] | None) -> None:
    content = b'{"apiVersion": "v1", "kind": "Status"}' if method in ("POST", "PUT") else None
    resp = await api.request(method, path + suffix, content=content,
                             headers={"content-type": "application/json"} if content else {})
    assert resp.status_code == code
    got = resp.json()
    assert got["reason"] == ("MethodNotAllowed" if code == 405 else "NotFound")
    assert got["message"] == (NO_ROUTE if code == 405 else NO_PATH)
    if body is not None:
        assert got == body


async def test_the_one_route_still_serves(api: httpx.AsyncClient) -> None:
    resp = await api.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                          json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert resp.status_code == 201, resp.text
    assert resp.json()["status"]["userInfo"]["username"] == "kubelite-admin"


# other resources: a served path with a method it does not serve is 405, a watch where only list is served is
# NewMethodNotSupported, and a create on a named path where GET is served is 405 (upstream's routes)
@pytest.mark.parametrize(("method", "path", "code", "message"), [
    ("POST", "/api/v1/namespaces/default/configmaps/x", 405, NO_ROUTE),
    ("DELETE", "/api/v1/namespaces/default/pods/x/status", 405, NO_ROUTE),
    ("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?watch=true", 405,
     'watch is not supported on resources of kind "pods.metrics.k8s.io"'),
], ids=["POST-item-configmap", "DELETE-pod-status", "watch-metrics"])
async def test_other_unserved_methods(api: httpx.AsyncClient, method: str, path: str, code: int,
                                      message: str) -> None:
    content = b"{}" if method == "POST" else None
    resp = await api.request(method, path, content=content,
                             headers={"content-type": "application/json"} if content else {})
    assert resp.status_code == code, resp.text
    assert resp.json()["message"] == message
