"""Validation and defaulting of the kinds served since issue 14: Ingress, IngressClass, NetworkPolicy
(``pkg/apis/networking/validation``), ReplicationController, LimitRange, ResourceQuota
(``pkg/apis/core/validation``). Each case mutates a valid object and names the errors upstream reports."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_status_update, validate_update

Obj = dict[str, Any]
NET = "networking.k8s.io"


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def _defaulted(group: str, kind: str, obj: Obj) -> Obj:
    apply_defaults(group, kind, obj)
    return obj


def ingress() -> Obj:
    return {"metadata": {"name": "web", "namespace": "default"}, "spec": {"rules": [{
        "host": "a.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix",
                                                     "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}


def ingress_class() -> Obj:
    return _defaulted(NET, "IngressClass", {"metadata": {"name": "nginx"}, "spec": {
        "controller": "k8s.io/ingress-nginx", "parameters": {"kind": "IngressParameters", "name": "p"}}})


def network_policy() -> Obj:
    return _defaulted(NET, "NetworkPolicy", {"metadata": {"name": "np", "namespace": "default"}, "spec": {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}], "ports": [{"port": 5432}]}]}})


def rc() -> Obj:
    return _defaulted("", "ReplicationController", {"metadata": {"name": "rc", "namespace": "default"}, "spec": {
        "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})


def limit_range() -> Obj:
    return _defaulted("", "LimitRange", {"metadata": {"name": "lr", "namespace": "default"}, "spec": {"limits": [
        {"type": "Container", "max": {"cpu": "2"}, "min": {"cpu": "100m"}, "default": {"cpu": "500m"}}]}})


def quota() -> Obj:
    return {"metadata": {"name": "q", "namespace": "default"}, "spec": {"hard": {"pods": "10", "requests.cpu": "4"}}}


FACTORIES: dict[str, tuple[str, Callable[[], Obj]]] = {
    "Ingress": (NET, ingress), "IngressClass": (NET, ingress_class), "NetworkPolicy": (NET, network_policy),
    "ReplicationController": ("", rc), "LimitRange": ("", limit_range), "ResourceQuota": ("", quota),
}


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_valid_objects_pass_create_and_update(kind: str) -> None:
    group, make = FACTORIES[kind]
    obj = make()
    assert validate_create(group, kind, obj) == []
    assert validate_update(group, kind, copy.deepcopy(obj), obj) == []


def _set(path: str, value: Any) -> Callable[[Obj], None]:
    def mutate(obj: Obj) -> None:
        node: Any = obj
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if k.isdigit() else node[k]
        last = keys[-1]
        if value is _DELETE:
            del node[last]
        elif last.isdigit():
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


_DELETE = object()
_BACKEND = "spec.rules.0.http.paths.0.backend"

CASES: list[tuple[str, str, Callable[[Obj], None], list[str]]] = [
    # --- Ingress ---
    ("ingress-no-rules-no-default", "Ingress", _set("spec", {}),
     ["spec: Invalid value: []: either `defaultBackend` or `rules` must be specified"]),
    ("ingress-ip-host", "Ingress", _set("spec.rules.0.host", "10.0.0.1"),
     ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']),
    ("ingress-missing-path-type", "Ingress", _set("spec.rules.0.http.paths.0.pathType", _DELETE),
     ["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"]),
    ("ingress-bad-path-type", "Ingress", _set("spec.rules.0.http.paths.0.pathType", "Regex"),
     ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", '
      '"ImplementationSpecific", "Prefix"']),
    ("ingress-relative-prefix", "Ingress", _set("spec.rules.0.http.paths.0.path", "api"),
     ['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path']),
    ("ingress-both-backends", "Ingress", _set(f"{_BACKEND}.resource", {"kind": "Bucket", "name": "b"}),
     ['spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends']),
    ("ingress-no-backend", "Ingress", _set(_BACKEND, {}),
     ["spec.rules[0].http.paths[0].backend: Required value: resource or service backend is required"]),
    ("ingress-port-required", "Ingress", _set(f"{_BACKEND}.service.port", {}),
     ["spec.rules[0].http.paths[0].backend.service.port: Required value: port name or number is required"]),
    ("ingress-port-out-of-range", "Ingress", _set(f"{_BACKEND}.service.port", {"number": 70000}),
     ["spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 70000: "
      "must be between 1 and 65535, inclusive"]),
    ("ingress-class-annotation-mismatch", "Ingress",
     lambda o: (o["spec"].__setitem__("ingressClassName", "nginx"),
                o["metadata"].__setitem__("annotations", {"kubernetes.io/ingress.class": "traefik"})),
     ['metadata.annotations.kubernetes.io/ingress.class: Invalid value: "traefik": '
      "must match `ingressClassName` when both are specified"]),
    # --- IngressClass ---
    ("ingressclass-controller-required", "IngressClass", _set("spec.controller", ""),
     ["spec.controller: Required value"]),
    ("ingressclass-namespace-scope-needs-namespace", "IngressClass", _set("spec.parameters.scope", "Namespace"),
     ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]),
    # --- NetworkPolicy ---
    ("netpol-bad-protocol", "NetworkPolicy", _set("spec.ingress.0.ports.0.protocol", "ICMP"),
     ['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']),
    ("netpol-end-port-below-port", "NetworkPolicy", _set("spec.ingress.0.ports.0.endPort", 80),
     ["spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`"]),
    ("netpol-end-port-named-port", "NetworkPolicy",
     _set("spec.ingress.0.ports.0", {"port": "http", "endPort": 90, "protocol": "TCP"}),
     ["spec.ingress[0].ports[0].endPort: Forbidden: may not be specified when `port` is non-numeric"]),
    ("netpol-empty-peer", "NetworkPolicy", _set("spec.ingress.0.from.0", {}),
     ["spec.ingress[0].from[0]: Required value: must specify a peer"]),
    ("netpol-ipblock-and-selector", "NetworkPolicy",
     _set("spec.ingress.0.from.0", {"ipBlock": {"cidr": "10.0.0.0/8"}, "podSelector": {}}),
     ["spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"]),
    ("netpol-except-not-subset", "NetworkPolicy",
     _set("spec.ingress.0.from.0", {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24"]}}),
     ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`']),
    ("netpol-bad-policy-type", "NetworkPolicy", _set("spec.policyTypes", ["Sideways"]),
     ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Egress", "Ingress"']),
    # --- ReplicationController ---
    ("rc-selector-mismatch", "ReplicationController", _set("spec.selector", {"app": "y"}),
     ['spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`']),
    ("rc-negative-replicas", "ReplicationController", _set("spec.replicas", -1),
     ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    ("rc-restart-never", "ReplicationController", _set("spec.template.spec.restartPolicy", "Never"),
     ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']),
    ("rc-no-template", "ReplicationController", _set("spec.template", _DELETE),
     ["spec.template: Required value"]),
    # --- LimitRange ---
    ("limitrange-min-over-max", "LimitRange", _set("spec.limits.0.min", {"cpu": "3"}),
     ['spec.limits[0].min[cpu]: Invalid value: "3": min value 3 is greater than max value 2',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "500m": min value 3 is greater than default request '
      "value 500m",
      'spec.limits[0].default[cpu]: Invalid value: "500m": min value 3 is greater than default value 500m']),
    ("limitrange-ratio-below-one", "LimitRange", _set("spec.limits.0.maxLimitRequestRatio", {"cpu": "500m"}),
     ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']),
    ("limitrange-pod-default", "LimitRange",
     _set("spec.limits.0", {"type": "Pod", "max": {"cpu": "2"}, "default": {"cpu": "1"}}),
     ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]),
    ("limitrange-negative", "LimitRange", _set("spec.limits.0", {"type": "Container", "max": {"memory": "-1"}}),
     ['spec.limits[0].max[memory]: Invalid value: "-1": must be greater than or equal to 0']),
    # --- ResourceQuota ---
    ("quota-negative", "ResourceQuota", _set("spec.hard.pods", "-1"),
     ['spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0']),
    ("quota-bad-scope", "ResourceQuota", _set("spec.scopes", ["Expensive"]),
     ['spec.scopes[0]: Unsupported value: "Expensive": supported values: "BestEffort", "CrossNamespacePodAffinity", '
      '"NotBestEffort", "NotTerminating", "PriorityClass", "Terminating", "VolumeAttributesClass"']),
]


@pytest.mark.parametrize(("kind", "mutate", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_objects(kind: str, mutate: Callable[[Obj], None], expected: list[str]) -> None:
    group, make = FACTORIES[kind]
    obj = make()
    mutate(obj)
    assert strs(validate_create(group, kind, obj)) == expected


def test_limit_range_default_over_max_reports_default_only() -> None:
    obj = limit_range()
    obj["spec"]["limits"][0]["default"] = {"cpu": "4"}
    obj["spec"]["limits"][0]["defaultRequest"] = {"cpu": "500m"}
    assert strs(validate_create("", "LimitRange", obj)) == [
        'spec.limits[0].default[cpu]: Invalid value: "4": default value 4 is greater than max value 2']


UPDATES: list[tuple[str, str, Callable[[Obj], None], list[str]]] = [
    ("ingressclass-controller-immutable", "IngressClass", _set("spec.controller", "example.com/other"),
     ['spec.controller: Invalid value: "example.com/other": field is immutable']),
    ("quota-scopes-immutable", "ResourceQuota", _set("spec.scopes", ["BestEffort"]),
     ['spec.scopes: Invalid value: ["BestEffort"]: field is immutable']),
    ("rc-selector-mutable", "ReplicationController",
     lambda o: (o["spec"].__setitem__("selector", {"app": "y"}),
                o["spec"]["template"]["metadata"].__setitem__("labels", {"app": "y"})), []),
]


@pytest.mark.parametrize(("kind", "mutate", "expected"), [c[1:] for c in UPDATES], ids=[c[0] for c in UPDATES])
def test_updates(kind: str, mutate: Callable[[Obj], None], expected: list[str]) -> None:
    group, make = FACTORIES[kind]
    old = make()
    new = copy.deepcopy(old)
    mutate(new)
    assert strs(validate_update(group, kind, new, old)) == expected


def test_quota_status_update_rejects_negative_used() -> None:
    old = quota()
    new = copy.deepcopy(old)
    new["status"] = {"hard": {"pods": "10"}, "used": {"pods": "-2"}}
    assert strs(validate_status_update("", "ResourceQuota", new, old)) == [
        'status.used[pods]: Invalid value: "-2": must be greater than or equal to 0']


DEFAULTS: list[tuple[str, str, str, Obj, Obj]] = [
    ("rc-selector-labels-replicas-from-template", "", "ReplicationController",
     {"metadata": {"name": "rc"}, "spec": {"template": {"metadata": {"labels": {"app": "x"}}, "spec": {}}}},
     {"selector": {"app": "x"}, "replicas": 1, "labels": {"app": "x"}}),
    ("rc-keeps-explicit-selector", "", "ReplicationController",
     {"metadata": {"name": "rc", "labels": {"team": "a"}}, "spec": {"replicas": 0, "selector": {"app": "x"},
      "template": {"metadata": {"labels": {"app": "x", "v": "1"}}, "spec": {}}}},
     {"selector": {"app": "x"}, "replicas": 0, "labels": {"team": "a"}}),
    ("limitrange-default-from-max-request-from-default-then-min", "", "LimitRange",
     {"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}},
     {"default": {"cpu": "2"}, "defaultRequest": {"cpu": "2", "memory": "1Mi"}}),
    ("netpol-types-ingress-egress-and-tcp", NET, "NetworkPolicy",
     {"spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}]}},
     {"policyTypes": ["Ingress", "Egress"], "protocol": "TCP"}),
    ("netpol-types-ingress-only", NET, "NetworkPolicy", {"spec": {"podSelector": {}}}, {"policyTypes": ["Ingress"]}),
    ("ingressclass-scope-cluster", NET, "IngressClass",
     {"spec": {"controller": "a.io/b", "parameters": {"kind": "K", "name": "n"}}}, {"scope": "Cluster"}),
]


def _observe(kind: str, obj: Obj) -> Obj:
    spec = obj["spec"]
    if kind == "ReplicationController":
        return {"selector": spec["selector"], "replicas": spec["replicas"], "labels": obj["metadata"]["labels"]}
    if kind == "LimitRange":
        item = spec["limits"][0]
        return {"default": item.get("default"), "defaultRequest": item.get("defaultRequest")}
    if kind == "NetworkPolicy":
        out: Obj = {"policyTypes": spec["policyTypes"]}
        if spec.get("egress"):
            out["protocol"] = spec["egress"][0]["ports"][0]["protocol"]
        return out
    return {"scope": spec["parameters"]["scope"]}


@pytest.mark.parametrize(("group", "kind", "obj", "expected"), [c[1:] for c in DEFAULTS], ids=[c[0] for c in DEFAULTS])
def test_defaults(group: str, kind: str, obj: Obj, expected: Obj) -> None:
    obj = copy.deepcopy(obj)
    apply_defaults(group, kind, obj)
    assert _observe(kind, obj) == expected
    again = copy.deepcopy(obj)
    apply_defaults(group, kind, again)
    assert again == obj  # idempotent
