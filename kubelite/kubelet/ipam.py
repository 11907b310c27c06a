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

from kubelite.cidrset import CIDRNotAvailable, ClusterCIDRAllocator

__all__ = ["CIDRNotAvailable", "ClusterCIDRAllocator", "HostLocalIPAM", "IPExhausted", "NodeAddresses",
           "cluster_cidr_for"]


class IPExhausted(Exception):
    pass


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


def cluster_cidr_for(nodes: int) -> str:
    """The cluster CIDR a cluster of ``nodes`` gets by default: kind's ``10.244.0.0/16`` (256 nodes of
    /24), or ``10.128.0.0/9`` (32,768 nodes; clear of the ``10.96.0.0/12`` Service range) beyond."""
    return "10.244.0.0/16" if nodes <= 256 else "10.128.0.0/9"


class NodeAddresses:
    """One IP space per cluster: node host IPs (``172.16.x.y``, unique across every pool and late-added
    node) and, when no node IPAM controller runs, the nodes' pod CIDRs from one cluster-wide allocator
    (as the kubelet's ``--pod-cidr`` flag would set them)."""

    def __init__(self, cluster_cidr: str = "10.244.0.0/16", node_mask: int = 24) -> None:
        self.cluster_cidr = cluster_cidr
        self.node_mask = node_mask
        self.cidrs = ClusterCIDRAllocator(cluster_cidr, node_mask)
        self._hosts: dict[str, str] = {}
        self._next_host = 0

    def host_ip(self, node: str) -> str:
        """The node's InternalIP: the n-th node of the cluster gets ``172.16.(n >> 8).(n & 255)``, skipping
        the network and broadcast addresses (``172.16.0.1`` first)."""
        have = self._hosts.get(node)
        if have is not None:
            return have
        n = self._next_host + 1
        while n & 255 in (0, 255):  # skip x.y.z.0 and x.y.z.255
            n += 1
        self._next_host = n
        ip = str(ipaddress.ip_address(int(ipaddress.ip_address("172.16.0.0")) + n))
        self._hosts[node] = ip
        return ip
