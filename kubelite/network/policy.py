"""NetworkPolicy enforcement (``networking.k8s.io/v1``), as the API defines it and the conformance tests
(``test/e2e/network/netpol``) and kube-network-policies (the reference agent kind runs) enforce it.

Contract (upstream semantics):
- A pod is *isolated for ingress* when at least one NetworkPolicy of its namespace selects it
  (``spec.podSelector``; an empty selector selects every pod of the namespace) and lists ``Ingress`` in
  ``policyTypes``; likewise for egress. ``policyTypes`` left out means ``Ingress``, plus ``Egress`` when the
  policy has egress rules (the apiserver defaults it so; :func:`compile_policy` does the same for raw input).
- Policies are additive (allow lists): a connection from ``src`` to ``dst`` is allowed iff ``src`` is not
  isolated for egress or some egress rule of a policy selecting it allows ``dst``, **and** ``dst`` is not
  isolated for ingress or some ingress rule of a policy selecting it allows ``src``. A policy with no rules of
  a type it lists (``ingress: []``, ``podSelector: {}``) is a default deny for that direction.
- A rule allows a peer when one of its ``from``/``to`` entries matches it (none given: every peer) and one of
  its ``ports`` matches (none given: every port). An entry matches:

  ==============================================  =======================================================
  ``podSelector`` only                            pods of the policy's namespace with matching labels
  ``namespaceSelector`` only                      every pod of a namespace with matching labels
  both, in one entry                              pods with matching labels in matching namespaces (AND)
  ``ipBlock`` (``cidr`` minus each ``except``)    that IP range, pods or not
  ==============================================  =======================================================
- A port matches by protocol (default TCP) and port: none means every port; a number, or a range up to
  ``endPort``; a name is looked up among the destination pod's container ports of that protocol (for
  ingress the selected pod, for egress the peer), and matches nothing when the pod has no such port.
- Traffic between a pod and the node it runs on is always allowed (the documented exemption: health
  checks and host processes), whatever the policies say. Other hosts are matched only by ``ipBlock``.
- Evaluation is pure: :class:`PolicySet` answers from compiled policies and a namespace-labels lookup.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from kubelite.api.labels import Selector, selector_from_label_selector

__all__ = ["CompiledPolicy", "Peer", "PolicySet", "compile_policy", "named_ports"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Peer(NamedTuple):
    """One end of a connection. ``namespace`` is "" for a host (a node, or outside the cluster)."""

    ip: str
    namespace: str = ""
    labels: Mapping[str, str] | None = None
    node: str = ""
    #: (port name, protocol) -> container port, of a pod's containers
    ports: Mapping[tuple[str, str], int] | None = None

    @property
    def is_pod(self) -> bool:
        return bool(self.namespace)


class _PeerMatch(NamedTuple):
    pods: Selector | None
    namespaces: Selector | None
    block: tuple[_Network, tuple[_Network, ...]] | None


class _PortMatch(NamedTuple):
    protocol: str
    port: int | str | None
    end_port: int | None


class _Rule(NamedTuple):
    peers: tuple[_PeerMatch, ...] | None  # None: every peer
    ports: tuple[_PortMatch, ...] | None  # None: every port


class CompiledPolicy(NamedTuple):
    namespace: str
    name: str
    selector: Selector
    ingress: tuple[_Rule, ...] | None  # None: the policy does not govern ingress
    egress: tuple[_Rule, ...] | None


def _peer(p: Mapping[str, Any]) -> _PeerMatch:
    block = p.get("ipBlock")
    if block is not None:
        net = ipaddress.ip_network(block["cidr"], strict=False)
        return _PeerMatch(None, None, (net, tuple(ipaddress.ip_network(e, strict=False)
                                                  for e in block.get("except") or ())))
    pods = p.get("podSelector")
    namespaces = p.get("namespaceSelector")
    return _PeerMatch(selector_from_label_selector(pods) if pods is not None else None,
                      selector_from_label_selector(namespaces) if namespaces is not None else None, None)


def _rules(rules: Iterable[Mapping[str, Any]], peers_key: str) -> tuple[_Rule, ...]:
    out = []
    for r in rules:
        peers = r.get(peers_key)
        ports = r.get("ports")
        out.append(_Rule(
            tuple(_peer(p) for p in peers) if peers else None,
            tuple(_PortMatch(p.get("protocol") or "TCP", p.get("port"), p.get("endPort")) for p in ports)
            if ports else None))
    return tuple(out)


def compile_policy(obj: Mapping[str, Any]) -> CompiledPolicy:
    """A NetworkPolicy (JSON form) ready to evaluate; ValueError for an invalid selector or CIDR."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    types = spec.get("policyTypes") or (["Ingress", "Egress"] if spec.get("egress") else ["Ingress"])
    return CompiledPolicy(
        namespace=meta.get("namespace") or "", name=meta.get("name") or "",
        selector=selector_from_label_selector(spec.get("podSelector") or {}),
        ingress=_rules(spec.get("ingress") or (), "from") if "Ingress" in types else None,
        egress=_rules(spec.get("egress") or (), "to") if "Egress" in types else None)


def named_ports(containers: Iterable[Any]) -> dict[tuple[str, str], int]:
    """(name, protocol) -> containerPort of a pod's containers (Structs or JSON dicts)."""
    out: dict[tuple[str, str], int] = {}
    for c in containers:
        ports = c.get("ports") if isinstance(c, Mapping) else c.ports
        for p in ports or ():
            if isinstance(p, Mapping):
                name, proto, number = p.get("name"), p.get("protocol"), p.get("containerPort")
            else:
                name, proto, number = p.name, p.protocol, p.container_port
            if name and number:
                out.setdefault((name, proto or "TCP"), int(number))
    return out


class PolicySet:
    """Every policy of the cluster at one state. ``namespace_labels(ns)`` gives a namespace's labels (None:
    no such namespace)."""

    def __init__(self, policies: Iterable[CompiledPolicy],
                 namespace_labels: Callable[[str], Mapping[str, str] | None]) -> None:
        self._by_ns: dict[str, list[CompiledPolicy]] = {}
        for p in policies:
            self._by_ns.setdefault(p.namespace, []).append(p)
        self._ns_labels = namespace_labels

    def allows(self, src: Peer, dst: Peer, port: int, protocol: str = "TCP") -> bool:
        """Whether a new connection from ``src`` to ``dst``'s ``port`` is allowed (see the module docstring)."""
        return self.egress_allows(src, dst, port, protocol) and self.ingress_allows(src, dst, port, protocol)

    def ingress_allows(self, src: Peer, dst: Peer, port: int, protocol: str = "TCP") -> bool:
        if not dst.is_pod or (not src.is_pod and src.node and src.node == dst.node):
            return True
        return self._allowed(dst, src, dst, port, protocol, egress=False)

    def egress_allows(self, src: Peer, dst: Peer, port: int, protocol: str = "TCP") -> bool:
        if not src.is_pod or (not dst.is_pod and dst.node and dst.node == src.node):
            return True
        return self._allowed(src, dst, dst, port, protocol, egress=True)

    def _allowed(self, subject: Peer, other: Peer, target: Peer, port: int, protocol: str, *, egress: bool) -> bool:
        isolated = False
        for pol in self._by_ns.get(subject.namespace, ()):
            rules = pol.egress if egress else pol.ingress
            if rules is None or not pol.selector.matches(subject.labels):
                continue
            isolated = True
            for rule in rules:
                if self._peer_ok(rule, pol.namespace, other) and _port_ok(rule, target, port, protocol):
                    return True
        return not isolated

    def _peer_ok(self, rule: _Rule, namespace: str, peer: Peer) -> bool:
        if rule.peers is None:
            return True
        for m in rule.peers:
            if m.block is not None:
                if _in_block(peer.ip, m.block):
                    return True
                continue
            if not peer.is_pod:
                continue
            if m.namespaces is None:
                if peer.namespace != namespace:
                    continue
            elif not m.namespaces.matches(self._ns_labels(peer.namespace)):
                continue
            if m.pods is None or m.pods.matches(peer.labels):
                return True
        return False


def _in_block(ip: str, block: tuple[_Network, tuple[_Network, ...]]) -> bool:
    if not ip:
        return False
    addr = ipaddress.ip_address(ip)
    net, excepts = block
    return addr.version == net.version and addr in net and not any(
        addr.version == e.version and addr in e for e in excepts)


def _port_ok(rule: _Rule, target: Peer, port: int, protocol: str) -> bool:
    if rule.ports is None:
        return True
    for p in rule.ports:
        if p.protocol != protocol:
            continue
        if p.port is None:
            return True
        if isinstance(p.port, str) and not p.port.isdigit():
            if (target.ports or {}).get((p.port, protocol)) == port:
                return True
            continue
        first = int(p.port)
        if first == port or (p.end_port is not None and first <= port <= p.end_port):
            return True
    return False
