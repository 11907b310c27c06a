"""``NodePool``: start N kubelets on a cluster, with node CIDRs, zones and instance types.

Contract: node ``i`` is named ``<prefix>-<i>``. Addresses come from the cluster's one IP space
(:class:`~kubelite.kubelet.ipam.NodeAddresses`): a host IP ``172.16.x.y`` unique across every pool and
late-added node, and a pod CIDR (a ``/24`` of the cluster CIDR, ``10.244.0.0/14`` or ``10.128.0.0/9``
beyond 1,024 nodes) allocated by the node IPAM controller when kube-controller-manager runs it, else by the
pool from the cluster's allocator. Zone labels go round-robin over ``zones``. All kubelets share one image
registry, one event recorder, one informer factory for ConfigMaps, Secrets, PVCs and Services (four
watches for the whole pool) and one heartbeat wheel (one timer per renewal instant for every node's
Lease and Node status); each has its own pod watch on ``spec.nodeName``.

Identities: kubelet ``<name>`` talks to the API as ``system:node:<name>`` in ``system:nodes`` (upstream's node
identity; RBAC's ``system:node`` role stands in for the Node authorizer), so a request a kubelet may not make
fails. The pool-wide informers and event broadcaster act as the pool's first node.
The pool holds only what it needs, each passed in: ``clients`` (node name -> that kubelet's client, e.g.
:func:`node_client` over a base client), the clock, the RNG, the image registry, the IP space, and
``start_soon`` (how to run its background tasks; the cluster's supervised task group). It never sees the
cluster. ``cidrs_from_controller``: kube-controller-manager's node IPAM controller assigns pod CIDRs.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.events import EventBroadcaster
from kubelite.informer.factory import SharedInformerFactory
from kubelite.kubelet.dns import NoClusterDNS, PodDNS
from kubelite.kubelet.heartbeat import HeartbeatWheel
from kubelite.kubelet.ipam import NodeAddresses, cluster_cidr_for
from kubelite.kubelet.kubelet import DEFAULT_CAPACITY, LOOKUP_RESOURCES, Kubelet
from kubelite.workload import ImageRegistry

__all__ = ["KUBELET_FIELD_MANAGER", "NODES_GROUP", "NodePool", "StartSoon", "node_client"]

NODES_GROUP = "system:nodes"

#: runs a background task for the owner's lifetime (``Cluster.start_soon``)
StartSoon = Callable[..., Any]


#: the kubelet's field manager: upstream's apiserver names the manager of a request without ``fieldManager``
#: after its User-Agent's product (``managerOrUserAgent``), and the kubelet's is ``kubelet/v1.x (...)``, so the
#: managedFields of Nodes, Leases and pod statuses show ``kubelet``
KUBELET_FIELD_MANAGER = "kubelet"


def node_client(client: Client, node_name: str) -> Client:
    """``client`` acting as kubelet ``node_name``: ``system:node:<name>`` in ``system:nodes``, writing as field
    manager ``kubelet``."""
    return client.as_user(f"system:node:{node_name}", (NODES_GROUP,)).with_field_manager(KUBELET_FIELD_MANAGER)


class NodePool:
    def __init__(self, n: int, *, clients: Callable[[str], Client], clock: Clock, rng: random.Random,
                 start_soon: StartSoon, addresses: NodeAddresses | None = None, cidrs_from_controller: bool = False,
                 prefix: str = "node", capacity: Mapping[str, Any] | None = None,
                 zones: Sequence[str] = ("zone-a", "zone-b", "zone-c"), instance_type: str = "kubelite.standard",
                 labels: Mapping[str, str] | None = None, taints: list[dict[str, Any]] | None = None,
                 registry: ImageRegistry | None = None, events: bool = True, preload: tuple[str, ...] = (),
                 cluster_cidr: str | None = None, dns: PodDNS | None = None, **kubelet_kw: Any) -> None:
        self.clock = clock
        self._start_soon = start_soon
        self.registry = registry or ImageRegistry()
        if cluster_cidr is not None or addresses is None:
            addresses = NodeAddresses(cluster_cidr or cluster_cidr_for(n))
        self.addresses = addresses
        self.cidrs = addresses.cidrs
        # with kube-controller-manager's node IPAM controller running, nodes register without a pod CIDR and
        # get one from it; otherwise the pool assigns them from the cluster's one allocator (--pod-cidr)
        from_controller = cluster_cidr is None and cidrs_from_controller
        pool_client = clients(f"{prefix}-0")
        self.informers = SharedInformerFactory(pool_client, clock=clock, rng=rng)
        self.broadcaster: EventBroadcaster | None = None
        recorder = None
        if events:
            # upstream gives every kubelet its own broadcaster with a 1,000-event queue; one shared broadcaster
            # gets the same total room
            self.broadcaster = EventBroadcaster(pool_client, clock=clock, rng=rng, max_queued=1000 * max(1, n))
        self.kubelets: dict[str, Kubelet] = {}
        # the cluster DNS the pods ask (the data plane's ClusterDNS, passed in by the cluster); none without one
        self.dns: PodDNS = dns if dns is not None else NoClusterDNS()
        self.heartbeats = HeartbeatWheel(clock)  # every node's Lease and Node status beats on one wheel
        for i in range(n):
            name = f"{prefix}-{i}"
            if self.broadcaster is not None:
                recorder = self.broadcaster.new_recorder(component="kubelet", host=name)
            node_labels = {"topology.kubernetes.io/zone": zones[i % len(zones)] if zones else "",
                           "node.kubernetes.io/instance-type": instance_type, **(labels or {})}
            self.kubelets[name] = Kubelet(
                clients(name), node_name=name, clock=clock, rng=rng,
                capacity=capacity or DEFAULT_CAPACITY, labels=node_labels, taints=taints, registry=self.registry,
                recorder=recorder, informers=self.informers,
                pod_cidr=None if from_controller else self.cidrs.allocate(name), await_pod_cidr=from_controller,
                host_ip=addresses.host_ip(name), preload=preload, dns=self.dns, heartbeats=self.heartbeats,
                **kubelet_kw)

    async def _run_informers(self) -> None:
        """The shared informers live as a cluster task, so they stop with the cluster."""
        self.informers.start()
        try:
            await asyncio.Event().wait()
        finally:
            await self.informers.shutdown()

    def __getitem__(self, name: str) -> Kubelet:
        return self.kubelets[name]

    def __iter__(self) -> Iterator[Kubelet]:
        return iter(self.kubelets.values())

    def __len__(self) -> int:
        return len(self.kubelets)

    async def start(self) -> None:
        """Start every kubelet as a background task (``start_soon``) and let them register their nodes."""
        for r in LOOKUP_RESOURCES:
            self.informers.informer_for(r)
        self._start_soon(self._run_informers, name="kubelet-informers")
        self._start_soon(self.heartbeats.run, name="kubelet-heartbeats")
        if self.broadcaster is not None:
            self._start_soon(self.broadcaster.run, name="kubelet-events")
        for k in self.kubelets.values():
            self._start_soon(k.run, name=f"kubelet-{k.node_name}")
        await self.clock.settle()
