"""The kubelet's resource metrics endpoint, ``GET /metrics/resource``
(``pkg/kubelet/metrics/collectors/resource_metrics.go``), what metrics-server scrapes.

Contract:
- One sample per running container (``Running``, or stopping in its grace period) and one for the node, all
  taken at the same instant on the cluster clock. There is no cgroup to read: a container uses the CPU its
  image profile says (``cpu``) and the working set of its memory model, as the HPA and evictions see them.
- ``container_cpu_usage_seconds_total`` is cumulative over the container's current run: the profile's rate
  times the time since the run started, so a restart resets it (as a new cgroup does).
- ``node_cpu_usage_seconds_total`` is cumulative since the kubelet's first scrape and never decreases: each
  scrape adds what the running containers used since the previous one (time a container ran between two
  scrapes and then exited is not counted: the model has no per-tick accounting).
- A stopped kubelet refuses the connection (``ConnectionError``), as a down node's port does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubelite.api.resource_metrics import ContainerPoint, NodePoint, ResourceMetrics
from kubelite.kubelet.lifecycle import Step
from kubelite.workload import cpu_millis

if TYPE_CHECKING:
    from kubelite.kubelet.kubelet import Kubelet

__all__ = ["ResourceMetricsEndpoint"]

_NS_PER_MILLICORE_SECOND = 10**6


class ResourceMetricsEndpoint:
    """See the module docstring."""

    def __init__(self, kubelet: Kubelet) -> None:
        self.kubelet = kubelet
        self._node_start: float | None = None
        self._node_cpu = 0
        self._last: float | None = None

    def scrape(self) -> ResourceMetrics:
        k = self.kubelet
        if not k.running:
            raise ConnectionError(f"dial tcp {k.host_ip}:10250: connect: connection refused")
        now = k.clock.now()
        if self._node_start is None:
            self._node_start = now
        since = self._last
        self._last = now
        points: list[ContainerPoint] = []
        memory = 0
        for w in k.workers.values():
            for rec in w.containers:
                if rec.step not in (Step.RUNNING, Step.STOPPING) or rec.started_at is None or rec.profile is None:
                    continue
                rate = cpu_millis(rec.profile) * _NS_PER_MILLICORE_SECOND
                used = rec.memory_at(now)
                memory += used
                if since is not None:
                    self._node_cpu += round(rate * (now - max(since, rec.started_at)))
                points.append(ContainerPoint(
                    namespace=w.namespace, pod=w.name, container=rec.name, timestamp=now,
                    start_time=rec.started_at, cumulative_cpu_used=round(rate * (now - rec.started_at)),
                    memory_usage=used))
        node = NodePoint(timestamp=now, start_time=self._node_start, cumulative_cpu_used=self._node_cpu,
                         memory_usage=memory)
        return ResourceMetrics(node=node, containers=tuple(points))
