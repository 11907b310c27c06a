"""``Network``: the simulated data plane of a cluster — one kube-proxy per node, cluster DNS, traffic.

Contract:
- Everything reads through informers (Services as ``Service`` Structs, EndpointSlices as dicts under
  ``"endpointslices"``, Pods as ``Pod`` Structs: the same references the controllers use, so a shared
  factory shares the watches). Nothing here writes to the API. Each part reads with its own identity when
  given its own factory, as the real add-ons do: kube-proxy (``informers``: Services, EndpointSlices;
  ``system:kube-proxy``), cluster DNS (``dns_informers``: Services, EndpointSlices; CoreDNS) and the traffic
  fabric with NetworkPolicy enforcement (``policy_informers``: Pods, Namespaces, NetworkPolicies;
  kube-network-policies). Both default to ``informers``.
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

from kubelite.api.types import Node, Pod, Service
from kubelite.clock import Clock
from kubelite.informer import ResourceEventHandlerFuncs, SharedInformerFactory
from kubelite.informer.meta import resource_version_of
from kubelite.logs import get_logger
from kubelite.network.dns import ClusterDNS
from kubelite.network.policy import PolicySet, compile_policy
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

log = get_logger("kubelite.network")


def _policy_key(obj: Any) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


class Network:
    """See the module docstring."""

    def __init__(
        self, informers: SharedInformerFactory, *, clock: Clock, rng: random.Random, nodes: Iterable[str] = (),
        mode: str = "iptables", min_sync_period: float = MIN_SYNC_PERIOD, registry: ImageRegistry | None = None,
        cluster_domain: str = "cluster.local", dns_informers: SharedInformerFactory | None = None,
        policy_informers: SharedInformerFactory | None = None,
    ) -> None:
        self.informers = informers
        self.dns_informers = dns = dns_informers if dns_informers is not None else informers
        self.policy_informers = policy = policy_informers if policy_informers is not None else informers
        self.clock = clock
        self.rng = rng
        self.mode = mode
        self.min_sync_period = min_sync_period
        self._services = informers.informer_for(Service)
        self._slices = informers.informer_for("endpointslices", indexers={SLICES_BY_SERVICE: slices_by_service})
        self._pods = policy.informer_for(Pod, indexers={POD_IP_INDEX: pod_ip_index})
        dns.informer_for(Service)
        dns_slices = dns.informer_for("endpointslices", indexers={SLICES_BY_SERVICE: slices_by_service})
        services = dns.lister_for(Service)
        self.proxies: dict[str, KubeProxy] = {}
        self.dns = ClusterDNS(services, dns_slices.get_indexer(), domain=cluster_domain)
        self.dns.attach(dns.informer_for(Service), dns_slices)
        self._netpols = policy.informer_for("networkpolicies")
        self._namespaces = policy.informer_for("namespaces")
        self._nodes = policy.informer_for(Node)
        self._policy_version = 0
        self._policy_set: tuple[int, PolicySet] | None = None
        self.traffic = Traffic(self.proxies, self.dns, self._pods.get_indexer(), services, clock=clock, rng=rng,
                               registry=registry, policies=self.policies, host_ip=self._host_ip)
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

    # --- NetworkPolicy ---
    def policies(self) -> PolicySet:
        """The NetworkPolicies in force at the informers' current state (compiled once per change)."""
        cached = self._policy_set
        if cached is not None and cached[0] == self._policy_version:
            return cached[1]
        compiled = []
        for obj in sorted(self._netpols.get_indexer().list(), key=_policy_key):
            try:
                compiled.append(compile_policy(obj))
            except ValueError as e:  # validated by the apiserver; a bad one must not stop the data plane
                log.warning("network_policy_ignored", policy=_policy_key(obj), error=str(e))
        ps = PolicySet(compiled, self._namespace_labels)
        self._policy_set = (self._policy_version, ps)
        return ps

    def _namespace_labels(self, namespace: str) -> dict[str, str] | None:
        ns = self._namespaces.get_indexer().get_by_key(namespace)
        return None if ns is None else ((ns.get("metadata") or {}).get("labels") or {})

    def _host_ip(self, node: str) -> str:
        n = self._nodes.get_indexer().get_by_key(node)
        status = n.status if n is not None else None
        for a in (status.addresses if status is not None else None) or ():
            if a.type == "InternalIP" and a.address:
                return str(a.address)
        return ""

    def _policies_changed(self, *_: Any) -> None:
        self._policy_version += 1

    # --- wiring ---
    def start(self) -> None:
        if self._started:
            return
        self._started = True
        handler = ResourceEventHandlerFuncs(on_add=self._on_add, on_update=self._on_update, on_delete=self._on_change)
        self._services.add_event_handler(handler)
        self._slices.add_event_handler(handler)
        self._netpols.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._policies_changed, on_update=self._policies_changed, on_delete=self._policies_changed))
        for factory in self._factories():
            factory.start()
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

    def _factories(self) -> list[SharedInformerFactory]:
        out: list[SharedInformerFactory] = []
        for f in (self.informers, self.dns_informers, self.policy_informers):
            if all(f is not o for o in out):
                out.append(f)
        return out

    async def wait_for_cache_sync(self) -> bool:
        ok = True
        for factory in self._factories():
            synced = await factory.wait_for_cache_sync()
            ok = ok and all(synced.values())
        return ok
