"""Service ClusterIP and NodePort allocation: what kube-apiserver's Service REST does around the store.

Follows ``pkg/registry/core/service/ipallocator`` (``bitmap.go``: ``Range``, ``randomScanStrategyWithOffset``,
``calculateRangeOffset``), ``pkg/registry/core/service/portallocator`` and
``pkg/registry/core/service/storage/alloc.go`` (``allocateCreate``, ``initIPFamilyFields``, ``allocIPs``,
``initNodePorts``, ``allocateUpdate``, ``releaseAllocatedResources``) plus ``storage.go``
(``patchAllocatedValues``).

Contract:
- :class:`ServiceIPAllocator` owns the set of allocated cluster IPs and node ports of one apiserver.
  Only the apiserver mutates it, through the three calls below, in the same synchronous step (no
  ``await`` in between) as the store write they accompany; that makes each call atomic.
- ``allocate(svc)`` (create, after validation, before the store write) fills ``spec.clusterIP``,
  ``spec.clusterIPs``, ``spec.ipFamilies``, ``spec.ipFamilyPolicy`` and every needed
  ``spec.ports[*].nodePort`` of the ``svc`` dict **in place**, and returns field errors (nothing is
  reserved when it returns errors). A full range raises :class:`~kubelite.errors.InternalError`, as
  upstream does. If the store write then fails, ``release(svc)`` undoes it.
- ``update(old, new)`` (update, after validation, before the store write) carries over the values the
  client omitted (``patchAllocatedValues``), allocates what the new type needs and releases what it
  no longer needs. ``revert_update(old, new)`` undoes it if the store write fails.
- ``release(svc)`` (delete, once the object is gone from the store) frees its IP and node ports.
- ``restore(services)`` rebuilds the state from stored objects (an apiserver restart); conflicting
  duplicates are ignored, as upstream's repair controller would report them.
- Randomness comes only from the ``rng`` passed in: the same seed allocates the same addresses.

Dynamic allocations prefer the upper part of each range and leave the lower band to static requests
(``ServiceIPStaticSubrange``, KEP-3070): the band is ``min(max(16, size/16), 256)`` values wide.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Iterable
from typing import Any

from kubelite.errors import FieldError, InternalError

__all__ = ["DEFAULT_NODE_PORT_RANGE", "DEFAULT_SERVICE_CIDR", "PortRange", "ServiceIPAllocator"]

DEFAULT_SERVICE_CIDR = "10.96.0.0/12"
DEFAULT_NODE_PORT_RANGE = (30000, 32767)

_NEEDS_IP = frozenset({"ClusterIP", "NodePort", "LoadBalancer"})


def _range_offset(size: int) -> int:
    """``calculateRangeOffset``: width of the lower band kept for static allocation."""
    if size < 16:
        return 0
    return min(max(size // 16, 16), 256)


class _Bitmap:
    """``allocator.AllocationBitmap`` with ``randomScanStrategyWithOffset``: offsets ``0..size-1``."""

    __slots__ = ("offset", "rng", "size", "used")

    def __init__(self, size: int, rng: random.Random) -> None:
        self.size = size
        self.offset = _range_offset(size)
        self.rng = rng
        self.used: set[int] = set()  # ints: iteration order never leaks into output

    def allocate_next(self) -> int | None:
        """A random free offset: first from the upper band ``[offset, size)``, then the lower one."""
        used = self.used
        for lo, hi in ((self.offset, self.size), (0, self.offset)):
            n = hi - lo
            if n <= 0:
                continue
            start = self.rng.randrange(n)
            for i in range(n):
                at = lo + (start + i) % n
                if at not in used:
                    used.add(at)
                    return at
        return None


class PortRange:
    """``portallocator.PortAllocator`` over ``[base, base+size)``."""

    def __init__(self, base: int, last: int, rng: random.Random) -> None:
        self.base = base
        self.last = last
        self._bits = _Bitmap(last - base + 1, rng)

    def __str__(self) -> str:
        return f"{self.base}-{self.last}"

    def allocate(self, port: int) -> str | None:
        """Reserve ``port``; an error text (upstream's) when it cannot be."""
        if not self.base <= port <= self.last:
            return f"provided port is not in the valid range. The range of valid ports is {self}"
        off = port - self.base
        if off in self._bits.used:
            return "provided port is already allocated"
        self._bits.used.add(off)
        return None

    def allocate_next(self) -> int | None:
        off = self._bits.allocate_next()
        return None if off is None else self.base + off

    def release(self, port: int) -> None:
        self._bits.used.discard(port - self.base)

    def has(self, port: int) -> bool:
        return (port - self.base) in self._bits.used

    def used(self) -> int:
        return len(self._bits.used)


class _IPRange:
    """``ipallocator.Range`` over an IPv4 CIDR, excluding the network and broadcast addresses."""

    def __init__(self, cidr: str, rng: random.Random) -> None:
        net = ipaddress.IPv4Network(cidr)
        self.cidr = str(net)
        self.base = int(net.network_address) + 1
        size = net.num_addresses - 2 if net.num_addresses > 2 else 0
        self._bits = _Bitmap(size, rng)

    def offset_of(self, ip: str) -> int | None:
        try:
            v = int(ipaddress.IPv4Address(ip))
        except ValueError:
            return None
        off = v - self.base
        return off if 0 <= off < self._bits.size else None

    def allocate(self, ip: str) -> str | None:
        off = self.offset_of(ip)
        if off is None:
            return f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {self.cidr}"
        if off in self._bits.used:
            return "provided IP is already allocated"
        self._bits.used.add(off)
        return None

    def allocate_next(self) -> str | None:
        off = self._bits.allocate_next()
        return None if off is None else str(ipaddress.IPv4Address(self.base + off))

    def release(self, ip: str) -> None:
        off = self.offset_of(ip)
        if off is not None:
            self._bits.used.discard(off)

    def has(self, ip: str) -> bool:
        off = self.offset_of(ip)
        return off is not None and off in self._bits.used

    def used(self) -> int:
        return len(self._bits.used)


def _spec(svc: dict[str, Any]) -> dict[str, Any]:
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        spec = svc["spec"] = {}
    return spec


def _primary_ip(spec: dict[str, Any]) -> str:
    ips = spec.get("clusterIPs")
    if isinstance(ips, list) and ips and isinstance(ips[0], str):
        return ips[0]
    ip = spec.get("clusterIP")
    return ip if isinstance(ip, str) else ""


def _ports(spec: dict[str, Any]) -> list[dict[str, Any]]:
    ports = spec.get("ports")
    return [p for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []


def _node_ports(spec: dict[str, Any]) -> list[int]:
    out = []
    for p in _ports(spec):
        np = p.get("nodePort")
        if isinstance(np, int) and np and np not in out:
            out.append(np)
    return out


def _wants_node_ports(spec: dict[str, Any]) -> bool:
    """``shouldAllocateNodePorts``."""
    t = spec.get("type")
    if t == "NodePort":
        return True
    if t == "LoadBalancer":
        return spec.get("allocateLoadBalancerNodePorts") is not False
    return False


class ServiceIPAllocator:
    """See the module docstring."""

    def __init__(self, cidr: str = DEFAULT_SERVICE_CIDR, *, rng: random.Random,
                 node_ports: tuple[int, int] = DEFAULT_NODE_PORT_RANGE) -> None:
        self.ips = _IPRange(cidr, rng)
        self.node_ports = PortRange(node_ports[0], node_ports[1], rng)

    # --- create ---
    def allocate(self, svc: dict[str, Any]) -> list[FieldError]:
        """``allocateCreate``: fill and reserve the service's IP and node ports (see the module docstring)."""
        spec = _spec(svc)
        errs = self._init_ip_families(spec)
        if errs:
            return errs
        ip = ""
        if spec.get("type") in _NEEDS_IP and _primary_ip(spec) != "None":
            res = self._alloc_ip(spec, svc)
            if isinstance(res, list):
                return res
            ip = res
        errs = self._init_node_ports(spec, None, svc)
        if errs and ip:
            self.ips.release(ip)
        return errs

    def _init_ip_families(self, spec: dict[str, Any]) -> list[FieldError]:
        """``initIPFamilyFields`` for a single-stack IPv4 cluster."""
        if spec.get("type") == "ExternalName":
            # dropTypeDependentFields: ExternalName services have no IPs and so no families
            spec.pop("ipFamilies", None)
            spec.pop("ipFamilyPolicy", None)
            return []
        families = spec.get("ipFamilies")
        errs = []
        if isinstance(families, list):
            for i, fam in enumerate(families):
                if fam != "IPv4":
                    errs.append(FieldError.invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
        policy = spec.get("ipFamilyPolicy")
        headless = _primary_ip(spec) == "None"
        if headless and not spec.get("selector"):
            # headless without selector: any family the cluster has
            spec["ipFamilyPolicy"] = policy or "RequireDualStack"
        elif policy == "RequireDualStack":
            errs.append(FieldError.invalid("spec.ipFamilyPolicy", policy,
                                           "this cluster is not configured for dual-stack services"))
        elif not policy:
            spec["ipFamilyPolicy"] = "SingleStack"
        if not errs and not families:
            spec["ipFamilies"] = ["IPv4"]
        return errs

    def _alloc_ip(self, spec: dict[str, Any], svc: dict[str, Any]) -> str | list[FieldError]:
        """``allocIPs``: the requested IP, or a random free one."""
        requested = _primary_ip(spec)
        if requested:
            msg = self.ips.allocate(requested)
            if msg is not None:
                ips = spec.get("clusterIPs") or [requested]
                return [FieldError.invalid("spec.clusterIPs", list(ips), f"failed to allocate IP {requested}: {msg}")]
            ip = requested
        else:
            got = self.ips.allocate_next()
            if got is None:
                raise InternalError.make("Internal error occurred: failed to allocate a serviceIP: range is full")
            ip = got
        spec["clusterIP"] = ip
        spec["clusterIPs"] = [ip]
        return ip

    def _init_node_ports(self, spec: dict[str, Any], old_spec: dict[str, Any] | None,
                         svc: dict[str, Any]) -> list[FieldError]:
        """``initNodePorts`` / ``updateNodePorts``: one node port per service port number, reserved
        all-or-nothing. Ports the old object already held stay reserved without a second allocation."""
        held = set(_node_ports(old_spec)) if old_spec is not None else set()
        want = _wants_node_ports(spec)
        ports = _ports(spec)
        taken: list[int] = []  # reserved by this call, released again on failure
        by_port: dict[Any, int] = {}
        errs: list[FieldError] = []
        for i, p in enumerate(ports):
            np = p.get("nodePort")
            if not np and not want:
                continue
            known = by_port.get(p.get("port"))
            if not np and known:
                p["nodePort"] = known
                continue
            if not np:
                # a later port with the same number may name the node port the user wants
                np = next((q.get("nodePort") for q in ports[i + 1:]
                           if q.get("port") == p.get("port") and q.get("nodePort")), 0)
            if np:
                if not isinstance(np, int):
                    continue  # validation's business
                if np not in held and np not in taken:
                    msg = self.node_ports.allocate(np)
                    if msg is not None:
                        errs.append(FieldError.invalid(f"spec.ports[{i}].nodePort", np, msg))
                        continue
                    taken.append(np)
            else:
                got = self.node_ports.allocate_next()
                if got is None:
                    for t in taken:
                        self.node_ports.release(t)
                    raise InternalError.make("Internal error occurred: failed to allocate a nodePort: range is full")
                np = got
                taken.append(np)
            p["nodePort"] = np
            by_port.setdefault(p.get("port"), np)
        if errs:
            for t in taken:
                self.node_ports.release(t)
        return errs

    # --- delete ---
    def release(self, svc: dict[str, Any]) -> None:
        """``releaseAllocatedResources``: free the service's cluster IP and node ports."""
        spec = _spec(svc)
        ip = _primary_ip(spec)
        if ip and ip != "None" and spec.get("type") in _NEEDS_IP:
            self.ips.release(ip)
        for np in _node_ports(spec):
            self.node_ports.release(np)

    # --- update ---
    def update(self, old: dict[str, Any], new: dict[str, Any]) -> list[FieldError]:
        """``patchAllocatedValues`` then ``allocateUpdate``: ``new`` is completed and reserved in place;
        what only ``old`` held is released. Nothing changes when errors are returned."""
        spec, old_spec = _spec(new), _spec(old)
        new_type, old_type = spec.get("type"), old_spec.get("type")
        self._patch_allocated_values(spec, old_spec)
        errs = self._init_ip_families(spec)
        if errs:
            return errs
        old_ip = _primary_ip(old_spec) if old_type in _NEEDS_IP else ""
        new_ip = ""
        if new_type in _NEEDS_IP and _primary_ip(spec) != "None":
            if old_ip and old_ip != "None" and _primary_ip(spec) == old_ip:
                new_ip = old_ip  # unchanged: already ours
            else:
                res = self._alloc_ip(spec, new)
                if isinstance(res, list):
                    return res
                new_ip = res
        elif new_type == "ExternalName":
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        try:
            errs = self._init_node_ports(spec, old_spec, new)
        except InternalError:
            if new_ip and new_ip != old_ip:
                self.ips.release(new_ip)
            raise
        if errs:
            if new_ip and new_ip != old_ip:
                self.ips.release(new_ip)
            return errs
        if old_ip and old_ip not in ("None", new_ip):
            self.ips.release(old_ip)
        kept = set(_node_ports(spec))
        for np in _node_ports(old_spec):
            if np not in kept:
                self.node_ports.release(np)
        return []

    def revert_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Undo a successful :meth:`update` whose store write failed: ``old``'s values are ours again."""
        spec, old_spec = _spec(new), _spec(old)
        old_ip = _primary_ip(old_spec) if old_spec.get("type") in _NEEDS_IP else ""
        new_ip = _primary_ip(spec) if spec.get("type") in _NEEDS_IP else ""
        if new_ip and new_ip not in ("None", old_ip):
            self.ips.release(new_ip)
        if old_ip and old_ip not in ("None", new_ip):
            self.ips.allocate(old_ip)
        old_ports = set(_node_ports(old_spec))
        for np in _node_ports(spec):
            if np not in old_ports:
                self.node_ports.release(np)
        for np in old_ports:
            self.node_ports.allocate(np)

    @staticmethod
    def _patch_allocated_values(spec: dict[str, Any], old_spec: dict[str, Any]) -> None:
        """``patchAllocatedValues`` and ``dropTypeDependentFields``: an update that omits the cluster IP or
        a node port keeps the old one; node ports the new type does not want are dropped."""
        new_type, old_type = spec.get("type"), old_spec.get("type")
        if new_type in _NEEDS_IP and old_type in _NEEDS_IP:
            if not spec.get("clusterIP") and old_spec.get("clusterIP"):
                spec["clusterIP"] = old_spec["clusterIP"]
            if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
                spec["clusterIPs"] = list(old_spec["clusterIPs"])
            for key in ("ipFamilies", "ipFamilyPolicy"):
                if not spec.get(key) and old_spec.get(key):
                    spec[key] = old_spec[key] if isinstance(old_spec[key], str) else list(old_spec[key])
        if _wants_node_ports(spec) and _wants_node_ports(old_spec):
            old_ports = _ports(old_spec)
            for p in _ports(spec):
                if p.get("nodePort"):
                    continue
                match = next((q for q in old_ports if q.get("name") == p.get("name") and q.get("nodePort")), None)
                if match is None:
                    match = next((q for q in old_ports if q.get("port") == p.get("port") and q.get("nodePort")), None)
                if match is not None:
                    p["nodePort"] = match["nodePort"]
        elif not _wants_node_ports(spec):
            # drop node ports the client left unchanged from the old object
            old_nps = {(q.get("port"), q.get("nodePort")) for q in _ports(old_spec)}
            for p in _ports(spec):
                if p.get("nodePort") and (p.get("port"), p.get("nodePort")) in old_nps:
                    p.pop("nodePort")

    # --- restart ---
    def restore(self, services: Iterable[dict[str, Any]]) -> None:
        """Rebuild the allocation state from the stored Services (the repair controllers' view)."""
        for svc in services:
            spec = svc.get("spec")
            if not isinstance(spec, dict):
                continue
            ip = _primary_ip(spec)
            if ip and ip != "None" and spec.get("type") in _NEEDS_IP:
                self.ips.allocate(ip)
            for np in _node_ports(spec):
                self.node_ports.allocate(np)

    def statistics(self) -> tuple[int, int]:
        """(cluster IPs allocated, node ports allocated)."""
        return self.ips.used(), self.node_ports.used()
