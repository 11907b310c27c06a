"""One resource naming everywhere (issue #15): fault injection and admission hooks take what the client takes
(a Struct class, "pods", "deploy", "widgets.example.com") besides the older "group/plural", and a name that
matches nothing is an error at once (it used to be a rule or hook that silently never matched)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.api.types import ConfigMap, Deployment, ObjectMeta
from kubelite.apiserver.admission import AdmissionDenied
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Conflict

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]},
}


def deployment(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def widget(name: str) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": "default"}}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        await c.client.create(WIDGET_CRD)
        await c.settle()
        yield c


NAMINGS = [
    (Deployment, "deployment"), ("deployments", "deployment"), ("deploy", "deployment"),
    ("deployments.apps", "deployment"), ("apps/deployments", "deployment"),
    ("widgets.example.com", "widget"), ("wd", "widget"), ("example.com/widgets", "widget"),
]
IDS = ["struct", "plural", "short-name", "plural.group", "group/plural", "crd-plural.group", "crd-short-name",
       "crd-group/plural"]


@pytest.mark.parametrize(("resource", "kind"), NAMINGS, ids=IDS)
async def test_faults_take_every_client_naming(cluster: Cluster, resource: Any, kind: str) -> None:
    cluster.faults.inject(409, verb="create", resource=resource)
    obj = deployment("a") if kind == "deployment" else widget("a")
    with pytest.raises(Conflict):
        await cluster.client.create(obj)
    await cluster.client.create(obj)  # times=1: the rule is used up
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="untouched")))


@pytest.mark.parametrize(("resource", "kind"), NAMINGS, ids=IDS)
async def test_admission_hooks_take_every_client_naming(cluster: Cluster, resource: Any, kind: str) -> None:
    async def deny(request: Any) -> None:
        raise AdmissionDenied("no")

    cluster.apiserver.admission.register(deny, name="deny", resources=[resource], operations=["CREATE"])
    obj = deployment("a") if kind == "deployment" else widget("a")
    with pytest.raises(ApiError, match='admission webhook "deny" denied the request: no'):
        await cluster.client.create(obj)
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="not-matched")))


@pytest.mark.parametrize("resource", ["deploymentz", "widgets.example.org", "apps/widgets", ""],
                         ids=["typo", "wrong-group", "wrong-group-plural", "empty"])
async def test_names_that_match_nothing_are_errors(cluster: Cluster, resource: str) -> None:
    with pytest.raises(ValueError, match="unknown resource"):
        cluster.faults.inject(409, resource=resource)

    async def hook(request: Any) -> None:
        return None

    with pytest.raises(ValueError, match="unknown resource"):
        cluster.apiserver.admission.register(hook, resources=[resource])
    assert cluster.faults.rules == [] and cluster.apiserver.admission.hooks == []


async def test_the_client_takes_a_resource_info(cluster: Cluster) -> None:
    """A ``ResourceInfo`` names a resource for every verb and reads come back as dicts (they were decoded into
    a ``ResourceInfo`` and failed: ``Object missing required field `group```)."""
    c = cluster.client
    info = c.resource_info("configmaps")
    await c.create(ConfigMap(metadata=ObjectMeta(name="cm"), data={"a": "1"}))
    got = await c.get(info, "cm", namespace="default")
    assert got["data"] == {"a": "1"}
    assert [o["metadata"]["name"] for o in await c.list(info, namespace="default")] == ["cm"]
