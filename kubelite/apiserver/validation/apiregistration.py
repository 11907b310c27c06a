"""apiregistration.k8s.io/v1 APIService validation (kube-aggregator ``pkg/apis/apiregistration/validation``).

Contract: the functions read v1 JSON dicts (defaulted: ``spec.service.port`` 443) and return
:class:`~kubelite.errors.FieldError` values in upstream's order: ``validate_apiservice`` is
``ValidateAPIService``; ``validate_apiservice_update`` adds the metadata update rules;
``validate_apiservice_status_update`` checks the metadata update rules and each condition's status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import as_dict, path_segment_name
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = ["validate_apiservice", "validate_apiservice_status_update", "validate_apiservice_update"]

_STATUSES = ("True", "False", "Unknown")


def validate_apiservice(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    group, version = spec.get("group") or "", spec.get("version") or ""
    required_name = f"{version}.{group}"

    def name_fn(name: str, prefix: bool) -> list[str]:
        problems = path_segment_name(name, prefix)
        if problems:
            return problems
        return [] if name == required_name else [f'must be `spec.version+"."+spec.group`: "{required_name}"']

    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=name_fn)
    if not group and version != "v1":
        errs.append(FieldError.required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errs.extend(FieldError.invalid("spec.group", group, m) for m in names.is_dns1123_subdomain(group))
    errs.extend(FieldError.invalid("spec.version", version, m) for m in names.is_dns1035_label(version))
    gpm = spec.get("groupPriorityMinimum") or 0
    if not 0 < gpm <= 20000:
        errs.append(FieldError.invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"))
    vp = spec.get("versionPriority") or 0
    if not 0 < vp <= 1000:
        errs.append(FieldError.invalid("spec.versionPriority", vp, "must be positive and less than 1000"))
    ca_bundle = spec.get("caBundle") or ""
    insecure = bool(spec.get("insecureSkipTLSVerify"))
    service = spec.get("service")
    if not isinstance(service, dict):
        if ca_bundle:
            # the decoded length of the []byte field
            errs.append(FieldError.invalid("spec.caBundle", f"{len(ca_bundle) * 3 // 4 - ca_bundle.count('=')} bytes",
                                           "local APIServices may not have a caBundle"))
        if insecure:
            errs.append(FieldError.invalid("spec.insecureSkipTLSVerify", insecure,
                                           "local APIServices may not have insecureSkipTLSVerify"))
        return errs
    if not service.get("namespace"):
        errs.append(FieldError.required("spec.service.namespace"))
    if not service.get("name"):
        errs.append(FieldError.required("spec.service.name"))
    port = service.get("port")
    port_problems = names.is_valid_port_num(port if isinstance(port, int) else 0)
    if port_problems:
        errs.append(FieldError.invalid("spec.service.port", port, "port is not valid: " + ", ".join(port_problems)))
    if insecure and ca_bundle:
        errs.append(FieldError.invalid("spec.insecureSkipTLSVerify", insecure, "may not be true if caBundle is present"))
    return errs


def validate_apiservice_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_apiservice(obj)


def validate_apiservice_status_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    conditions = as_dict(obj.get("status")).get("conditions")
    for i, c in enumerate(conditions if isinstance(conditions, list) else ()):
        status = as_dict(c).get("status")
        if status not in _STATUSES:
            errs.append(FieldError.not_supported(f"status.conditions[{i}].status", status, _STATUSES))
    return errs
