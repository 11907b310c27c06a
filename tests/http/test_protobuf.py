"""Protobuf request bodies over HTTP (in process, the ASGI app): decoded into the same pipeline as JSON, every
verb that takes a body; malformed bodies are 400 Status errors, custom resources and patches 415, as upstream.
"""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
import pytest

import kubelite
from kubelite.api.protobuf import MAGIC, ProtobufError, decode_watch_frames, encode
from tests.api.test_protobuf import GOLDEN

PB = "application/vnd.kubernetes.protobuf"
KUBECTL_ACCEPT = "application/vnd.kubernetes.protobuf,application/json"  # what client-go's typed clients send
CM_PATH = "/api/v1/namespaces/default/configmaps"


WIDGETS: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def _cm(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "x"}},
            "data": data}


async def _post(api: httpx.AsyncClient, path: str, body: bytes, **headers: str) -> httpx.Response:
    return await api.post(path, content=body, headers={"Content-Type": PB, "Accept": KUBECTL_ACCEPT, **headers})


async def test_create_update_and_delete_take_protobuf_bodies(api: httpx.AsyncClient) -> None:
    r = await _post(api, CM_PATH, encode(_cm("settings", a="1")))
    assert r.status_code == 201 and r.headers["content-type"] == "application/json"  # JSON: the client accepts it
    created = r.json()
    assert created["data"] == {"a": "1"} and created["metadata"]["uid"]
    assert created["metadata"]["managedFields"][0]["operation"] == "Update"  # the same pipeline as JSON
    # update: the object read back, changed and PUT as protobuf (resourceVersion and all)
    changed = {**created, "data": {"a": "2"}}
    r = await api.put(f"{CM_PATH}/settings", content=encode(changed), headers={"Content-Type": PB})
    assert r.status_code == 200 and r.json()["data"] == {"a": "2"}
    # a stale resourceVersion is the same 409 as for JSON
    r = await api.put(f"{CM_PATH}/settings", content=encode(created), headers={"Content-Type": PB})
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"
    # delete with a protobuf DeleteOptions body (client-go's typed Delete sends one)
    opts = encode_delete_options({"propagationPolicy": "Foreground", "dryRun": ["All"]})
    r = await api.request("DELETE", f"{CM_PATH}/settings", content=opts, headers={"Content-Type": PB})
    assert r.status_code == 200
    assert (await api.get(f"{CM_PATH}/settings")).status_code == 200  # dryRun: nothing deleted
    r = await api.request("DELETE", f"{CM_PATH}/settings", content=encode_delete_options({}),
                          headers={"Content-Type": PB})
    assert r.status_code == 200
    assert (await api.get(f"{CM_PATH}/settings")).status_code == 404


def encode_delete_options(opts: dict[str, Any]) -> bytes:
    from kubelite.api.protobuf import encode_message

    raw = encode_message(opts, "meta.v1.DeleteOptions")
    type_meta = b"\x0a\x02v1\x12\x0dDeleteOptions"
    return MAGIC + b"\x0a" + bytes([len(type_meta)]) + type_meta + b"\x12" + bytes([len(raw)]) + raw


async def test_what_kubectl_sent_creates_the_same_object_as_json(api: httpx.AsyncClient) -> None:
    (_, hexbody, as_json), = (g for g in GOLDEN if g[0] == "create-deployment-replicas-0")
    r = await _post(api, "/apis/apps/v1/namespaces/default/deployments", bytes.fromhex(hexbody))
    assert r.status_code == 201
    via_protobuf = r.json()
    r = await api.post("/apis/apps/v1/namespaces/default/deployments",
                       json=dict(as_json, metadata={**as_json["metadata"], "name": "web-json"}))
    assert r.status_code == 201
    via_json = r.json()
    assert via_protobuf["spec"] == via_json["spec"] and via_protobuf["spec"]["replicas"] == 0


async def test_reviews_decode_from_what_kubectl_auth_sends(api: httpx.AsyncClient) -> None:
    body = bytes.fromhex(dict((g[0], g[1]) for g in GOLDEN)["can-i-url"])
    r = await _post(api, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body)
    assert r.status_code == 201 and r.json()["status"]["allowed"] is True


@pytest.mark.parametrize(("path", "body", "code", "message"), [
    (CM_PATH, b"\x0a\x02v1", 400, "provided data does not appear to be a protobuf message"),
    (CM_PATH, MAGIC, 400, "empty body"),
    (CM_PATH, MAGIC + b"\x0a\x80", 400, "unexpected EOF"),
    (CM_PATH, MAGIC + b"\x0a\x10\x0a\x0eexample.com/v1\x12\x00", 400, 'no kind "ConfigMap" is registered'),
    (CM_PATH, encode(_cm("x"))[:-6], 400, "unexpected EOF"),
    # a body of another kind than the endpoint's: the pipeline's own check, as for JSON
    (CM_PATH, encode({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}}), 400, "Secret"),
], ids=["no-magic", "empty", "truncated-envelope", "unknown-group", "truncated-object", "other-kind"])
async def test_malformed_protobuf_is_a_400_status(api: httpx.AsyncClient, path: str, body: bytes, code: int,
                                                  message: str) -> None:
    r = await _post(api, path, body)
    assert r.status_code == code, r.text
    doc = r.json()
    assert doc["kind"] == "Status" and doc["reason"] == "BadRequest" and message in doc["message"]
    assert (await api.get(f"{CM_PATH}/x")).status_code == 404  # nothing was stored


async def test_custom_resources_and_patches_refuse_protobuf_with_415(api: httpx.AsyncClient) -> None:
    crd = WIDGETS
    # the CRD itself is a built-in kind: protobuf is fine (JSONSchemaProps and all)
    r = await _post(api, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", encode(crd))
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["versions"][0]["schema"] == crd["spec"]["versions"][0]["schema"]  # type: ignore[index]
    # a custom resource has no protobuf serializer upstream: 415 naming what is accepted
    r = await _post(api, "/apis/example.com/v1/namespaces/default/widgets", MAGIC + b"\x0a\x00")
    assert r.status_code == 415 and r.json()["reason"] == "UnsupportedMediaType"
    assert "application/json" in r.json()["message"]
    # patches take the four patch types only
    await _post(api, CM_PATH, encode(_cm("p")))
    r = await api.patch(f"{CM_PATH}/p", content=encode(_cm("p")), headers={"Content-Type": PB})
    assert r.status_code == 415 and "application/merge-patch+json" in r.json()["message"]


# --- responses: JSON whenever the client accepts it, protobuf when it accepts only that, else 406 ---

@pytest.mark.parametrize(("accept", "media"), [
    ("", "json"), ("application/json", "json"), ("*/*", "json"), (KUBECTL_ACCEPT, "json"),
    ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", "json"), ("application/yaml", "json"),
    (PB, "protobuf"), (f"{PB}, application/json;q=0", "protobuf"), ("text/html", None), (f"{PB};q=0", None),
], ids=["none", "json", "any", "client-go", "table", "yaml", "protobuf", "json-q0", "html", "protobuf-q0"])
def test_response_media_negotiation(accept: str, media: str | None) -> None:
    from kubelite.http.media import response_media

    assert response_media(accept) == media


async def test_a_protobuf_only_client_gets_protobuf(api: httpx.AsyncClient) -> None:
    from kubelite.api.protobuf import decode

    only = {"Accept": PB}
    r = await _post(api, CM_PATH, encode(_cm("a", k="v")), **only)
    assert r.status_code == 201 and r.headers["content-type"] == PB
    created = decode(r.content)
    assert created["kind"] == "ConfigMap" and created["data"] == {"k": "v"}
    r = await api.get(f"{CM_PATH}/a", headers=only)
    assert r.headers["content-type"] == PB
    assert decode(r.content) == (await api.get(f"{CM_PATH}/a")).json()  # the same object as the JSON answer
    r = await api.get(CM_PATH, headers=only)
    listed = decode(r.content)
    assert listed["kind"] == "ConfigMapList" and [i["metadata"]["name"] for i in listed["items"]] == ["a"]
    assert listed["metadata"]["resourceVersion"]
    # errors are Status messages in protobuf too
    r = await api.get(f"{CM_PATH}/missing", headers=only)
    assert r.status_code == 404 and r.headers["content-type"] == PB
    status = decode(r.content)
    assert status["kind"] == "Status" and status["reason"] == "NotFound" and status["code"] == 404


@pytest.mark.parametrize(("path", "accept", "message"), [
    (CM_PATH, "text/html", "application/json, application/yaml, application/vnd.kubernetes.protobuf"),
    ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "text/html", "protobuf"),
    ("/apis/example.com/v1/widgets", PB, "application/json, application/yaml"),
], ids=["html", "crd-html", "custom-resource-protobuf"])
async def test_unacceptable_accept_headers_get_406(api: httpx.AsyncClient, path: str, accept: str,
                                                   message: str) -> None:
    await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=WIDGETS)
    r = await api.get(path, headers={"Accept": accept})
    assert r.status_code == 406 and r.headers["content-type"] == "application/json"
    assert r.json()["reason"] == "NotAcceptable" and message in r.json()["message"]


async def test_a_protobuf_only_watch_streams_watch_event_frames() -> None:
    # upstream's protobuf stream: 4-byte big-endian length + a raw meta.v1.WatchEvent whose object is the
    # prefixed encoding of the object; over a real socket, so the frames arrive as the events happen
    async with kubelite.Cluster(seed=5, controllers=False, scheduler=False, network=False) as c, c.serve() as url, \
            httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {url.token}"},
                              timeout=httpx.Timeout(60.0)) as http:
        rv = (await http.get(CM_PATH)).json()["metadata"]["resourceVersion"]
        async with http.stream("GET", CM_PATH, params={"watch": "true", "resourceVersion": rv},
                               headers={"Accept": PB}) as resp:
            assert resp.status_code == 200 and resp.headers["content-type"] == PB + ";stream=watch"
            await c.client.create(_cm("a", k="v"))
            await c.client.patch("configmaps", "a", {"data": {"k": "w"}}, patch_type="merge")
            await c.client.delete("configmaps", "a")
            data, events = b"", []
            async for chunk in resp.aiter_bytes():
                data += chunk
                with contextlib.suppress(ProtobufError):  # a frame may be split across chunks
                    events = decode_watch_frames(data)
                if len(events) == 3:
                    break
    assert [t for t, _ in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1][1]["kind"] == "ConfigMap" and events[1][1]["data"] == {"k": "w"}
