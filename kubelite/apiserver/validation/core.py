"""Validation of the small core kinds: ConfigMap, Secret, Namespace, ServiceAccount, Event and Node
(Pod, Service and the volume kinds have their own modules).

Follows ``pkg/apis/core/validation/validation.go`` (``ValidateConfigMap``(``Update``),
``ValidateSecret``(``Update``), ``ValidateNamespace``, ``ValidateServiceAccount``, ``ValidateEventCreate``,
``ValidateNode``/``ValidateNodeUpdate``). Contract: read-only over JSON; errors in upstream's order. Each ``validate_*``
function takes the object (and, for updates, the stored one) and returns a fresh list.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Final

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    immutable,
    qualified_name,
    semantic_equal,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "event_fields",
    "validate_config_map",
    "validate_config_map_update",
    "validate_event",
    "validate_namespace",
    "validate_node",
    "validate_node_update",
    "validate_secret",
    "validate_secret_update",
    "validate_service_account",
]

MAX_SECRET_SIZE: Final = 1024 * 1024
_STANDARD_FINALIZERS: Final = frozenset({"kubernetes"})

_sub = names.name_is_dns_subdomain


def _meta(obj: Mapping[str, Any], *, namespaced: bool = True, name_fn: Any = _sub) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=namespaced, name_fn=name_fn)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


# --- ConfigMap and Secret -----------------------------------------------------------------------------


def _keys(data: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    for key in data:
        for msg in names.is_config_map_key(key):
            errs.append(FieldError.invalid(f"{path}[{key}]", key, msg))


def _b64_len(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    return len(value) * 3 // 4 - value.count("=", max(0, len(value) - 2))


def validate_config_map(cm: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateConfigMap``: keys are config keys, data and binaryData disjoint, 1 MiB in total."""
    errs = _meta(cm)
    data = as_dict(cm.get("data"))
    binary = as_dict(cm.get("binaryData"))
    total = 0
    for key, value in data.items():
        for msg in names.is_config_map_key(key):
            errs.append(FieldError.invalid(f"data[{key}]", key, msg))
        if key in binary:
            errs.append(FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(value) if isinstance(value, str) else 0
    _keys(binary, "binaryData", errs)
    total += sum(_b64_len(v) for v in binary.values())
    if total > MAX_SECRET_SIZE:
        errs.append(FieldError.too_long("", None, MAX_SECRET_SIZE))
    return errs


def _immutable_data(obj: Mapping[str, Any], old: Mapping[str, Any], keys: tuple[str, ...], errs: list[FieldError]) -> None:
    if old.get("immutable") is True:
        if obj.get("immutable") is not True:
            errs.append(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"))
        for key in keys:
            if not semantic_equal(obj.get(key), old.get(key)):
                errs.append(FieldError.forbidden(key, "field is immutable when `immutable` is set"))


def validate_config_map_update(cm: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateConfigMapUpdate``."""
    errs = _meta_update(cm, old)
    _immutable_data(cm, old, ("data", "binaryData"), errs)
    errs.extend(validate_config_map(cm))
    return errs


def validate_secret(secret: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecret``. ``stringData`` is merged into ``data`` upstream before validation, so its
    keys are reported under ``data`` too."""
    errs = _meta(secret)
    data = as_dict(secret.get("data"))
    string_data = as_dict(secret.get("stringData"))
    total = 0
    for key, value in data.items():
        for msg in names.is_config_map_key(key):
            errs.append(FieldError.invalid(f"data[{key}]", key, msg))
        total += _b64_len(value)
    for key, value in string_data.items():
        if key not in data:
            for msg in names.is_config_map_key(key):
                errs.append(FieldError.invalid(f"data[{key}]", key, msg))
        total += len(value.encode()) if isinstance(value, str) else 0
    if total > MAX_SECRET_SIZE:
        errs.append(FieldError.too_long("data", "", MAX_SECRET_SIZE))
    keys = {*data, *string_data}
    secret_type = secret.get("type")
    if secret_type == "kubernetes.io/service-account-token":
        annotations = as_dict(as_dict(secret.get("metadata")).get("annotations"))
        if not annotations.get("kubernetes.io/service-account.name"):
            errs.append(FieldError.required("metadata.annotations[kubernetes.io/service-account.name]"))
    elif secret_type in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if secret_type == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in keys:
            errs.append(FieldError.required(f"data[{key}]"))
    elif secret_type == "kubernetes.io/basic-auth":
        if "username" not in keys and "password" not in keys:
            errs.append(FieldError.required("data[username]"))
            errs.append(FieldError.required("data[password]"))
    elif secret_type == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey") and not string_data.get("ssh-privatekey"):
            errs.append(FieldError.required("data[ssh-privatekey]"))
    elif secret_type == "kubernetes.io/tls":
        for key in ("tls.crt", "tls.key"):
            if key not in keys:
                errs.append(FieldError.required(f"data[{key}]"))
    return errs


def validate_secret_update(secret: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecretUpdate``: type is immutable; so is data once ``immutable`` is set."""
    errs = _meta_update(secret, old)
    immutable(secret.get("type"), old.get("type"), "type", errs)
    _immutable_data(secret, old, ("data",), errs)
    errs.extend(validate_secret(secret))
    return errs


# --- Namespace, ServiceAccount, Event ----------------------------------------------------------------------


def validate_namespace(ns: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNamespace``: a DNS-1123 label name; spec.finalizers qualified or standard."""
    errs = _meta(ns, namespaced=False, name_fn=names.name_is_dns_label)
    for f in as_list(as_dict(ns.get("spec")).get("finalizers")):
        qualified_name(f, "spec.finalizers", errs)
        if "/" not in f and f not in _STANDARD_FINALIZERS:
            errs.append(FieldError.invalid(
                "spec.finalizers", f, "name is neither a standard finalizer name nor is it fully qualified"))
    return errs


def validate_service_account(sa: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateServiceAccount``."""
    return _meta(sa)


def validate_event(event: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateEventCreate`` / ``legacyValidateEvent`` for core/v1 events (which stay mutable)."""
    errs = _meta(event)
    event_fields(event, errs)
    return errs


def event_fields(event: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``legacyValidateEvent``."""
    meta = as_dict(event.get("metadata"))
    namespace = meta.get("namespace") or ""
    involved = as_dict(event.get("involvedObject"))
    involved_ns = involved.get("namespace") or ""
    if not event.get("eventTime"):
        if not involved_ns:
            if namespace not in ("", "default"):
                errs.append(FieldError.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
        elif namespace != involved_ns:
            errs.append(FieldError.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
    else:
        if not involved_ns and namespace not in ("default", "kube-system"):
            errs.append(FieldError.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
        component = event.get("reportingComponent") or ""
        if not component:
            errs.append(FieldError.required("reportingComponent"))
        qualified_name(component, "reportingComponent", errs)
        for key, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            value = event.get(key) or ""
            if not value:
                errs.append(FieldError.required(key))
            if len(value) > limit:
                errs.append(FieldError.invalid(key, "", f"can have at most {limit} characters"))
        if len(event.get("message") or "") > 1024:
            errs.append(FieldError.invalid("message", "", "can have at most 1024 characters"))
    for msg in names.is_dns1123_subdomain(namespace):
        errs.append(FieldError.invalid("namespace", namespace, msg))


# --- Node ---------------------------------------------------------------------------------------------------


def _taints(taints: list[Any], path: str, errs: list[FieldError]) -> None:
    """``validateNodeTaints``: valid key/value/effect, unique by (key, effect)."""
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint = as_dict(taint)
        p = f"{path}[{i}]"
        key = taint.get("key") or ""
        qualified_name(key, f"{p}.key", errs)
        msgs = names.is_valid_label_value(taint.get("value") or "")
        if msgs:
            errs.append(FieldError.invalid(f"{p}.value", taint.get("value") or "", ";".join(msgs)))
        effect = taint.get("effect") or ""
        if not effect:
            errs.append(FieldError.required(f"{p}.effect"))
        elif effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errs.append(FieldError.not_supported(f"{p}.effect", effect, ("NoSchedule", "PreferNoSchedule", "NoExecute")))
        if (key, effect) in seen:
            errs.append(FieldError(kind="Duplicate", field=p, value=dict(taint),
                                   detail="taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))


def validate_node(node: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNode``. Taints are reported under ``metadata.taints``, as upstream does."""
    errs = _meta(node, namespaced=False)
    spec = as_dict(node.get("spec"))
    taints = as_list(spec.get("taints"))
    if taints:
        _taints(list(taints), "metadata.taints", errs)
    cidrs = as_list(spec.get("podCIDRs"))
    families = set()
    for i, cidr in enumerate(cidrs):
        try:
            families.add(ipaddress.ip_network(cidr, strict=False).version)
        except (ValueError, TypeError):
            errs.append(FieldError.invalid(
                f"spec.podCIDRs[{i}]", cidr, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
    if len(cidrs) > 1 and (len(cidrs) > 2 or len(families) != 2):
        errs.append(FieldError.invalid("spec.podCIDRs", list(cidrs), "may specify no more than one CIDR for each IP family"))
    return errs


def validate_node_update(node: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNodeUpdate``: podCIDRs and providerID may only go from unset to set."""
    errs = _meta_update(node, old)
    spec = as_dict(node.get("spec"))
    old_spec = as_dict(old.get("spec"))
    taints = as_list(spec.get("taints"))
    if taints:
        _taints(list(taints), "metadata.taints", errs)
    old_cidrs = as_list(old_spec.get("podCIDRs"))
    if old_cidrs and list(old_cidrs) != list(as_list(spec.get("podCIDRs"))):
        errs.append(FieldError.forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'))
    old_provider = old_spec.get("providerID")
    if old_provider and old_provider != spec.get("providerID"):
        errs.append(FieldError.forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    return errs
