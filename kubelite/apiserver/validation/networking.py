"""Validation of ``networking.k8s.io/v1``: Ingress, IngressClass, NetworkPolicy.

Follows ``pkg/apis/networking/validation/validation.go`` (``ValidateNetworkPolicySpec``,
``ValidateNetworkPolicyPort``, ``ValidateNetworkPolicyPeer``, ``ValidateIPBlock``, ``ValidateIngressSpec``,
``validateIngressBackend``, ``validateHTTPIngressPath``, ``ValidateIngressClass``). Contract: read-only over
JSON (already defaulted), errors in upstream's order and with upstream's messages.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    dns1123_subdomain,
    immutable,
    label_selector,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "validate_ingress",
    "validate_ingress_class",
    "validate_ingress_class_update",
    "validate_ingress_update",
    "validate_network_policy",
    "validate_network_policy_update",
]

_PROTOCOLS = ("SCTP", "TCP", "UDP")
_POLICY_TYPES = ("Egress", "Ingress")
_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _meta(obj: Mapping[str, Any], *, namespaced: bool) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=namespaced,
                                name_fn=names.name_is_dns_subdomain)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


def _cidr(value: Any, path: str, errs: list[FieldError]) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``validation.IsValidCIDR``."""
    try:
        return ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        errs.append(FieldError.invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
        return None


# --- NetworkPolicy -----------------------------------------------------------------------------------------


def _policy_port(port: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateNetworkPolicyPort``."""
    protocol = port.get("protocol")
    if protocol is not None and protocol not in _PROTOCOLS:
        errs.append(FieldError.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    value = port.get("port")
    end = port.get("endPort")
    if value is None:
        if end is not None:
            errs.append(FieldError.forbidden(f"{path}.endPort", "may not be specified when `port` is not specified"))
        return
    if isinstance(value, int):
        for msg in names.is_valid_port_num(value):
            errs.append(FieldError.invalid(f"{path}.port", value, msg))
        if end is not None:
            if isinstance(end, int) and end < value:
                errs.append(FieldError.invalid(f"{path}.endPort", end, "must be greater than or equal to `port`"))
            elif isinstance(end, int):
                for msg in names.is_valid_port_num(end):
                    errs.append(FieldError.invalid(f"{path}.endPort", end, msg))
    else:
        if end is not None:
            errs.append(FieldError.forbidden(f"{path}.endPort", "may not be specified when `port` is non-numeric"))
        for msg in names.is_valid_port_name(str(value)):
            errs.append(FieldError.invalid(f"{path}.port", value, msg))


def _ip_block(block: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateIPBlock``: a valid CIDR, and every ``except`` a strict subset of it."""
    cidr = block.get("cidr")
    if not cidr:
        errs.append(FieldError.required(f"{path}.cidr"))
        return
    net = _cidr(cidr, f"{path}.cidr", errs)
    for i, exc in enumerate(as_list(block.get("except"))):
        epath = f"{path}.except[{i}]"
        sub = _cidr(exc, epath, errs)
        if net is None or sub is None:
            continue
        if sub.version != net.version or not (sub.subnet_of(net) and sub != net):  # type: ignore[arg-type]
            errs.append(FieldError.invalid(epath, exc, "must be a strict subset of `cidr`"))


def _peer(peer: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateNetworkPolicyPeer``: exactly one kind of peer, or pod and namespace selectors together."""
    count = 0
    if peer.get("podSelector") is not None:
        count += 1
        label_selector(peer["podSelector"], f"{path}.podSelector", errs)
    if peer.get("namespaceSelector") is not None:
        count += 1
        label_selector(peer["namespaceSelector"], f"{path}.namespaceSelector", errs)
    if peer.get("ipBlock") is not None:
        count += 1
        _ip_block(as_dict(peer["ipBlock"]), f"{path}.ipBlock", errs)
    if count == 0:
        errs.append(FieldError.required(path, "must specify a peer"))
    elif count > 1 and peer.get("ipBlock") is not None:
        errs.append(FieldError.forbidden(path, "may not specify both ipBlock and another peer"))


def _policy_rules(rules: Any, key: str, peers_key: str, errs: list[FieldError]) -> None:
    for i, rule in enumerate(as_list(rules)):
        rule = as_dict(rule)
        path = f"spec.{key}[{i}]"
        for j, port in enumerate(as_list(rule.get("ports"))):
            _policy_port(as_dict(port), f"{path}.ports[{j}]", errs)
        for j, peer in enumerate(as_list(rule.get(peers_key))):
            _peer(as_dict(peer), f"{path}.{peers_key}[{j}]", errs)


def _network_policy_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateNetworkPolicySpec``."""
    label_selector(spec.get("podSelector") or {}, "spec.podSelector", errs)
    _policy_rules(spec.get("ingress"), "ingress", "from", errs)
    _policy_rules(spec.get("egress"), "egress", "to", errs)
    types = as_list(spec.get("policyTypes"))
    for i, t in enumerate(types):
        if t not in _POLICY_TYPES:
            errs.append(FieldError.not_supported(f"spec.policyTypes[{i}]", t, _POLICY_TYPES))
    if len(types) > 2:
        errs.append(FieldError.invalid("spec.policyTypes", list(types), "may not specify more than two policyTypes"))


def validate_network_policy(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj, namespaced=True)
    _network_policy_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_network_policy_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _network_policy_spec(as_dict(obj.get("spec")), errs)
    return errs


# --- Ingress -----------------------------------------------------------------------------------------------


def _backend(backend: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateIngressBackend``: exactly one of a service and a resource."""
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        errs.append(FieldError.invalid(path, "", "cannot set both resource and service backends"))
        return
    if service is None and resource is None:
        errs.append(FieldError.required(path, "resource or service backend is required"))
        return
    if resource is not None:
        res = as_dict(resource)
        if not res.get("kind"):
            errs.append(FieldError.required(f"{path}.resource.kind"))
        if not res.get("name"):
            errs.append(FieldError.required(f"{path}.resource.name"))
        return
    svc = as_dict(service)
    name = svc.get("name") or ""
    if not name:
        errs.append(FieldError.required(f"{path}.service.name"))
    else:
        for msg in names.is_dns1035_label(name):
            errs.append(FieldError.invalid(f"{path}.service.name", name, msg))
    port = as_dict(svc.get("port"))
    ppath = f"{path}.service.port"
    pname, pnum = port.get("name"), port.get("number")
    if pname and pnum:
        errs.append(FieldError.invalid(ppath, dict(port), "cannot set both port name & port number"))
    elif pname:
        for msg in names.is_valid_port_name(pname):
            errs.append(FieldError.invalid(f"{ppath}.name", pname, msg))
    elif pnum:
        for msg in names.is_valid_port_num(pnum) if isinstance(pnum, int) else ["must be an integer"]:
            errs.append(FieldError.invalid(f"{ppath}.number", pnum, msg))
    else:
        errs.append(FieldError.required(ppath, "port name or number is required"))


def _host(host: str, path: str, errs: list[FieldError]) -> None:
    """A rule or TLS host: a DNS subdomain, or a wildcard one (``*.example.com``); never an IP address."""
    if not names.is_valid_ip(host):
        errs.append(FieldError.invalid(path, host, "must be a DNS name, not an IP address"))
        return
    if host.startswith("*."):
        problems = names.is_dns1123_subdomain(host[2:])
        if problems or "*" in host[2:]:
            errs.append(FieldError.invalid(path, host, "a wildcard DNS-1123 subdomain must start with '*.', followed "
                                           "by a valid DNS subdomain, which must consist of lower case alphanumeric "
                                           "characters, '-' or '.' and end with an alphanumeric character (e.g. "
                                           "'*.example.com', regex used for validation is "
                                           r"'\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"))
        return
    dns1123_subdomain(host, path, errs)


def _http_path(p: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateHTTPIngressPath``."""
    path_type = p.get("pathType")
    value = p.get("path") or ""
    if path_type is None:
        errs.append(FieldError.required(f"{path}.pathType", "pathType must be specified"))
    elif path_type not in _PATH_TYPES:
        errs.append(FieldError.not_supported(f"{path}.pathType", path_type, _PATH_TYPES))
    elif path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(FieldError.invalid(f"{path}.path", value, "must be an absolute path"))
        elif "//" in value:
            errs.append(FieldError.invalid(f"{path}.path", value, "must not contain '//'"))
    elif value and not value.startswith("/"):
        errs.append(FieldError.invalid(f"{path}.path", value, "must be an absolute path"))
    _backend(as_dict(p.get("backend")), f"{path}.backend", errs)


def _ingress_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateIngressSpec`` plus the create-time class annotation rule."""
    spec = as_dict(obj.get("spec"))
    rules = as_list(spec.get("rules"))
    if not rules and spec.get("defaultBackend") is None:
        errs.append(FieldError.invalid("spec", list(rules), "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        _backend(as_dict(spec["defaultBackend"]), "spec.defaultBackend", errs)
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        path = f"spec.rules[{i}]"
        if rule.get("host"):
            _host(str(rule["host"]), f"{path}.host", errs)
        if "http" in rule:
            paths = as_list(as_dict(rule.get("http")).get("paths"))
            if not paths:
                errs.append(FieldError.required(f"{path}.http.paths"))
            for j, p in enumerate(paths):
                _http_path(as_dict(p), f"{path}.http.paths[{j}]", errs)
    for i, tls in enumerate(as_list(spec.get("tls"))):
        for j, host in enumerate(as_list(as_dict(tls).get("hosts"))):
            _host(str(host), f"spec.tls[{i}].hosts[{j}]", errs)
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        dns1123_subdomain(str(class_name), "spec.ingressClassName", errs)
        annotation = as_dict(as_dict(obj.get("metadata")).get("annotations")).get(_INGRESS_CLASS_ANNOTATION)
        if annotation is not None and annotation != class_name:
            errs.append(FieldError.invalid(f"metadata.annotations.{_INGRESS_CLASS_ANNOTATION}", annotation,
                                           "must match `ingressClassName` when both are specified"))


def validate_ingress(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj, namespaced=True)
    _ingress_spec(obj, errs)
    return errs


def validate_ingress_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _ingress_spec(obj, errs)
    return errs


# --- IngressClass ------------------------------------------------------------------------------------------


def _ingress_class_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``validateIngressClassSpec``: a domain-prefixed controller name and a parameters reference."""
    controller = spec.get("controller") or ""
    if not controller:
        errs.append(FieldError.required("spec.controller"))
    elif len(controller) > 250:
        errs.append(FieldError.too_long("spec.controller", "", 250))
    else:
        domain, slash, rest = controller.partition("/")
        if not slash or not rest:
            errs.append(FieldError.invalid("spec.controller", controller, "must be a domain-prefixed path (such as "
                                           "\"acme.io/foo\")"))
        else:
            dns1123_subdomain(domain, "spec.controller", errs)
    params = spec.get("parameters")
    if params is None:
        return
    params = as_dict(params)
    p = "spec.parameters"
    if not params.get("kind"):
        errs.append(FieldError.required(f"{p}.kind"))
    if not params.get("name"):
        errs.append(FieldError.required(f"{p}.name"))
    scope = params.get("scope")
    if scope not in ("Cluster", "Namespace"):
        errs.append(FieldError.not_supported(f"{p}.scope", scope, ("Cluster", "Namespace")))
    elif scope == "Namespace" and not params.get("namespace"):
        errs.append(FieldError.required(f"{p}.namespace", "`parameters.scope` is set to 'Namespace'"))
    elif scope == "Cluster" and params.get("namespace"):
        errs.append(FieldError.forbidden(f"{p}.namespace", "`parameters.scope` is set to 'Cluster'"))


def validate_ingress_class(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta(obj, namespaced=False)
    _ingress_class_spec(as_dict(obj.get("spec")), errs)
    return errs


def validate_ingress_class_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = _meta_update(obj, old)
    _ingress_class_spec(as_dict(obj.get("spec")), errs)
    immutable(as_dict(obj.get("spec")).get("controller"), as_dict(old.get("spec")).get("controller"),
              "spec.controller", errs)
    return errs
