"""A pod's resource requests and limits, as upstream computes them for scheduling and kubelet admission.

Follows ``k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``/``PodLimits``):
- the effective request is ``max(sum(app containers), max(each init container))``, where restartable
  init containers (sidecars, ``restartPolicy: Always``) add to everything after them;
- ``spec.overhead`` is added;
- a container's missing request for a resource it has a limit for defaults to the limit (the apiserver
  does that at admission already, but objects built in memory may not have been through it).
Quantities are returned as integers: ``cpu`` in millicores, everything else in base units (bytes, or
a count for extended resources such as ``nvidia.com/gpu``). Works on plain dicts and on the generated
Structs (read field by field: only the containers' resources, restart policies and the overhead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubelite.api.quantity import parse_quantity

__all__ = ["container_requests", "pod_limits", "pod_requests", "quantity_units"]


def quantity_units(resource: str, value: Any) -> int:
    """``cpu`` in millicores, any other resource in base units (rounded up, as upstream does)."""
    q = parse_quantity(value)
    return q.milli_value() if resource == "cpu" else q.value()


def _units(rl: Mapping[str, Any] | None) -> dict[str, int]:
    if not rl:
        return {}
    return {name: quantity_units(name, v) for name, v in rl.items()}


def container_requests(container: Mapping[str, Any]) -> dict[str, int]:
    """One container's (a dict's) effective requests: its requests, a limit standing in for a missing one."""
    res = container.get("resources") or {}
    return _requests(res.get("requests"), res.get("limits"))


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def _parts(pod: Any) -> tuple[list[tuple[Any, Any, Any]], list[tuple[Any, Any, Any]], Any]:
    """The pod's containers and init containers as ``(restartPolicy, requests, limits)`` and its overhead:
    the only fields the sums read. A Struct pod is read field by field (converting its whole spec to
    dicts cost more than the sums: ~60% of a pod add's admission in the kubelet)."""
    if isinstance(pod, msgspec.Struct):
        spec = getattr(pod, "spec", None)
        if spec is None:
            return [], [], None

        def typed(cs: Any) -> list[tuple[Any, Any, Any]]:
            out = []
            for c in cs or ():
                res = c.resources
                out.append((c.restart_policy, res.requests if res is not None else None,
                            res.limits if res is not None else None))
            return out

        return typed(spec.containers), typed(spec.init_containers), spec.overhead
    spec = pod.get("spec") or {}

    def plain(cs: Any) -> list[tuple[Any, Any, Any]]:
        out = []
        for c in cs or ():
            res = c.get("resources") or {}
            out.append((c.get("restartPolicy"), res.get("requests"), res.get("limits")))
        return out

    return plain(spec.get("containers")), plain(spec.get("initContainers")), spec.get("overhead")


def _aggregate(pod: Any, per_container: Any) -> dict[str, int]:
    containers, inits, overhead = _parts(pod)
    total: dict[str, int] = {}
    for _policy, requests, limits in containers:
        _add(total, per_container(requests, limits))
    init_max: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for policy, requests, limits in inits:
        r = per_container(requests, limits)
        if policy == "Always":
            _add(sidecars, r)
            _add(total, r)
            continue
        # a regular init container runs alongside the sidecars started before it
        running = dict(sidecars)
        _add(running, r)
        _max(init_max, running)
    _max(total, init_max)
    if overhead:
        _add(total, _units(overhead))
    return total


def _requests(requests: Mapping[str, Any] | None, limits: Mapping[str, Any] | None) -> dict[str, int]:
    req = _units(requests)
    if limits:
        for name, v in _units(limits).items():
            req.setdefault(name, v)
    return req


def pod_requests(pod: Any) -> dict[str, int]:
    """Effective requests of a pod (``cpu`` in millicores)."""
    return _aggregate(pod, _requests)


def pod_limits(pod: Any) -> dict[str, int]:
    """Effective limits of a pod (``cpu`` in millicores); resources without a limit are absent."""
    return _aggregate(pod, lambda _requests, limits: _units(limits))
