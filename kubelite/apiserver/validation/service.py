"""Service validation.

Follows ``pkg/apis/core/validation/validation.go``: ``ValidateService`` (ports, types, session affinity,
cluster IPs, external IPs, node ports, traffic policies, in upstream's order) and ``ValidateServiceUpdate``
(the primary cluster IP is immutable). Cluster-IP *allocation* belongs to the apiserver's registry; this
module only checks what the client sent. Contract: read-only over JSON, returns fresh lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    dns1123_label,
    dns1123_subdomain,
    labels,
    qualified_name,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = ["validate_service", "validate_service_update"]

_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_SERVICE_TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_KUBELET_PORT: Final = 10250


def _meta(obj: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=True, name_fn=names.name_is_dns1035_label)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


def _headless(spec: Mapping[str, Any]) -> bool:
    ips = as_list(spec.get("clusterIPs"))
    return spec.get("clusterIP") == "None" or bool(ips and ips[0] == "None")


def _externally_accessible(spec: Mapping[str, Any]) -> bool:
    t = spec.get("type")
    return t in ("LoadBalancer", "NodePort") or (t == "ClusterIP" and bool(spec.get("externalIPs")))


def _service_port(port: Mapping[str, Any], require_name: bool, seen: set[str], path: str, errs: list[FieldError]) -> None:
    """``validateServicePort``."""
    name = port.get("name") or ""
    if require_name and not name:
        errs.append(FieldError.required(f"{path}.name"))
    elif name:
        dns1123_label(name, f"{path}.name", errs)
        if name in seen:
            errs.append(FieldError.duplicate(f"{path}.name", name))
        else:
            seen.add(name)
    number = port.get("port")
    if not isinstance(number, int) or not 1 <= number <= 65535:
        errs.append(FieldError.invalid(f"{path}.port", number if number is not None else 0,
                                       "must be between 1 and 65535, inclusive"))
    protocol = port.get("protocol")
    if not protocol:
        errs.append(FieldError.required(f"{path}.protocol"))
    elif protocol not in _PROTOCOLS:
        errs.append(FieldError.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, int) and not isinstance(target, bool):
        for msg in names.is_valid_port_num(target):
            errs.append(FieldError.invalid(f"{path}.targetPort", target, msg))
    elif isinstance(target, str):
        for msg in names.is_valid_port_name(target):
            errs.append(FieldError.invalid(f"{path}.targetPort", target, msg))
    app_protocol = port.get("appProtocol")
    if app_protocol is not None:
        qualified_name(app_protocol, f"{path}.appProtocol", errs)


def validate_service(svc: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateService``."""
    errs = _meta(svc)
    spec = as_dict(svc.get("spec"))
    svc_type = spec.get("type")
    ports = as_list(spec.get("ports"))
    headless = _headless(spec)
    if not ports and not headless and svc_type != "ExternalName":
        errs.append(FieldError.required("spec.ports"))
    cluster_ips = as_list(spec.get("clusterIPs"))
    if svc_type == "LoadBalancer":
        for i, port in enumerate(ports):
            if as_dict(port).get("port") == _KUBELET_PORT:
                errs.append(FieldError.invalid(
                    f"spec.ports[{i}]", _KUBELET_PORT,
                    f"may not expose port {_KUBELET_PORT} externally since it is used by kubelet"))
        if headless:
            errs.append(FieldError.invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for LoadBalancer services"))
    elif svc_type == "NodePort":
        if headless:
            errs.append(FieldError.invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for NodePort services"))
    elif svc_type == "ExternalName":
        if cluster_ips:
            errs.append(FieldError.forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        if spec.get("ipFamilies"):
            errs.append(FieldError.forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy") is not None:
            errs.append(FieldError.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        cname = (spec.get("externalName") or "").removesuffix(".")
        if cname:
            dns1123_subdomain(cname, "spec.externalName", errs)
        else:
            errs.append(FieldError.required("spec.externalName"))
    seen: set[str] = set()
    for i, port in enumerate(ports):
        _service_port(as_dict(port), len(ports) > 1, seen, f"spec.ports[{i}]", errs)
    selector = spec.get("selector")
    if selector:
        labels(selector, "spec.selector", errs)
    affinity = spec.get("sessionAffinity")
    if not affinity:
        errs.append(FieldError.required("spec.sessionAffinity"))
    elif affinity not in ("ClientIP", "None"):
        errs.append(FieldError.not_supported("spec.sessionAffinity", affinity, ("ClientIP", "None")))
    if affinity == "ClientIP":
        config = as_dict(as_dict(spec.get("sessionAffinityConfig")).get("clientIP"))
        timeout = config.get("timeoutSeconds")
        if not isinstance(timeout, int) or not 0 < timeout <= 86400:
            errs.append(FieldError.invalid(
                "spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout if timeout is not None else 0,
                "must be greater than 0 and less than 86400"))
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        errs.append(FieldError.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    _cluster_ips(spec, errs)
    for i, ip in enumerate(as_list(spec.get("externalIPs"))):
        for msg in names.is_valid_ip(ip if isinstance(ip, str) else ""):
            errs.append(FieldError.invalid(f"spec.externalIPs[{i}]", ip, msg))
    if not svc_type:
        errs.append(FieldError.required("spec.type"))
    elif svc_type not in _SERVICE_TYPES:
        errs.append(FieldError.not_supported("spec.type", svc_type, _SERVICE_TYPES))
    if svc_type == "ClusterIP":
        for i, port in enumerate(ports):
            if as_dict(port).get("nodePort"):
                errs.append(FieldError.forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'"))
    node_ports: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        port = as_dict(port)
        node_port = port.get("nodePort")
        if not node_port:
            continue
        key = (port.get("protocol"), node_port)
        if key in node_ports:
            errs.append(FieldError.duplicate(f"spec.ports[{i}].nodePort", node_port))
        node_ports.add(key)
    seen_ports: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        port = as_dict(port)
        key = (port.get("protocol"), port.get("port"))
        if key in seen_ports:
            errs.append(FieldError.duplicate(f"spec.ports[{i}]", {"protocol": key[0], "port": key[1]}))
        seen_ports.add(key)
    _traffic_policies(spec, errs)
    return errs


def _cluster_ips(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """The part of ``ValidateServiceClusterIPsRelatedFields`` that needs no allocator: each IP is
    "None", empty (to be allocated) or a valid IP, and clusterIPs[0] agrees with clusterIP."""
    cluster_ip = spec.get("clusterIP") or ""
    cluster_ips = as_list(spec.get("clusterIPs"))
    if cluster_ip and cluster_ips and cluster_ips[0] != cluster_ip:
        errs.append(FieldError.invalid("spec.clusterIPs", list(cluster_ips), "first value must match `clusterIP`"))
    if cluster_ip and not cluster_ips:
        cluster_ips = [cluster_ip]  # upstream's strategy copies clusterIP into clusterIPs before validating
    for i, ip in enumerate(cluster_ips):
        if ip in ("", "None") and i == 0:
            continue
        if ip == "None":
            errs.append(FieldError.invalid(f"spec.clusterIPs[{i}]", ip, "must be empty when the first value is 'None'"))
            continue
        for msg in names.is_valid_ip(ip if isinstance(ip, str) else ""):
            errs.append(FieldError.invalid(f"spec.clusterIPs[{i}]", ip, msg))


def _traffic_policies(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``validateServiceExternalTrafficPolicy`` and ``validateServiceInternalTrafficFieldsValue``."""
    external = spec.get("externalTrafficPolicy") or ""
    if not _externally_accessible(spec):
        if external:
            errs.append(FieldError.invalid(
                "spec.externalTrafficPolicy", external, "may only be set for externally-accessible services"))
    elif not external:
        errs.append(FieldError.required("spec.externalTrafficPolicy"))
    elif external not in ("Cluster", "Local"):
        errs.append(FieldError.not_supported("spec.externalTrafficPolicy", external, ("Cluster", "Local")))
    health = spec.get("healthCheckNodePort")
    if health and not (spec.get("type") == "LoadBalancer" and external == "Local"):
        errs.append(FieldError.invalid(
            "spec.healthCheckNodePort", health,
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
    internal = spec.get("internalTrafficPolicy")
    if internal is None:
        if spec.get("type") in ("NodePort", "LoadBalancer", "ClusterIP"):
            errs.append(FieldError.required("spec.internalTrafficPolicy"))
    elif internal not in ("Cluster", "Local"):
        errs.append(FieldError.not_supported("spec.internalTrafficPolicy", internal, ("Cluster", "Local")))


def validate_service_update(svc: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateServiceUpdate``: the primary cluster IP may not change (except to/from ExternalName)."""
    errs = _meta_update(svc, old)
    spec = as_dict(svc.get("spec"))
    old_spec = as_dict(old.get("spec"))
    if "ExternalName" not in (spec.get("type"), old_spec.get("type")):
        new_ips = as_list(spec.get("clusterIPs")) or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        old_ips = as_list(old_spec.get("clusterIPs")) or ([old_spec["clusterIP"]] if old_spec.get("clusterIP") else [])
        if old_ips and new_ips and new_ips[0] != old_ips[0]:
            errs.append(FieldError.invalid("spec.clusterIPs[0]", list(new_ips), "may not change once set"))
    errs.extend(validate_service(svc))
    return errs
