"""Multi-version serving of built-in kinds: HorizontalPodAutoscaler in autoscaling/v2 (storage, preferred)
and autoscaling/v1, through the client and over HTTP, as kube-apiserver serves them.

Every verb reads and answers in the request's version; the store only ever holds v2; what a v1 client
reads and writes back loses nothing a v2 client set (the round-trip annotations).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import kubelite
from kubelite.api.types import HorizontalPodAutoscaler, ObjectMeta, autoscaling_v1
from kubelite.apiserver.auth.user import ADMIN
from kubelite.errors import BadRequest, NotFound

TOKEN = "admin-token"
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue",
                                                                         "averageValue": "512Mi"}}}


def _v1(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"scaleTargetRef": REF, "maxReplicas": 5, **spec}}


def _stored(cluster: kubelite.Cluster, name: str = "web") -> dict[str, Any]:
    info = cluster.apiserver.registry.by_resource("autoscaling", "horizontalpodautoscalers")
    obj = cluster.apiserver.read(info.group, info.plural, "default", name)
    assert obj is not None
    return obj


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=3, nodes=0) as c:
        yield c


async def test_v1_create_is_stored_as_v2(cluster: kubelite.Cluster) -> None:
    created = await cluster.client.create(_v1(targetCPUUtilizationPercentage=50))
    assert created["apiVersion"] == "autoscaling/v1"
    assert created["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5,
                               "targetCPUUtilizationPercentage": 50}
    stored = _stored(cluster)
    assert stored["apiVersion"] == "autoscaling/v2"
    assert stored["spec"]["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]
    v2 = await cluster.client.get(HorizontalPodAutoscaler, "web")
    assert v2.api_version == "autoscaling/v2" and v2.spec is not None and v2.spec.min_replicas == 1


async def test_typed_v1_struct_round_trips(cluster: kubelite.Cluster) -> None:
    hpa = autoscaling_v1.HorizontalPodAutoscaler(
        metadata=ObjectMeta(name="web"),
        spec=autoscaling_v1.HorizontalPodAutoscalerSpec(
            scale_target_ref=autoscaling_v1.CrossVersionObjectReference(kind="Deployment", name="web",
                                                                        api_version="apps/v1"),
            max_replicas=4))
    out = await cluster.client.create(hpa)
    assert isinstance(out, autoscaling_v1.HorizontalPodAutoscaler)
    # v1's implicit default is explicit in storage (CPU at 80%), so a v1 read shows it as the target
    assert out.spec is not None and out.spec.target_cpu_utilization_percentage == 80
    assert _stored(cluster)["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 80
    got = await cluster.client.get(autoscaling_v1.HorizontalPodAutoscaler, "web")
    assert got.api_version == "autoscaling/v1"


async def test_v1_read_modify_write_keeps_v2_only_fields(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
                    "spec": {"scaleTargetRef": REF, "maxReplicas": 6, "metrics": [MEMORY, _cpu(60)],
                             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 120}}}})
    before = _stored(cluster)
    v1 = await c.get(("autoscaling/v1", "HorizontalPodAutoscaler"), "web")
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 60
    assert "autoscaling.alpha.kubernetes.io/metrics" in v1["metadata"]["annotations"]
    assert "autoscaling.alpha.kubernetes.io/behavior" in v1["metadata"]["annotations"]
    v1["spec"]["maxReplicas"] = 8
    await c.replace(v1)
    after = _stored(cluster)
    assert after["spec"]["maxReplicas"] == 8
    assert after["spec"]["metrics"] == before["spec"]["metrics"]
    assert after["spec"]["behavior"] == before["spec"]["behavior"]
    assert "annotations" not in after["metadata"]  # the round-trip annotations are never stored


def _cpu(util: int) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": util}}}


async def test_v2_never_shows_round_trip_annotations(cluster: kubelite.Cluster) -> None:
    body = _v1(targetCPUUtilizationPercentage=50)
    body["apiVersion"] = "autoscaling/v2"
    body["spec"] = {"scaleTargetRef": REF, "maxReplicas": 3}
    body["metadata"]["annotations"] = {"autoscaling.alpha.kubernetes.io/metrics": "[]", "team": "a"}
    out = await cluster.client.create(body)
    assert out["metadata"]["annotations"] == {"team": "a"}


@pytest.mark.parametrize(("patch_type", "patch"), [
    ("merge", {"spec": {"targetCPUUtilizationPercentage": 70}}),
    ("strategic", {"spec": {"targetCPUUtilizationPercentage": 70}}),
    ("json", [{"op": "replace", "path": "/spec/targetCPUUtilizationPercentage", "value": 70}]),
], ids=["merge", "strategic", "json"])
async def test_patch_applies_to_the_v1_object(cluster: kubelite.Cluster, patch_type: str, patch: Any) -> None:
    await cluster.client.create(_v1(targetCPUUtilizationPercentage=50))
    out = await cluster.client.patch(autoscaling_v1.HorizontalPodAutoscaler, "web", patch, patch_type=patch_type)
    assert out.spec is not None and out.spec.target_cpu_utilization_percentage == 70
    assert _stored(cluster)["spec"]["metrics"] == [_cpu(70)]


async def test_apply_in_v1(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    out = await c.apply(_v1(targetCPUUtilizationPercentage=40), field_manager="ops")
    assert out["apiVersion"] == "autoscaling/v1" and out["spec"]["targetCPUUtilizationPercentage"] == 40
    out = await c.apply(_v1(targetCPUUtilizationPercentage=45), field_manager="ops")
    assert out["spec"]["targetCPUUtilizationPercentage"] == 45
    assert _stored(cluster)["spec"]["metrics"] == [_cpu(45)]
    entry = next(e for e in out["metadata"]["managedFields"] if e["manager"] == "ops")
    assert entry["apiVersion"] == "autoscaling/v1" and entry["operation"] == "Apply"


async def test_status_in_v1(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(_v1(targetCPUUtilizationPercentage=50))
    v1 = await c.get(("autoscaling/v1", "HorizontalPodAutoscaler"), "web")
    v1["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 95}
    out = await c.replace_status(v1)
    assert out["status"]["currentCPUUtilizationPercentage"] == 95
    assert _stored(cluster)["status"]["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 95}}}]


async def test_list_and_watch_in_v1(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(_v1("a", targetCPUUtilizationPercentage=50))
    items = await c.list(autoscaling_v1.HorizontalPodAutoscaler)
    assert [i.api_version for i in items] == ["autoscaling/v1"]
    with await c.open_watch(("autoscaling/v1", "HorizontalPodAutoscaler"), allow_bookmarks=True,
                            send_initial_events=True) as stream:
        typ, obj, _ = await stream.__anext__()
        assert typ == "ADDED" and obj["apiVersion"] == "autoscaling/v1"
        assert obj["spec"]["targetCPUUtilizationPercentage"] == 50
        typ, obj, _ = await stream.__anext__()
        assert typ == "BOOKMARK" and obj["apiVersion"] == "autoscaling/v1" and "spec" not in obj
        await c.patch(HorizontalPodAutoscaler, "a", {"spec": {"maxReplicas": 9}}, patch_type="merge")
        typ, obj, _ = await stream.__anext__()
        assert typ == "MODIFIED" and obj["apiVersion"] == "autoscaling/v1" and obj["spec"]["maxReplicas"] == 9
    # a v2 watch of the same resource sees v2
    with await c.open_watch(HorizontalPodAutoscaler) as stream:
        typ, obj, _ = await stream.__anext__()
        assert obj.api_version == "autoscaling/v2"


async def test_v1_unknown_field_is_the_v1_schemas(cluster: kubelite.Cluster) -> None:
    body = _v1()
    body["spec"]["metrics"] = [_cpu(10)]  # a v2 field: unknown in v1
    with pytest.raises(BadRequest, match=r'unknown field "spec\.metrics"'):
        await cluster.client.create(body, field_validation="Strict")


async def test_body_version_must_match_the_request(cluster: kubelite.Cluster) -> None:
    server = cluster.apiserver
    with pytest.raises(BadRequest, match=r"does not match the expected API version \(autoscaling/v1\)"):
        await server.create(ADMIN, "autoscaling", "horizontalpodautoscalers", "default",
                            {**_v1(), "apiVersion": "autoscaling/v2"}, version="v1")
    with pytest.raises(NotFound):
        await server.get(ADMIN, "autoscaling", "horizontalpodautoscalers", "default", "x",
                         version="v3")


# --- over HTTP: the paths, and discovery ---

@pytest.fixture
async def api(cluster: kubelite.Cluster) -> AsyncIterator[httpx.AsyncClient]:
    app = cluster.asgi_app(admin_token=TOKEN)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://kubelite",
                                 headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        yield client


async def test_http_serves_both_versions(api: httpx.AsyncClient) -> None:
    base = "/apis/autoscaling/{}/namespaces/default/horizontalpodautoscalers"
    r = await api.post(base.format("v1"), json=_v1(targetCPUUtilizationPercentage=30))
    assert r.status_code == 201, r.text
    assert r.json()["apiVersion"] == "autoscaling/v1"
    r = await api.get(base.format("v2") + "/web")
    assert r.json()["apiVersion"] == "autoscaling/v2" and r.json()["spec"]["metrics"] == [_cpu(30)]
    r = await api.get(base.format("v1"))
    assert r.json()["apiVersion"] == "autoscaling/v1"
    assert [i["apiVersion"] for i in r.json()["items"]] == ["autoscaling/v1"]
    r = await api.get(base.format("v3") + "/web")
    assert r.status_code == 404


async def test_discovery_lists_every_served_version(api: httpx.AsyncClient) -> None:
    group = (await api.get("/apis/autoscaling", headers={"Accept": "application/json"})).json()
    assert [v["version"] for v in group["versions"]] == ["v2", "v1"]
    assert group["preferredVersion"] == {"groupVersion": "autoscaling/v2", "version": "v2"}
    v1 = (await api.get("/apis/autoscaling/v1", headers={"Accept": "application/json"})).json()
    assert "horizontalpodautoscalers" in [r["name"] for r in v1["resources"]]
    aggregated = (await api.get("/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})).json()
    entry = next(i for i in aggregated["items"] if i["metadata"]["name"] == "autoscaling")
    assert [v["version"] for v in entry["versions"]] == ["v2", "v1"]
    hpa_v1 = next(r for r in entry["versions"][1]["resources"] if r["resource"] == "horizontalpodautoscalers")
    assert hpa_v1["responseKind"] == {"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"}
    assert json.dumps(entry)  # the document is JSON-serialisable as served
