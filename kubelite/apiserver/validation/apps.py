"""Validation of ``apps/v1``: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision.

Follows ``pkg/apis/apps/validation/validation.go`` (``ValidateDeploymentSpec``, ``ValidateReplicaSetSpec``,
``ValidateStatefulSetSpec``/``ValidateStatefulSetUpdate``, ``ValidateDaemonSetSpec``,
``ValidateControllerRevision``, ``ValidatePodTemplateSpecForReplicaSet``) and the apps/v1 strategies'
rule that ``spec.selector`` is immutable (``pkg/registry/apps/*/strategy.go``). Status updates check
upstream's ``Validate*Status`` counters. Contract: read-only over JSON, errors in upstream's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    immutable,
    int_or_percent,
    label_selector,
    nonnegative,
    not_more_than_100_percent,
    positive_int_or_percent,
    selector_of,
    semantic_equal,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.apiserver.validation.pod import validate_pod_template_meta, validate_pod_template_spec
from kubelite.apiserver.validation.volumes import validate_pvc_spec
from kubelite.errors import FieldError

__all__ = [
    "validate_controller_revision",
    "validate_controller_revision_update",
    "validate_daemon_set",
    "validate_daemon_set_update",
    "validate_deployment",
    "validate_deployment_update",
    "validate_replica_set",
    "validate_replica_set_update",
    "validate_stateful_set",
    "validate_stateful_set_update",
    "validate_workload_status_update",
]

_NOT_MATCH = "`selector` does not match template `labels`"


def _template_labels(template: Any) -> Mapping[str, Any] | None:
    labels = as_dict(as_dict(template).get("metadata")).get("labels")
    return labels if isinstance(labels, dict) else None


def _selector_required(spec: Mapping[str, Any], kind: str, errs: list[FieldError]) -> None:
    selector = spec.get("selector")
    if selector is None:
        errs.append(FieldError.required("spec.selector"))
        return
    label_selector(selector, "spec.selector", errs)
    sel = as_dict(selector)
    if not sel.get("matchLabels") and not sel.get("matchExpressions"):
        errs.append(FieldError.invalid("spec.selector", selector, f"empty selector is invalid for {kind}"))


def _template_for_replica_set(spec: Mapping[str, Any], errs: list[FieldError], *, kind: str) -> None:
    """The selector conversion plus ``ValidatePodTemplateSpecForReplicaSet``."""
    selector = selector_of(spec.get("selector"))
    if selector is None:
        errs.append(FieldError.invalid("spec.selector", spec.get("selector"), "invalid label selector"))
        return
    template = spec.get("template")
    if template is None:
        errs.append(FieldError.required("spec.template"))
        return
    labels = _template_labels(template)
    if not selector.empty() and not selector.matches(labels):
        errs.append(FieldError.invalid("spec.template.metadata.labels", labels, _NOT_MATCH))
    validate_replica_pod_template(template, errs, kind=kind)


def validate_replica_pod_template(template: Any, errs: list[FieldError], *, kind: str) -> None:
    """The pod-template rules ``ValidatePodTemplateSpecForReplicaSet`` and ``ValidatePodTemplateSpecForRC``
    share: a valid template whose pods always restart and have no active deadline."""
    validate_pod_template_spec(template, "spec.template", errs)
    tspec = as_dict(as_dict(template).get("spec"))
    restart = tspec.get("restartPolicy") or ""
    if restart != "Always":
        errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart, ("Always",)))
    deadline = tspec.get("activeDeadlineSeconds")
    if deadline is not None:
        errs.append(FieldError.invalid(
            "spec.template.spec.activeDeadlineSeconds", deadline, f"activeDeadlineSeconds in {kind} is not Supported"))


def _meta(obj: Mapping[str, Any], name_fn: Any = names.name_is_dns_subdomain) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=True, name_fn=name_fn)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


def _selector_immutable(obj: Mapping[str, Any], old: Mapping[str, Any], errs: list[FieldError]) -> None:
    new_sel = as_dict(obj.get("spec")).get("selector")
    old_sel = as_dict(old.get("spec")).get("selector")
    if not semantic_equal(new_sel, old_sel):
        errs.append(FieldError.invalid("spec.selector", new_sel, "field is immutable"))


# --- Deployment ------------------------------------------------------------------------------------------


def _deployment_strategy(strategy: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateDeploymentStrategy`` / ``ValidateRollingUpdateDeployment``."""
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            errs.append(FieldError.forbidden(
                "spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"))
    elif kind == "RollingUpdate":
        if rolling is None:
            errs.append(FieldError.required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"))
            return
        rolling = as_dict(rolling)
        p = "spec.strategy.rollingUpdate"
        max_unavailable = rolling.get("maxUnavailable")
        max_surge = rolling.get("maxSurge")
        positive_int_or_percent(max_unavailable, f"{p}.maxUnavailable", errs)
        positive_int_or_percent(max_surge, f"{p}.maxSurge", errs)
        if int_or_percent(max_unavailable) == 0 and int_or_percent(max_surge) == 0:
            errs.append(FieldError.invalid(f"{p}.maxUnavailable", max_unavailable, "may not be 0 when `maxSurge` is 0"))
        not_more_than_100_percent(max_unavailable, f"{p}.maxUnavailable", errs)
    else:
        errs.append(FieldError.not_supported("spec.strategy", dict(strategy), ("Recreate", "RollingUpdate")))


def _deployment_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateDeploymentSpec``."""
    nonnegative(spec.get("replicas"), "spec.replicas", errs)
    _selector_required(spec, "deployment", errs)
    _template_for_replica_set(spec, errs, kind="ReplicaSet")
    _deployment_strategy(as_dict(spec.get("strategy")), errs)
    min_ready = spec.get("minReadySeconds") or 0
    nonnegative(min_ready, "spec.minReadySeconds", errs)
    nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        nonnegative(deadline, "spec.progressDeadlineSeconds", errs)
        if isinstance(deadline, int) and isinstance(min_ready, int) and deadline <= min_ready:
            errs.append(FieldError.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))


def validate_deployment(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _deployment_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_deployment_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _deployment_spec(as_dict(obj.get("spec")), errs)
    _selector_immutable(obj, old, errs)
    return errs


# --- ReplicaSet ------------------------------------------------------------------------------------------


def _replica_set_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateReplicaSetSpec`` (upstream's empty-selector message says "deployment" here too)."""
    nonnegative(spec.get("replicas"), "spec.replicas", errs)
    nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds", errs)
    _selector_required(spec, "deployment", errs)
    _template_for_replica_set(spec, errs, kind="ReplicaSet")


def validate_replica_set(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _replica_set_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_replica_set_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _replica_set_spec(as_dict(obj.get("spec")), errs)
    _selector_immutable(obj, old, errs)
    return errs


# --- StatefulSet -----------------------------------------------------------------------------------------


def _stateful_set_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateStatefulSetSpec``."""
    policy = spec.get("podManagementPolicy")
    if not policy:
        errs.append(FieldError.required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = as_dict(spec.get("updateStrategy"))
    stype = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if not stype:
        errs.append(FieldError.required("spec.updateStrategy"))
    elif stype == "OnDelete":
        if rolling is not None:
            errs.append(FieldError.invalid(
                "spec.updateStrategy.rollingUpdate", rolling, "only allowed for updateStrategy 'RollingUpdate'"))
    elif stype == "RollingUpdate":
        if rolling is not None:
            rolling = as_dict(rolling)
            nonnegative(rolling.get("partition"), "spec.updateStrategy.rollingUpdate.partition", errs)
            unavailable = rolling.get("maxUnavailable")
            if unavailable is not None:
                p = "spec.updateStrategy.rollingUpdate.maxUnavailable"
                positive_int_or_percent(unavailable, p, errs)
                if int_or_percent(unavailable) == 0:
                    errs.append(FieldError.invalid(p, unavailable, "cannot be 0"))
                not_more_than_100_percent(unavailable, p, errs)
    else:
        errs.append(FieldError.invalid("spec.updateStrategy", dict(strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        for key in ("whenDeleted", "whenScaled"):
            value = as_dict(retention).get(key)
            if value not in ("Retain", "Delete"):
                errs.append(FieldError.not_supported(
                    f"spec.persistentVolumeClaimRetentionPolicy.{key}", value, ("Retain", "Delete")))
    nonnegative(spec.get("replicas"), "spec.replicas", errs)
    nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds", errs)
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        nonnegative(as_dict(ordinals).get("start"), "spec.ordinals.start", errs)
    service_name = spec.get("serviceName")
    if service_name:
        for msg in names.name_is_dns1035_label(service_name, False):
            errs.append(FieldError.invalid("spec.serviceName", service_name, msg))
    _selector_required(spec, "statefulset", errs)
    selector = selector_of(spec.get("selector"))
    template = spec.get("template")
    if selector is None:
        errs.append(FieldError.invalid("spec.selector", spec.get("selector"), ""))
    elif template is None:
        errs.append(FieldError.required("spec.template"))
    else:
        labels = _template_labels(template)
        if not selector.empty() and not selector.matches(labels):
            errs.append(FieldError.invalid("spec.template.metadata.labels", labels, _NOT_MATCH))
        # ValidatePodTemplateSpecForStatefulSet: upstream does not validate the PodSpec here (its TODO:
        # volume mounts may name volumeClaimTemplates, which are not pod volumes)
        validate_pod_template_meta(template, "spec.template", errs)
    tspec = as_dict(as_dict(template).get("spec"))
    if (tspec.get("restartPolicy") or "") != "Always":
        errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", (tspec.get("restartPolicy") or ""), ("Always",)))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(FieldError.forbidden(
            "spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"))
    for i, claim in enumerate(as_list(spec.get("volumeClaimTemplates"))):
        validate_pvc_spec(as_dict(as_dict(claim).get("spec")), f"spec.volumeClaimTemplates[{i}].spec", errs)


def validate_stateful_set(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSet``: names are DNS-1123 labels (pods are named ``<name>-<ordinal>``)."""
    errs = _meta(obj, names.name_is_dns_label)
    _stateful_set_spec(as_dict(obj.get("spec")), errs)
    return errs


_STS_MUTABLE = (
    "replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy", "minReadySeconds",
)


def validate_stateful_set_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSetUpdate``: only the listed spec fields may change."""
    errs = _meta_update(obj, old)
    spec = as_dict(obj.get("spec"))
    _stateful_set_spec(spec, errs)
    old_spec = as_dict(old.get("spec"))
    rest = {k: v for k, v in spec.items() if k not in _STS_MUTABLE}
    old_rest = {k: v for k, v in old_spec.items() if k not in _STS_MUTABLE}
    if not semantic_equal(rest, old_rest):
        errs.append(FieldError.forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden"))
    return errs


# --- DaemonSet -------------------------------------------------------------------------------------------


def _daemon_set_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateDaemonSetSpec``."""
    raw_selector = spec.get("selector")
    label_selector(raw_selector, "spec.selector", errs)
    template = as_dict(spec.get("template"))
    selector = selector_of(raw_selector)
    labels = _template_labels(template)
    if selector is not None and not selector.matches(labels):
        errs.append(FieldError.invalid("spec.template.metadata.labels", labels, _NOT_MATCH))
    sel = as_dict(raw_selector)
    if raw_selector is not None and not sel.get("matchLabels") and not sel.get("matchExpressions"):
        errs.append(FieldError.invalid("spec.selector", raw_selector, "empty selector is invalid for daemonset"))
    validate_pod_template_spec(template, "spec.template", errs)
    tspec = as_dict(template.get("spec"))
    if (tspec.get("restartPolicy") or "") != "Always":
        errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", (tspec.get("restartPolicy") or ""), ("Always",)))
    deadline = tspec.get("activeDeadlineSeconds")
    if deadline is not None:
        errs.append(FieldError.invalid(
            "spec.template.spec.activeDeadlineSeconds", deadline, "activeDeadlineSeconds in DaemonSet is not Supported"))
    nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds", errs)
    nonnegative(spec.get("templateGeneration"), "spec.templateGeneration", errs)
    strategy = as_dict(spec.get("updateStrategy"))
    stype = strategy.get("type")
    if stype == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if rolling is None:
            errs.append(FieldError.required("spec.updateStrategy.rollingUpdate"))
        else:
            _daemon_rolling(as_dict(rolling), errs)
    elif stype != "OnDelete":
        errs.append(FieldError.not_supported("spec.updateStrategy", dict(strategy), ("RollingUpdate", "OnDelete")))
    nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)


def _daemon_rolling(rolling: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateRollingUpdateDaemonSet``: exactly one of maxUnavailable and maxSurge is non-zero."""
    p = "spec.updateStrategy.rollingUpdate"
    unavailable = rolling.get("maxUnavailable")
    surge = rolling.get("maxSurge")
    positive_int_or_percent(unavailable, f"{p}.maxUnavailable", errs)
    positive_int_or_percent(surge, f"{p}.maxSurge", errs)
    not_more_than_100_percent(unavailable, f"{p}.maxUnavailable", errs)
    not_more_than_100_percent(surge, f"{p}.maxSurge", errs)
    has_unavailable = int_or_percent(unavailable) != 0
    has_surge = int_or_percent(surge) != 0
    if has_unavailable and has_surge:
        errs.append(FieldError.invalid(f"{p}.maxSurge", surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errs.append(FieldError.required(f"{p}.maxUnavailable", "cannot be 0 when maxSurge is 0"))


def validate_daemon_set(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _daemon_set_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_daemon_set_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _daemon_set_spec(as_dict(obj.get("spec")), errs)
    _selector_immutable(obj, old, errs)
    return errs


# --- ControllerRevision ----------------------------------------------------------------------------------


def validate_controller_revision(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateControllerRevision``: data is mandatory, revision non-negative."""
    errs = _meta(obj)
    if obj.get("data") is None:
        errs.append(FieldError.required("data", "data is mandatory"))
    nonnegative(obj.get("revision"), "revision", errs)
    return errs


def validate_controller_revision_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateControllerRevisionUpdate``: data is immutable."""
    errs = _meta_update(obj, old)
    errs.extend(validate_controller_revision(obj))
    if not semantic_equal(obj.get("data"), old.get("data")):
        immutable(obj.get("data"), old.get("data"), "data", errs)
    return errs


# --- status ----------------------------------------------------------------------------------------------

_STATUS_COUNTERS = (
    "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas",
    "currentReplicas", "fullyLabeledReplicas", "terminatingReplicas", "collisionCount",
    "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
    "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
)


def validate_workload_status_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``Validate{Deployment,ReplicaSet,StatefulSet,DaemonSet}StatusUpdate``: metadata rules and
    non-negative counters no larger than ``status.replicas``."""
    errs = _meta_update(obj, old)
    status = as_dict(obj.get("status"))
    nonnegative(status.get("observedGeneration"), "status.observedGeneration", errs)
    for key in _STATUS_COUNTERS:
        nonnegative(status.get(key), f"status.{key}", errs)
    replicas = status.get("replicas")
    if isinstance(replicas, int):
        for key in ("updatedReplicas", "readyReplicas", "availableReplicas", "currentReplicas", "fullyLabeledReplicas"):
            value = status.get(key)
            if isinstance(value, int) and value > replicas:
                errs.append(FieldError.invalid(f"status.{key}", value, "cannot be greater than status.replicas"))
    ready = status.get("readyReplicas")
    available = status.get("availableReplicas")
    if isinstance(ready, int) and isinstance(available, int) and available > ready:
        errs.append(FieldError.invalid("status.availableReplicas", available, "cannot be greater than readyReplicas"))
    return errs
