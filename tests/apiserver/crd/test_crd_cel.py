"""CRD ``x-kubernetes-validations`` (CEL) rules through the client, with upstream's 422 messages
(``apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go``)."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import Invalid

SPEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
        {"rule": "!has(self.tier) || self.tier in ['gold', 'silver']", "fieldPath": ".tier",
         "messageExpression": "'tier ' + self.tier + ' is not offered'"},
        {"rule": "self.image.startsWith('registry.example.com/')", "reason": "FieldValueForbidden",
         "fieldPath": ".image", "message": "images come from registry.example.com"},
        {"rule": "!has(self.memory) || isQuantity(self.memory)", "fieldPath": ".memory",
         "message": "must be a quantity"},
    ],
    "properties": {
        "minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"},
        "tier": {"type": "string"}, "image": {"type": "string"}, "memory": {"type": "string"},
        "storageClass": {"type": "string",
                         "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "is immutable"}]},
        "ports": {"type": "array", "items": {"type": "integer",
                                             "x-kubernetes-validations": [{"rule": "self > 1024"}]}},
    },
}

CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "databases.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "databases", "singular": "database", "kind": "Database"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": SPEC_SCHEMA}}}}]},
}

VALID = {"minReplicas": 1, "maxReplicas": 3, "image": "registry.example.com/db:1", "storageClass": "fast"}


def db(name: str = "db", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Database", "metadata": {"name": name, "namespace": "default"},
            "spec": {**VALID, **spec}}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, nodes=0, controllers=False) as c:
        await c.client.create(copy.deepcopy(CRD))
        await c.settle()
        yield c


CASES = [
    ("message", {"minReplicas": 5},
     'spec: Invalid value: "object": minReplicas must not exceed maxReplicas'),
    ("message-expression-and-field-path", {"tier": "bronze"},
     'spec.tier: Invalid value: "object": tier bronze is not offered'),
    ("reason-forbidden", {"image": "docker.io/db"},
     "spec.image: Forbidden: images come from registry.example.com"),
    ("is-quantity", {"memory": "lots"}, 'spec.memory: Invalid value: "object": must be a quantity'),
    ("default-message-on-list-items", {"ports": [8080, 80]},
     'spec.ports[1]: Invalid value: "integer": failed rule: self > 1024'),
]


@pytest.mark.parametrize(("spec", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_rule_failures_are_422s(cluster: Cluster, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(Invalid) as info:
        await cluster.client.create(db(**spec))
    assert message in str(info.value)
    assert str(info.value).startswith('Database.example.com "db" is invalid: ')
    assert await cluster.client.list("databases.example.com", namespace="default") == []


async def test_valid_object_passes(cluster: Cluster) -> None:
    created = await cluster.client.create(db(tier="gold", memory="1Gi", ports=[8080]))
    assert created["spec"]["tier"] == "gold"


async def test_transition_rule_checks_updates_only(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(db())  # a transition rule does not run on create
    await c.patch("databases.example.com", "db", {"spec": {"maxReplicas": 4}}, namespace="default",
                  patch_type="merge")
    with pytest.raises(Invalid) as info:
        await c.patch("databases.example.com", "db", {"spec": {"storageClass": "slow"}}, namespace="default",
                      patch_type="merge")
    assert 'spec.storageClass: Invalid value: "string": is immutable' in str(info.value)


async def test_selecting_an_absent_field_is_an_error_not_a_pass(cluster: Cluster) -> None:
    """CEL's no-such-key: a rule reading a field the object lacks fails (upstream reports a runtime error)."""
    crd = copy.deepcopy(CRD)
    crd["metadata"]["name"] = "caches.example.com"
    crd["spec"]["names"] = {"plural": "caches", "singular": "cache", "kind": "Cache"}
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object", "properties": {"size": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.size > 0"}]}
    await cluster.client.create(crd)
    await cluster.settle()
    with pytest.raises(Invalid) as info:
        await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Cache",
                                     "metadata": {"name": "c", "namespace": "default"}, "spec": {}})
    assert 'spec: Invalid value: "object": rule: self.size > 0, error: ' in str(info.value)
    created = await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Cache",
                                           "metadata": {"name": "c", "namespace": "default"}, "spec": {"size": 2}})
    assert created["spec"] == {"size": 2}
