"""``metrics.k8s.io/v1beta1`` as metrics-server serves it (``pkg/api/pod.go``, ``node.go``): PodMetrics and
NodeMetrics, read-only (``get``, ``list``), answered from :class:`~kubelite.metricsserver.storage.MetricsStorage`.

Contract (upstream's behaviour):
- ``list`` takes the pods (nodes) from the metrics-server's own informer, filtered by the label selector (and
  ``metadata.name``/``metadata.namespace`` field selectors), and returns one object per object *with*
  metrics; those without (not scraped twice yet, kubelet down) are left out, never reported as zero.
- ``get`` of an object that does not exist or has no metrics is ``NotFound``:
  ``podmetrics.metrics.k8s.io "default/web" not found`` (``nodemetrics.metrics.k8s.io "node-0" not found``).
- An object carries the pod's (node's) name, namespace and labels, ``creationTimestamp`` now, the sample
  ``timestamp`` and its ``window`` (a Go duration, ``"15s"``), and ``usage`` with ``cpu`` in nanocores and
  ``memory`` in bytes as canonical quantities (``"153846n"``, ``"11768Ki"``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from kubelite.api.fields import parse_field_selector
from kubelite.api.labels import parse_selector
from kubelite.api.metrics import METRICS_GROUP, METRICS_VERSION, NODE_METRICS, POD_METRICS
from kubelite.api.quantity import BINARY_SI, DECIMAL_SI, Quantity, parse_quantity
from kubelite.api.resources import ResourceInfo
from kubelite.clock import Clock, format_time
from kubelite.errors import BadRequest, NotFound
from kubelite.informer import Lister
from kubelite.metricsserver.storage import MetricsStorage, Usage

__all__ = ["METRICS_GROUP", "METRICS_VERSION", "NODE_METRICS", "POD_METRICS", "MetricsAPI", "go_duration"]

_API_VERSION = f"{METRICS_GROUP}/{METRICS_VERSION}"


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String`` (what ``metav1.Duration`` marshals to): ``15s``, ``14.5s``, ``1m0s``."""
    nanos = round(seconds * 1e9)
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if nanos < 10**9:
        for unit, scale in (("ms", 10**6), ("µs", 10**3)):
            if nanos >= scale:
                return f"{sign}{_frac(nanos, scale)}{unit}"
        return f"{sign}{nanos}ns"
    h, rest = divmod(nanos, 3600 * 10**9)
    m, rest = divmod(rest, 60 * 10**9)
    s = _frac(rest, 10**9) + "s"
    if h:
        return f"{sign}{h}h{m}m{s}"
    if m:
        return f"{sign}{m}m{s}"
    return f"{sign}{s}"


def _frac(value: int, scale: int) -> str:
    whole, frac = divmod(value, scale)
    if not frac:
        return str(whole)
    digits = str(frac).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def _usage(u: Usage) -> dict[str, str]:
    return {"cpu": u.cpu, "memory": u.memory}


class MetricsAPI:
    """The aggregated API backend (:class:`kubelite.api.aggregation.APIBackend`)."""

    group = METRICS_GROUP
    version = METRICS_VERSION

    def __init__(self, storage: MetricsStorage, *, pods: Lister[Any], nodes: Lister[Any], clock: Clock) -> None:
        self.storage = storage
        self.pods = pods
        self.nodes = nodes
        self.clock = clock

    def resources(self) -> Sequence[ResourceInfo]:
        return (POD_METRICS, NODE_METRICS)

    def get(self, info: ResourceInfo, namespace: str, name: str) -> dict[str, Any]:
        if info.plural == "pods":
            pod = self.pods.indexer.get_by_key(f"{namespace}/{name}")
            obj = self._pod_metrics(pod) if pod is not None else None
            if obj is None:
                raise NotFound.for_object(METRICS_GROUP, "podmetrics", f"{namespace}/{name}")
            return obj
        node = self.nodes.indexer.get_by_key(name)
        obj = self._node_metrics(node) if node is not None else None
        if obj is None:
            raise NotFound.for_object(METRICS_GROUP, "nodemetrics", name)
        return obj

    def list(self, info: ResourceInfo, namespace: str, label_selector: str | None,
             field_selector: str | None) -> list[dict[str, Any]]:
        try:
            labels = parse_selector(label_selector or "")
            fields = parse_field_selector(field_selector or "")
        except ValueError as e:
            raise BadRequest.make(str(e)) from None
        for f in fields.fields():
            if f not in ("metadata.name", "metadata.namespace"):
                raise BadRequest.make(f'"{f}" is not a known field selector: only "metadata.name", '
                                      '"metadata.namespace"')
        pods = info.plural == "pods"
        objs = self.pods.namespace(namespace).list(labels) if pods else self.nodes.list(labels)
        out: list[dict[str, Any]] = []
        for obj in sorted(objs, key=_key):
            meta = obj.metadata
            if not fields.matches({"metadata.name": meta.name or "", "metadata.namespace": meta.namespace or ""}):
                continue
            m = self._pod_metrics(obj) if pods else self._node_metrics(obj)
            if m is not None:
                out.append(m)
        return out

    def table(self, info: ResourceInfo, objects: builtins.list[dict[str, Any]]) -> dict[str, Any]:
        """``kubectl get podmetrics`` (``pkg/api/table.go``): Name, one column per resource (the pod's containers
        summed), Window."""
        columns = [{"name": "Name", "type": "string", "format": "name", "description": "Name of the resource",
                    "priority": 0}]
        rows = []
        names = ["cpu", "memory"]
        columns += [{"name": n, "type": "string", "format": "quantity", "description": "", "priority": 0}
                    for n in names]
        columns.append({"name": "Window", "type": "string", "format": "duration", "description": "",
                        "priority": 0})
        for obj in objects:
            usages = [c.get("usage") or {} for c in obj.get("containers") or ()] if info.plural == "pods" else [
                obj.get("usage") or {}]
            cells: list[Any] = [obj["metadata"]["name"]]
            for n in names:
                total = Quantity(0, BINARY_SI if n == "memory" else DECIMAL_SI)
                for u in usages:
                    if n in u:
                        total = total + parse_quantity(u[n])
                cells.append(str(total))
            cells.append(obj.get("window"))
            rows.append({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                                    "metadata": obj.get("metadata") or {}}})
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {}, "columnDefinitions": columns,
                "rows": rows}

    def _meta(self, obj: Any) -> dict[str, Any]:
        meta = obj.metadata
        out: dict[str, Any] = {"name": meta.name, "creationTimestamp": format_time(self.clock.now())}
        if meta.namespace:
            out["namespace"] = meta.namespace
        if meta.labels:
            out["labels"] = dict(meta.labels)
        return out

    def _pod_metrics(self, pod: Any) -> dict[str, Any] | None:
        got = self.storage.pod_metrics(pod.metadata.namespace or "", pod.metadata.name or "")
        if got is None:
            return None
        timestamp, window, containers = got
        return {"kind": "PodMetrics", "apiVersion": _API_VERSION, "metadata": self._meta(pod),
                "timestamp": format_time(timestamp), "window": go_duration(window),
                "containers": [{"name": name, "usage": _usage(u)} for name, u in containers]}

    def _node_metrics(self, node: Any) -> dict[str, Any] | None:
        u = self.storage.node_metrics(node.metadata.name or "")
        if u is None:
            return None
        return {"kind": "NodeMetrics", "apiVersion": _API_VERSION, "metadata": self._meta(node),
                "timestamp": format_time(u.timestamp), "window": go_duration(u.window), "usage": _usage(u)}


def _key(obj: Any) -> tuple[str, str]:
    return obj.metadata.namespace or "", obj.metadata.name or ""
