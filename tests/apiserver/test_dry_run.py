"""``dryRun=All``: each verb answers what it would have written, and writes nothing.

Upstream (k8s.io/apiserver ``registry/generic/registry/dryrun.go``, ``DryRunnableStorage``): a dry-run Create
runs every step before storage (BeforeCreate fills ``uid``, ``creationTimestamp`` and a generated name;
admission, defaulting and validation run) and answers the object as it stands, so with no
``resourceVersion`` (empty, which ObjectMeta's ``omitempty`` leaves out); a dry-run GuaranteedUpdate
(update, patch, apply) runs ``tryUpdate`` on the current object and answers the result, whose
``resourceVersion`` is still the current one; a dry-run Delete answers what the delete would (the
``Success`` Status of an immediate delete, the object with its ``deletionTimestamp`` for a graceful one).
In every case the store, its revision and its watchers see nothing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.request import Options, Request
from kubelite.errors import AlreadyExists, NotFound

NS = "default"
ADMIN = UserInfo(name="admin", groups=("system:masters",))


def _cm(name: str = "cm", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"a": "1"}}


def _pod(**meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=3, controllers=False, scheduler=False, network=False) as c:
        yield c


def _state(cluster: kubelite.Cluster) -> tuple[int, dict[Any, bytes]]:
    return cluster.store.revision, {(k, key): o.data for k, t in cluster.store.tables.items()
                                    for key, o in t.objects.items()}


@pytest.mark.parametrize(("body", "generated"), [
    (_cm("named"), False),
    (_cm("", generateName="gen-"), True),
    (_pod(name="web"), False),
    (_pod(generateName="web-"), True),
], ids=["configmap-name", "configmap-generateName", "pod-name", "pod-generateName"])
async def test_dry_run_create_answers_uid_timestamp_and_name(cluster: kubelite.Cluster, body: dict[str, Any],
                                                             generated: bool) -> None:
    if not body["metadata"].get("name"):
        body["metadata"].pop("name", None)
    before = _state(cluster)
    out = await cluster.client.create(body, namespace=NS, dry_run=True)
    meta = out["metadata"]
    assert meta["uid"] and meta["creationTimestamp"] == cluster.clock.timestamp()
    assert "resourceVersion" not in meta  # nothing was stored: no revision (omitempty leaves "" out)
    if generated:
        prefix = body["metadata"]["generateName"]
        assert meta["name"].startswith(prefix) and len(meta["name"]) == len(prefix) + 5
    else:
        assert meta["name"] == body["metadata"]["name"]
    if body["kind"] == "Pod":  # defaulting and admission ran
        assert out["spec"]["restartPolicy"] == "Always" and out["status"]["phase"] == "Pending"
    assert _state(cluster) == before
    with pytest.raises(NotFound):
        await cluster.client.get(body["kind"].lower() + "s", meta["name"], namespace=NS)


async def test_dry_run_create_of_an_existing_name_is_a_conflict(cluster: kubelite.Cluster) -> None:
    await cluster.client.create(_cm(), namespace=NS)
    before = _state(cluster)
    with pytest.raises(AlreadyExists):
        await cluster.client.create(_cm(), namespace=NS, dry_run=True)
    assert _state(cluster) == before


async def test_dry_run_update_answers_the_result_at_the_current_revision(cluster: kubelite.Cluster) -> None:
    live = await cluster.client.create(_cm(), namespace=NS)
    before = _state(cluster)
    live["data"] = {"a": "2"}
    out = await cluster.client.replace(live, namespace=NS, dry_run=True)
    assert out["data"] == {"a": "2"}
    assert out["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]
    assert out["metadata"]["uid"] == live["metadata"]["uid"]
    assert _state(cluster) == before
    assert (await cluster.client.get("configmaps", "cm", namespace=NS))["data"] == {"a": "1"}


@pytest.mark.parametrize(("patch_type", "patch"), [
    ("merge", {"data": {"a": "2"}}),
    ("strategic", {"data": {"a": "2"}}),
    ("json", [{"op": "replace", "path": "/data/a", "value": "2"}]),
], ids=["merge", "strategic", "json"])
async def test_dry_run_patch_answers_the_patched_object(cluster: kubelite.Cluster, patch_type: str,
                                                        patch: Any) -> None:
    live = await cluster.client.create(_cm(), namespace=NS)
    before = _state(cluster)
    out = await cluster.client.patch("configmaps", "cm", patch, namespace=NS, patch_type=patch_type, dry_run=True)
    assert out["data"] == {"a": "2"}
    assert out["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]
    assert _state(cluster) == before


async def test_dry_run_apply_creates_nothing_and_answers_a_uid(cluster: kubelite.Cluster) -> None:
    before = _state(cluster)
    out = await cluster.client.apply(_cm("applied"), namespace=NS, field_manager="me", dry_run=True)
    assert out["metadata"]["uid"] and "resourceVersion" not in out["metadata"]
    assert [e["manager"] for e in out["metadata"]["managedFields"]] == ["me"]
    assert _state(cluster) == before


async def test_dry_run_delete_answers_what_the_delete_would(cluster: kubelite.Cluster) -> None:
    cm = await cluster.client.create(_cm(), namespace=NS)
    bound = _pod(name="web")
    bound["spec"]["nodeName"] = "node-1"  # a pod on a node is deleted gracefully (an unscheduled one at once)
    await cluster.client.create(bound, namespace=NS)
    before = _state(cluster)

    async def delete(resource: str, name: str) -> dict[str, Any]:
        resp = await cluster.apiserver.handle(Request(
            verb="delete", group="", resource=resource, namespace=NS, name=name, user=ADMIN,
            options=Options(dry_run=True)))
        out: dict[str, Any] = json.loads(resp.data)
        return out

    gone = await delete("configmaps", "cm")  # immediate: the object deleted (HTTP answers its Success Status)
    assert gone["metadata"]["uid"] == cm["metadata"]["uid"] and "deletionTimestamp" not in gone["metadata"]
    pod = await delete("pods", "web")  # graceful: the object, as the delete would leave it
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["deletionGracePeriodSeconds"] == 30
    assert _state(cluster) == before
    assert "deletionTimestamp" not in (await cluster.client.get("pods", "web", namespace=NS))["metadata"]
