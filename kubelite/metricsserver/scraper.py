"""Scraping: one ``GET /metrics/resource`` per node per resolution (metrics-server ``pkg/scraper``).

Contract:
- The nodes come from the metrics-server's Node informer; each is reached at the first of its
  ``status.addresses`` in ``--kubelet-preferred-address-types`` order (upstream default ``Hostname,
  InternalDNS, InternalIP, ExternalDNS, ExternalIP``) on ``status.daemonEndpoints.kubeletEndpoint.Port``
  (10250 when unset).
- A node whose kubelet does not answer (``ConnectionError``: kubelet stopped, node powered off, no such
  address) or refuses the metrics-server (``PermissionError``: the kubelet's webhook authorization denied
  ``get nodes/metrics``) is left out of the batch and logged, as upstream logs ``Failed to scrape node``; its
  pods then drop out of the API at the next store, as upstream's do.
- Nodes are scraped in name order, so a seed replays the same batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubelite.api.resource_metrics import ResourceMetrics
from kubelite.informer import Lister
from kubelite.logs import get_logger

__all__ = ["DEFAULT_KUBELET_PORT", "PREFERRED_ADDRESS_TYPES", "Batch", "KubeletConnector", "Scraper"]

log = get_logger("kubelite.metricsserver")

PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DEFAULT_KUBELET_PORT = 10250

#: ``connect(address, port)``: the kubelet's ``/metrics/resource`` there; ``ConnectionError`` or ``PermissionError``
KubeletConnector = Callable[[str, int], ResourceMetrics]
#: node name -> that kubelet's answer
Batch = dict[str, ResourceMetrics]


def node_address(node: Any) -> tuple[str, int] | None:
    """``GetNodeAddress`` with the default preferred address types, and the kubelet port."""
    status = node.status
    if status is None:
        return None
    by_type: dict[str, str] = {}
    for a in status.addresses or ():
        if a.type and a.address and a.type not in by_type:
            by_type[a.type] = a.address
    address = next((by_type[t] for t in PREFERRED_ADDRESS_TYPES if t in by_type), None)
    if address is None:
        return None
    ep = status.daemon_endpoints.kubelet_endpoint if status.daemon_endpoints is not None else None
    port = ep.port if ep is not None and ep.port else DEFAULT_KUBELET_PORT
    return address, port


class Scraper:
    """See the module docstring."""

    def __init__(self, nodes: Lister[Any], connect: KubeletConnector) -> None:
        self.nodes = nodes
        self.connect = connect
        #: node name -> the error of its last failed scrape
        self.failures: dict[str, str] = {}

    def scrape(self) -> Batch:
        batch: Batch = {}
        failures: dict[str, str] = {}
        for node in sorted(self.nodes.list(), key=lambda n: n.metadata.name or ""):
            name = node.metadata.name or ""
            target = node_address(node)
            if target is None:
                failures[name] = "node has no address"
                continue
            try:
                batch[name] = self.connect(*target)
            except (ConnectionError, PermissionError) as e:
                failures[name] = str(e)
        for name, err in failures.items():
            if self.failures.get(name) != err:
                log.warning("scrape_failed", node=name, error=err)
        self.failures = failures
        return batch
