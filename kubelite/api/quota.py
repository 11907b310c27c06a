"""Resource quota usage: what an object charges against a ResourceQuota, and whether a quota covers it.

The evaluators of upstream's ``pkg/quota/v1/evaluator/core`` (pod, service, persistentvolumeclaim) and the
generic object-count evaluator (``count/<resource>.<group>``, plus the legacy names ``pods``, ``services``,
``configmaps``, ``secrets``, ``persistentvolumeclaims``, ``replicationcontrollers``, ``resourcequotas``),
with the scope matching of ``podMatchesScopeFunc`` (Terminating, NotTerminating, BestEffort, NotBestEffort,
PriorityClass in a scopeSelector).

Contract: pure functions over v1 JSON dicts (camelCase); they only read their arguments. Quantities are
:class:`~kubelite.api.quantity.Quantity` values; :func:`format_list` prints a usage map as upstream's
``prettyPrint`` does (sorted ``name=value`` pairs joined by commas). Both the ResourceQuota admission plugin
and the resource quota controller use this module, so admission and ``status.used`` always agree.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from kubelite.api.quantity import Quantity, parse_quantity

__all__ = [
    "COUNTED_RESOURCES",
    "ResourceList",
    "add",
    "format_list",
    "is_terminal_pod",
    "matches_scopes",
    "namespace_usage",
    "object_usage",
    "pod_totals",
    "pod_usage",
    "quota_resource_of",
    "resources_of",
]

ResourceList = dict[str, Quantity]

#: legacy quota names of object counts: quota resource name -> (group, plural)
COUNTED_RESOURCES: dict[str, tuple[str, str]] = {
    "pods": ("", "pods"),
    "services": ("", "services"),
    "configmaps": ("", "configmaps"),
    "secrets": ("", "secrets"),
    "persistentvolumeclaims": ("", "persistentvolumeclaims"),
    "replicationcontrollers": ("", "replicationcontrollers"),
    "resourcequotas": ("", "resourcequotas"),
}
_ZERO = parse_quantity(0)
_ONE = parse_quantity(1)
_POD_COMPUTE = ("cpu", "memory", "ephemeral-storage")


def quota_resource_of(name: str) -> tuple[str, str] | None:
    """The ``(group, plural)`` whose objects a quota resource name counts, if it is an object count."""
    if name in COUNTED_RESOURCES:
        return COUNTED_RESOURCES[name]
    if name.startswith("count/"):
        plural, _, group = name[len("count/"):].partition(".")
        return group, plural
    return None


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k] + v if k in out else v
    return out


def format_list(values: Mapping[str, Quantity]) -> str:
    """upstream ``prettyPrint``: ``limits.cpu=2,pods=1``."""
    return ",".join(f"{k}={values[k]}" for k in sorted(values))


def is_terminal_pod(pod: Mapping[str, Any]) -> bool:
    """``QuotaV1Pod`` is false for pods that no longer consume resources: Succeeded or Failed."""
    return ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")


def _container_resources(c: Mapping[str, Any], kind: str) -> ResourceList:
    out: ResourceList = {}
    for name, value in ((c.get("resources") or {}).get(kind) or {}).items():
        try:
            out[name] = parse_quantity(value)
        except (TypeError, ValueError):
            continue  # validation rejects it; usage never raises
    return out


def pod_totals(spec: Mapping[str, Any], kind: str) -> ResourceList:
    """``resourcehelper.PodRequests``/``PodLimits``: the sum over containers, at least the largest init
    container, plus the pod overhead."""
    total: ResourceList = {}
    for c in spec.get("containers") or ():
        total = add(total, _container_resources(c, kind))
    for c in spec.get("initContainers") or ():
        for name, q in _container_resources(c, kind).items():
            if name not in total or q > total[name]:
                total[name] = q
    for name, value in (spec.get("overhead") or {}).items():
        try:
            total = add(total, {name: parse_quantity(value)})
        except (TypeError, ValueError):
            continue
    return total


def _is_best_effort(spec: Mapping[str, Any]) -> bool:
    for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        res = c.get("resources") or {}
        for kind in ("requests", "limits"):
            for name, value in (res.get(kind) or {}).items():
                if name in ("cpu", "memory"):
                    try:
                        if parse_quantity(value) > _ZERO:
                            return False
                    except (TypeError, ValueError):
                        continue
    return True


def pod_usage(pod: Mapping[str, Any]) -> ResourceList:
    """The pod evaluator's ``Usage``: ``pods``/``count/pods`` 1, ``requests.*`` (and the bare ``cpu``,
    ``memory``, ``ephemeral-storage``) and ``limits.*`` for the compute resources, ``requests.<name>`` for
    extended resources. A terminal pod uses nothing (upstream's usage stats skip it)."""
    if is_terminal_pod(pod):
        return {}
    usage: ResourceList = {"pods": _ONE, "count/pods": _ONE}
    spec = pod.get("spec") or {}
    for name, q in pod_totals(spec, "requests").items():
        usage[f"requests.{name}"] = q
        if name in _POD_COMPUTE:
            usage[name] = q
    for name, q in pod_totals(spec, "limits").items():
        if name in _POD_COMPUTE:
            usage[f"limits.{name}"] = q
        elif f"requests.{name}" not in usage:
            usage[f"requests.{name}"] = q  # extended resources: a limit implies the same request
    return usage


def object_usage(group: str, plural: str, obj: Mapping[str, Any]) -> ResourceList:
    """What one object of ``group``/``plural`` charges: its counts, plus the pod, service and claim
    evaluators' resources."""
    if (group, plural) == ("", "pods"):
        return pod_usage(obj)
    usage: ResourceList = {f"count/{plural}.{group}" if group else f"count/{plural}": _ONE}
    for legacy, gr in COUNTED_RESOURCES.items():
        if gr == (group, plural):
            usage[legacy] = _ONE
    if (group, plural) == ("", "services"):
        kind = (obj.get("spec") or {}).get("type")
        if kind == "LoadBalancer":
            usage["services.loadbalancers"] = _ONE
        if kind in ("NodePort", "LoadBalancer"):
            ports = (obj.get("spec") or {}).get("ports") or ()
            usage["services.nodeports"] = parse_quantity(len(ports))
    if (group, plural) == ("", "persistentvolumeclaims"):
        storage = (((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
        if storage is not None:
            with contextlib.suppress(TypeError, ValueError):
                usage["requests.storage"] = parse_quantity(storage)
    return usage


def _scope_matches(scope: str, op: str, values: Iterable[str], pod: Mapping[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    if scope == "Terminating":
        return spec.get("activeDeadlineSeconds") is not None
    if scope == "NotTerminating":
        return spec.get("activeDeadlineSeconds") is None
    if scope == "BestEffort":
        return _is_best_effort(spec)
    if scope == "NotBestEffort":
        return not _is_best_effort(spec)
    if scope == "PriorityClass":
        name = spec.get("priorityClassName")
        if op == "Exists":
            return bool(name)
        if op == "DoesNotExist":
            return not name
        if op == "In":
            return name in set(values)
        if op == "NotIn":
            return name not in set(values)
    return False


def matches_scopes(quota: Mapping[str, Any], group: str, plural: str, obj: Mapping[str, Any]) -> bool:
    """Whether ``quota`` covers ``obj`` at all: a quota with scopes covers only pods in every scope."""
    spec = quota.get("spec") or {}
    selectors = [(s, "Exists", ()) for s in spec.get("scopes") or ()]
    for expr in ((spec.get("scopeSelector") or {}).get("matchExpressions") or ()):
        selectors.append((expr.get("scopeName") or "", expr.get("operator") or "", expr.get("values") or ()))
    if not selectors:
        return True
    if (group, plural) != ("", "pods"):
        return False
    return all(_scope_matches(scope, op, values, obj) for scope, op, values in selectors)


def namespace_usage(quota: Mapping[str, Any], objects: Mapping[tuple[str, str], Iterable[Mapping[str, Any]]],
                    *, skip: tuple[str, str, str] | None = None) -> ResourceList:
    """The usage of ``quota``'s hard resources by ``objects`` (``(group, plural)`` -> the namespace's objects of
    that resource), leaving out the object ``skip`` = ``(group, plural, name)``. Every hard resource is reported,
    zero when nothing uses it (as upstream's ``status.used``)."""
    hard = (quota.get("spec") or {}).get("hard") or {}
    used: ResourceList = {name: _ZERO for name in hard}
    for (group, plural), items in objects.items():
        for obj in items:
            if skip is not None and skip == (group, plural, (obj.get("metadata") or {}).get("name")):
                continue
            if not matches_scopes(quota, group, plural, obj):
                continue
            for name, q in object_usage(group, plural, obj).items():
                if name in used:
                    used[name] = used[name] + q
    return used


def resources_of(quota: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The ``(group, plural)`` resources whose objects ``quota``'s hard resources are charged by."""
    out: set[tuple[str, str]] = set()
    for name in (quota.get("spec") or {}).get("hard") or {}:
        counted = quota_resource_of(name)
        if counted is not None:
            out.add(counted)
        elif name == "requests.storage":
            out.add(("", "persistentvolumeclaims"))
        elif name in ("services.loadbalancers", "services.nodeports"):
            out.add(("", "services"))
        elif name.startswith(("requests.", "limits.")) or name in _POD_COMPUTE:
            out.add(("", "pods"))
    return out
