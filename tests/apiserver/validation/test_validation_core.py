"""Core kinds other than Pod: Service, ConfigMap, Secret, Namespace, Node, PV, PVC, Event."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.api import names
from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_update

Obj = dict[str, Any]
Mut = Callable[[Obj], None]


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def meta(name: str = "x", namespace: str | None = "default") -> Obj:
    return {"name": name, **({"namespace": namespace} if namespace else {})}


def service() -> Obj:
    s = {"metadata": meta("web"), "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    apply_defaults("", "Service", s)
    return s


def node() -> Obj:
    return {"metadata": meta("node-1", None), "spec": {}}


def pv() -> Obj:
    p = {"metadata": meta("pv1", None),
         "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/d"}}}
    apply_defaults("", "PersistentVolume", p)
    return p


def pvc() -> Obj:
    p = {"metadata": meta("claim"), "spec": {"accessModes": ["ReadWriteOnce"],
                                              "resources": {"requests": {"storage": "1Gi"}}}}
    apply_defaults("", "PersistentVolumeClaim", p)
    return p


def event() -> Obj:
    return {"metadata": meta("e1"), "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
            "reason": "Started", "message": "ok"}


def s_(path: str, value: Any) -> Mut:
    def mutate(o: Obj) -> None:
        keys = path.split(".")
        node_ = o
        for k in keys[:-1]:
            node_ = node_[int(k)] if isinstance(node_, list) else node_[k]
        if isinstance(node_, list):
            node_[int(keys[-1])] = value
        else:
            node_[keys[-1]] = value
    return mutate


FACTORIES: dict[str, Callable[[], Obj]] = {
    "Service": service, "Node": node, "PersistentVolume": pv, "PersistentVolumeClaim": pvc, "Event": event,
    "ConfigMap": lambda: {"metadata": meta("c"), "data": {"a": "b"}},
    "Secret": lambda: {"metadata": meta("s"), "type": "Opaque", "data": {"a": "Yg=="}},
    "Namespace": lambda: {"metadata": meta("team", None), "spec": {"finalizers": ["kubernetes"]}},
    "ServiceAccount": lambda: {"metadata": meta("sa")},
}


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_valid_objects_pass(kind: str) -> None:
    assert validate_create("", kind, FACTORIES[kind]()) == []


def _two_ports(o: Obj) -> None:
    o["spec"]["ports"] = [{"port": 80, "protocol": "TCP", "targetPort": 80},
                          {"port": 81, "protocol": "TCP", "targetPort": 81}]


CASES: list[tuple[str, str, Mut, list[str]]] = [
    ("svc-type", "Service", s_("spec.type", "Magic"),
     ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']),
    ("svc-no-ports", "Service", s_("spec.ports", []), ["spec.ports: Required value"]),
    ("svc-headless-no-ports-ok", "Service", lambda o: o["spec"].update(ports=[], clusterIP="None"), []),
    ("svc-port-names-required", "Service", _two_ports,
     ["spec.ports[0].name: Required value", "spec.ports[1].name: Required value"]),
    ("svc-port-range", "Service", s_("spec.ports.0.port", 0),
     ["spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"]),
    ("svc-target-port-range", "Service", s_("spec.ports.0.targetPort", 70000),
     ["spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"]),
    ("svc-target-port-name", "Service", s_("spec.ports.0.targetPort", "HTTP"),
     ['spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), '
      "and hyphens (-)", 'spec.ports[0].targetPort: Invalid value: "HTTP": must contain at least one letter (a-z)']),
    ("svc-duplicate-port-name", "Service", s_("spec.ports", [
        {"name": "a", "port": 80, "protocol": "TCP", "targetPort": 80},
        {"name": "a", "port": 81, "protocol": "TCP", "targetPort": 81}]),
     ['spec.ports[1].name: Duplicate value: "a"']),
    ("svc-duplicate-port", "Service", s_("spec.ports", [
        {"name": "a", "port": 80, "protocol": "TCP", "targetPort": 80},
        {"name": "b", "port": 80, "protocol": "TCP", "targetPort": 81}]),
     ['spec.ports[1]: Duplicate value: {"protocol":"TCP","port":80}']),
    ("svc-selector-label", "Service", s_("spec.selector", {"app": "-x"}),
     [f'spec.selector: Invalid value: "-x": {names.is_valid_label_value("-x")[0]}']),
    ("svc-nodeport-on-clusterip", "Service", s_("spec.ports.0.nodePort", 30000),
     ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]),
    ("svc-session-affinity", "Service", s_("spec.sessionAffinity", "Cookie"),
     ['spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None"']),
    ("svc-cluster-ip", "Service", s_("spec.clusterIP", "10.0.0.300"),
     ['spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']),
    ("svc-external-name-required", "Service", lambda o: o["spec"].update(type="ExternalName", ports=[]),
     ["spec.externalName: Required value"]),
    ("cm-bad-key", "ConfigMap", s_("data", {"a b": "x"}),
     ["data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' "
      "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]),
    ("cm-too-big", "ConfigMap", s_("data", {"a": "x" * (1024 * 1024 + 1)}),
     ["Too long: may not be more than 1048576 bytes"]),
    ("cm-duplicate-binary", "ConfigMap", lambda o: o.update(binaryData={"a": "eA=="}),
     ['data[a]: Invalid value: "a": duplicate of key present in binaryData']),
    ("secret-dot-key", "Secret", s_("data", {"..a": "eA=="}),
     ["data[..a]: Invalid value: \"..a\": must not start with '..'"]),
    ("secret-tls", "Secret", s_("type", "kubernetes.io/tls"),
     ["data[tls.crt]: Required value", "data[tls.key]: Required value"]),
    ("secret-sa-token", "Secret", s_("type", "kubernetes.io/service-account-token"),
     ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]),
    ("ns-finalizer", "Namespace", s_("spec.finalizers", ["custom"]),
     ['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']),
    ("node-taint-effect", "Node", s_("spec.taints", [{"key": "k", "effect": "Sometimes"}]),
     ['metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
      '"PreferNoSchedule", "NoExecute"']),
    ("node-taint-duplicate", "Node", s_("spec.taints", [{"key": "k", "effect": "NoSchedule"},
                                                        {"key": "k", "effect": "NoSchedule", "value": "v"}]),
     ['metadata.taints[1]: Duplicate value: {"key":"k","effect":"NoSchedule","value":"v"}: taints must be '
      "unique by key and effect pair"]),
    ("node-pod-cidr", "Node", s_("spec.podCIDRs", ["10.0.0.0/33"]),
     ['spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']),
    ("node-two-v4-cidrs", "Node", s_("spec.podCIDRs", ["10.0.0.0/24", "10.0.1.0/24"]),
     ['spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.0.1.0/24"]: may specify no more than one CIDR for each IP family']),
    ("pv-access-modes", "PersistentVolume", s_("spec.accessModes", []), ["spec.accessModes: Required value"]),
    ("pv-access-mode-unknown", "PersistentVolume", s_("spec.accessModes", ["ReadSometimes"]),
     ['spec.accessModes: Unsupported value: "ReadSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
      '"ReadWriteOnce", "ReadWriteOncePod"']),
    ("pv-no-source", "PersistentVolume", lambda o: o["spec"].pop("hostPath"),
     ["spec: Required value: must specify a volume type"]),
    ("pv-zero-capacity", "PersistentVolume", s_("spec.capacity", {"storage": "0"}),
     ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']),
    ("pvc-access-modes", "PersistentVolumeClaim", s_("spec.accessModes", []),
     ["spec.accessModes: Required value: at least 1 access mode is required"]),
    ("pvc-storage-required", "PersistentVolumeClaim", s_("spec.resources", {}),
     ["spec.resources[storage]: Required value"]),
    ("event-namespace-mismatch", "Event", s_("involvedObject.namespace", "other"),
     ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']),
]


@pytest.mark.parametrize(("kind", "mutate", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_violations(kind: str, mutate: Mut, want: list[str]) -> None:
    obj = FACTORIES[kind]()
    mutate(obj)
    assert strs(validate_create("", kind, obj)) == want


UPDATE_CASES: list[tuple[str, str, Mut, Mut, list[str]]] = [
    ("svc-cluster-ip-immutable", "Service", s_("spec.clusterIPs", ["10.0.0.1"]), s_("spec.clusterIPs", ["10.0.0.2"]),
     ['spec.clusterIPs[0]: Invalid value: ["10.0.0.2"]: may not change once set']),
    ("svc-cluster-ip-kept", "Service", s_("spec.clusterIPs", ["10.0.0.1"]), s_("spec.clusterIPs", ["10.0.0.1"]), []),
    ("secret-type-immutable", "Secret", s_("type", "Opaque"), s_("type", "kubernetes.io/basic-auth"),
     ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      "data[username]: Required value", "data[password]: Required value"]),
    ("secret-immutable-data", "Secret", s_("immutable", True),
     lambda o: o.update(immutable=True, data={"a": "Yw=="}),
     ["data: Forbidden: field is immutable when `immutable` is set"]),
    ("cm-immutable-flag", "ConfigMap", s_("immutable", True), s_("immutable", False),
     ["immutable: Forbidden: field is immutable when `immutable` is set"]),
    ("node-pod-cidr-change", "Node", s_("spec.podCIDRs", ["10.0.0.0/24"]), s_("spec.podCIDRs", ["10.0.1.0/24"]),
     ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']),
    ("node-pod-cidr-set", "Node", lambda o: None, s_("spec.podCIDRs", ["10.0.1.0/24"]), []),
    ("pv-source-immutable", "PersistentVolume", lambda o: None, s_("spec.hostPath", {"path": "/e", "type": ""}),
     ["spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation"]),
    ("pvc-spec-immutable", "PersistentVolumeClaim", lambda o: None, s_("spec.accessModes", ["ReadWriteMany"]),
     ["spec: Forbidden: spec is immutable after creation except resources.requests and "
      "volumeAttributesClassName for bound claims"]),
    ("pvc-bind-volume-name", "PersistentVolumeClaim", lambda o: None, s_("spec.volumeName", "pv1"), []),
    ("pvc-bound-expand", "PersistentVolumeClaim", s_("status", {"phase": "Bound"}),
     lambda o: o["spec"]["resources"]["requests"].update(storage="2Gi"), []),
    ("pvc-bound-shrink", "PersistentVolumeClaim", s_("status", {"phase": "Bound"}),
     lambda o: o["spec"]["resources"]["requests"].update(storage="512Mi"),
     ["spec.resources.requests.storage: Forbidden: field can not be less than previous value"]),
]


@pytest.mark.parametrize(("kind", "prep", "mutate", "want"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_update_rules(kind: str, prep: Mut, mutate: Mut, want: list[str]) -> None:
    old = FACTORIES[kind]()
    prep(old)
    new = copy.deepcopy(old)
    mutate(new)
    assert strs(validate_update("", kind, new, old)) == want
