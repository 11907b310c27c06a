"""A pod's QoS class, as ``pkg/apis/core/v1/helper/qos/qos.go`` (``GetPodQOS``) computes it.

The apiserver already sets ``status.qosClass`` at creation; the kubelet prefers that value and uses
:func:`qos_class` only for pods that lack it (built in memory, or from an old apiserver).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.podresources import quantity_units

__all__ = ["BEST_EFFORT", "BURSTABLE", "GUARANTEED", "pod_qos", "qos_class"]

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"


def qos_class(pod: Mapping[str, Any]) -> str:
    spec = pod.get("spec") or {}
    any_set = False
    guaranteed = True
    for c in (*(spec.get("initContainers") or ()), *(spec.get("containers") or ())):
        res = c.get("resources") or {}
        req = {k: quantity_units(k, v) for k, v in (res.get("requests") or {}).items() if k in ("cpu", "memory")}
        lim = {k: quantity_units(k, v) for k, v in (res.get("limits") or {}).items() if k in ("cpu", "memory")}
        req = {k: v for k, v in req.items() if v > 0}
        lim = {k: v for k, v in lim.items() if v > 0}
        if req or lim:
            any_set = True
        if len(lim) != 2 or any(k in lim and lim[k] != v for k, v in req.items()):
            guaranteed = False
    if not any_set:
        return BEST_EFFORT
    return GUARANTEED if guaranteed else BURSTABLE


def pod_qos(pod: Mapping[str, Any]) -> str:
    return ((pod.get("status") or {}).get("qosClass")) or qos_class(pod)
