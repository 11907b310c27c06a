"""The write path as kube-apiserver runs it: shared apply ownership, no-op rules, canonical quantities.

Ownership cases are ports of structured-merge-diff's multiple_appliers_test.go ("shared ownership",
"remove shared field") through the whole apiserver; the no-op rule is apiserver's
IgnoreManagedFieldsTimestampsTransformer (fieldmanager/equality.go); quantities follow what decoding into
resource.Quantity does (apimachinery quantity.go String()).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubelite import memo
from kubelite.cluster import Cluster
from kubelite.errors import BadRequest, NotFound


def cm(data: dict[str, str], name: str = "x") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": data}


def owners(obj: dict[str, Any]) -> dict[str, set[str]]:
    return {e["manager"]: set(e["fieldsV1"].get("f:data", {})) for e in obj["metadata"]["managedFields"]}


async def apply(cluster: Cluster, body: dict[str, Any], manager: str, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = await cluster.client.patch(
        "configmaps", body["metadata"]["name"], body, patch_type="apply", field_manager=manager,
        namespace="default", **kw)
    return out


# (steps: manager, applied data), expected data, expected owners
SHARED = [
    pytest.param([("a", {"x": "1", "y": "2"}), ("b", {"x": "1"})], {"x": "1", "y": "2"},
                 {"a": {"f:x", "f:y"}, "b": {"f:x"}}, id="second-applier-shares-field"),
    pytest.param([("a", {"x": "1", "y": "2"}), ("b", {"x": "1"}), ("a", {"y": "2"})], {"x": "1", "y": "2"},
                 {"a": {"f:y"}, "b": {"f:x"}}, id="shared-field-survives-first-owner-dropping-it"),
    pytest.param([("a", {"x": "1", "y": "2"}), ("b", {"x": "1"}), ("a", {"y": "2"}), ("b", {})], {"y": "2"},
                 {"a": {"f:y"}}, id="last-owner-dropping-shared-field-removes-it"),
    pytest.param([("a", {"x": "1"}), ("b", {"x": "1"}), ("c", {"x": "1"}), ("a", {}), ("b", {})], {"x": "1"},
                 {"c": {"f:x"}}, id="three-appliers-share"),
    pytest.param([("a", {"x": "1"}), ("a", {"x": "1"})], {"x": "1"}, {"a": {"f:x"}}, id="reapply-same"),
]


@pytest.mark.parametrize(("steps", "data", "want_owners"), SHARED)
async def test_apply_ownership_is_shared(
    cluster: Cluster, steps: list[tuple[str, dict[str, str]]], data: dict[str, str],
    want_owners: dict[str, set[str]],
) -> None:
    out: dict[str, Any] = {}
    for manager, applied in steps:
        out = await apply(cluster, cm(applied), manager)
    assert out.get("data", {}) == data
    got = {m: f for m, f in owners(out).items() if f}
    assert got == want_owners
    stored = await cluster.client.get("configmaps", "x", namespace="default")
    assert stored == out


async def test_sharing_a_field_is_a_write(cluster: Cluster) -> None:
    first = await apply(cluster, cm({"x": "1", "y": "2"}), "a")
    shared = await apply(cluster, cm({"x": "1"}), "b")
    assert shared["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]


async def test_reapply_changing_only_time_is_a_no_op(cluster: Cluster) -> None:
    first = await apply(cluster, cm({"x": "1"}), "a")
    await cluster.advance(60)
    again = await apply(cluster, cm({"x": "1"}), "a")
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert again["metadata"]["managedFields"] == first["metadata"]["managedFields"]


async def test_update_changing_only_managed_fields_is_written(cluster: Cluster) -> None:
    """Upstream ignores only timestamp changes: an update that changes ownership is stored."""
    c = cluster.client
    created = await c.create(cm({"x": "1"}), namespace="default", field_manager="creator")
    body = dict(created)
    body["metadata"] = {**created["metadata"], "managedFields": [
        {**created["metadata"]["managedFields"][0], "manager": "renamed"}]}
    out = await c.replace(body, namespace="default", field_manager="creator")
    assert [e["manager"] for e in out["metadata"]["managedFields"]] == ["renamed"]
    assert out["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]


# --- quantities ---------------------------------------------------------------------------------------

def pod(name: str, resources: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "nginx"}
    if resources is not None:
        container["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [container], **spec}}


# sent, stored (apimachinery quantity_test.go TestQuantityParse/TestQuantityString spellings)
CANONICAL = [
    ("1000m", "1"), ("1.5Gi", "1536Mi"), ("0.5", "500m"), (0.5, "500m"), (2, "2"), ("1024Mi", "1Gi"),
    ("5000m", "5"), ("0.001T", "1G"), ("1.08", "1080m"), ("1e3", "1e3"), ("1.2e3", "1200"), ("100Mi", "100Mi"),
    ("3.001n", "4n"), ("+1", "+1"),
]


@pytest.mark.parametrize(("sent", "stored"), CANONICAL, ids=[repr(c[0]) for c in CANONICAL])
async def test_pod_resources_are_stored_canonical(cluster: Cluster, sent: Any, stored: str) -> None:
    c = cluster.client
    out = await c.create(pod("p", {"requests": {"cpu": sent, "memory": sent}}, overhead={"cpu": sent}),
                         namespace="default")
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": stored, "memory": stored}
    assert out["spec"]["overhead"] == {"cpu": stored}
    assert (await c.get("pods", "p", namespace="default"))["spec"]["overhead"] == {"cpu": stored}


@pytest.mark.parametrize("verb", ["create", "apply"])
async def test_every_write_verb_canonicalises(cluster: Cluster, verb: str) -> None:
    c = cluster.client
    body = pod("p", {"limits": {"memory": "1.5Gi"}})
    if verb == "create":
        out = await c.create(body, namespace="default")
    else:
        out = await c.patch("pods", "p", body, patch_type="apply", field_manager="m", namespace="default")
    assert out["spec"]["containers"][0]["resources"]["limits"] == {"memory": "1536Mi"}
    if verb == "apply":
        again = await c.patch("pods", "p", body, patch_type="apply", field_manager="m", namespace="default")
        assert again["metadata"]["resourceVersion"] == out["metadata"]["resourceVersion"]  # 1536Mi == 1.5Gi


async def test_patches_and_status_canonicalise(cluster: Cluster) -> None:
    c = cluster.client
    await c.create({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
                    "spec": {"capacity": {"storage": "2048Mi"}, "accessModes": ["ReadWriteOnce"],
                             "hostPath": {"path": "/data"}}})
    out = await c.patch("persistentvolumes", "pv", {"spec": {"capacity": {"storage": "0.5Ti"}}}, patch_type="merge")
    assert out["spec"]["capacity"] == {"storage": "512Gi"}
    node = await c.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    node["status"] = {"capacity": {"cpu": "4000m", "memory": "1048576Ki"}}
    out = await c.replace_status(node)
    assert out["status"]["capacity"] == {"cpu": "4", "memory": "1Gi"}


async def test_canonical_quantities_are_remembered_per_string_and_rejections_are_not(cluster: Cluster) -> None:
    """A quantity string's canonical form is looked up after its first parse (quantity_fields' per-string
    memo): every pod sending it is stored as upstream stores it, and a string that does not parse is a 400
    each time it is sent (nothing is remembered for it)."""
    c = cluster.client
    stats = {s.name: s for s in memo.statistics()}["api.quantity_fields.canonical"]
    for i in range(3):
        # (each spec its own, so the per-template memo never serves one: every create canonicalises)
        out = await c.create(pod(f"p{i}", {"requests": {"cpu": "1500m", "memory": "2048Mi"}}, nodeSelector={"i": str(i)}),
                             namespace="default")
        assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1500m", "memory": "2Gi"}
        with pytest.raises(BadRequest, match="quantities must match the regular expression"):
            await c.create(pod(f"bad{i}", {"requests": {"cpu": "1.5 cores"}}), namespace="default")
    after = {s.name: s for s in memo.statistics()}["api.quantity_fields.canonical"]
    assert after.hits - stats.hits >= 4  # (at least) the second and third pods' two strings
    assert [p["metadata"]["name"] for p in await c.list("pods", namespace="default")] == ["p0", "p1", "p2"]


BAD = [
    pytest.param({"resources": {"requests": {"cpu": "abc"}}}, id="requests"),
    pytest.param({"resources": {"limits": {"memory": "1GiB"}}}, id="limits"),
    pytest.param({"overhead": {"cpu": "zz"}}, id="overhead"),
    pytest.param({"resources": {"requests": {"cpu": True}}}, id="bool"),
]


@pytest.mark.parametrize("where", BAD)
@pytest.mark.parametrize("verb", ["create", "apply", "strategic", "update"])
async def test_invalid_quantity_is_a_400_and_stores_nothing(cluster: Cluster, where: dict[str, Any], verb: str) -> None:
    """Upstream fails the decode: 400 "Pod in version "v1" cannot be handled as a Pod: quantities must ..."."""
    c = cluster.client
    body = pod("p", where.get("resources"), **{k: v for k, v in where.items() if k != "resources"})
    rv = None
    if verb in ("strategic", "update"):
        rv = (await c.create(pod("p"), namespace="default"))["metadata"]["resourceVersion"]
    if verb == "create":
        call = c.create(body, namespace="default")
    elif verb == "apply":
        call = c.patch("pods", "p", body, patch_type="apply", field_manager="m", namespace="default")
    elif verb == "strategic":
        call = c.patch("pods", "p", {"spec": body["spec"]}, namespace="default")
    else:
        live = await c.get("pods", "p", namespace="default")
        live["spec"] = {**live["spec"], **body["spec"]}
        call = c.replace(live, namespace="default")
    with pytest.raises(BadRequest) as e:
        await call
    assert e.value.status.code == 400
    assert e.value.message.startswith('Pod in version "v1" cannot be handled as a Pod: ')
    if "True" not in repr(where):  # a bool already fails the typed decode
        assert "quantities must match the regular expression" in e.value.message
    if rv is None:
        with pytest.raises(NotFound):
            await c.get("pods", "p", namespace="default")
    else:
        assert (await c.get("pods", "p", namespace="default"))["metadata"]["resourceVersion"] == rv
