"""The HPA's resource metrics client (``pkg/controller/podautoscaler/metrics/client.go``,
``resourceMetricsClient.GetResourceMetric``): PodMetrics listed from ``metrics.k8s.io/v1beta1`` through the
API, with the HPA controller's own identity (RBAC: ``list pods.metrics.k8s.io``).

Contract: one list per HPA sync, by the target's label selector, in the HPA's namespace. A failed request is
``unable to fetch metrics from resource metrics API: <error>``; an empty answer is ``no metrics returned from
resource metrics API``. A pod's value is the sum of its containers' usage in milli-units; a pod with no
containers or a container without the resource is left out (``missing resource metric``).
"""

from __future__ import annotations

import re
from typing import Any

from kubelite.api.metrics import POD_METRICS
from kubelite.api.quantity import parse_quantity
from kubelite.client import Client
from kubelite.clock import parse_time
from kubelite.controllers.horizontal.replica_calculator import MetricsError, PodMetric
from kubelite.errors import ApiError

__all__ = ["PodMetric", "RESTMetricsClient", "parse_go_duration"]


_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s|us|µs|ns)")


def parse_go_duration(s: str) -> float:
    """Go's ``time.ParseDuration`` for what ``metav1.Duration`` holds (``15s``, ``1m0.5s``); ValueError."""
    text = s.lstrip("+-")
    if text == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None:
            raise ValueError(f'time: invalid duration "{s}"')
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not text:
        raise ValueError(f'time: invalid duration "{s}"')
    return -total if s.startswith("-") else total


class RESTMetricsClient:
    """See the module docstring."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def get_resource_metric(self, resource: str, namespace: str, selector: str,
                                  container: str = "") -> dict[str, PodMetric]:
        try:
            items: list[dict[str, Any]] = await self.client.list(POD_METRICS, namespace=namespace,
                                                                 labels=selector or None)
        except ApiError as e:
            raise MetricsError(f"unable to fetch metrics from resource metrics API: {e}") from None
        if not items:
            raise MetricsError("no metrics returned from resource metrics API")
        return pod_metrics(items, resource, container)


def pod_metrics(items: list[dict[str, Any]], resource: str, container: str = "") -> dict[str, PodMetric]:
    """``getPodMetrics`` (``getContainerMetrics`` when ``container`` is given)."""
    out: dict[str, PodMetric] = {}
    for m in items:
        containers = m.get("containers") or []
        total = 0
        missing = not containers
        found_container = False
        for c in containers:
            if container and c.get("name") != container:
                continue
            found_container = True
            value = (c.get("usage") or {}).get(resource)
            if value is None:
                missing = True
                break
            total += parse_quantity(value).milli_value()
        if missing or (container and not found_container):
            continue
        name = (m.get("metadata") or {}).get("name") or ""
        out[name] = PodMetric(timestamp=parse_time(m["timestamp"]), window=parse_go_duration(m.get("window") or "0"),
                              value=total)
    return out
