"""Every served built-in kind round-trips through protobuf: JSON object -> ``encode`` -> ``decode`` -> the same.

The objects are realistic: the public manifests of ``tests/api/manifests`` and one object of every other kind,
created in a cluster that then runs for a minute, so what is round-tripped is what the apiserver stored and
the controllers and kubelets wrote (managedFields' FieldsV1, Times and MicroTimes, Quantities, IntOrStrings,
ControllerRevisions' RawExtension, Secret bytes); plus the kinds that are never stored (reviews, Binding,
Eviction, Scale, DeleteOptions, Status, lists).

What a round trip may lose, and only that: an empty list or map of a field Go's JSON keeps (a nil slice on
the wire; kubelite stores none of the zeros Go's JSON omits, ``test_stored_objects_hold_no_zero_go_omits``),
which a Go client would not see either, and a nested
object's ``apiVersion``/``kind`` (Go's TypeMeta has no protobuf field). A number written for a Quantity (in a
manifest's ``limits: {cpu: 1}``) comes back as its string, as Quantity's JSON always is upstream.
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

import kubelite
from kubelite.api import protobuf
from kubelite.api.omitempty import omit_empty
from kubelite.api.protobuf import decode, encode
from kubelite.api.protobuf_tables import KINDS, LISTS, MESSAGES
from kubelite.api.resources import BUILTIN

MANIFESTS = Path(__file__).parent / "manifests"
_ZEROS: tuple[Any, ...] = ("", 0, False, [], {}, None)
_RESOURCE_LISTS = frozenset({"limits", "requests", "capacity", "allocatable", "hard", "used"})
_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()


def _csr_pem() -> str:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")])).sign(key, hashes.SHA256()))
    return base64.b64encode(csr.public_bytes(serialization.Encoding.PEM)).decode()
_T = "2026-01-02T03:04:05Z"


def losses(original: Any, decoded: Any, path: str = "", *, top: bool = True) -> list[str]:
    """What ``decoded`` lacks or changes of ``original``, except the losses the module docstring allows."""
    if isinstance(original, dict) and isinstance(decoded, dict):
        out = [f"{path}.{k}: added {decoded[k]!r}" for k in decoded if k not in original]
        for k, v in original.items():
            if k in decoded:
                out += losses(v, decoded[k], f"{path}.{k}", top=False)
            elif not ((v in _ZEROS and not isinstance(v, float)) or (not top and k in ("apiVersion", "kind"))):
                out.append(f"{path}.{k}: lost {v!r}")
        return out
    if isinstance(original, list) and isinstance(decoded, list) and len(original) == len(decoded):
        return [x for i, (a, b) in enumerate(zip(original, decoded)) for x in losses(a, b, f"{path}[{i}]", top=False)]
    quantity = path.rsplit(".", 2)[-2:-1] and path.rsplit(".", 2)[-2] in _RESOURCE_LISTS
    if quantity and isinstance(original, int | float) and decoded == str(original):
        return []
    if isinstance(original, float) and isinstance(decoded, int) and original == decoded:
        return []  # an integral double: Go's JSON prints 1.0 as 1
    if original != decoded or type(original) is not type(decoded):
        return [f"{path}: {original!r} became {decoded!r}"]
    return []


def _meta(name: str, namespace: str | None = "default") -> dict[str, Any]:
    return {"name": name, **({"namespace": namespace} if namespace else {}), "labels": {"app": "x"},
            "annotations": {"note": "protobuf"}}


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "subresources": {"status": {}},
                           "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "required": ["size"], "properties": {
                                   "size": {"type": "integer", "minimum": 1, "default": 3, "multipleOf": 1.5},
                                   "mode": {"type": "string", "enum": ["a", "b"], "example": "a"},
                                   "port": {"x-kubernetes-int-or-string": True},
                                   "tags": {"type": "array", "items": {"type": "string"},
                                            "x-kubernetes-list-type": "set"},
                                   "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                   "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                               }, "x-kubernetes-validations": [{"rule": "self.size <= 10", "message": "too big"}]},
                               "status": {"type": "object", "additionalProperties": True},
                           }}}}]},
}

# One object of every stored kind the manifests and the running cluster do not produce.
EXTRA: list[dict[str, Any]] = [
    CRD,
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
     "metadata": {"name": "replicas"},
     "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [
         {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
          "resources": ["deployments"]}]},
              "validations": [{"expression": "object.spec.replicas <= 5", "message": "at most 5"}],
              "variables": [{"name": "r", "expression": "object.spec.replicas"}]}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
     "metadata": {"name": "replicas"},
     "spec": {"policyName": "replicas", "validationActions": ["Deny", "Audit"],
              "matchResources": {"namespaceSelector": {"matchExpressions": [
                  {"key": "env", "operator": "In", "values": ["prod"]}]}}}},
    {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.example.com"},
     "spec": {"group": "example.com", "version": "v1beta1", "groupPriorityMinimum": 1000, "versionPriority": 15,
              "service": {"namespace": "default", "name": "api", "port": 443}, "caBundle": _CA}},
    {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "csr"},
     "spec": {"request": _csr_pem(), "signerName": "example.com/signer", "expirationSeconds": 3600,
              "usages": ["digital signature", "client auth"]}},
    {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
     "metadata": {"name": "tenants"},
     "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 10, "lendablePercent": 0,
                                             "limitResponse": {"type": "Queue", "queuing": {
                                                 "queues": 16, "handSize": 4, "queueLengthLimit": 50}}}}},
    {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "tenants"},
     "spec": {"priorityLevelConfiguration": {"name": "tenants"}, "matchingPrecedence": 500,
              "distinguisherMethod": {"type": "ByUser"},
              "rules": [{"subjects": [{"kind": "Group", "group": {"name": "tenants"}}],
                         "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                                            "namespaces": ["*"]}]}]}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": _meta("db"),
     "spec": {"podSelector": {"matchLabels": {"app": "db"}}, "policyTypes": ["Ingress", "Egress"],
              "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}},
                                    {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}],
                           "ports": [{"protocol": "TCP", "port": 5432}, {"port": "metrics", "protocol": "TCP"},
                                     {"port": 8000, "endPort": 8080, "protocol": "TCP"}]}],
              "egress": [{}]}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "nginx"},
     "spec": {"controller": "k8s.io/ingress-nginx",
              "parameters": {"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "p",
                             "scope": "Namespace", "namespace": "default"}}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": _meta("web"),
     "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["a.example.com"], "secretName": "tls"}],
              "defaultBackend": {"service": {"name": "web", "port": {"name": "http"}}},
              "rules": [{"host": "a.example.com", "http": {"paths": [
                  {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}},
    {"apiVersion": "v1", "kind": "LimitRange", "metadata": _meta("limits"),
     "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m", "memory": "512Mi"},
                          "defaultRequest": {"cpu": "250m"}, "max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "4"}}]}},
    {"apiVersion": "v1", "kind": "ReplicationController", "metadata": _meta("rc"),
     "spec": {"replicas": 1, "selector": {"app": "rc"}, "template": {
         "metadata": {"labels": {"app": "rc"}},
         "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "10m"}}}]}}}},
    {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": _meta("quota"),
     "spec": {"hard": {"pods": "10", "requests.cpu": "4", "requests.memory": "8Gi"},
              "scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                                      "values": ["high"]}]}}},
    {"apiVersion": "v1", "kind": "Endpoints", "metadata": _meta("manual"),
     "subsets": [{"addresses": [{"ip": "10.0.0.1", "hostname": "a", "targetRef": {"kind": "Pod", "name": "a",
                                                                                  "namespace": "default"}}],
                  "notReadyAddresses": [{"ip": "10.0.0.2"}],
                  "ports": [{"name": "http", "port": 80, "protocol": "TCP", "appProtocol": "http"}]}]},
    {"apiVersion": "v1", "kind": "Event", "metadata": _meta("ev.1"),
     "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p", "apiVersion": "v1"},
     "reason": "Started", "message": "started", "type": "Normal", "count": 3, "firstTimestamp": _T,
     "lastTimestamp": _T, "eventTime": "2026-01-02T03:04:05.123456Z", "action": "Start",
     "series": {"count": 2, "lastObservedTime": "2026-01-02T03:05:05.000001Z"},
     "reportingComponent": "kubelet", "reportingInstance": "node-1", "source": {"component": "kubelet"}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
     "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
              "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"mode": "shared", "n": 2}}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": _meta("gpu"),
     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
         "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2,
         "capacity": {"requests": {"memory": "10Gi"}}}}]}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": _meta("gpu-template"),
     "spec": {"metadata": {"labels": {"a": "b"}},
              "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpu"},
     "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
              "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
              "devices": [{"name": "gpu-0", "attributes": {
                  "model": {"string": "A100"}, "index": {"int": 0}, "mig": {"bool": False},
                  "driverVersion": {"version": "1.2.3"}},
                  "capacity": {"memory": {"value": "40Gi"}}}]}},
]

# Kinds that are never stored: round-tripped as written.
UNSTORED: list[dict[str, Any]] = [
    {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "metadata": {},
     "spec": {"token": "abc", "audiences": ["api"]},
     "status": {"authenticated": True, "audiences": ["api"], "user": {
         "username": "alice", "uid": "1", "groups": ["dev"], "extra": {"scopes": ["a", "b"]}}}},
    {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": {"creationTimestamp": None},
     "status": {"userInfo": {"username": "alice", "groups": ["dev", "system:authenticated"]}}},
    {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "metadata": {},
     "spec": {"user": "alice", "groups": ["dev"], "extra": {"k": ["v"]}, "uid": "1",
              "resourceAttributes": {"namespace": "a", "verb": "list", "resource": "pods",
                                     "labelSelector": {"requirements": [
                                         {"key": "app", "operator": "In", "values": ["web"]}]},
                                     "fieldSelector": {"rawSelector": "spec.nodeName=n1"}}},
     "status": {"allowed": True, "reason": "RBAC: allowed"}},
    {"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview", "metadata": {"namespace": "a"},
     "spec": {"user": "bob", "resourceAttributes": {"namespace": "a", "verb": "get", "resource": "secrets"}},
     "status": {"allowed": False, "denied": True, "evaluationError": "none"}},
    {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
     "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}, "status": {"allowed": True}},
    {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "metadata": {},
     "spec": {"namespace": "default"},
     "status": {"resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}], "incomplete": False}},
    {"apiVersion": "v1", "kind": "ComponentStatus", "metadata": {"name": "scheduler", "creationTimestamp": None},
     "conditions": [{"type": "Healthy", "status": "False", "error": "connection refused"}]},
    {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
     "metadata": {"name": "robot", "namespace": "default", "creationTimestamp": "2025-01-01T00:00:00Z"},
     "spec": {"audiences": ["api"], "expirationSeconds": 3600,
              "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p", "uid": "u-1"}},
     "status": {"token": "eyJ.a.b", "expirationTimestamp": "2025-01-01T01:00:00Z"}},
    {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p", "namespace": "default"},
     "target": {"kind": "Node", "name": "node-1", "apiVersion": "v1"}},
    {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p", "namespace": "default"},
     "deleteOptions": {"gracePeriodSeconds": 0, "preconditions": {"uid": "u-1"}, "dryRun": ["All"]}},
    {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web", "namespace": "default"},
     "spec": {"replicas": 2}, "status": {"replicas": 3, "selector": "app=web"}},
    {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": _meta("web"),
     "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1,
              "maxReplicas": 5, "targetCPUUtilizationPercentage": 80},
     "status": {"currentReplicas": 2, "desiredReplicas": 3, "lastScaleTime": _T, "currentCPUUtilizationPercentage": 90}},
    {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "code": 409, "reason": "AlreadyExists",
     "message": 'configmaps "x" already exists',
     "details": {"name": "x", "kind": "configmaps", "causes": [{"reason": "FieldValueInvalid", "field": "a"}],
                 "retryAfterSeconds": 1}},
    {"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"resourceVersion": "7", "continue": "abc",
                                                               "remainingItemCount": 0},
     "items": [{"metadata": {"name": "a", "namespace": "default"}, "data": {"k": "v"},
                "binaryData": {"b": base64.b64encode(b"\x00\x01").decode()}, "immutable": True}]},
    {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 30, "propagationPolicy": "Orphan",
     "orphanDependents": False, "preconditions": {"resourceVersion": "5"}},
]


def _storable() -> set[tuple[str, str]]:
    return {(i.api_version, i.kind) for i in BUILTIN if "create" in i.verbs and "get" in i.verbs}


_STORED: list[dict[str, Any]] = []


async def _stored_objects() -> list[dict[str, Any]]:
    """The live objects (built once per process: two tests read them; each gets its own copies)."""
    if not _STORED:
        _STORED.extend(await _make_stored_objects())
    return copy.deepcopy(_STORED)


async def _make_stored_objects() -> list[dict[str, Any]]:
    async with kubelite.Cluster(seed=7, nodes=2) as c:
        docs = [d for f in sorted(MANIFESTS.glob("*.yaml")) if f.name not in ("crd.yaml", "node.yaml")
                for d in yaml.safe_load_all(f.read_text()) if d]
        for doc in [*docs, *EXTRA]:
            await c.client.create(doc)
        await c.clock.sleep(60)  # controllers, the scheduler and kubelets write their objects
        out = []
        for info in BUILTIN:
            if (info.api_version, info.kind) not in _storable():
                continue
            for obj in await c.client.list(info, all_namespaces=info.namespaced):
                out.append({"apiVersion": info.api_version, "kind": info.kind, **obj})
        return out


async def test_every_stored_object_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    seen_special: set[str] = set()
    real_special = protobuf._special

    def spy(name: str, data: bytes, where: str) -> Any:
        seen_special.add(name)
        return real_special(name, data, where)

    objects = await _stored_objects()
    monkeypatch.setattr(protobuf, "_special", spy)
    problems = {f"{o['kind']}/{o['metadata'].get('name')}": losses(o, decode(encode(o))) for o in objects}
    assert {k: v for k, v in problems.items() if v} == {}
    covered = {(o["apiVersion"], o["kind"]) for o in objects}
    assert _storable() - covered == set()  # every stored kind was round-tripped, each from a live object
    assert seen_special == {"meta.v1.Time", "meta.v1.MicroTime", "resource.Quantity", "intstr.IntOrString",
                            "runtime.RawExtension", "meta.v1.FieldsV1", "apiextensions.v1.JSON"}


def _dropped(original: Any, pruned: Any, path: str = "") -> list[str]:
    """The paths of ``original`` that ``pruned`` (its :func:`omit_empty` copy) lacks."""
    if isinstance(original, dict):
        return [x for k, v in original.items()
                for x in ([f"{path}.{k}={v!r}"] if k not in pruned else _dropped(v, pruned[k], f"{path}.{k}"))]
    if isinstance(original, list):
        return [x for i, (a, b) in enumerate(zip(original, pruned)) for x in _dropped(a, b, f"{path}[{i}]")]
    return []


def test_dropped_reports_a_drop() -> None:
    assert _dropped({"a": {"b": [], "c": 1}, "d": [{"e": ""}]}, {"a": {"c": 1}, "d": [{}]}) == [".a.b=[]", ".d[0].e=''"]


async def test_stored_objects_hold_no_zero_go_omits() -> None:
    # every object of every stored kind, as the apiserver stored it after users, controllers, the scheduler and
    # kubelets wrote it, is what Go's encoder prints: no omitempty field at its zero (kubelite.api.omitempty)
    objects = await _stored_objects()
    problems = {f"{o['kind']}/{o['metadata'].get('name')}": _dropped(o, omit_empty(copy.deepcopy(o)))
                for o in objects}
    assert {k: v for k, v in problems.items() if v} == {}
    assert _storable() - {(o["apiVersion"], o["kind"]) for o in objects} == set()


@pytest.mark.parametrize("obj", UNSTORED, ids=[o["kind"] for o in UNSTORED])
def test_unstored_kinds_round_trip(obj: dict[str, Any]) -> None:
    assert decode(encode(obj)) == obj


@pytest.mark.parametrize("path", sorted(MANIFESTS.glob("*.yaml")), ids=lambda p: p.stem)
def test_public_manifests_round_trip_as_written(path: Path) -> None:
    for doc in yaml.safe_load_all(path.read_text()):
        if doc:
            assert losses(doc, decode(encode(doc))) == []


def test_every_kind_has_a_case() -> None:
    unstored = {(o["apiVersion"], o["kind"]) for o in UNSTORED}
    lists = {k for k in KINDS if k[1].endswith("List") and k not in unstored}
    assert set(KINDS) - _storable() - unstored - lists == set()


def test_the_table_is_closed() -> None:
    # every message a field names is in the table, and every served built-in kind has a message
    scalars = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float"}
    for name, rows in MESSAGES.items():
        for _, _, kind, flags in rows:
            assert kind in scalars or kind in MESSAGES, f"{name} names {kind}"
            assert set(flags) <= set("rmzi")
    assert set(MESSAGES) >= LISTS
    assert {(i.api_version, i.kind) for i in BUILTIN} <= set(KINDS)


def test_losses_reports_real_loss() -> None:
    # the comparison the round trips rely on can fail: a changed value, a lost non-zero value, an added key
    assert losses({"a": 1, "b": {"c": "x"}}, {"a": 2, "b": {}, "d": 1}) == [
        ".d: added 1", ".a: 1 became 2", ".b.c: lost 'x'"]
    assert losses({"spec": {"apiVersion": "v1", "x": ""}}, {"spec": {}}) == []
