"""Pod validation: create rules (ValidatePodCreate/ValidatePodSpec) and update rules (ValidatePodUpdate)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.api import names
from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_status_update, validate_update
from kubelite.apiserver.validation.common import not_found
from kubelite.apiserver.validation.pod import UPDATABLE_POD_SPEC_FIELDS

Obj = dict[str, Any]
LABEL_MSG = names.is_dns1123_label("Bad_Name")[0]
# upstream 'Not found: "data"'; the fallback wording until kubelite.errors gains a NotFound kind
MOUNT_NOT_FOUND = str(not_found("spec.containers[0].volumeMounts[0].name", "data"))


def pod() -> Obj:
    p: Obj = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "uid": "u1",
                     "resourceVersion": "5"},
        "spec": {
            "containers": [{
                "name": "web", "image": "nginx:1.25",
                "ports": [{"containerPort": 80, "name": "http"}],
                "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "1", "memory": "128Mi"}},
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "readinessProbe": {"httpGet": {"port": "http"}},
            }],
            "volumes": [{"name": "data", "emptyDir": {}}],
        },
    }
    apply_defaults("", "Pod", p)
    return p


def ctr(p: Obj, i: int = 0) -> Obj:
    c: Obj = p["spec"]["containers"][i]
    return c


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def test_valid_pod_passes() -> None:
    assert validate_create("", "Pod", pod()) == []


def _set(path: str, value: Any) -> Callable[[Obj], None]:
    def mutate(p: Obj) -> None:
        node = p
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if isinstance(node, list):
            node[int(keys[-1])] = value
        else:
            node[keys[-1]] = value
    return mutate


def _del(path: str) -> Callable[[Obj], None]:
    def mutate(p: Obj) -> None:
        node = p
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        del node[keys[-1]]
    return mutate


def _add_init(p: Obj) -> None:
    init = copy.deepcopy(ctr(p))
    for k in ("readinessProbe", "ports", "volumeMounts"):
        init.pop(k)
    p["spec"]["initContainers"] = [init]


CREATE_CASES: list[tuple[str, Callable[[Obj], None], list[str]]] = [
    ("no-containers", _set("spec.containers", []), ["spec.containers: Required value"]),
    ("container-name-invalid", _set("spec.containers.0.name", "Bad_Name"),
     [f'spec.containers[0].name: Invalid value: "Bad_Name": {LABEL_MSG}']),
    ("container-name-missing", _del("spec.containers.0.name"), ["spec.containers[0].name: Required value"]),
    ("image-missing", _del("spec.containers.0.image"), ["spec.containers[0].image: Required value"]),
    ("duplicate-across-init", _add_init, ['spec.initContainers[0].name: Duplicate value: "web"']),
    ("port-out-of-range", _set("spec.containers.0.ports.0.containerPort", 70000),
     ["spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"]),
    ("port-zero", _set("spec.containers.0.ports.0.containerPort", 0),
     ["spec.containers[0].ports[0].containerPort: Required value"]),
    ("protocol", _set("spec.containers.0.ports.0.protocol", "HTTP"),
     ['spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']),
    ("host-port-range", _set("spec.containers.0.ports.0.hostPort", 99999),
     ["spec.containers[0].ports[0].hostPort: Invalid value: 99999: must be between 1 and 65535, inclusive"]),
    ("env-name-empty", _set("spec.containers.0.env", [{"name": "", "value": "x"}]),
     ["spec.containers[0].env[0].name: Required value",
      'spec.containers[0].env[0].name: Invalid value: "": environment variable name must be non-empty']),
    ("env-name-equals", _set("spec.containers.0.env", [{"name": "A=B"}]),
     ['spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist '
      "only of printable ASCII characters other than '='"]),
    ("volume-two-sources", _set("spec.volumes.0.hostPath", {"path": "/x"}),
     ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type",
      MOUNT_NOT_FOUND]),
    ("volume-no-source", _set("spec.volumes.0", {"name": "data"}),
     ["spec.volumes[0]: Required value: must specify a volume type",
      MOUNT_NOT_FOUND]),
    ("volume-duplicate", _set("spec.volumes", [{"name": "data", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]),
     ['spec.volumes[1].name: Duplicate value: "data"']),
    ("request-above-limit", _set("spec.containers.0.resources.requests", {"cpu": "2"}),
     ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']),
    ("negative-quantity", _set("spec.containers.0.resources", {"limits": {"memory": "-1Gi"}}),
     ['spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0']),
    ("unknown-resource", _set("spec.containers.0.resources.limits", {"gpu": "1"}),
     ['spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers']),
    ("restart-policy", _set("spec.restartPolicy", "Sometimes"),
     ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']),
    ("dns-policy", _set("spec.dnsPolicy", "Google"),
     ['spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", '
      '"ClusterFirst", "Default", "None"']),
    ("probe-no-handler", _set("spec.containers.0.livenessProbe", {"periodSeconds": 10, "successThreshold": 1}),
     ["spec.containers[0].livenessProbe: Required value: must specify a handler type"]),
    ("probe-two-handlers", _set("spec.containers.0.readinessProbe",
                                {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}}),
     ["spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"]),
    ("probe-negative-period", _set("spec.containers.0.readinessProbe.periodSeconds", -1),
     ["spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0"]),
    ("liveness-success-threshold", _set("spec.containers.0.livenessProbe",
                                        {"exec": {"command": ["x"]}, "successThreshold": 2}),
     ["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"]),
    ("toleration-exists-with-value", _set("spec.tolerations", [{"key": "k", "operator": "Exists", "value": "v"}]),
     ['spec.tolerations[0].operator: Invalid value: {"key":"k","operator":"Exists","value":"v"}: '
      "value must be empty when `operator` is 'Exists'"]),
    ("toleration-effect", _set("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "Sometimes"}]),
     ['spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
      '"PreferNoSchedule", "NoExecute"']),
    ("toleration-seconds-without-noexecute", _set("spec.tolerations", [
        {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]),
     ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when '
      "`tolerationSeconds` is set"]),
    ("toleration-empty-key-equal", _set("spec.tolerations", [{"operator": "Equal", "value": "v"}]),
     ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
      'which means "match all values and all keys"']),
    ("node-selector-label", _set("spec.nodeSelector", {"disk": "-ssd"}),
     [f'spec.nodeSelector: Invalid value: "-ssd": {names.is_valid_label_value("-ssd")[0]}']),
    ("node-affinity-empty-terms", _set("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
     ["spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
      "Required value: must have at least one node selector term"]),
    ("node-affinity-in-without-values", _set("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In"}]}]}}}),
     ["spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
      "matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]),
    ("pod-affinity-weight", _set("spec.affinity", {"podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}]}}),
     ["spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
      "Invalid value: 0: must be in the range 1-100"]),
    ("priority-class-name", _set("spec.priorityClassName", "High_Priority"),
     [f'spec.priorityClassName: Invalid value: "High_Priority": '
      f'{names.is_dns1123_subdomain("High_Priority")[0]}']),
    ("active-deadline-zero", _set("spec.activeDeadlineSeconds", 0),
     ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]),
    ("ephemeral-on-create", _set("spec.ephemeralContainers", [{"name": "debug", "image": "busybox"}]),
     ["spec.ephemeralContainers: Forbidden: cannot be set on create"]),
    ("missing-namespace", _del("metadata.namespace"), ["metadata.namespace: Required value"]),
]


@pytest.mark.parametrize(("mutate", "want"), [c[1:] for c in CREATE_CASES], ids=[c[0] for c in CREATE_CASES])
def test_create_violations(mutate: Callable[[Obj], None], want: list[str]) -> None:
    p = pod()
    mutate(p)
    assert strs(validate_create("", "Pod", p)) == want


def test_mount_of_unknown_volume() -> None:
    p = pod()
    ctr(p)["volumeMounts"][0]["name"] = "nope"
    errs = validate_create("", "Pod", p)
    assert len(errs) == 1
    assert errs[0].field == "spec.containers[0].volumeMounts[0].name"
    # upstream: 'Not found: "nope"'; kubelite.errors has no NotFound kind yet, see common.not_found
    assert "Not found" in str(errs[0])
    assert '"nope"' in str(errs[0])


def test_duplicate_host_ports_across_containers() -> None:
    p = pod()
    ctr(p)["ports"][0]["hostPort"] = 8080
    second = copy.deepcopy(ctr(p))
    second["name"] = "sidecar"
    p["spec"]["containers"].append(second)
    assert strs(validate_create("", "Pod", p)) == [
        'spec.containers[1].ports[0].hostPort: Duplicate value: "/TCP/8080"'
    ]


def test_init_container_probe_needs_restart_always() -> None:
    p = pod()
    _add_init(p)
    p["spec"]["initContainers"][0]["name"] = "init"
    p["spec"]["initContainers"][0]["livenessProbe"] = {"exec": {"command": ["x"]}}
    assert strs(validate_create("", "Pod", p)) == [
        "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without "
        "restartPolicy=Always"
    ]
    p["spec"]["initContainers"][0]["restartPolicy"] = "Always"
    p["spec"]["initContainers"][0]["livenessProbe"].update(
        {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
    assert validate_create("", "Pod", p) == []


# --- update -------------------------------------------------------------------------------------------------


def _updated(mutate: Callable[[Obj], None]) -> tuple[Obj, Obj]:
    old = pod()
    new = copy.deepcopy(old)
    mutate(new)
    return new, old


ALLOWED_UPDATES: list[tuple[str, Callable[[Obj], None]]] = [
    ("image", _set("spec.containers.0.image", "nginx:1.26")),
    ("labels", _set("metadata.labels", {"app": "web", "tier": "front"})),
    ("active-deadline-set", _set("spec.activeDeadlineSeconds", 30)),
    ("toleration-added", _set("spec.tolerations", [{"key": "k", "operator": "Exists"}])),
    ("explicit-zero-value", _set("spec.hostNetwork", False)),
]


@pytest.mark.parametrize("mutate", [c[1] for c in ALLOWED_UPDATES], ids=[c[0] for c in ALLOWED_UPDATES])
def test_allowed_updates(mutate: Callable[[Obj], None]) -> None:
    new, old = _updated(mutate)
    assert validate_update("", "Pod", new, old) == []


def test_forbidden_spec_update_names_the_updatable_fields() -> None:
    new, old = _updated(_set("spec.nodeName", "node-1"))
    errs = validate_update("", "Pod", new, old)
    assert len(errs) == 1
    text = str(errs[0])
    assert text.startswith(
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
        "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)\n"
    )
    assert UPDATABLE_POD_SPEC_FIELDS in text
    assert '+ \tnodeName: "node-1"' in text


UPDATE_CASES: list[tuple[str, Callable[[Obj], None], list[str]]] = [
    ("add-container", lambda p: p["spec"]["containers"].append(copy.deepcopy(ctr(p)) | {"name": "two"}),
     ["spec.containers: Forbidden: pod updates may not add or remove containers"]),
    ("image-whitespace", _set("spec.containers.0.image", " nginx"),
     ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']),
    ("name-changed", _set("metadata.name", "other"),
     ['metadata.name: Invalid value: "other": field is immutable']),
    ("uid-changed", _set("metadata.uid", "u2"), ['metadata.uid: Invalid value: "u2": field is immutable']),
]


@pytest.mark.parametrize(("mutate", "want"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_update_violations(mutate: Callable[[Obj], None], want: list[str]) -> None:
    new, old = _updated(mutate)
    assert strs(validate_update("", "Pod", new, old)) == want


def test_active_deadline_may_only_decrease() -> None:
    old = pod()
    old["spec"]["activeDeadlineSeconds"] = 30
    new = copy.deepcopy(old)
    new["spec"]["activeDeadlineSeconds"] = 60
    assert strs(validate_update("", "Pod", new, old)) == [
        "spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value"
    ]
    new["spec"]["activeDeadlineSeconds"] = 10
    assert validate_update("", "Pod", new, old) == []


def test_existing_toleration_cannot_change() -> None:
    old = pod()
    old["spec"]["tolerations"] = [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]
    new = copy.deepcopy(old)
    new["spec"]["tolerations"][0]["tolerationSeconds"] = 1
    assert validate_update("", "Pod", new, old) == []
    new["spec"]["tolerations"][0]["effect"] = "NoSchedule"
    new["spec"]["tolerations"][0].pop("tolerationSeconds")
    assert "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds" in strs(
        validate_update("", "Pod", new, old))


def test_negative_grace_period_may_become_one() -> None:
    old = pod()
    old["spec"]["terminationGracePeriodSeconds"] = -1
    new = copy.deepcopy(old)
    new["spec"]["terminationGracePeriodSeconds"] = 1
    assert validate_update("", "Pod", new, old) == []
    new["spec"]["terminationGracePeriodSeconds"] = 2
    assert len(validate_update("", "Pod", new, old)) == 1


def test_status_update() -> None:
    old = pod()
    new = copy.deepcopy(old)
    new["status"] = {"podIPs": [{"ip": "10.0.0.1"}], "nominatedNodeName": "node_1"}
    assert strs(validate_status_update("", "Pod", new, old)) == [
        f'status.nominatedNodeName: Invalid value: "node_1": {names.is_dns1123_subdomain("node_1")[0]}'
    ]
    new["status"] = {"podIPs": [{"ip": "10.0.0.01"}]}
    assert strs(validate_status_update("", "Pod", new, old)) == [
        'status.podIPs[0]: Invalid value: "10.0.0.01": must not have leading 0s'
    ]


def test_pod_spec_memo_still_reports_every_rejection() -> None:
    from kubelite.apiserver.validation.pod import validate_pod_spec

    good = {"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always",
                            "terminationMessagePolicy": "File"}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst"}
    errs: list[Any] = []
    validate_pod_spec(good, "spec", errs)
    assert errs == []
    bad = copy.deepcopy(good)
    bad["restartPolicy"] = "Sometimes"
    for _ in range(2):  # a rejected spec is never remembered as valid
        errs = []
        validate_pod_spec(bad, "spec", errs)
        assert [e.field for e in errs] == ["spec.restartPolicy"]
    errs = []
    validate_pod_spec(good, "spec.template.spec", errs)  # the path is part of the memo key
    assert errs == []
