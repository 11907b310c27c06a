"""NetworkPolicy semantics as table tests, ported from upstream's conformance suite
(``test/e2e/network/netpol/network_policy.go``: its model of namespaces x, y, z with pods a, b, c serving ports
80 and 81 over TCP, UDP and SCTP, and its reachability expectations) and the examples of the Kubernetes docs
("Network Policies": the ``test-network-policy`` example, the ``from`` AND/OR note, default policies, endPort).

Each case lists its policies and the connections that differ from "everything allowed"; every other pair
of the 9 x 9 model is checked to be allowed, so a case also fails when a policy denies too much."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from kubelite.network.policy import Peer, PolicySet, compile_policy, named_ports

NAMESPACES = ("x", "y", "z")
PODS = ("a", "b", "c")
ALL = tuple(f"{ns}/{p}" for ns in NAMESPACES for p in PODS)
CONTAINERS = [{"name": f"c{port}-{proto.lower()}", "ports": [{"name": f"serve-{port}-{proto.lower()}",
                                                                "containerPort": port, "protocol": proto}]}
              for port in (80, 81) for proto in ("TCP", "UDP", "SCTP")]
PORTS = named_ports(CONTAINERS)


def peer(key: str) -> Peer:
    ns, name = key.split("/")
    ip = f"10.0.{NAMESPACES.index(ns)}.{PODS.index(name) + 1}"
    return Peer(ip=ip, namespace=ns, labels={"pod": name}, node=f"node-{PODS.index(name)}", ports=PORTS)


def ns_labels(ns: str) -> dict[str, str] | None:
    return {"ns": ns, "kubernetes.io/metadata.name": ns} if ns in NAMESPACES else None


def policy(ns: str, spec: dict[str, Any], name: str = "p") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns}, "spec": spec}


def sel(**labels: str) -> dict[str, Any]:
    return {"matchLabels": labels}


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}


Denied = Callable[[str, str], bool]


def to(*targets: str, only_from: Iterable[str] = ()) -> Denied:
    """Ingress to ``targets`` is denied except from ``only_from``."""
    allowed = set(only_from)
    return lambda s, d: d in targets and s not in allowed


def from_(*sources: str, only_to: Iterable[str] = ()) -> Denied:
    """Egress from ``sources`` is denied except to ``only_to``."""
    allowed = set(only_to)
    return lambda s, d: s in sources and d not in allowed


X = [f"x/{p}" for p in PODS]
Y = [f"y/{p}" for p in PODS]
Z = [f"z/{p}" for p in PODS]
NOTHING: Denied = lambda s, d: False  # noqa: E731

# (policies, port, protocol, denied(src, dst))
CASES: list[tuple[list[dict[str, Any]], int, str, Denied]] = [
    # "should support a 'default-deny-ingress' policy"
    ([policy("x", {"podSelector": {}, "policyTypes": ["Ingress"]})], 80, "TCP", to(*X)),
    # "should support a 'default-deny-all' policy"
    ([policy("x", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})], 80, "TCP",
     lambda s, d: d in X or s in X),
    # "should support allow-all policy" (an empty rule allows everything)
    ([policy("x", {"podSelector": {}, "ingress": [{}]})], 80, "TCP", NOTHING),
    # an empty podSelector selects every pod of the namespace, and only of that namespace
    ([policy("y", {"podSelector": {}, "ingress": []})], 80, "TCP", to(*Y)),
    # "should enforce policy to allow traffic from pods within server namespace based on PodSelector"
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"podSelector": sel(pod="b")}]}]})],
     80, "TCP", to("x/a", only_from=["x/b"])),
    # "should deny ingress from pods on other namespaces" (podSelector {} in a peer: this namespace only)
    ([policy("x", {"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}]}]})], 80, "TCP",
     to(*X, only_from=X)),
    # "should enforce policy to allow ingress traffic from pods in all namespaces" (namespaceSelector {})
    ([policy("x", {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}]}]})], 80, "TCP", NOTHING),
    # "should enforce policy to allow traffic only from a different namespace, based on NamespaceSelector"
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"namespaceSelector": sel(ns="y")}]}]})],
     80, "TCP", to("x/a", only_from=Y)),
    # "should enforce policy based on PodSelector with MatchExpressions"
    ([policy("x", {"podSelector": sel(pod="a"),
                   "ingress": [{"from": [{"podSelector": expr("pod", "In", "b")}]}]})],
     80, "TCP", to("x/a", only_from=["x/b"])),
    # "should enforce policy based on NamespaceSelector with MatchExpressions" (NotIn)
    ([policy("x", {"podSelector": sel(pod="a"),
                   "ingress": [{"from": [{"namespaceSelector": expr("ns", "NotIn", "x", "y")}]}]})],
     80, "TCP", to("x/a", only_from=Z)),
    # "should enforce policy based on PodSelector or NamespaceSelector" (two entries: OR)
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [
        {"namespaceSelector": expr("ns", "NotIn", "x")}, {"podSelector": sel(pod="b")}]}]})],
     80, "TCP", to("x/a", only_from=["x/b", *Y, *Z])),
    # "should enforce policy based on PodSelector and NamespaceSelector" (one entry: AND)
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [
        {"namespaceSelector": expr("ns", "NotIn", "x"), "podSelector": sel(pod="b")}]}]})],
     80, "TCP", to("x/a", only_from=["y/b", "z/b"])),
    # "should enforce policy based on Multiple PodSelectors and NamespaceSelectors"
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [
        {"namespaceSelector": expr("ns", "NotIn", "x"), "podSelector": expr("pod", "In", "b", "c")}]}]})],
     80, "TCP", to("x/a", only_from=["y/b", "y/c", "z/b", "z/c"])),
    # "should enforce policy based on Ports": only 81 is allowed from y
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{
        "from": [{"namespaceSelector": sel(ns="y")}], "ports": [{"port": 81, "protocol": "TCP"}]}]})],
     80, "TCP", to("x/a")),
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{
        "from": [{"namespaceSelector": sel(ns="y")}], "ports": [{"port": 81, "protocol": "TCP"}]}]})],
     81, "TCP", to("x/a", only_from=Y)),
    # "should enforce multiple, stacked policies with overlapping podSelectors": policies add up
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"namespaceSelector": sel(ns="y")}],
                                                             "ports": [{"port": 81}]}]}, "p81"),
      policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"namespaceSelector": sel(ns="y")}],
                                                             "ports": [{"port": 80}]}]}, "p80")],
     80, "TCP", to("x/a", only_from=Y)),
    # two policies each allowing one source: both sources reach the pod
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"podSelector": sel(pod="b")}]}]}, "b"),
      policy("x", {"podSelector": sel(pod="a"), "ingress": [{"from": [{"podSelector": sel(pod="c")}]}]}, "c")],
     80, "TCP", to("x/a", only_from=["x/b", "x/c"])),
    # "should allow ingress access on one named port"
    ([policy("x", {"podSelector": {}, "ingress": [{"ports": [{"port": "serve-81-tcp"}]}]})], 81, "TCP", NOTHING),
    ([policy("x", {"podSelector": {}, "ingress": [{"ports": [{"port": "serve-81-tcp"}]}]})], 80, "TCP", to(*X)),
    # a named port is matched with its protocol: serve-81-udp does not open TCP 81
    ([policy("x", {"podSelector": {}, "ingress": [{"ports": [{"port": "serve-81-udp", "protocol": "UDP"}]}]})],
     81, "TCP", to(*X)),
    ([policy("x", {"podSelector": {}, "ingress": [{"ports": [{"port": "serve-81-udp", "protocol": "UDP"}]}]})],
     81, "UDP", NOTHING),
    # "should allow ingress access from namespace on one named port"
    ([policy("x", {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": sel(ns="y")}],
                                                   "ports": [{"port": "serve-80-tcp"}]}]})],
     80, "TCP", to(*X, only_from=Y)),
    # "should enforce ingress policy allowing any port traffic to a server on a specific protocol"
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"ports": [{"protocol": "TCP"}]}]})],
     80, "UDP", to("x/a")),
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"ports": [{"protocol": "TCP"}]}]})],
     81, "TCP", NOTHING),
    # "should not mistakenly treat 'protocol: SCTP' as 'protocol: TCP', even if the plugin doesn't support SCTP"
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"ports": [{"port": 81, "protocol": "SCTP"}]}]})],
     81, "TCP", to("x/a")),
    # endPort (docs "Targeting a range of ports"): 80..81 opens 81, not 82
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"ports": [{"port": 80, "endPort": 81}]}]})],
     81, "TCP", NOTHING),
    ([policy("x", {"podSelector": sel(pod="a"), "ingress": [{"ports": [{"port": 79, "endPort": 80}]}]})],
     81, "TCP", to("x/a")),
    # "should deny egress from pods based on PodSelector"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"]})], 80, "TCP", from_("x/a")),
    # "should deny egress from all pods in a namespace"
    ([policy("x", {"podSelector": {}, "policyTypes": ["Egress"]})], 80, "TCP", from_(*X)),
    # "should allow egress access on one named port"
    ([policy("x", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{"ports": [{"port": "serve-80-tcp"}]}]})],
     80, "TCP", NOTHING),
    ([policy("x", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{"ports": [{"port": "serve-80-tcp"}]}]})],
     81, "TCP", from_(*X)),
    # egress rules alone imply policyTypes [Ingress, Egress] when policyTypes is left out (docs)
    ([policy("x", {"podSelector": sel(pod="a"), "egress": [{"to": [{"podSelector": sel(pod="b")}]}]})],
     80, "TCP", lambda s, d: d == "x/a" or (s == "x/a" and d != "x/b")),
    # "should enforce egress policy allowing traffic to a server in a different namespace based on PodSelector
    # and NamespaceSelector"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"], "egress": [{"to": [
        {"namespaceSelector": sel(ns="y"), "podSelector": sel(pod="a")}]}]})],
     80, "TCP", from_("x/a", only_to=["y/a"])),
    # "should support denying of egress traffic on the client side (even if the server explicitly allows this
    # traffic)"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"], "egress": [{"to": [
         {"namespaceSelector": sel(ns="y")}]}]}, "egress"),
      policy("z", {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": sel(ns="x")}]}]}, "ingress")],
     80, "TCP", lambda s, d: (s == "x/a" and d not in Y) or (d in Z and s not in X)),
    # "should work with Ingress, Egress specified together"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Ingress", "Egress"],
                   "ingress": [{"from": [{"podSelector": sel(pod="b")}]}],
                   "egress": [{"to": [{"podSelector": sel(pod="c")}]}]})],
     80, "TCP", lambda s, d: (d == "x/a" and s != "x/b") or (s == "x/a" and d != "x/c")),
    # "should enforce policies to check ingress and egress policies can be controlled independently"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"], "egress": [{}]}, "allow-egress"),
      policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Ingress"]}, "deny-ingress")],
     80, "TCP", to("x/a")),
    # "should enforce except clause while egress access to server in CIDR block"
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"], "egress": [{"to": [{"ipBlock": {
        "cidr": "10.0.1.0/24", "except": ["10.0.1.2/32"]}}]}]})],
     80, "TCP", from_("x/a", only_to=["y/a", "y/c"])),
    # "should ensure an IP overlapping both IPBlock.CIDR and IPBlock.Except is allowed" (by another rule)
    ([policy("x", {"podSelector": sel(pod="a"), "policyTypes": ["Egress"], "egress": [
        {"to": [{"ipBlock": {"cidr": "10.0.1.0/24", "except": ["10.0.1.2/32"]}}]},
        {"to": [{"ipBlock": {"cidr": "10.0.1.2/32"}}]}]})],
     80, "TCP", from_("x/a", only_to=Y)),
    # ingress from an ipBlock matches pods by their IPs (kube-network-policies)
    ([policy("y", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/16",
                                                                         "except": ["10.0.2.0/24"]}}]}]})],
     80, "TCP", to(*Y, only_from=[*X, *Y])),
]
IDS = [
    "default-deny-ingress", "default-deny-all", "allow-all", "empty-podselector-own-namespace",
    "podselector", "deny-other-namespaces", "all-namespaces", "namespaceselector", "podselector-matchexpressions",
    "namespaceselector-notin", "pod-or-namespace", "pod-and-namespace", "multiple-selectors", "ports-80-denied",
    "ports-81-allowed", "stacked-policies", "additive-sources", "named-port-allowed", "named-port-other-denied",
    "named-port-protocol", "named-port-udp", "named-port-from-namespace", "any-port-on-protocol-udp-denied",
    "any-port-on-protocol-tcp", "sctp-is-not-tcp", "endport-in-range", "endport-out-of-range",
    "egress-deny-pod", "egress-deny-namespace", "egress-named-port", "egress-named-port-other",
    "egress-implies-policytypes", "egress-pod-and-namespace", "egress-denied-client-side", "ingress-and-egress",
    "independent-directions", "egress-ipblock-except", "ipblock-except-overlap", "ingress-ipblock-pods",
]


@pytest.mark.parametrize(("policies", "port", "protocol", "denied"), CASES, ids=IDS)
def test_reachability(policies: list[dict[str, Any]], port: int, protocol: str, denied: Denied) -> None:
    ps = PolicySet([compile_policy(p) for p in policies], ns_labels)
    wrong = [f"{s} -> {d}: {'allowed' if ok else 'denied'}" for s in ALL for d in ALL
             if (ok := ps.allows(peer(s), peer(d), port, protocol)) == denied(s, d)]
    assert wrong == []


def test_every_case_has_an_id_and_denies_something_or_says_nothing() -> None:
    assert len(IDS) == len(CASES) == len(set(IDS))


# the docs' test-network-policy example, probed by single connections
DOCS_EXAMPLE = policy("default", {
    "podSelector": sel(role="db"), "policyTypes": ["Ingress", "Egress"],
    "ingress": [{"from": [{"ipBlock": {"cidr": "172.17.0.0/16", "except": ["172.17.1.0/24"]}},
                          {"namespaceSelector": sel(project="myproject")}, {"podSelector": sel(role="frontend")}],
                 "ports": [{"protocol": "TCP", "port": 6379}]}],
    "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/24"}}], "ports": [{"protocol": "TCP", "port": 5978}]}],
}, "test-network-policy")


def _docs_labels(ns: str) -> dict[str, str] | None:
    return {"myproject": {"project": "myproject"}, "default": {}, "other": {}}.get(ns)


DB = Peer("10.1.0.5", "default", {"role": "db"}, "node-1")
DOCS_PROBES = [
    (Peer("172.17.0.9"), DB, 6379, True),                                  # in the CIDR
    (Peer("172.17.1.9"), DB, 6379, False),                                 # in the except
    (Peer("172.18.0.9"), DB, 6379, False),                                 # outside
    (Peer("10.1.0.7", "myproject", {"any": "pod"}, "node-2"), DB, 6379, True),  # namespaceSelector
    (Peer("10.1.0.8", "default", {"role": "frontend"}, "node-2"), DB, 6379, True),  # podSelector
    (Peer("10.1.0.9", "other", {"role": "frontend"}, "node-2"), DB, 6379, False),   # frontend elsewhere
    (Peer("10.1.0.8", "default", {"role": "frontend"}, "node-2"), DB, 6380, False),  # other port
    (Peer("172.17.0.9"), DB._replace(labels={"role": "cache"}), 6380, True),   # not selected
    (DB, Peer("10.0.0.20", "other", {}, "node-2"), 5978, True),             # egress to the CIDR
    (DB, Peer("10.0.0.20", "other", {}, "node-2"), 5979, False),            # egress, other port
    (DB, Peer("10.0.1.20", "other", {}, "node-2"), 5978, False),            # egress, outside the CIDR
    (Peer("192.168.0.1", node="node-1"), DB, 9999, True),                  # its own node: always allowed
    (Peer("192.168.0.2", node="node-2"), DB, 6379, False),                 # another node: not matched
]


@pytest.mark.parametrize(("src", "dst", "port", "want"), DOCS_PROBES, ids=[
    "cidr", "cidr-except", "outside-cidr", "namespace", "frontend-pod", "frontend-other-namespace", "other-port",
    "unselected-pod", "egress-cidr", "egress-other-port", "egress-outside", "own-node", "other-node"])
def test_docs_example(src: Peer, dst: Peer, port: int, want: bool) -> None:
    assert PolicySet([compile_policy(DOCS_EXAMPLE)], _docs_labels).allows(src, dst, port) is want


def test_policies_of_other_namespaces_do_not_apply() -> None:
    ps = PolicySet([compile_policy(policy("y", {"podSelector": sel(pod="a"), "policyTypes": ["Ingress"]}))],
                   ns_labels)
    assert ps.allows(peer("x/b"), peer("x/a"), 80)
    assert not ps.allows(peer("x/b"), peer("y/a"), 80)
