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
    # upstream's runtime-error wording (schema/cel/validation.go): "<cel-go error> evaluating rule: <rule>"
    assert 'spec: Invalid value: "object": no such key: size evaluating rule: self.size > 0' in str(info.value)
    created = await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Cache",
                                           "metadata": {"name": "c", "namespace": "default"}, "spec": {"size": 2}})
    assert created["spec"] == {"size": 2}


def _crd_with(name: str, spec_schema: dict[str, Any]) -> dict[str, Any]:
    crd = copy.deepcopy(CRD)
    crd["metadata"]["name"] = f"{name}s.example.com"
    crd["spec"]["names"] = {"plural": f"{name}s", "singular": name, "kind": name.capitalize()}
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = spec_schema
    return crd


async def test_library_functions_in_rules(cluster: Cluster) -> None:
    """Kubernetes' CEL library in CRD rules: quantity comparison and the format library (upstream's docs
    examples: ``quantity(self.memory).isLessThan(quantity('1Gi'))``, ``!format.dns1123Label().validate(...)``)."""
    schema = {"type": "object", "properties": {
        "memory": {"type": "string", "x-kubernetes-validations": [
            {"rule": "quantity(self).isLessThan(quantity('1Gi'))", "message": "at most 1Gi"}]},
        "host": {"type": "string", "x-kubernetes-validations": [
            {"rule": "!format.dns1123Label().validate(self).hasValue()",
             "messageExpression": "format.dns1123Label().validate(self).value().join(', ')"}]},
        "tags": {"type": "array", "items": {"type": "string"},
                 "x-kubernetes-validations": [{"rule": "self.isSorted()", "message": "tags must be sorted"}]},
    }}
    await cluster.client.create(_crd_with("cache", schema))
    await cluster.settle()

    def cache(name: str, **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "example.com/v1", "kind": "Cache", "metadata": {"name": name, "namespace": "default"},
                "spec": spec}

    ok = await cluster.client.create(cache("ok", memory="512Mi", host="web-1", tags=["a", "b"]))
    assert ok["spec"]["memory"] == "512Mi"
    with pytest.raises(Invalid) as info:
        await cluster.client.create(cache("big", memory="2Gi", host="Web_1", tags=["b", "a"]))
    msg = str(info.value)
    assert 'spec.memory: Invalid value: "string": at most 1Gi' in msg
    assert 'spec.host: Invalid value: "string": a lowercase RFC 1123 label must consist of' in msg
    assert 'spec.tags: Invalid value: "array": tags must be sorted' in msg


async def test_a_rule_that_does_not_compile_rejects_the_crd(cluster: Cluster) -> None:
    """upstream ValidateCustomResourceDefinition compiles every rule: an unknown function is a 422 on the CRD."""
    schema = {"type": "object", "properties": {"size": {"type": "integer"}},
              "x-kubernetes-validations": [{"rule": "self.size.frobnicate() > 0"}, {"rule": "self.size >"}]}
    with pytest.raises(Invalid) as info:
        await cluster.client.create(_crd_with("broken", schema))
    msg = str(info.value)
    base = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations"
    assert (f"{base}[0].rule: Invalid value: \"self.size.frobnicate() > 0\": compilation failed: "
            "ERROR: <input>:1:11: undeclared reference to 'frobnicate' (in container '')") in msg
    assert f"{base}[1].rule: Invalid value: \"self.size >\": compilation failed: ERROR: <input>:1:" in msg


async def test_rule_cost_over_the_per_call_limit_stops_validation(cluster: Cluster) -> None:
    """upstream PerCallLimit (1,000,000): a rule that runs past it is reported, and no further rules run."""
    schema = {"type": "object", "properties": {"blob": {"type": "string", "x-kubernetes-validations": [
        {"rule": "self.indexOf('z') < 0"}, {"rule": "self.size() < 5", "message": "never reached"}]}}}
    await cluster.client.create(_crd_with("blob", schema))
    await cluster.settle()
    body = {"apiVersion": "example.com/v1", "kind": "Blob", "metadata": {"name": "b", "namespace": "default"},
            "spec": {"blob": "a" * 10_000_100}}
    with pytest.raises(Invalid) as info:
        await cluster.client.create(body)
    msg = str(info.value)
    assert ("spec.blob: Invalid value: \"string\": 'operation cancelled: actual cost limit exceeded': no further "
            "validation rules will be run due to call cost exceeds limit for rule: self.indexOf('z') < 0") in msg
    assert "never reached" not in msg


@pytest.mark.parametrize(("items", "rule", "rejected"), [
    ({"type": "array", "items": {"type": "string"}}, "self.all(x, x.startsWith('a'))", True),
    ({"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 64}},
     "self.all(x, x.startsWith('a'))", False),
    ({"type": "array", "items": {"type": "string", "maxLength": 10}}, "self.all(x, self.exists(y, x == y))", True),
    ({"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 10}},
     "self.all(x, self.exists(y, x == y))", False),
    ({"type": "string"}, "self.startsWith('a')", False),
], ids=["unbounded-list-of-strings", "bounded", "nested-unbounded", "nested-bounded", "unbounded-string-scan"])
async def test_estimated_rule_cost_at_crd_creation(cluster: Cluster, items: dict[str, Any], rule: str,
                                                   rejected: bool) -> None:
    """ValidateCustomResourceDefinition's static cost check (StaticEstimatedCostLimit 10,000,000): rules over
    unbounded lists and strings are rejected until maxItems/maxLength bound them, with upstream's message."""
    schema = {"type": "object", "properties": {"names": {**items, "x-kubernetes-validations": [{"rule": rule}]}}}
    crd = _crd_with("bounded", schema)
    if not rejected:
        await cluster.client.create(crd)
        return
    with pytest.raises(Invalid) as info:
        await cluster.client.create(crd)
    assert ("spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: "
            "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or "
            "adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)") in str(info.value)
