"""Bad input gets a Status, never a Python exception, and changes nothing.

Each case once escaped as AttributeError/TypeError/KeyError, RecursionError, UnicodeEncodeError or
AssertionError. Upstream's answers: a missing name is 422 ``metadata.name: Required value``
(rest.BeforeCreate + validation); a lone surrogate is what Go's JSON decoder makes of it (U+FFFD);
sendInitialEvents=false without a revision watches from the most recent one; a continue token naming a
future revision is etcd's ErrFutureRev (504 "Too large resource version"); a malformed one is 400.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from kubelite.api.jsonsafe import MAX_DEPTH
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, BadRequest, Invalid, ServerTimeout


@pytest.fixture
async def api() -> Any:
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False) as c:
        yield c


def cm(name: str = "cm", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}, **extra}


NAMELESS = [
    pytest.param({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"namespace": "default"},
                  "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}],
                                                 "restartPolicy": "Never"}}}}, 'Job.batch ""', id="job-no-name"),
    pytest.param({"apiVersion": "batch/v1", "kind": "Job",
                  "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}],
                                                 "restartPolicy": "Never"}}}}, 'Job.batch ""', id="job-no-metadata"),
    pytest.param({"apiVersion": "v1", "kind": "Namespace", "metadata": {}}, 'Namespace ""', id="namespace-no-name"),
    pytest.param({"apiVersion": "v1", "kind": "Namespace"}, 'Namespace ""', id="namespace-no-metadata"),
]


@pytest.mark.parametrize(("body", "subject"), NAMELESS)
async def test_missing_name_is_422(api: Cluster, body: dict[str, Any], subject: str) -> None:
    before = api.store.revision
    with pytest.raises(Invalid) as e:
        await api.client.create(body, namespace="default")
    assert e.value.message == f"{subject} is invalid: metadata.name: Required value: name or generateName is required"
    assert api.store.revision == before


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    cur = root
    for _ in range(depth - 1):
        cur["a"] = {}
        cur = cur["a"]
    return root


WIDGETS = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {
                     "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}


@pytest.mark.parametrize("depth", [1000, MAX_DEPTH + 1])
@pytest.mark.parametrize("how", ["merge", "strategic", "json", "apply", "create"])
async def test_deep_nesting_is_400(api: Cluster, how: str, depth: int) -> None:
    c = api.client
    await c.create(cm())
    before = api.store.revision
    deep = nested(depth)
    if how == "create":
        call = c.create(cm("cm2", data=deep))
    elif how == "json":
        call = c.patch("configmaps", "cm", [{"op": "add", "path": "/data/x", "value": deep}], patch_type="json",
                       namespace="default")
    elif how == "apply":
        call = c.patch("configmaps", "cm", cm(data=deep), patch_type="apply", field_manager="m", namespace="default")
    else:
        call = c.patch("configmaps", "cm", {"metadata": {"labels": deep}}, patch_type=how, namespace="default")
    with pytest.raises(BadRequest) as e:
        await call
    if how == "create" and depth < 1000:
        # within what the client can encode, a built-in kind's typed decode rejects it first, as upstream's
        assert e.value.message.startswith('ConfigMap in version "v1" cannot be handled as a ConfigMap')
    else:
        assert e.value.message == f"the object is nested more than {MAX_DEPTH} levels deep"
    assert api.store.revision == before


async def test_open_schema_accepts_up_to_the_depth_limit(api: Cluster) -> None:
    """Custom resources keep unknown fields: data just under the limit walks every stage of the pipeline."""
    c = api.client
    await c.create(WIDGETS)
    ok = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
          "spec": nested(MAX_DEPTH - 2)}
    await c.create(ok)
    await c.patch("widgets.example.com", "w", {"spec": {"b": nested(MAX_DEPTH - 3)}}, patch_type="merge",
                  namespace="default")
    await c.patch("widgets.example.com", "w", ok, patch_type="apply", field_manager="m", namespace="default")
    with pytest.raises(BadRequest):
        await c.create({**ok, "metadata": {"name": "w2"}, "spec": nested(MAX_DEPTH)})


@pytest.mark.parametrize("how", ["create", "merge", "name"])
async def test_lone_surrogate_becomes_replacement_character(api: Cluster, how: str) -> None:
    c = api.client
    if how == "create":
        out = await c.create(cm(data={"a": "x\ud800y"}))
        assert out["data"] == {"a": "x\ufffdy"}
    elif how == "merge":
        await c.create(cm())
        out = await c.patch("configmaps", "cm", {"data": {"k": "\udc00"}}, patch_type="merge",
                            namespace="default")
        assert out["data"] == {"k": "\ufffd"}
    else:
        with pytest.raises(Invalid) as e:
            await c.create(cm("cm\ud800"))
        assert e.value.causes[0].field == "metadata.name"


WATCHES = [
    pytest.param({"send_initial_events": False}, id="no-initial-events-no-rv"),
    pytest.param({"send_initial_events": False, "resource_version": "0"}, id="no-initial-events-rv0"),
    pytest.param({"send_initial_events": False, "resource_version": ""}, id="no-initial-events-empty-rv"),
]


@pytest.mark.parametrize("kw", WATCHES)
async def test_watch_without_initial_events_starts_at_the_latest_revision(api: Cluster, kw: dict[str, Any]) -> None:
    c = api.client
    await c.create(cm("old"))
    stream = await c.open_watch("configmaps", namespace="default", **kw)
    await c.create(cm("new"))
    typ, obj, _ = await stream.__anext__()
    assert (typ, obj["metadata"]["name"]) == ("ADDED", "new")
    stream.stop()


def token(payload: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


async def test_continue_token_for_a_future_revision_is_too_large(api: Cluster) -> None:
    c = api.client
    await c.create(cm("a"))
    with pytest.raises(ServerTimeout) as e:
        await c.list_page("configmaps", namespace="default", limit=1,
                          continue_=token({"v": "meta.k8s.io/v1", "rv": api.store.revision + 100, "start": "default/a"}))
    assert e.value.message.startswith("Too large resource version")


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"v": "meta.k8s.io/v1", "rv": 0, "start": "default/a"}, id="zero-rv"),
        pytest.param({"v": "meta.k8s.io/v1", "rv": 1, "start": ""}, id="empty-start"),
        pytest.param({"v": "other/v9", "rv": 1, "start": "default/a"}, id="unknown-version"),
        pytest.param({"rv": "1", "start": "default/a"}, id="string-rv"),
    ],
)
async def test_malformed_continue_token_is_400(api: Cluster, payload: dict[str, Any]) -> None:
    await api.client.create(cm("a"))
    with pytest.raises(BadRequest) as e:
        await api.client.list_page("configmaps", namespace="default", limit=1, continue_=token(payload))
    assert e.value.message.startswith("continue key is not valid")


async def test_many_unknown_fields_warn_once_each(api: Cluster) -> None:
    """N unknown fields once cost O(N^2) (a list membership test per warning; bench/api_write_path.py
    measures the ratio). Each still gets exactly one warning."""
    c = api.client
    await c.create(cm())
    n = 5000
    await c.patch("configmaps", "cm", {"data": {"a": "1"}, **{f"u{i}": i for i in range(n)}}, patch_type="merge",
                  namespace="default")
    assert sorted(c.warnings) == sorted(f'unknown field "u{i}"' for i in range(n))


async def test_every_failure_above_is_an_api_error(api: Cluster) -> None:
    """The contract the cases share, for one body of each kind."""
    for body in (NAMELESS[0].values[0], cm("x", data=nested(1000))):
        with pytest.raises(ApiError):
            await api.client.create(body, namespace="default")
