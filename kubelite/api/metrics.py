"""``metrics.k8s.io/v1beta1`` (``k8s.io/metrics/pkg/apis/metrics``): the resource metrics API that
metrics-server serves behind kube-apiserver. Not part of kube-apiserver's own registry: the resources exist
only while an aggregated backend serves them (see :mod:`kubelite.apiserver.aggregator`). Clients that know
the API statically (the HPA's metrics client, like client-go's typed metrics clientset) address it by these
records; a cluster without a backend answers 404.
"""

from __future__ import annotations

from kubelite.api.resources import ResourceInfo

__all__ = ["METRICS_GROUP", "METRICS_VERSION", "NODE_METRICS", "POD_METRICS"]

METRICS_GROUP = "metrics.k8s.io"
METRICS_VERSION = "v1beta1"
_READ = frozenset({"get", "list"})

POD_METRICS = ResourceInfo(group=METRICS_GROUP, version=METRICS_VERSION, kind="PodMetrics", plural="pods",
                           singular="", namespaced=True, list_kind="PodMetricsList", verbs=_READ)
NODE_METRICS = ResourceInfo(group=METRICS_GROUP, version=METRICS_VERSION, kind="NodeMetrics", plural="nodes",
                            singular="", namespaced=False, list_kind="NodeMetricsList", verbs=_READ)
