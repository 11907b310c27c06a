"""``Network``: the simulated data plane of a cluster — one kube-proxy per node, cluster DNS, traffic.

Contract:
- Everything reads through the informers of the :class:`~kubelite.informer.SharedInformerFactory`
  given (Services as ``Service`` Structs, EndpointSlices as dicts under ``"endpointslices"``, Pods as
  ``Pod`` Structs: the same references the controllers use, so a shared factory shares the watches).
  Nothing here writes to the API.
- One informer handler per resource serves every proxy: a Service or EndpointSlice change asks every
  running proxy for a sync, and proxies that sync at the same informer state share one
  :class:`~kubelite.network.proxy.ServiceTable` (built once per state, not once per node).
- :meth:`start` registers the handlers and starts the factory's informers (idempotent for informers
  already running). Proxies can be added and removed at any time (:meth:`add_node`, :meth:`remove_node`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from kubelite.api.types import Pod, Service
from kubelite.clock import Clock
from kubelite.informer import ResourceEventHandlerFuncs, SharedInformerFactory
from kubelite.informer.meta import resource_version_of
from kubelite.network.dns import ClusterDNS
from kubelite.network.proxy import (
    MIN_SYNC_PERIOD,
    SLICES_BY_SERVICE,
    KubeProxy,
    ServiceTable,
    slices_by_service,
)
from kubelite.network.traffic import POD_IP_INDEX, Traffic, pod_ip_index
from kubelite.workload import ImageRegistry

__all__ = ["Network"]


class Network:
    """See the module docstring."""

    def __init__(
        self, informers: SharedInformerFactory, *, clock: Clock, rng: random.Random, nodes: Iterable[str] = (),
        mode: str = "iptables", min_sync_period: float = MIN_SYNC_PERIOD, registry: ImageRegistry | None = None,
        cluster_domain: str = "cluster.local",
    ) -> None:
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.mode = mode
        self.min_sync_period = min_sync_period
        self._services = informers.informer_for(Service)
        self._slices = informers.informer_for("endpointslices", indexers={SLICES_BY_SERVICE: slices_by_service})
        self._pods = informers.informer_for(Pod, indexers={POD_IP_INDEX: pod_ip_index})
        services = informers.lister_for(Service)
        self.proxies: dict[str, KubeProxy] = {}
        self.dns = ClusterDNS(services, self._slices.get_indexer(), domain=cluster_domain)
        self.traffic = Traffic(self.proxies, self.dns, self._pods.get_indexer(), services, clock=clock, rng=rng,
                               registry=registry)
        self._version = 0
        self._table: tuple[int, ServiceTable] | None = None
        self._started = False
        for n in nodes:
            self.add_node(n)

    # --- proxies ---
    def add_node(self, name: str, *, mode: str | None = None) -> KubeProxy:
        """Start kube-proxy on node ``name`` (a no-op returning the existing one if it runs)."""
        proxy = self.proxies.get(name)
        if proxy is None:
            proxy = self.proxies[name] = KubeProxy(
                name, self.table, clock=self.clock, rng=self.rng, mode=mode or self.mode,
                min_sync_period=self.min_sync_period)
            if self._started:
                proxy.request_sync()
        return proxy

    def remove_node(self, name: str) -> None:
        proxy = self.proxies.pop(name, None)
        if proxy is not None:
            proxy.stop()

    def proxy(self, node: str) -> KubeProxy:
        return self.proxies[node]

    def table(self) -> ServiceTable:
        """The service table at the informers' current state (cached until the next change)."""
        cached = self._table
        if cached is not None and cached[0] == self._version:
            return cached[1]
        table = ServiceTable(self.informers.lister_for(Service), self._slices.get_indexer())
        self._table = (self._version, table)
        return table

    # --- wiring ---
    def start(self) -> None:
        if self._started:
            return
        self._started = True
        handler = ResourceEventHandlerFuncs(on_add=self._on_add, on_update=self._on_update, on_delete=self._on_change)
        self._services.add_event_handler(handler)
        self._slices.add_event_handler(handler)
        self.informers.start()
        self._changed()

    def _on_add(self, obj: Any) -> None:
        self._changed()

    def _on_update(self, old: Any, new: Any) -> None:
        if resource_version_of(old) != resource_version_of(new):
            self._changed()

    def _on_change(self, obj: Any) -> None:
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        for p in self.proxies.values():
            p.request_sync()

    async def wait_for_cache_sync(self) -> bool:
        synced = await self.informers.wait_for_cache_sync()
        return all(synced.values())
