"""Kubelet-side pod admission: does a pod bound to this node fit here?

Follows ``pkg/kubelet/lifecycle/predicate.go`` (``predicateAdmitHandler.Admit`` over the scheduler's
``GeneralPredicates``): node name, node selector and required node affinity, host ports, and
``noderesources.Fits`` against the node's allocatable minus what the already admitted pods request.
A rejected pod ends ``Failed`` with the returned reason and ``"Pod was rejected: " + message``.

Reasons and messages are upstream's: ``OutOfcpu``, ``OutOfmemory``, ``OutOfephemeral-storage``,
``OutOfpods``, ``OutOf<extended resource>`` with ``"Node didn't have enough resource: cpu, requested:
2000, used: 0, capacity: 1000"`` (``capacity`` is the allocatable, as upstream prints it);
``NodeAffinity`` with ``"Predicate NodeAffinity failed"``; ``TaintToleration`` with ``"Predicate
TaintToleration failed"`` for an untolerated ``NoExecute`` taint. Labels and taints are the live
Node's (the kubelet's node informer, as the API's JSON). Pure functions over the typed pod (the kubelet's
shared read-only view).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubelite.api.types.core_v1 import NodeSelectorRequirement, Pod, PodSpec, Toleration

__all__ = ["AdmitResult", "admit", "host_ports", "node_affinity_matches", "tolerates"]

AdmitResult = tuple[str, str] | None
_ORDER = ("cpu", "memory", "ephemeral-storage")

_EMPTY_SPEC = PodSpec()


def _expr_matches(expr: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    key, op, values = expr.key or "", expr.operator or "", expr.values or ()
    have = labels.get(key)
    if op == "In":
        return have is not None and have in values
    if op == "NotIn":
        return have is None or have not in values
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt") and have is not None and values:
        try:
            a, b = int(have), int(values[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def node_affinity_matches(pod_spec: PodSpec, node_labels: Mapping[str, str], node_name: str = "") -> bool:
    """``nodeSelector`` and ``requiredDuringSchedulingIgnoredDuringExecution`` (terms ORed, expressions
    ANDed; ``matchFields`` supports ``metadata.name``), as component-helpers' ``GetRequiredNodeAffinity``."""
    for k, v in (pod_spec.node_selector or {}).items():
        if node_labels.get(k) != v:
            return False
    affinity = pod_spec.affinity
    node_affinity = affinity.node_affinity if affinity is not None else None
    required = node_affinity.required_during_scheduling_ignored_during_execution if node_affinity else None
    if required is None:
        return True
    fields = {"metadata.name": node_name}
    for term in required.node_selector_terms or ():
        exprs = term.match_expressions or ()
        fexprs = term.match_fields or ()
        if not exprs and not fexprs:
            continue
        if all(_expr_matches(e, node_labels) for e in exprs) and all(_expr_matches(e, fields) for e in fexprs):
            return True
    return False


def host_ports(spec: PodSpec | None) -> Iterable[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that asks for a host port."""
    if spec is None:
        return
    for c in (*(spec.init_containers or ()), *(spec.containers or ())):
        for p in c.ports or ():
            if p.host_port:
                yield (p.host_ip or "0.0.0.0", p.protocol or "TCP", int(p.host_port))


def tolerates(tolerations: Iterable[Toleration], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates ``taint`` (``Toleration.ToleratesTaint``: an effect and a key, when
    set, must match; ``Exists`` then tolerates, ``Equal`` (the default) compares values)."""
    for t in tolerations:
        if t.effect and t.effect != taint.get("effect"):
            continue
        if t.key and t.key != taint.get("key"):
            continue
        op = t.operator or "Equal"
        if op == "Exists" or (op == "Equal" and (t.value or "") == (taint.get("value") or "")):
            return True
    return False


def admit(pod: Pod, requests: Mapping[str, int], *, node_name: str,
          node_labels: Mapping[str, str], allocatable: Mapping[str, int], used: Mapping[str, int],
          admitted_pods: int, used_host_ports: Iterable[tuple[str, str, int]] = (),
          taints: Iterable[Mapping[str, Any]] = ()) -> AdmitResult:
    """``(reason, message)`` when ``pod`` must be rejected, else None. ``used`` sums the requests of the
    pods already admitted (and not terminal); ``allocatable`` includes ``pods``; ``taints`` are the live
    node's (only ``NoExecute`` ones count, as upstream's admission filter)."""
    spec = pod.spec if pod.spec is not None else _EMPTY_SPEC
    if not node_affinity_matches(spec, node_labels, node_name):
        return "NodeAffinity", "Predicate NodeAffinity failed"
    tolerations = spec.tolerations or ()
    for taint in taints:
        if taint.get("effect") == "NoExecute" and not tolerates(tolerations, taint):
            return "TaintToleration", "Predicate TaintToleration failed"
    taken = set(used_host_ports)
    for hp in host_ports(spec):
        if hp in taken or any(t[1:] == hp[1:] and "0.0.0.0" in (t[0], hp[0]) for t in taken):
            return "NodePorts", "Predicate NodePorts failed"
    max_pods = allocatable.get("pods")
    if max_pods is not None and admitted_pods + 1 > max_pods:
        return "OutOfpods", (f"Node didn't have enough resource: pods, requested: 1, used: {admitted_pods}, "
                             f"capacity: {max_pods}")
    names = [r for r in _ORDER if r in requests] + sorted(r for r in requests if r not in _ORDER)
    for r in names:
        want = requests[r]
        if want <= 0 or r == "pods":
            continue
        cap = allocatable.get(r, 0)
        have = used.get(r, 0)
        if want > cap - have:
            return f"OutOf{r}", (f"Node didn't have enough resource: {r}, requested: {want}, used: {have}, "
                                 f"capacity: {cap}")
    return None
