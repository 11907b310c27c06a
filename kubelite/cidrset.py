"""A cluster CIDR cut into per-node subnets: upstream's ``pkg/controller/nodeipam/ipam/cidrset``.

:class:`ClusterCIDRAllocator` hands out ``/node_mask`` subnets of the cluster CIDR lowest free first
(round-robin after the last one given, as ``cidrset`` does), takes existing ones (``occupy``) and frees
them (``release``); when none is left it raises :class:`CIDRNotAvailable`. Pure and deterministic; used
by the node IPAM controller and, when that does not run, by node pools directly.
"""

from __future__ import annotations

import ipaddress

__all__ = ["CIDRNotAvailable", "ClusterCIDRAllocator"]


class CIDRNotAvailable(Exception):
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

    def occupy(self, node: str, cidr: str) -> bool:
        """Mark ``cidr`` (already on ``node``'s spec) as used (``cidrset.Occupy``); False when it is not one
        of this allocator's subnets."""
        try:
            net = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            return False
        if net.prefixlen != self.node_mask or not net.subnet_of(self.network):  # type: ignore[arg-type]
            return False
        idx = (int(net.network_address) - self._base) // self._step
        old = self._used.get(node)
        if old is not None and old != idx:
            self._taken.discard(old)
        self._used[node] = idx
        self._taken.add(idx)
        return True

    def release(self, node: str) -> None:
        idx = self._used.pop(node, None)
        if idx is not None:
            self._taken.discard(idx)

    def _cidr(self, idx: int) -> str:
        addr = ipaddress.ip_address(self._base + idx * self._step)
        return f"{addr}/{self.node_mask}"
