"""Validation of core/v1 ReplicationController, LimitRange and ResourceQuota.

Follows ``pkg/apis/core/validation/validation.go``: ``ValidateReplicationControllerSpec`` and
``ValidatePodTemplateSpecForRC`` (a map selector, which must match the template's labels),
``ValidateLimitRange`` (min <= defaultRequest <= default <= max, maxLimitRequestRatio >= 1) and
``ValidateResourceQuota`` (resource names, non-negative quantities, known scopes). Contract: read-only over
JSON (already defaulted), errors in upstream's order and with upstream's messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.api.labels import selector_from_set
from kubelite.api.quantity import Quantity
from kubelite.apiserver.validation.apps import validate_replica_pod_template
from kubelite.apiserver.validation.common import (
    IS_NEGATIVE,
    as_dict,
    as_list,
    nonnegative,
    qualified_name,
    quantity,
    semantic_equal,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "validate_limit_range",
    "validate_limit_range_update",
    "validate_replication_controller",
    "validate_replication_controller_update",
    "validate_resource_quota",
    "validate_resource_quota_status_update",
    "validate_resource_quota_update",
]

_NOT_MATCH = "`selector` does not match template `labels`"
_LIMIT_TYPES = ("Container", "PersistentVolumeClaim", "Pod")
_QUOTA_SCOPES = ("BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass",
                 "Terminating", "VolumeAttributesClass")


def _meta(obj: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=True, name_fn=names.name_is_dns_subdomain)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


# --- ReplicationController ---------------------------------------------------------------------------------


def _rc_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateReplicationControllerSpec`` + ``ValidatePodTemplateSpecForRC``."""
    nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds", errs)
    nonnegative(spec.get("replicas"), "spec.replicas", errs)
    selector = as_dict(spec.get("selector"))
    if not selector:
        errs.append(FieldError.required("spec.selector"))
    else:
        errs.extend(names.validate_labels({str(k): str(v) for k, v in selector.items()}, "spec.selector"))
    template = spec.get("template")
    if template is None:
        errs.append(FieldError.required("spec.template"))
        return
    labels = as_dict(as_dict(template).get("metadata")).get("labels")
    labels = labels if isinstance(labels, dict) else None
    if selector and not selector_from_set(dict(selector)).matches(labels):
        errs.append(FieldError.invalid("spec.template.metadata.labels", labels, _NOT_MATCH))
    validate_replica_pod_template(template, errs, kind="ReplicationController")


def validate_replication_controller(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _rc_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_replication_controller_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """Upstream's RC selector is mutable (unlike apps/v1's); the spec is re-validated."""
    errs = _meta_update(obj, old)
    _rc_spec(as_dict(obj.get("spec")), errs)
    return errs


# --- resource lists ----------------------------------------------------------------------------------------


def _resource_list(values: Any, path: str, errs: list[FieldError]) -> dict[str, Quantity]:
    """Qualified resource names with non-negative quantities (``ValidateResourceQuantityValue``)."""
    out: dict[str, Quantity] = {}
    for name, value in as_dict(values).items():
        key = f"{path}[{name}]"
        qualified_name(str(name), key, errs)
        q = quantity(value, key, errs)
        if q is None:
            continue
        if q.sign() < 0:
            errs.append(FieldError.invalid(key, str(q), IS_NEGATIVE))
        out[str(name)] = q
    return out


# --- LimitRange --------------------------------------------------------------------------------------------


def _limit_item(item: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    kind = item.get("type")
    if kind not in _LIMIT_TYPES:
        errs.append(FieldError.not_supported(f"{path}.type", kind, _LIMIT_TYPES))
    maxs = _resource_list(item.get("max"), f"{path}.max", errs)
    mins = _resource_list(item.get("min"), f"{path}.min", errs)
    defaults = _resource_list(item.get("default"), f"{path}.default", errs)
    requests = _resource_list(item.get("defaultRequest"), f"{path}.defaultRequest", errs)
    ratios = _resource_list(item.get("maxLimitRequestRatio"), f"{path}.maxLimitRequestRatio", errs)
    if kind == "Pod":
        if item.get("default"):
            errs.append(FieldError.forbidden(f"{path}.default", "may not be specified when `type` is 'Pod'"))
        if item.get("defaultRequest"):
            errs.append(FieldError.forbidden(f"{path}.defaultRequest", "may not be specified when `type` is 'Pod'"))
    if kind == "PersistentVolumeClaim" and "storage" not in mins and "storage" not in maxs:
        errs.append(FieldError.required(f"{path}.limits", "either minimum or maximum storage value is required, "
                                        "but neither was provided"))
    for name in sorted({*maxs, *mins, *defaults, *requests, *ratios}):
        mx, mn, df, dr, ratio = (maxs.get(name), mins.get(name), defaults.get(name), requests.get(name),
                                 ratios.get(name))
        if mn is not None and mx is not None and mn > mx:
            errs.append(FieldError.invalid(f"{path}.min[{name}]", str(mn), f"min value {mn} is greater than max value {mx}"))
        if dr is not None:
            if mn is not None and mn > dr:
                errs.append(FieldError.invalid(f"{path}.defaultRequest[{name}]", str(dr),
                                               f"min value {mn} is greater than default request value {dr}"))
            if mx is not None and dr > mx:
                errs.append(FieldError.invalid(f"{path}.defaultRequest[{name}]", str(dr),
                                               f"default request value {dr} is greater than max value {mx}"))
            if df is not None and dr > df:
                errs.append(FieldError.invalid(f"{path}.defaultRequest[{name}]", str(dr),
                                               f"default request value {dr} is greater than default limit value {df}"))
        if df is not None:
            if mn is not None and mn > df:
                errs.append(FieldError.invalid(f"{path}.default[{name}]", str(df),
                                               f"min value {mn} is greater than default value {df}"))
            if mx is not None and df > mx:
                errs.append(FieldError.invalid(f"{path}.default[{name}]", str(df),
                                               f"default value {df} is greater than max value {mx}"))
        if ratio is not None:
            if ratio.as_fraction() < 1:
                errs.append(FieldError.invalid(f"{path}.maxLimitRequestRatio[{name}]", str(ratio),
                                               f"ratio {ratio} is less than 1"))
            if mx is not None and mn is not None and not mn.is_zero():
                bound = mx.as_fraction() / mn.as_fraction()
                if ratio.as_fraction() > bound:
                    errs.append(FieldError.invalid(f"{path}.maxLimitRequestRatio[{name}]", str(ratio),
                                                   f"ratio {ratio} is greater than max/min = {float(bound):f}"))


def _limit_range_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    seen: set[str] = set()
    for i, item in enumerate(as_list(spec.get("limits"))):
        item = as_dict(item)
        kind = item.get("type")
        if isinstance(kind, str):
            if kind in seen:
                errs.append(FieldError.duplicate(f"spec.limits[{i}].type", kind))
            seen.add(kind)
        _limit_item(item, f"spec.limits[{i}]", errs)


def validate_limit_range(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _limit_range_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_limit_range_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _limit_range_spec(as_dict(obj.get("spec")), errs)
    return errs


# --- ResourceQuota -----------------------------------------------------------------------------------------


def _quota_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateResourceQuotaSpec``."""
    _resource_list(spec.get("hard"), "spec.hard", errs)
    for i, scope in enumerate(as_list(spec.get("scopes"))):
        if scope not in _QUOTA_SCOPES:
            errs.append(FieldError.not_supported(f"spec.scopes[{i}]", scope, _QUOTA_SCOPES))
    for i, expr in enumerate(as_list(as_dict(spec.get("scopeSelector")).get("matchExpressions"))):
        expr = as_dict(expr)
        path = f"spec.scopeSelector.matchExpressions[{i}]"
        if expr.get("scopeName") not in _QUOTA_SCOPES:
            errs.append(FieldError.not_supported(f"{path}.scopeName", expr.get("scopeName"), _QUOTA_SCOPES))
        op = expr.get("operator")
        if op not in ("DoesNotExist", "Exists", "In", "NotIn"):
            errs.append(FieldError.not_supported(f"{path}.operator", op, ("DoesNotExist", "Exists", "In", "NotIn")))
        elif op in ("In", "NotIn") and not expr.get("values"):
            errs.append(FieldError.required(f"{path}.values", "must be at least one value when `operator` is 'In' "
                                            "or 'NotIn' for scope selector"))
        elif op in ("Exists", "DoesNotExist") and expr.get("values"):
            errs.append(FieldError.invalid(f"{path}.values", expr.get("values"),
                                           "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope "
                                           "selector"))


def validate_resource_quota(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj)
    _quota_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_resource_quota_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _quota_spec(as_dict(obj.get("spec")), errs)
    new_scopes = as_dict(obj.get("spec")).get("scopes")
    old_scopes = as_dict(old.get("spec")).get("scopes")
    if not semantic_equal(new_scopes, old_scopes):
        errs.append(FieldError.invalid("spec.scopes", new_scopes, "field is immutable"))
    return errs


def validate_resource_quota_status_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    status = as_dict(obj.get("status"))
    _resource_list(status.get("hard"), "status.hard", errs)
    _resource_list(status.get("used"), "status.used", errs)
    return errs
