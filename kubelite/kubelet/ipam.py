"""IP address management: node pod CIDRs and pod IPs.

:class:`ClusterCIDRAllocator` follows ``pkg/controller/nodeipam/ipam/range_allocator.go`` with
``cidrset``: the cluster CIDR (default ``10.244.0.0/16``) is cut into per-node subnets (default
``/24``), handed out lowest first, and released when the node goes away; when none is left it raises
:class:`CIDRNotAvailable` (upstream's ``CIDRNotAvailable`` event).

:class:`HostLocalIPAM` is the CNI ``host-local`` plugin of one node: pod IPs from the node's pod CIDR,
skipping the network address and the gateway (``.1``), handed out round-robin after the last one
given (as host-local does, so a released IP is not immediately reused), released on deletion.
Both are pure and deterministic.
"""

from __future__ import annotations

import ipaddress

__all__ = ["CIDRNotAvailable", "ClusterCIDRAllocator", "HostLocalIPAM", "IPExhausted"]


class CIDRNotAvailable(Exception):
    pass


class IPExhausted(Exception):
    pass


class ClusterCIDRAllocator:
    def __init__(self, cluster_cidr: str = "10.244.0.0/16", node_mask: int = 24) -> None:
        self.network = ipaddress.ip_network(cluster_cidr)
        if node_mask < self.network.prefixlen:
            raise ValueError(f"node mask /{node_mask} is larger than the cluster CIDR {cluster_cidr}")
        self.node_mask = node_mask
        self.size = 1 << (node_mask - self.network.prefixlen)
        self._step = 1 << (self.network.max_prefixlen - node_mask)
        self._base = int(self.network.network_address)
        self._used: dict[str, int] = {}
        self._taken: set[int] = set()
        self._next = 0

    def allocate(self, node: str) -> str:
        if node in self._used:
            return self._cidr(self._used[node])
        for i in range(self.size):
            idx = (self._next + i) % self.size
            if idx not in self._taken:
                self._taken.add(idx)
                self._used[node] = idx
                self._next = idx + 1
                return self._cidr(idx)
        raise CIDRNotAvailable(
            "CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range")

    def release(self, node: str) -> None:
        idx = self._used.pop(node, None)
        if idx is not None:
            self._taken.discard(idx)

    def _cidr(self, idx: int) -> str:
        addr = ipaddress.ip_address(self._base + idx * self._step)
        return f"{addr}/{self.node_mask}"


class HostLocalIPAM:
    def __init__(self, pod_cidr: str) -> None:
        net = ipaddress.ip_network(pod_cidr)
        self.pod_cidr = pod_cidr
        self._first = int(net.network_address) + 2  # .0 network, .1 gateway
        self._count = max(0, net.num_addresses - 3)  # and the broadcast address
        self._owner: dict[int, str] = {}
        self._by_owner: dict[str, int] = {}
        self._next = 0

    def allocate(self, owner: str) -> str:
        have = self._by_owner.get(owner)
        if have is not None:
            return str(ipaddress.ip_address(self._first + have))
        for i in range(self._count):
            idx = (self._next + i) % self._count
            if idx not in self._owner:
                self._owner[idx] = owner
                self._by_owner[owner] = idx
                self._next = idx + 1
                return str(ipaddress.ip_address(self._first + idx))
        raise IPExhausted(f"failed to allocate for range 0: no IP addresses available in range set: {self.pod_cidr}")

    def release(self, owner: str) -> None:
        idx = self._by_owner.pop(owner, None)
        if idx is not None:
            del self._owner[idx]

    def in_use(self) -> int:
        return len(self._owner)
