"""Container validation: names, images, ports, env, mounts, resources, probes and lifecycle hooks.

Follows ``pkg/apis/core/validation/validation.go``: ``validateContainers``, ``validateInitContainers``,
``validateContainerCommon``, ``validateContainerPorts``, ``ValidateEnv``, ``ValidateVolumeMounts``,
``ValidateResourceRequirements``, ``validateProbe``/``validateHandler`` and ``checkHostPortConflicts``,
in their order. Contract: read-only over the JSON containers; errors are appended to the caller's list.
This is the hot path of every pod create, so loops avoid building intermediate lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubelite.api import names
from kubelite.api.quantity import ERR_FORMAT_WRONG, Quantity
from kubelite.apiserver.validation.common import (
    IS_NEGATIVE,
    as_dict,
    as_list,
    dns1123_label,
    nonnegative,
    not_found,
    qualified_name,
    quantity,
)
from kubelite.errors import FieldError
from kubelite.memo import memoize

__all__ = ["validate_containers", "validate_init_containers"]

_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_PULL_POLICIES: Final = ("Always", "IfNotPresent", "Never")
_STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
# Resources whose request may be lower than the limit (helper.IsOvercommitAllowed: native, non-hugepage).
_NATIVE_SUFFIX: Final = "kubernetes.io/"


def _native(name: str) -> bool:
    """``helper.IsNativeResource``: no domain, or a ``kubernetes.io`` one."""
    return "/" not in name or name.startswith(_NATIVE_SUFFIX) or ".kubernetes.io/" in name


def _overcommit_allowed(name: str) -> bool:
    return _native(name) and not name.startswith("hugepages-")


def _integer_resource(name: str) -> bool:
    """``helper.IsIntegerResourceName``: extended resources must be integers."""
    return not _native(name)


def _resource_name(name: str, path: str, errs: list[FieldError]) -> None:
    """``validateContainerResourceName``."""
    qualified_name(name, path, errs)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            errs.append(FieldError.invalid(path, name, "must be a standard resource for containers"))
    elif not _native(name) and names.is_qualified_name("requests." + name):
        errs.append(FieldError.invalid(path, name, "doesn't follow extended resource name standard"))


# bound: distinct (resource name, quantity) pairs: resources of a few templates
@memoize("apiserver.validation.container._resource_entry", maxsize=4096)
def _resource_entry(name: str, value: str | int | float) -> tuple[Quantity | None, tuple[FieldError, ...]]:
    """One ``name: value`` entry of a ResourceList, checked once per distinct spelling: the quantity and
    the problems with it, reported at the empty path (callers re-home them). Pods repeat the same few
    entries endlessly, so this keeps the hot path to a dict lookup."""
    errs: list[FieldError] = []
    _resource_name(name, "", errs)
    q = quantity(value, "", errs)
    if q is not None:
        if q.sign() < 0:
            errs.append(FieldError.invalid("", str(q), IS_NEGATIVE))
        if _integer_resource(name) and q.milli_value() % 1000 != 0:
            errs.append(FieldError.invalid("", str(q), "must be an integer"))
    return q, tuple(errs)


def _entry(name: str, value: Any, path: str, errs: list[FieldError]) -> Quantity | None:
    try:
        q, problems = _resource_entry(name, value)
    except TypeError:  # an unhashable (malformed) value
        errs.append(FieldError.invalid(f"{path}[{name}]", value, ERR_FORMAT_WRONG))
        return None
    if problems:
        p = f"{path}[{name}]"
        errs.extend(FieldError(kind=e.kind, field=p, detail=e.detail, value=e.value) for e in problems)
    return q


def validate_resources(resources: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateResourceRequirements``: names, non-negative quantities, requests <= limits."""
    limits = resources.get("limits")
    requests = resources.get("requests")
    parsed_limits: dict[str, Quantity] = {}
    if limits and isinstance(limits, dict):
        lim_path = f"{path}.limits"
        for name, value in limits.items():
            q = _entry(name, value, lim_path, errs)
            if q is not None:
                parsed_limits[name] = q
    if not requests or not isinstance(requests, dict):
        return
    req_path = f"{path}.requests"
    for name, value in requests.items():
        q = _entry(name, value, req_path, errs)
        if q is None:
            continue
        limit = parsed_limits.get(name)
        if limit is not None:
            detail = _request_vs_limit(name, q, limit)
            if detail:
                errs.append(FieldError.invalid(req_path, str(q), detail))
        elif not _overcommit_allowed(name) and (not isinstance(limits, dict) or name not in limits):
            errs.append(FieldError.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))


# bound: distinct (resource, request, limit) triples: resources of a few templates
@memoize("apiserver.validation.container._request_vs_limit", maxsize=4096)
def _request_vs_limit(name: str, request: Quantity, limit: Quantity) -> str:
    """The problem with a request against its limit ("" if none); memoized like :func:`_resource_entry`."""
    if request != limit and not _overcommit_allowed(name):
        return f"must be equal to {name} limit of {limit}"
    if request > limit:
        return f"must be less than or equal to {name} limit of {limit}"
    return ""


def _port_num_or_name(port: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidatePortNumOrName``."""
    if isinstance(port, int) and not isinstance(port, bool):
        for msg in names.is_valid_port_num(port):
            errs.append(FieldError.invalid(path, port, msg))
    elif isinstance(port, str):
        for msg in names.is_valid_port_name(port):
            errs.append(FieldError.invalid(path, port, msg))
    else:
        errs.append(FieldError(kind="Internal", field=path, detail=f"unknown type: {port!r}"))


def validate_handler(handler: Mapping[str, Any], path: str, errs: list[FieldError], *, lifecycle: bool) -> None:
    """``validateHandler``: exactly one of exec, httpGet, tcpSocket, grpc (sleep for lifecycle hooks)."""
    count = 0
    kinds = ("exec", "httpGet", "tcpSocket", "sleep") if lifecycle else ("exec", "httpGet", "tcpSocket", "grpc")
    for kind in kinds:
        h = handler.get(kind)
        if h is None:
            continue
        p = f"{path}.{kind}"
        if count:
            errs.append(FieldError.forbidden(p, "may not specify more than 1 handler type"))
            continue
        count += 1
        h = as_dict(h)
        if kind == "exec":
            if not as_list(h.get("command")):
                errs.append(FieldError.required(f"{p}.command"))
        elif kind == "httpGet":
            if not h.get("path"):
                errs.append(FieldError.required(f"{p}.path"))
            _port_num_or_name(h.get("port"), f"{p}.port", errs)
            scheme = h.get("scheme")
            if scheme not in ("HTTP", "HTTPS"):
                errs.append(FieldError.not_supported(f"{p}.scheme", scheme, ("HTTP", "HTTPS")))
        elif kind == "tcpSocket":
            _port_num_or_name(h.get("port"), f"{p}.port", errs)
        elif kind == "grpc":
            port = h.get("port")
            for msg in names.is_valid_port_num(port) if isinstance(port, int) else ["must be between 1 and 65535, inclusive"]:
                errs.append(FieldError.invalid(f"{p}.port", port, msg))
        elif kind == "sleep":
            seconds = h.get("seconds")
            if isinstance(seconds, int) and seconds < 0:
                errs.append(FieldError.invalid(f"{p}.seconds", seconds, "must be non-negative integer"))
    if count == 0:
        errs.append(FieldError.required(path, "must specify a handler type"))


def _probe(probe: Any, path: str, errs: list[FieldError], *, success_must_be_one: bool) -> None:
    """``validateProbe`` (+ the liveness/startup rule that successThreshold is 1)."""
    if probe is None:
        return
    probe = as_dict(probe)
    validate_handler(probe, path, errs, lifecycle=False)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        nonnegative(probe.get(key), f"{path}.{key}", errs)
    grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace <= 0:
        errs.append(FieldError.invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than 0"))
    if success_must_be_one and probe.get("successThreshold", 1) != 1:
        errs.append(FieldError.invalid(f"{path}.successThreshold", probe.get("successThreshold"), "must be 1"))


def _ports(ports: Sequence[Any], path: str, errs: list[FieldError]) -> None:
    """``validateContainerPorts``."""
    seen: set[str] = set()
    for i, port in enumerate(ports):
        port = as_dict(port)
        p = f"{path}[{i}]"
        name = port.get("name")
        if name:
            msgs = names.is_valid_port_name(name)
            if msgs:
                for msg in msgs:
                    errs.append(FieldError.invalid(f"{p}.name", name, msg))
            elif name in seen:
                errs.append(FieldError.duplicate(f"{p}.name", name))
            else:
                seen.add(name)
        cport = port.get("containerPort")
        if not cport:
            errs.append(FieldError.required(f"{p}.containerPort"))
        elif not 1 <= cport <= 65535:
            errs.append(FieldError.invalid(f"{p}.containerPort", cport, "must be between 1 and 65535, inclusive"))
        hport = port.get("hostPort")
        if hport and not 1 <= hport <= 65535:
            errs.append(FieldError.invalid(f"{p}.hostPort", hport, "must be between 1 and 65535, inclusive"))
        protocol = port.get("protocol")
        if not protocol:
            errs.append(FieldError.required(f"{p}.protocol"))
        elif protocol not in _PROTOCOLS:
            errs.append(FieldError.not_supported(f"{p}.protocol", protocol, _PROTOCOLS))


_ENV_NAME_MSG: Final = (
    "a valid environment variable name must consist only of printable ASCII characters other than '='"
)


def _env(env: Sequence[Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateEnv`` with ``IsRelaxedEnvVarName`` (RelaxedEnvironmentVariableValidation is GA)."""
    for i, var in enumerate(env):
        var = as_dict(var)
        p = f"{path}[{i}]"
        name = var.get("name") or ""
        if not name:
            errs.append(FieldError.required(f"{p}.name"))
            errs.append(FieldError.invalid(f"{p}.name", name, "environment variable name must be non-empty"))
        elif not name.isascii() or not name.isprintable() or "=" in name:
            errs.append(FieldError.invalid(f"{p}.name", name, _ENV_NAME_MSG))
        value_from = var.get("valueFrom")
        if value_from is not None:
            _env_value_from(as_dict(value_from), bool(var.get("value")), f"{p}.valueFrom", errs)


def _env_value_from(src: Mapping[str, Any], has_value: bool, path: str, errs: list[FieldError]) -> None:
    """``validateEnvVarValueFrom``."""
    n = 0
    for key in ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"):
        ref = src.get(key)
        if ref is None:
            continue
        n += 1
        ref = as_dict(ref)
        if key == "fieldRef" and not ref.get("fieldPath"):
            errs.append(FieldError.required(f"{path}.fieldRef.fieldPath"))
        elif key == "resourceFieldRef" and not ref.get("resource"):
            errs.append(FieldError.required(f"{path}.resourceFieldRef.resource"))
        elif key in ("configMapKeyRef", "secretKeyRef"):
            if not ref.get("key"):
                errs.append(FieldError.required(f"{path}.{key}.key"))
            else:
                for msg in names.is_config_map_key(ref["key"]):
                    errs.append(FieldError.invalid(f"{path}.{key}.key", ref["key"], msg))
            if not ref.get("name"):
                errs.append(FieldError.required(f"{path}.{key}.name"))
    if n == 0:
        errs.append(FieldError.invalid(
            path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
    elif has_value:
        errs.append(FieldError.invalid(path, "", "may not be specified when `value` is not empty"))
    elif n > 1:
        errs.append(FieldError.invalid(path, "", "may not have more than one field specified at a time"))


def _volume_mounts(mounts: Sequence[Any], volumes: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateVolumeMounts``."""
    seen: set[str] = set()
    for i, mount in enumerate(mounts):
        mount = as_dict(mount)
        p = f"{path}[{i}]"
        name = mount.get("name") or ""
        if not name:
            errs.append(FieldError.required(f"{p}.name"))
        if name not in volumes:
            errs.append(not_found(f"{p}.name", name))
        mount_path = mount.get("mountPath") or ""
        if not mount_path:
            errs.append(FieldError.required(f"{p}.mountPath"))
        if mount_path in seen:
            errs.append(FieldError.invalid(f"{p}.mountPath", mount_path, "must be unique"))
        seen.add(mount_path)
        sub_path = mount.get("subPath")
        if sub_path:
            _local_descending_path(sub_path, f"{path}.subPath", errs)


def _local_descending_path(target: str, path: str, errs: list[FieldError]) -> None:
    """``validateLocalDescendingPath``."""
    if target.startswith("/"):
        errs.append(FieldError.invalid(path, target, "must be a relative path"))
    if ".." in target.replace("\\", "/").split("/"):
        errs.append(FieldError.invalid(path, target, "must not contain '..'"))


def _container_common(ctr: Mapping[str, Any], volumes: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateContainerCommon``."""
    name = ctr.get("name")
    if not name:
        errs.append(FieldError.required(f"{path}.name"))
    elif names.is_dns1123_label(name):
        dns1123_label(name, f"{path}.name", errs)
    if not ctr.get("image"):
        errs.append(FieldError.required(f"{path}.image"))
    policy = ctr.get("terminationMessagePolicy")
    if policy not in ("File", "FallbackToLogsOnError"):
        if not policy:
            errs.append(FieldError.required(
                f"{path}.terminationMessagePolicy", "must be 'File' or 'FallbackToLogsOnError'"))
        else:
            errs.append(FieldError.not_supported(
                f"{path}.terminationMessagePolicy", policy, ("File", "FallbackToLogsOnError")))
    ports = ctr.get("ports")
    if ports:
        _ports(as_list(ports), f"{path}.ports", errs)
    env = ctr.get("env")
    if env:
        _env(as_list(env), f"{path}.env", errs)
    mounts = ctr.get("volumeMounts")
    if mounts:
        _volume_mounts(as_list(mounts), volumes, f"{path}.volumeMounts", errs)
    pull = ctr.get("imagePullPolicy")
    if pull not in _PULL_POLICIES:
        if not pull:
            errs.append(FieldError.required(f"{path}.imagePullPolicy"))
        else:
            errs.append(FieldError.not_supported(f"{path}.imagePullPolicy", pull, _PULL_POLICIES))
    resources = ctr.get("resources")
    if resources:
        validate_resources(as_dict(resources), f"{path}.resources", errs)


def _lifecycle(lifecycle: Any, path: str, errs: list[FieldError]) -> None:
    lc = as_dict(lifecycle)
    for key in ("postStart", "preStop"):
        handler = lc.get(key)
        if handler is not None:
            validate_handler(as_dict(handler), f"{path}.{key}", errs, lifecycle=True)


def _host_port_conflicts(containers: Sequence[Any], path: str, errs: list[FieldError]) -> None:
    """``checkHostPortConflicts``: one hostIP/protocol/hostPort triple per pod."""
    seen: set[str] = set()
    for ci, ctr in enumerate(containers):
        for pi, port in enumerate(as_list(as_dict(ctr).get("ports"))):
            port = as_dict(port)
            host_port = port.get("hostPort")
            if not host_port:
                continue
            key = f"{port.get('hostIP') or ''}/{port.get('protocol') or ''}/{host_port}"
            if key in seen:
                errs.append(FieldError.duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            else:
                seen.add(key)


def validate_containers(
    containers: Sequence[Any], volumes: Mapping[str, Any], path: str, errs: list[FieldError]
) -> None:
    """``validateContainers``: required, unique names, probes; host ports checked across containers."""
    if not containers:
        errs.append(FieldError.required(path))
        return
    seen: set[str] = set()
    for i, ctr in enumerate(containers):
        ctr = as_dict(ctr)
        p = f"{path}[{i}]"
        _container_common(ctr, volumes, p, errs)
        name = ctr.get("name") or ""
        if name in seen:
            errs.append(FieldError.duplicate(f"{p}.name", name))
        else:
            seen.add(name)
        if ctr.get("lifecycle") is not None:
            _lifecycle(ctr["lifecycle"], f"{p}.lifecycle", errs)
        _probe(ctr.get("livenessProbe"), f"{p}.livenessProbe", errs, success_must_be_one=True)
        _probe(ctr.get("readinessProbe"), f"{p}.readinessProbe", errs, success_must_be_one=False)
        _probe(ctr.get("startupProbe"), f"{p}.startupProbe", errs, success_must_be_one=True)
        if ctr.get("restartPolicy") is not None:
            errs.append(FieldError.forbidden(f"{p}.restartPolicy", "may not be set for non-init containers"))
    _host_port_conflicts(containers, path, errs)


def validate_init_containers(
    containers: Sequence[Any], others: Sequence[Any], volumes: Mapping[str, Any], path: str,
    errs: list[FieldError],
) -> None:
    """``validateInitContainers``: names unique across init and app containers; probes and lifecycle
    only for restartable (sidecar) init containers."""
    seen = {as_dict(c).get("name") or "" for c in others}
    for i, ctr in enumerate(containers):
        ctr = as_dict(ctr)
        p = f"{path}[{i}]"
        _container_common(ctr, volumes, p, errs)
        restart = ctr.get("restartPolicy")
        if restart is not None and restart != "Always":
            errs.append(FieldError.not_supported(f"{p}.restartPolicy", restart, ("Always",)))
        name = ctr.get("name") or ""
        if name in seen:
            errs.append(FieldError.duplicate(f"{p}.name", name))
        elif name:
            seen.add(name)
        # upstream checks each init container alone (they run one by one), hence index 0
        _host_port_conflicts([ctr], path, errs)
        if restart == "Always":
            if ctr.get("lifecycle") is not None:
                _lifecycle(ctr["lifecycle"], f"{p}.lifecycle", errs)
            _probe(ctr.get("livenessProbe"), f"{p}.livenessProbe", errs, success_must_be_one=True)
            _probe(ctr.get("readinessProbe"), f"{p}.readinessProbe", errs, success_must_be_one=False)
            _probe(ctr.get("startupProbe"), f"{p}.startupProbe", errs, success_must_be_one=True)
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if ctr.get(key) is not None:
                    errs.append(FieldError.forbidden(
                        f"{p}.{key}", "may not be set for init containers without restartPolicy=Always"))
