"""The kubelet's resource metrics endpoint (``GET /metrics/resource``) as a record: what a kubelet reports
and metrics-server scrapes.

Upstream the kubelet serves Prometheus text (``pkg/kubelet/metrics/collectors/resource_metrics.go``) and
metrics-server decodes it into a batch (``pkg/scraper/client/resource/decode.go``). kubelite passes the
decoded batch itself (same families, same units), so neither side imports the other:

=====================================  ============================================================
``node_cpu_usage_seconds_total``       :attr:`NodePoint.cumulative_cpu_used` (nanoseconds of CPU)
``node_memory_working_set_bytes``      :attr:`NodePoint.memory_usage` (bytes)
``container_cpu_usage_seconds_total``  :attr:`ContainerPoint.cumulative_cpu_used` (reset by a restart)
``container_memory_working_set_bytes`` :attr:`ContainerPoint.memory_usage`
``container_start_time_seconds``       :attr:`ContainerPoint.start_time`
=====================================  ============================================================

Field names are the decoded ``MetricsPoint``'s (CPU as integer nanoseconds, as ``decode.go`` converts it).
Every sample carries the time it was taken (the Prometheus sample timestamp), on the cluster clock.
"""

from __future__ import annotations

import msgspec

__all__ = ["ContainerPoint", "NodePoint", "ResourceMetrics"]


class NodePoint(msgspec.Struct, frozen=True, kw_only=True):
    timestamp: float
    start_time: float
    cumulative_cpu_used: int
    memory_usage: int


class ContainerPoint(msgspec.Struct, frozen=True, kw_only=True):
    namespace: str
    pod: str
    container: str
    timestamp: float
    start_time: float
    cumulative_cpu_used: int
    memory_usage: int


class ResourceMetrics(msgspec.Struct, frozen=True, kw_only=True):
    """One scrape of one kubelet."""

    node: NodePoint
    containers: tuple[ContainerPoint, ...] = ()
