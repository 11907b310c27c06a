"""``MetricsServer``: the component. Every ``--metric-resolution`` (15 s, upstream's default) it scrapes every
kubelet and stores the batch; it serves :class:`~kubelite.metricsserver.api.MetricsAPI` to kube-apiserver.

Contract:
- It reads Nodes and Pods through its own informers, as ``system:serviceaccount:kube-system:metrics-server``
  (the ``system:metrics-server`` ClusterRole: ``get``/``list``/``watch`` nodes and pods, ``get nodes/metrics``);
  without that role its informers cannot list, no node is scraped and the API serves nothing.
- The first scrape runs at start (after the informers synced), then one per resolution on the cluster clock;
  a scrape is synchronous, so a batch is one instant of every kubelet.
- It writes nothing to the API.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.types import Node, Pod
from kubelite.clock import Clock
from kubelite.informer import SharedInformerFactory
from kubelite.metricsserver.api import MetricsAPI
from kubelite.metricsserver.scraper import KubeletConnector, Scraper
from kubelite.metricsserver.storage import MetricsStorage

__all__ = ["METRICS_SERVER_USER", "METRIC_RESOLUTION", "MetricsServer"]

METRIC_RESOLUTION = 15.0
METRICS_SERVER_USER = "system:serviceaccount:kube-system:metrics-server"


class MetricsServer:
    """See the module docstring. ``informers`` must be built on the metrics-server's own client."""

    def __init__(self, informers: SharedInformerFactory, connect: KubeletConnector, *, clock: Clock,
                 resolution: float = METRIC_RESOLUTION) -> None:
        if resolution <= 0:
            raise ValueError("metric resolution must be positive")
        self.informers = informers
        self.clock = clock
        self.resolution = resolution
        nodes = informers.informer_for(Node)
        informers.informer_for(Pod)
        self.storage = MetricsStorage(resolution=resolution)
        self.scraper = Scraper(informers.lister_for(Node), connect)
        self.api = MetricsAPI(self.storage, pods=informers.lister_for(Pod), nodes=informers.lister_for(Node),
                              clock=clock)
        self._nodes = nodes
        #: scrapes done, for tests and reports
        self.scrapes = 0

    def scrape_once(self) -> None:
        self.storage.store(self.scraper.scrape())
        self.scrapes += 1

    async def run(self) -> Any:
        self.informers.start()
        await self.informers.wait_for_cache_sync()
        while True:
            self.scrape_once()
            await self.clock.sleep(self.resolution)
