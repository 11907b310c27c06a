"""A pod's resource requests and limits, as upstream computes them for scheduling and kubelet admission.

Follows ``k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``/``PodLimits``):
- the effective request is ``max(sum(app containers), max(each init container))``, where restartable
  init containers (sidecars, ``restartPolicy: Always``) add to everything after them;
- ``spec.overhead`` is added;
- a container's missing request for a resource it has a limit for defaults to the limit (the apiserver
  does that at admission already, but objects built in memory may not have been through it).
Quantities are returned as integers: ``cpu`` in millicores, everything else in base units (bytes, or
a count for extended resources such as ``nvidia.com/gpu``). Works on plain dicts and on the generated
Structs (through :func:`msgspec.to_builtins` once).
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
    res = container.get("resources") or {}
    req = _units(res.get("requests"))
    for name, v in _units(res.get("limits")).items():
        req.setdefault(name, v)
    return req


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def _spec(pod: Any) -> Mapping[str, Any]:
    """The pod's spec as a mapping (a Struct pod converts only its spec: nothing else is read)."""
    if isinstance(pod, msgspec.Struct):
        spec = getattr(pod, "spec", None)
        return msgspec.to_builtins(spec) if spec is not None else {}  # type: ignore[no-any-return]
    return pod.get("spec") or {}  # type: ignore[no-any-return]


def _aggregate(pod: Any, per_container: Any) -> dict[str, int]:
    spec = _spec(pod)
    total: dict[str, int] = {}
    for c in spec.get("containers") or ():
        _add(total, per_container(c))
    init_max: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for c in spec.get("initContainers") or ():
        r = per_container(c)
        if c.get("restartPolicy") == "Always":
            _add(sidecars, r)
            _add(total, r)
            continue
        # a regular init container runs alongside the sidecars started before it
        running = dict(sidecars)
        _add(running, r)
        _max(init_max, running)
    _max(total, init_max)
    overhead = spec.get("overhead")
    if overhead:
        _add(total, _units(overhead))
    return total


def pod_requests(pod: Any) -> dict[str, int]:
    """Effective requests of a pod (``cpu`` in millicores)."""
    return _aggregate(pod, container_requests)


def pod_limits(pod: Any) -> dict[str, int]:
    """Effective limits of a pod (``cpu`` in millicores); resources without a limit are absent."""
    return _aggregate(pod, lambda c: _units((c.get("resources") or {}).get("limits")))
