"""Validation of the smaller groups: discovery, coordination, policy, scheduling, storage, RBAC and
autoscaling/v2.

Follows upstream's ``pkg/apis/<group>/validation/validation.go`` for each: ``ValidateEndpointSlice``,
``ValidateLease``, ``ValidatePodDisruptionBudget``, ``ValidatePriorityClass``(``Update``),
``ValidateStorageClass``(``Update``), ``ValidateRole``/``ClusterRole``/``RoleBinding``/``ClusterRoleBinding``
(+``Update``) and ``ValidateHorizontalPodAutoscaler``. Contract: read-only over JSON, errors in
upstream's order. HPA ``behavior`` is not validated (the HPA controller clamps it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    dns1123_label,
    immutable,
    label_selector,
    labels,
    not_more_than_100_percent,
    path_segment_name,
    positive_int_or_percent,
    qualified_name,
    quantity,
    rbac_name,
    semantic_equal,
    too_many,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "hpa_spec",
    "lease_spec",
    "pdb_spec",
    "validate_binding",
    "validate_binding_update",
    "validate_endpoint_slice",
    "validate_endpoint_slice_update",
    "validate_hpa",
    "validate_lease",
    "validate_pdb",
    "validate_priority_class",
    "validate_priority_class_update",
    "validate_role",
    "validate_role_update",
    "validate_storage_class",
    "validate_storage_class_update",
]

_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_RBAC_GROUP: Final = "rbac.authorization.k8s.io"
_sub = names.name_is_dns_subdomain


def _meta(obj: Mapping[str, Any], *, namespaced: bool = True, name_fn: Any = _sub) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=namespaced, name_fn=name_fn)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


# --- EndpointSlice ---------------------------------------------------------------------------------------


def validate_endpoint_slice(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateEndpointSlice``: addressType enum, 1..100 valid addresses per endpoint, unique ports."""
    errs = _meta(obj)
    address_type = obj.get("addressType")
    if not address_type:
        errs.append(FieldError.required("addressType"))
    elif address_type not in ("FQDN", "IPv4", "IPv6"):
        errs.append(FieldError.not_supported("addressType", address_type, ("FQDN", "IPv4", "IPv6")))
    endpoints = as_list(obj.get("endpoints"))
    if len(endpoints) > 1000:
        errs.append(too_many("endpoints", len(endpoints), 1000))
    for i, ep in enumerate(endpoints):
        ep = as_dict(ep)
        p = f"endpoints[{i}]"
        addresses = as_list(ep.get("addresses"))
        if not addresses:
            errs.append(FieldError.required(f"{p}.addresses", "must contain at least 1 address"))
        elif len(addresses) > 100:
            errs.append(too_many(f"{p}.addresses", len(addresses), 100))
        for j, addr in enumerate(addresses):
            _address(address_type, addr if isinstance(addr, str) else "", f"{p}.addresses[{j}]", errs)
        node_name = ep.get("nodeName")
        if node_name is not None:
            for msg in _sub(node_name, False):
                errs.append(FieldError.invalid(f"{p}.nodeName", node_name, msg))
        topology = ep.get("deprecatedTopology")
        if topology:
            labels(topology, f"{p}.deprecatedTopology", errs)
        hostname = ep.get("hostname")
        if hostname is not None:
            dns1123_label(hostname, f"{p}.hostname", errs)
    ports = as_list(obj.get("ports"))
    seen: set[str] = set()
    for i, port in enumerate(ports):
        port = as_dict(port)
        p = f"ports[{i}]"
        name = port.get("name") or ""
        if name:
            dns1123_label(name, f"{p}.name", errs)
        if name in seen:
            errs.append(FieldError.duplicate(f"{p}.name", name))
        else:
            seen.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            errs.append(FieldError.required(f"{p}.protocol"))
        elif protocol not in _PROTOCOLS:
            errs.append(FieldError.not_supported(f"{p}.protocol", protocol, _PROTOCOLS))
        app_protocol = port.get("appProtocol")
        if app_protocol is not None:
            qualified_name(app_protocol, f"{p}.appProtocol", errs)
    return errs


def _address(address_type: Any, addr: str, path: str, errs: list[FieldError]) -> None:
    if address_type in ("IPv4", "IPv6"):
        version = "IPv4" if address_type == "IPv4" else "IPv6"
        msgs = names.is_valid_ip(addr)
        if msgs or (":" in addr) != (version == "IPv6"):
            errs.append(FieldError.invalid(path, addr, f"must be a valid {version} address"))
    elif address_type == "FQDN":
        for msg in names.is_dns1123_subdomain(addr):
            errs.append(FieldError.invalid(path, addr, msg))


def validate_endpoint_slice_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateEndpointSliceUpdate``: addressType is immutable."""
    errs = validate_endpoint_slice(obj)
    immutable(obj.get("addressType"), old.get("addressType"), "addressType", errs)
    return errs


# --- Lease, PodDisruptionBudget ----------------------------------------------------------------------------


def validate_lease(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateLease``: positive leaseDurationSeconds, non-negative leaseTransitions."""
    errs = _meta(obj)
    lease_spec(obj, errs)
    return errs


def lease_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateLeaseSpec``."""
    spec = as_dict(obj.get("spec"))
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errs.append(FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errs.append(FieldError.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))


def validate_pdb(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodDisruptionBudget``: at most one of minAvailable and maxUnavailable."""
    errs = _meta(obj)
    pdb_spec(obj, errs)
    return errs


def pdb_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidatePodDisruptionBudgetSpec``."""
    spec = as_dict(obj.get("spec"))
    min_available = spec.get("minAvailable")
    max_unavailable = spec.get("maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        errs.append(FieldError.invalid("spec", dict(spec), "minAvailable and maxUnavailable cannot be both set"))
    for key, value in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        if value is not None:
            positive_int_or_percent(value, f"spec.{key}", errs)
            not_more_than_100_percent(value, f"spec.{key}", errs)
    label_selector(spec.get("selector"), "spec.selector", errs)
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in ("AlwaysAllow", "IfHealthyBudget"):
        errs.append(FieldError.not_supported(
            "spec.unhealthyPodEvictionPolicy", policy, ("AlwaysAllow", "IfHealthyBudget")))


# --- PriorityClass ---------------------------------------------------------------------------------------

HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
_SYSTEM_PRIORITY_CLASSES: Final = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}


def validate_priority_class(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClass``: ``system-`` names are reserved; user values are at most 1e9."""
    errs = _meta(obj, namespaced=False)
    name = as_dict(obj.get("metadata")).get("name") or ""
    value = obj.get("value")
    if name.startswith("system-"):
        err = ""
        if name not in _SYSTEM_PRIORITY_CLASSES:
            err = f"name {name} is not a known system priority class"
        elif value != _SYSTEM_PRIORITY_CLASSES[name]:
            err = f"value of {name} PriorityClass must be {_SYSTEM_PRIORITY_CLASSES[name]}"
        elif obj.get("globalDefault"):
            err = f"globalDefault of {name} PriorityClass must be false"
        if err:
            errs.append(FieldError.forbidden(
                "metadata.name",
                f"priority class names with 'system-' prefix are reserved for system use only. error: {err}"))
    elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(FieldError.forbidden(
            "value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = obj.get("preemptionPolicy")
    if policy is not None and policy not in ("PreemptLowerPriority", "Never"):
        if not policy:
            errs.append(FieldError.required("preemptionPolicy"))
        else:
            errs.append(FieldError.not_supported("preemptionPolicy", policy, ("PreemptLowerPriority", "Never")))
    return errs


def validate_priority_class_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClassUpdate``: value and preemptionPolicy are immutable."""
    errs = _meta_update(obj, old)
    if obj.get("value") != old.get("value"):
        errs.append(FieldError.forbidden("value", "may not be changed in an update."))
    immutable(obj.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy", errs)
    return errs


# --- StorageClass ----------------------------------------------------------------------------------------


def validate_storage_class(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStorageClass``."""
    errs = _meta(obj, namespaced=False)
    provisioner = obj.get("provisioner") or ""
    if not provisioner:
        errs.append(FieldError.required("provisioner", provisioner))
    else:
        qualified_name(provisioner.lower(), "provisioner", errs)
    parameters = as_dict(obj.get("parameters"))
    if len(parameters) > 512:
        errs.append(FieldError.too_long("parameters", None, 512))
    total = 0
    for key, value in parameters.items():
        if not key:
            errs.append(FieldError.invalid("parameters", parameters, "field can not be empty."))
        total += len(key) + (len(value) if isinstance(value, str) else 0)
    if total > 256 * 1024:
        errs.append(FieldError.too_long("parameters", None, 256 * 1024))
    policy = obj.get("reclaimPolicy")
    if policy and policy not in ("Delete", "Retain"):
        errs.append(FieldError.not_supported("reclaimPolicy", policy, ("Delete", "Retain")))
    mode = obj.get("volumeBindingMode")
    if mode is None:
        errs.append(FieldError.required("volumeBindingMode"))
    elif mode not in ("Immediate", "WaitForFirstConsumer"):
        errs.append(FieldError.not_supported("volumeBindingMode", mode, ("Immediate", "WaitForFirstConsumer")))
    return errs


def validate_storage_class_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStorageClassUpdate``: parameters, provisioner, reclaimPolicy, volumeBindingMode are fixed."""
    errs = _meta_update(obj, old)
    if not semantic_equal(obj.get("parameters"), old.get("parameters")):
        errs.append(FieldError.forbidden("parameters", "updates to parameters are forbidden."))
    if obj.get("provisioner") != old.get("provisioner"):
        errs.append(FieldError.forbidden("provisioner", "updates to provisioner are forbidden."))
    if obj.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(FieldError.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    immutable(obj.get("volumeBindingMode"), old.get("volumeBindingMode"), "volumeBindingMode", errs)
    return errs


# --- RBAC ------------------------------------------------------------------------------------------------


def _policy_rule(rule: Mapping[str, Any], namespaced: bool, path: str, errs: list[FieldError]) -> None:
    """``ValidatePolicyRule``."""
    if not as_list(rule.get("verbs")):
        errs.append(FieldError.required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = as_list(rule.get("nonResourceURLs"))
    if urls:
        if namespaced:
            errs.append(FieldError.invalid(
                f"{path}.nonResourceURLs", list(urls), "namespaced rules cannot apply to non-resource URLs"))
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            errs.append(FieldError.invalid(
                f"{path}.nonResourceURLs", list(urls), "rules cannot apply to both regular resources and non-resource URLs"))
        return
    if not as_list(rule.get("apiGroups")):
        errs.append(FieldError.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not as_list(rule.get("resources")):
        errs.append(FieldError.required(f"{path}.resources", "resource rules must supply at least one resource"))


def validate_role(obj: Mapping[str, Any], *, namespaced: bool) -> list[FieldError]:
    """``ValidateRole`` / ``ValidateClusterRole`` (with its aggregationRule)."""
    errs = _meta(obj, namespaced=namespaced, name_fn=rbac_name)
    for i, rule in enumerate(as_list(obj.get("rules"))):
        _policy_rule(as_dict(rule), namespaced, f"rules[{i}]", errs)
    aggregation = obj.get("aggregationRule")
    if not namespaced and aggregation is not None:
        selectors = as_list(as_dict(aggregation).get("clusterRoleSelectors"))
        if not selectors:
            errs.append(FieldError.required(
                "aggregationRule.clusterRoleSelectors",
                "at least one clusterRoleSelector required if aggregationRule is non-nil"))
        for i, selector in enumerate(selectors):
            label_selector(selector, f"aggregationRule.clusterRoleSelectors[{i}]", errs)
    return errs


def validate_role_update(obj: Mapping[str, Any], old: Mapping[str, Any], *, namespaced: bool) -> list[FieldError]:
    """``ValidateRoleUpdate`` / ``ValidateClusterRoleUpdate``: the create rules, then the metadata rules."""
    errs = validate_role(obj, namespaced=namespaced)
    errs.extend(_meta_update(obj, old))
    return errs


def _subject(subject: Mapping[str, Any], namespaced: bool, path: str, errs: list[FieldError]) -> None:
    """``ValidateRoleBindingSubject``."""
    name = subject.get("name") or ""
    if not name:
        errs.append(FieldError.required(f"{path}.name"))
    kind = subject.get("kind")
    api_group = subject.get("apiGroup") or ""
    if kind == "ServiceAccount":
        if name:
            for msg in _sub(name, False):
                errs.append(FieldError.invalid(f"{path}.name", name, msg))
        if api_group:
            errs.append(FieldError.not_supported(f"{path}.apiGroup", api_group, ("",)))
        if not namespaced and not subject.get("namespace"):
            errs.append(FieldError.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if api_group != _RBAC_GROUP:
            errs.append(FieldError.not_supported(f"{path}.apiGroup", api_group, (_RBAC_GROUP,)))
    else:
        errs.append(FieldError.not_supported(f"{path}.kind", kind, ("ServiceAccount", "User", "Group")))


def validate_binding(obj: Mapping[str, Any], *, namespaced: bool) -> list[FieldError]:
    """``ValidateRoleBinding`` / ``ValidateClusterRoleBinding``."""
    errs = _meta(obj, namespaced=namespaced, name_fn=rbac_name)
    ref = as_dict(obj.get("roleRef"))
    if ref.get("apiGroup") != _RBAC_GROUP:
        errs.append(FieldError.not_supported("roleRef.apiGroup", ref.get("apiGroup") or "", (_RBAC_GROUP,)))
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    if ref.get("kind") not in kinds:
        errs.append(FieldError.not_supported("roleRef.kind", ref.get("kind") or "", kinds))
    ref_name = ref.get("name") or ""
    if not ref_name:
        errs.append(FieldError.required("roleRef.name"))
    else:
        for msg in rbac_name(ref_name, False):
            errs.append(FieldError.invalid("roleRef.name", ref_name, msg))
    for i, subject in enumerate(as_list(obj.get("subjects"))):
        _subject(as_dict(subject), namespaced, f"subjects[{i}]", errs)
    return errs


def validate_binding_update(obj: Mapping[str, Any], old: Mapping[str, Any], *, namespaced: bool) -> list[FieldError]:
    """``ValidateRoleBindingUpdate``: roleRef cannot change."""
    errs = validate_binding(obj, namespaced=namespaced)
    errs.extend(_meta_update(obj, old))
    if not semantic_equal(obj.get("roleRef"), old.get("roleRef")):
        errs.append(FieldError.invalid("roleRef", obj.get("roleRef"), "cannot change roleRef"))
    return errs


# --- HorizontalPodAutoscaler (autoscaling/v2) --------------------------------------------------------------

_METRIC_TYPES: Final = ("Object", "Pods", "Resource", "External", "ContainerResource")
_METRIC_FIELDS: Final = {
    "Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
    "ContainerResource": "containerResource",
}


def _metric_target(target: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateMetricTarget``."""
    ttype = target.get("type") or ""
    if not ttype:
        errs.append(FieldError.required(f"{path}.type", "must specify a metric target type"))
    if ttype not in ("Utilization", "Value", "AverageValue"):
        errs.append(FieldError.invalid(f"{path}.type", ttype, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        raw = target.get(key)
        if raw is not None:
            q = quantity(raw, f"{path}.{key}", errs)
            if q is not None and q.sign() != 1:
                errs.append(FieldError.invalid(f"{path}.{key}", raw, "must be positive"))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and utilization < 1:
        errs.append(FieldError.invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))


def _metric(metric: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateMetricSpec`` (Resource and ContainerResource sources in detail)."""
    mtype = metric.get("type") or ""
    if not mtype:
        errs.append(FieldError.required(f"{path}.type", "must specify a metric source type"))
    if mtype not in _METRIC_TYPES:
        errs.append(FieldError.not_supported(f"{path}.type", mtype, _METRIC_TYPES))
    present = [f for f in ("object", "pods", "resource", "containerResource", "external") if metric.get(f) is not None]
    for f in present[:1]:
        src = as_dict(metric[f])
        p = f"{path}.{f}"
        if f in ("resource", "containerResource"):
            if not src.get("name"):
                errs.append(FieldError.required(f"{p}.name", "must specify a resource name"))
            target = as_dict(src.get("target"))
            _metric_target(target, f"{p}.target", errs)
            if target.get("averageUtilization") is None and target.get("averageValue") is None:
                errs.append(FieldError.required(
                    f"{p}.target.averageUtilization", "must set either a target raw value or a target utilization"))
            if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
                errs.append(FieldError.forbidden(
                    f"{p}.target.averageValue", "may not set both a target raw value and a target utilization"))
        else:
            _metric_target(as_dict(src.get("target")), f"{p}.target", errs)
    expected = _METRIC_FIELDS.get(mtype)
    if expected is not None and metric.get(expected) is None:
        errs.append(FieldError.required(f"{path}.{expected}", "must populate information for the given metric source"))
    if len(present) != 1:
        for f in present:
            if f != expected:
                errs.append(FieldError.forbidden(f"{path}.{f}", "must populate the given metric source only"))


def validate_hpa(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateHorizontalPodAutoscaler`` (minReplicas lower bound 1: HPAScaleToZero is alpha)."""
    errs = _meta(obj)
    hpa_spec(obj, errs)
    return errs


def hpa_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``validateHorizontalPodAutoscalerSpec``."""
    spec = as_dict(obj.get("spec"))
    min_replicas = spec.get("minReplicas")
    max_replicas = spec.get("maxReplicas") or 0
    if isinstance(min_replicas, int) and min_replicas < 1:
        errs.append(FieldError.invalid("spec.minReplicas", min_replicas, "must be greater than or equal to 1"))
    if max_replicas < 1:
        errs.append(FieldError.invalid("spec.maxReplicas", max_replicas, "must be greater than 0"))
    if isinstance(min_replicas, int) and max_replicas < min_replicas:
        errs.append(FieldError.invalid("spec.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`"))
    ref = as_dict(spec.get("scaleTargetRef"))
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errs.append(FieldError.required(f"spec.scaleTargetRef.{key}"))
        else:
            for msg in path_segment_name(value, False):
                errs.append(FieldError.invalid(f"spec.scaleTargetRef.{key}", value, msg))
    for i, metric in enumerate(as_list(spec.get("metrics"))):
        _metric(as_dict(metric), f"spec.metrics[{i}]", errs)
