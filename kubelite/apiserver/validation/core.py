"""Validation of the core kinds other than Pod: Service, ConfigMap, Secret, Namespace, Node, PV, PVC,
ServiceAccount and Event.

Follows ``pkg/apis/core/validation/validation.go`` (``ValidateService``/``ValidateServiceUpdate``,
``ValidateConfigMap``, ``ValidateSecret``, ``ValidateNamespace``, ``ValidateNode``/``ValidateNodeUpdate``,
``ValidatePersistentVolume``, ``ValidatePersistentVolumeClaim``, ``ValidateServiceAccount``,
``ValidateEventCreate``). Contract: read-only over JSON; errors in upstream's order. Each ``validate_*``
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
    dns1123_label,
    dns1123_subdomain,
    immutable,
    label_selector,
    labels,
    qualified_name,
    quantity,
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
    "validate_persistent_volume",
    "validate_persistent_volume_update",
    "validate_pvc",
    "validate_pvc_spec",
    "validate_pvc_update",
    "validate_secret",
    "validate_secret_update",
    "validate_service",
    "validate_service_account",
    "validate_service_update",
]

MAX_SECRET_SIZE: Final = 1024 * 1024
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_SERVICE_TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_ACCESS_MODES: Final = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_VOLUME_MODES: Final = ("Block", "Filesystem")
_KUBELET_PORT: Final = 10250
_STANDARD_FINALIZERS: Final = frozenset({"kubernetes"})

_sub = names.name_is_dns_subdomain


def _meta(obj: Mapping[str, Any], *, namespaced: bool = True, name_fn: Any = _sub) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), namespaced=namespaced, name_fn=name_fn)


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


# --- Service ---------------------------------------------------------------------------------------------


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
    errs = _meta(svc, name_fn=names.name_is_dns1035_label)
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


# --- PersistentVolume and PersistentVolumeClaim ------------------------------------------------------------

_PV_SOURCES: Final = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "quobyte", "cinder",
    "cephfs", "iscsi", "fc", "flocker", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk",
    "portworxVolume", "scaleIO", "local", "storageos", "csi",
)


def _access_modes(modes: list[Any], path: str, errs: list[FieldError]) -> None:
    rwop = other = False
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(FieldError.not_supported(path, mode, _ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        else:
            other = True
    if rwop and other:
        errs.append(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access modes"))


def validate_persistent_volume(pv: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolume`` / ``ValidatePersistentVolumeSpec``."""
    errs = _meta(pv, namespaced=False)
    spec = as_dict(pv.get("spec"))
    modes = list(as_list(spec.get("accessModes")))
    if not modes:
        errs.append(FieldError.required("spec.accessModes"))
    _access_modes(modes, "spec.accessModes", errs)
    capacity = as_dict(spec.get("capacity"))
    if not capacity:
        errs.append(FieldError.required("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(FieldError.not_supported("spec.capacity", dict(capacity), ("storage",)))
    for name, value in capacity.items():
        q = quantity(value, f"spec.capacity[{name}]", errs)
        if q is not None and q.sign() <= 0:
            errs.append(FieldError.invalid(f"spec.capacity[{name}]", str(q), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        for msg in names.name_is_dns_subdomain(class_name, False):
            errs.append(FieldError.invalid("spec.storageClassName", class_name, msg))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _VOLUME_MODES:
        errs.append(FieldError.not_supported("spec.volumeMode", mode, _VOLUME_MODES))
    count = 0
    for key in _PV_SOURCES:
        src = spec.get(key)
        if src is None:
            continue
        if count:
            errs.append(FieldError.forbidden(f"spec.{key}", "may not specify more than 1 volume type"))
            continue
        count += 1
        src = as_dict(src)
        if key in ("hostPath", "local") and not src.get("path"):
            errs.append(FieldError.required(f"spec.{key}.path"))
        elif key == "csi" and not src.get("driver"):
            errs.append(FieldError.required("spec.csi.driver"))
    if count == 0:
        errs.append(FieldError.required("spec", "must specify a volume type"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy not in ("Delete", "Recycle", "Retain"):
        errs.append(FieldError.not_supported("spec.persistentVolumeReclaimPolicy", policy, ("Delete", "Recycle", "Retain")))
    return errs


def validate_persistent_volume_update(pv: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeUpdate``: the volume source and volumeMode are immutable."""
    errs = validate_persistent_volume(pv)
    errs.extend(_meta_update(pv, old))
    spec = as_dict(pv.get("spec"))
    old_spec = as_dict(old.get("spec"))
    if any(not semantic_equal(spec.get(k), old_spec.get(k)) for k in _PV_SOURCES):
        errs.append(FieldError.forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"))
    immutable(spec.get("volumeMode"), old_spec.get("volumeMode"), "spec.volumeMode", errs)
    return errs


def validate_pvc_spec(spec: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidatePersistentVolumeClaimSpec``."""
    modes = list(as_list(spec.get("accessModes")))
    if not modes:
        errs.append(FieldError.required(f"{path}.accessModes", "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        label_selector(spec["selector"], f"{path}.selector", errs)
    _access_modes(modes, f"{path}.accessModes", errs)
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    storage_path = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(FieldError.required(storage_path))
    else:
        q = quantity(requests["storage"], storage_path, errs)
        if q is not None and q.sign() <= 0:
            errs.append(FieldError.invalid(storage_path, str(q), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        for msg in names.name_is_dns_subdomain(class_name, False):
            errs.append(FieldError.invalid(f"{path}.storageClassName", class_name, msg))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", mode, _VOLUME_MODES))


def validate_pvc(pvc: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaim``."""
    errs = _meta(pvc)
    validate_pvc_spec(as_dict(pvc.get("spec")), "spec", errs)
    return errs


def validate_pvc_update(pvc: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``: the spec is immutable except a one-time volumeName
    binding and, for bound claims, a storage request that does not shrink."""
    errs = _meta_update(pvc, old)
    errs.extend(validate_pvc(pvc))
    spec = dict(as_dict(pvc.get("spec")))
    old_spec = as_dict(old.get("spec"))
    if not old_spec.get("volumeName"):
        spec["volumeName"] = old_spec.get("volumeName")
    if as_dict(old.get("status")).get("phase") == "Bound":
        spec["resources"] = old_spec.get("resources")
        spec["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
        new_req = as_dict(as_dict(as_dict(pvc.get("spec")).get("resources")).get("requests")).get("storage")
        old_req = as_dict(as_dict(old_spec.get("resources")).get("requests")).get("storage")
        if new_req is not None and old_req is not None:
            scratch: list[FieldError] = []
            nq, oq = quantity(new_req, "", scratch), quantity(old_req, "", scratch)
            if nq is not None and oq is not None and nq < oq:
                errs.append(FieldError.forbidden(
                    "spec.resources.requests.storage", "field can not be less than previous value"))
    if not semantic_equal(spec, old_spec):
        errs.append(FieldError.forbidden(
            "spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName "
            "for bound claims"))
    return errs

