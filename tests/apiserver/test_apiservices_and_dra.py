"""APIService (apiregistration.k8s.io/v1) and resource.k8s.io/v1 (DRA) served and validated.

APIService cases mirror kube-aggregator's ``pkg/apis/apiregistration/validation/validation_test.go``
(name must be version.group, priorities' ranges, local services without caBundle/insecureSkipTLSVerify,
a service's namespace/name/port) and the autoregister controller's local APIServices. DRA cases mirror
``pkg/apis/resource/validation/validation_*_test.go`` for the rules kubelite implements (see the module
docstring of ``kubelite.apiserver.validation.resource``).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

import kubelite
from kubelite.apiserver.validation.apiregistration import validate_apiservice
from kubelite.apiserver.validation.resource import (
    validate_resource_claim,
    validate_resource_claim_status_update,
    validate_resource_slice,
)
from kubelite.errors import Invalid


@pytest.fixture
async def cluster() -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=4, nodes=0) as c:
        yield c


def _apiservice(name: str = "v1beta1.metrics.k8s.io", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100,
                     "versionPriority": 100, **spec}}


SERVICE = {"namespace": "kube-system", "name": "metrics-server", "port": 443}


@pytest.mark.parametrize(("obj", "expected"), [
    (_apiservice(service=SERVICE), []),
    (_apiservice(), []),
    (_apiservice("v1.metrics.k8s.io", service=SERVICE),
     ['metadata.name: Invalid value: "v1.metrics.k8s.io": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"']),
    (_apiservice("v1beta1.", group="", service=SERVICE),
     ["spec.group: Required value: only v1 may have an empty group and it better be legacy kube"]),
    (_apiservice(groupPriorityMinimum=0, service=SERVICE),
     ["spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000"]),
    (_apiservice(versionPriority=1001, service=SERVICE),
     ["spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"]),
    (_apiservice(caBundle="AAAA"), ['spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle']),
    (_apiservice(insecureSkipTLSVerify=True),
     ["spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"]),
    (_apiservice(service={"port": 443}), ["spec.service.namespace: Required value", "spec.service.name: Required value"]),
    (_apiservice(service={**SERVICE, "port": 70000}),
     ["spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive"]),
    (_apiservice(service=SERVICE, caBundle="AAAA", insecureSkipTLSVerify=True),
     ["spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"]),
], ids=["service", "local", "name-not-version-group", "empty-group-not-v1", "group-priority-zero",
        "version-priority-too-big", "local-ca-bundle", "local-insecure", "service-without-name",
        "service-port-range", "insecure-with-ca"])
def test_apiservice_validation(obj: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in validate_apiservice(obj)] == expected


async def test_local_apiservices_are_autoregistered(cluster: kubelite.Cluster) -> None:
    items = {a["metadata"]["name"]: a for a in await cluster.client.list("apiservices")}
    for name in ("v1", "v1.apps", "v2.autoscaling", "v1.autoscaling", "v1.resource.k8s.io", "v1.apiregistration.k8s.io"):
        assert name in items, name
    core = items["v1"]
    # the core group is "", which APIServiceSpec's group,omitempty leaves out (as kube-apiserver serves it)
    assert core["spec"] == {"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1}
    assert core["metadata"]["labels"] == {"kube-aggregator.kubernetes.io/automanaged": "onstart"}
    (cond,) = core["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("Available", "True", "Local")
    assert items["v2.autoscaling"]["spec"]["versionPriority"] > items["v1.autoscaling"]["spec"]["versionPriority"]


async def test_service_backed_apiservice_availability(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    out = await c.create(_apiservice(service={"namespace": "kube-system", "name": "metrics-server"},
                                     insecureSkipTLSVerify=True))
    assert out["spec"]["service"]["port"] == 443  # defaulted
    assert out["status"] == {}  # status is the availability controller's
    got = await c.get("apiservices", "v1beta1.metrics.k8s.io")
    (cond,) = got["status"]["conditions"]
    assert (cond["status"], cond["reason"]) == ("False", "ServiceNotFound")
    assert cond["message"] == 'service/metrics-server in "kube-system" is not present'
    with pytest.raises(Invalid, match="must be positive and less than 20000"):
        await c.create(_apiservice("v1.example.com", group="example.com", version="v1", groupPriorityMinimum=30000))


# --- resource.k8s.io/v1 ---

def _claim(*requests: dict[str, Any], **devices: Any) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "d"},
            "spec": {"devices": {"requests": list(requests), **devices}}}


def _req(name: str = "gpu", **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount",
                                      "count": 1, **exactly}}


@pytest.mark.parametrize(("obj", "expected"), [
    (_claim(_req()), []),
    (_claim(_req(), _req()), ['spec.devices.requests[1].name: Duplicate value: "gpu"']),
    (_claim({"name": "gpu"}),
     ["spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]),
    (_claim(_req(count=0)), ["spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"]),
    (_claim(_req(allocationMode="All", count=2)),
     ["spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"]),
    (_claim(_req(allocationMode="Some")),
     ['spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"']),
    (_claim(_req(deviceClassName="")), ["spec.devices.requests[0].exactly.deviceClassName: Required value"]),
    (_claim(_req(selectors=[{"cel": {"expression": ""}}])),
     ["spec.devices.requests[0].exactly.selectors[0].cel.expression: Required value"]),
    (_claim(_req(), constraints=[{"requests": ["cpu"], "matchAttribute": "example.com/numa"}]),
     ['spec.devices.constraints[0].requests[0]: Invalid value: "cpu": must be the name of a request in the claim '
      "or the name of a request and its subrequest separated with '/'"]),
    (_claim(_req(), config=[{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": 3}}]),
     ['spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": parameters must be a valid JSON object']),
    (_claim(*[_req(f"r{i}") for i in range(33)]),
     ["spec.devices.requests: Too many: 33: must have at most 32 items"]),
], ids=["valid", "duplicate-request", "neither-exactly-nor-first", "count-zero", "all-with-count", "bad-mode",
        "no-class", "empty-cel", "constraint-unknown-request", "config-parameters-not-object", "too-many-requests"])
def test_resource_claim_validation(obj: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in validate_resource_claim(obj)] == expected


def _slice(**spec: Any) -> dict[str, Any]:
    base = {"driver": "gpu.example.com", "nodeName": "n1",
            "pool": {"name": "n1", "generation": 0, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}}, "capacity": {
                "memory": {"value": "80Gi"}}}]}
    base.update(spec)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
            "spec": {k: v for k, v in base.items() if v is not None}}


@pytest.mark.parametrize(("obj", "expected"), [
    (_slice(), []),
    (_slice(nodeName=None), ["spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                             "`perDeviceNodeSelection` is required"]),
    (_slice(allNodes=True), ['spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, '
                             "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"]),
    (_slice(driver=None), ["spec.driver: Required value"]),
    (_slice(pool={"name": "n1", "generation": -1, "resourceSliceCount": 0}),
     ["spec.pool.generation: Invalid value: -1: must be greater than or equal to 0",
      "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"]),
    (_slice(devices=[{"name": "a"}, {"name": "a"}]), ['spec.devices[1].name: Duplicate value: "a"']),
    (_slice(devices=[{"name": "a", "attributes": {"x": {"string": "s", "int": 1}}}]),
     ['spec.devices[0].attributes[x]: Invalid value: "<value omitted>": exactly one value must be specified']),
    (_slice(devices=[{"name": "a", "attributes": {"x": {}}}]),
     ["spec.devices[0].attributes[x]: Required value: exactly one value must be specified"]),
], ids=["valid", "no-node-selection", "two-node-selections", "no-driver", "pool-numbers", "duplicate-device",
        "attribute-two-values", "attribute-no-value"])
def test_resource_slice_validation(obj: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in validate_resource_slice(obj)] == expected


def test_claim_allocation_is_immutable_once_set() -> None:
    old = _claim(_req())
    old["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}}}
    new = copy.deepcopy(old)
    new["status"]["allocation"]["devices"]["results"][0]["device"] = "gpu-1"
    assert [str(e) for e in validate_resource_claim_status_update(new, old)] == [
        'status.allocation: Invalid value: "<value omitted>": field is immutable']
    dangling = copy.deepcopy(old)
    dangling["status"] = {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}
    assert [str(e) for e in validate_resource_claim_status_update(dangling, _claim(_req()))] == [
        "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"]


async def test_dra_kinds_are_served(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
                    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    await c.create(_slice())
    claim = _claim({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}})
    claim["metadata"]["namespace"] = "default"
    out = await c.create(claim)
    # defaults: ExactCount, count 1
    assert out["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}
    out["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    with pytest.raises(Invalid, match="field is immutable"):
        await c.replace(out)
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "t", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com", "allocationMode": "All"}}]}}}}
    got = await c.create(template)
    assert "count" not in got["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert {i["metadata"]["name"] for i in await c.list("resourceslices")} == {"n1-gpu"}
    assert (await c.get("deviceclasses", "gpu.example.com"))["metadata"]["generation"] == 1
