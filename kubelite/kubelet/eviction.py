"""Node-pressure eviction for memory, as ``pkg/kubelet/eviction/eviction_manager.go`` does it.

Contract:
- The signal is ``memory.available = capacity - working set of every running container`` (the node's
  system usage is part of the kube-reserved share and not modelled separately). Below the hard
  threshold (default ``100Mi``) the node reports ``MemoryPressure=True``; the condition stays True for
  the pressure transition period (``evictionPressureTransitionPeriod``, 5 min) after the signal recovers.
- Each synchronize evicts at most one pod, ranked as upstream's ``rankMemoryPressure``: pods whose usage
  exceeds their requests first, then by lower priority, then by usage above requests (largest first).
  BestEffort pods request nothing, so they go first; Guaranteed and Burstable pods within their requests
  come last. Pure functions: the kubelet supplies usage and acts on the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.api.types.core_v1 import Pod

__all__ = ["DEFAULT_THRESHOLD", "PRESSURE_TRANSITION_PERIOD", "PodUsage", "eviction_message", "rank_for_memory"]

DEFAULT_THRESHOLD = 100 * 2**20
PRESSURE_TRANSITION_PERIOD = 300.0
MONITORING_INTERVAL = 10.0


class PodUsage:
    __slots__ = ("containers", "key", "pod", "priority", "request", "usage")

    def __init__(self, key: Any, pod: Pod, usage: int, request: int,
                 containers: Mapping[str, tuple[int, int]]) -> None:
        self.key = key
        self.pod = pod
        self.usage = usage
        self.request = request
        self.priority = int((pod.spec.priority if pod.spec is not None else None) or 0)
        self.containers = containers  # name -> (usage, request)


def rank_for_memory(pods: Sequence[PodUsage]) -> list[PodUsage]:
    return sorted(pods, key=lambda p: (not p.usage > p.request, p.priority, -(p.usage - p.request)))


def _mi(n: int) -> str:
    return f"{n // 2**20}Mi" if n % 2**10 == 0 else f"{n // 2**10}Ki"


def eviction_message(victim: PodUsage, threshold: int, available: int) -> str:
    """``evictionMessage``: which containers used more than they requested."""
    msg = (f"The node was low on resource: memory. Threshold quantity: {_mi(threshold)}, "
           f"available: {_mi(max(0, available))}. ")
    for name, (used, req) in victim.containers.items():
        if used > req:
            msg += (f"Container {name} was using {_mi(used)}, request is {req}, "
                    f"has larger consumption of memory. ")
    return msg
