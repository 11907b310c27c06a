"""metrics-server (``kubernetes-sigs/metrics-server``, layer 5): scrapes every kubelet's resource metrics
and serves ``metrics.k8s.io/v1beta1`` PodMetrics and NodeMetrics through kube-apiserver (aggregation).

It runs as ``system:serviceaccount:kube-system:metrics-server`` (RBAC: the ``system:metrics-server``
ClusterRole its manifests ship) and reaches the API only through informers; kubelets are reached over their
``/metrics/resource`` endpoint (a :class:`~kubelite.metricsserver.scraper.KubeletConnector`), never imported.
The HPA, ``kubectl top`` and anyone with ``get``/``list`` on ``pods.metrics.k8s.io`` read it.
"""

from kubelite.metricsserver.api import METRICS_GROUP, METRICS_VERSION, MetricsAPI
from kubelite.metricsserver.scraper import KubeletConnector, Scraper
from kubelite.metricsserver.server import METRIC_RESOLUTION, METRICS_SERVER_USER, MetricsServer
from kubelite.metricsserver.storage import MetricsStorage

__all__ = [
    "METRICS_GROUP",
    "METRICS_SERVER_USER",
    "METRICS_VERSION",
    "METRIC_RESOLUTION",
    "KubeletConnector",
    "MetricsAPI",
    "MetricsServer",
    "MetricsStorage",
    "Scraper",
]
