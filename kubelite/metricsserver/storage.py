"""The last two scrapes, and usage computed from them (metrics-server ``pkg/storage``: ``pod.go``,
``node.go``, ``types.go``).

Contract (upstream's rules, in upstream's terms):
- CPU is a cumulative counter, so a usage needs two points of the same container run:
  ``cpu = (last.cumulative - prev.cumulative) / (last.timestamp - prev.timestamp)`` (nanocores), reported with
  ``timestamp = last.timestamp`` and ``window = last.timestamp - prev.timestamp``; memory is the last working
  set. A decreasing counter is an error: that container is skipped.
- ``store(batch)`` replaces the points: a container's new point becomes ``last``; the old ``last`` becomes
  ``prev`` if the container has not restarted since (its start time is before the old point) and the new
  point is newer. A *fresh* container, started between 10 s (``freshContainerMinMetricsResolution``) and one
  resolution before its first point, gets a synthetic ``prev`` at its start time with a zero counter, so a
  new pod has metrics after one scrape.
- A pod has metrics only when every container of its last point has a ``prev``; pods and nodes missing
  from a batch (their kubelet did not answer) lose their metrics.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from kubelite.api.quantity import BINARY_SI, DECIMAL_SI, Quantity
from kubelite.api.resource_metrics import ContainerPoint, NodePoint, ResourceMetrics

__all__ = ["FRESH_CONTAINER_MIN_RESOLUTION", "MetricsStorage", "Usage"]

FRESH_CONTAINER_MIN_RESOLUTION = 10.0

_NANO = 10**9


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    """One container's (or node's) usage: ``cpu`` and ``memory`` as canonical quantity strings."""

    timestamp: float
    window: float
    cpu: str
    memory: str


_Point = ContainerPoint | NodePoint


def resource_usage(last: _Point, prev: _Point) -> Usage | None:
    """``resourceUsage``: None for a decreasing counter or a zero window."""
    if last.cumulative_cpu_used < prev.cumulative_cpu_used:
        return None
    window = last.timestamp - prev.timestamp
    if window <= 0:
        return None
    nanocores = int((last.cumulative_cpu_used - prev.cumulative_cpu_used) / window)
    return Usage(timestamp=last.timestamp, window=window, cpu=str(Quantity(nanocores, DECIMAL_SI)),
                 memory=str(Quantity(last.memory_usage * _NANO, BINARY_SI)))


PodKey = tuple[str, str]  # (namespace, name)


class MetricsStorage:
    """See the module docstring. ``resolution`` is ``--metric-resolution``."""

    def __init__(self, *, resolution: float) -> None:
        self.resolution = resolution
        self._last_pods: dict[PodKey, dict[str, ContainerPoint]] = {}
        self._prev_pods: dict[PodKey, dict[str, ContainerPoint]] = {}
        self._last_nodes: dict[str, NodePoint] = {}
        self._prev_nodes: dict[str, NodePoint] = {}

    # --- store ---
    def store(self, batch: dict[str, ResourceMetrics]) -> None:
        self._store_nodes((name, m.node) for name, m in batch.items())
        self._store_pods(c for m in batch.values() for c in m.containers)

    def _store_nodes(self, nodes: Iterable[tuple[str, NodePoint]]) -> None:
        last: dict[str, NodePoint] = {}
        prev: dict[str, NodePoint] = {}
        for name, p in nodes:
            if name in last:
                continue  # "Got duplicate node point"
            new = last[name] = p
            old = self._last_nodes.get(name)
            if old is None:
                continue
            if new.timestamp > old.timestamp:
                prev[name] = old
            else:
                older = self._prev_nodes.get(name)
                if older is not None and older.timestamp < new.timestamp:
                    prev[name] = older
        self._last_nodes, self._prev_nodes = last, prev

    def _store_pods(self, containers: Iterable[ContainerPoint]) -> None:
        last: dict[PodKey, dict[str, ContainerPoint]] = {}
        prev: dict[PodKey, dict[str, ContainerPoint]] = {}
        for c in containers:
            key = (c.namespace, c.pod)
            last_containers = last.setdefault(key, {})
            if c.container in last_containers:
                continue  # "Got duplicate Container point"
            new = last_containers[c.container] = c
            age = new.timestamp - new.start_time
            if new.start_time < new.timestamp and FRESH_CONTAINER_MIN_RESOLUTION <= age < self.resolution:
                prev.setdefault(key, {})[c.container] = msgspec.structs.replace(
                    c, timestamp=new.start_time, cumulative_cpu_used=0)
                continue
            old = (self._last_pods.get(key) or {}).get(c.container)
            if old is None or not new.start_time < old.timestamp:
                continue  # no earlier point of this run
            if new.timestamp > old.timestamp:
                prev.setdefault(key, {})[c.container] = old
            else:
                older = (self._prev_pods.get(key) or {}).get(c.container)
                if older is not None and older.timestamp < new.timestamp:
                    prev.setdefault(key, {})[c.container] = older
        self._last_pods, self._prev_pods = last, prev

    # --- read ---
    def pod_metrics(self, namespace: str, name: str) -> tuple[float, float, list[tuple[str, Usage]]] | None:
        """(timestamp, window, [(container, usage)]) of a pod, or None if it has no metrics."""
        key = (namespace, name)
        last = self._last_pods.get(key)
        prev = self._prev_pods.get(key)
        if last is None or prev is None:
            return None
        out: list[tuple[str, Usage]] = []
        earliest: Usage | None = None
        for container in sorted(last):
            p = prev.get(container)
            if p is None:
                return None  # not every container has two points yet
            usage = resource_usage(last[container], p)
            if usage is None:
                continue  # "Skipping container usage metric"
            out.append((container, usage))
            if earliest is None or usage.timestamp < earliest.timestamp:
                earliest = usage
        if earliest is None:
            return None
        return earliest.timestamp, earliest.window, out

    def node_metrics(self, name: str) -> Usage | None:
        last, prev = self._last_nodes.get(name), self._prev_nodes.get(name)
        if last is None or prev is None:
            return None
        return resource_usage(last, prev)
