"""apps/v1 validation: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.api import names
from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_status_update, validate_update

Obj = dict[str, Any]
Mut = Callable[[Obj], None]
NOT_MATCH = 'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`'


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def workload(kind: str, **spec: Any) -> Obj:
    obj: Obj = {
        "apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
                 **spec},
    }
    apply_defaults("apps", kind, obj)
    return obj


def s_(path: str, value: Any) -> Mut:
    def mutate(o: Obj) -> None:
        keys = path.split(".")
        node = o
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return mutate


def d_(path: str) -> Mut:
    def mutate(o: Obj) -> None:
        keys = path.split(".")
        node = o
        for k in keys[:-1]:
            node = node[k]
        del node[keys[-1]]
    return mutate


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"])
def test_valid_workloads_pass(kind: str) -> None:
    assert validate_create("apps", kind, workload(kind)) == []


CASES: list[tuple[str, str, Mut, list[str]]] = [
    ("deploy-selector-mismatch", "Deployment", s_("spec.template.metadata.labels", {"app": "other"}), [NOT_MATCH]),
    ("deploy-selector-missing", "Deployment", d_("spec.selector"),
     ["spec.selector: Required value",
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']),
    ("deploy-selector-empty", "Deployment", s_("spec.selector", {}),
     ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]),
    ("deploy-bad-operator", "Deployment", s_("spec.selector", {"matchExpressions": [{"key": "app", "operator": "Is"}]}),
     ['spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Is"}]}: invalid label selector']),
    ("deploy-negative-replicas", "Deployment", s_("spec.replicas", -1),
     ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    ("deploy-both-zero", "Deployment", s_("spec.strategy.rollingUpdate", {"maxSurge": 0, "maxUnavailable": "0%"}),
     ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0']),
    ("deploy-bad-percent", "Deployment", s_("spec.strategy.rollingUpdate.maxSurge", "25"),
     ["spec.strategy.rollingUpdate.maxSurge: Invalid value: \"25\": a valid percent string must be a numeric string "
      "followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]),
    ("deploy-over-100", "Deployment", s_("spec.strategy.rollingUpdate.maxUnavailable", "150%"),
     ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%']),
    ("deploy-recreate-with-rolling", "Deployment", s_("spec.strategy.type", "Recreate"),
     ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]),
    ("deploy-restart-never", "Deployment", s_("spec.template.spec.restartPolicy", "Never"),
     ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']),
    ("deploy-progress-deadline", "Deployment", s_("spec.minReadySeconds", 600),
     ["spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"]),
    ("deploy-template-container", "Deployment", s_("spec.template.spec.containers", []),
     ["spec.template.spec.containers: Required value"]),
    ("rs-selector-empty", "ReplicaSet", s_("spec.selector", {}),
     ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]),
    ("rs-active-deadline", "ReplicaSet", s_("spec.template.spec.activeDeadlineSeconds", 10),
     ["spec.template.spec.activeDeadlineSeconds: Invalid value: 10: activeDeadlineSeconds in ReplicaSet is not Supported"]),
    ("sts-selector-mismatch", "StatefulSet", s_("spec.template.metadata.labels", {"app": "other"}), [NOT_MATCH]),
    ("sts-pod-management", "StatefulSet", s_("spec.podManagementPolicy", "Random"),
     ['spec.podManagementPolicy: Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\'']),
    ("sts-name-is-label", "StatefulSet", s_("metadata.name", "web.v1"),
     [f'metadata.name: Invalid value: "web.v1": {names.is_dns1123_label("web.v1")[0]}']),
    ("sts-ondelete-with-rolling", "StatefulSet", s_("spec.updateStrategy.type", "OnDelete"),
     ['spec.updateStrategy.rollingUpdate: Invalid value: {"partition":0}: only allowed for updateStrategy '
      "'RollingUpdate'"]),
    ("ds-selector-mismatch", "DaemonSet", s_("spec.template.metadata.labels", {"app": "other"}), [NOT_MATCH]),
    ("ds-both-nonzero", "DaemonSet", s_("spec.updateStrategy.rollingUpdate.maxSurge", 1),
     ["spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"]),
    ("ds-both-zero", "DaemonSet", s_("spec.updateStrategy.rollingUpdate.maxUnavailable", 0),
     ["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]),
    ("ds-empty-selector", "DaemonSet", s_("spec.selector", {}),
     ["spec.selector: Invalid value: {}: empty selector is invalid for daemonset"]),
]


@pytest.mark.parametrize(("kind", "mutate", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_violations(kind: str, mutate: Mut, want: list[str]) -> None:
    obj = workload(kind)
    mutate(obj)
    assert strs(validate_create("apps", kind, obj)) == want


SELECTOR_CHANGE = s_("spec.selector", {"matchLabels": {"app": "web", "v": "2"}})


def _relabel(o: Obj) -> None:
    SELECTOR_CHANGE(o)
    o["spec"]["template"]["metadata"]["labels"] = {"app": "web", "v": "2"}


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "DaemonSet"])
def test_selector_is_immutable(kind: str) -> None:
    old = workload(kind)
    new = copy.deepcopy(old)
    _relabel(new)
    assert strs(validate_update("apps", kind, new, old)) == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable'
    ]


def test_deployment_template_and_replicas_may_change() -> None:
    old = workload("Deployment")
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 5
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    assert validate_update("apps", "Deployment", new, old) == []


def test_statefulset_update_rules() -> None:
    old = workload("StatefulSet", serviceName="web")
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 3
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    assert validate_update("apps", "StatefulSet", new, old) == []
    new["spec"]["serviceName"] = "other"
    assert strs(validate_update("apps", "StatefulSet", new, old)) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' "
        "are forbidden"
    ]


def test_workload_status_update() -> None:
    old = workload("Deployment")
    new = copy.deepcopy(old)
    new["status"] = {"replicas": 1, "readyReplicas": 2, "availableReplicas": -1}
    assert strs(validate_status_update("apps", "Deployment", new, old)) == [
        "status.availableReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
    ]


def test_controller_revision() -> None:
    rev = {"metadata": {"name": "web-1", "namespace": "default"}, "data": {"spec": {}}, "revision": 1}
    assert validate_create("apps", "ControllerRevision", rev) == []
    bad = {"metadata": {"name": "web-1", "namespace": "default"}, "revision": -1}
    assert strs(validate_create("apps", "ControllerRevision", bad)) == [
        "data: Required value: data is mandatory",
        "revision: Invalid value: -1: must be greater than or equal to 0",
    ]
    changed = copy.deepcopy(rev)
    changed["data"] = {"spec": {"x": 1}}
    assert strs(validate_update("apps", "ControllerRevision", changed, rev)) == [
        'data: Invalid value: {"spec":{"x":1}}: field is immutable'
    ]
