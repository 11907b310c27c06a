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
Node's (the kubelet's node informer). Pure functions over plain dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["AdmitResult", "admit", "host_ports", "node_affinity_matches", "tolerates"]

AdmitResult = tuple[str, str] | None
_ORDER = ("cpu", "memory", "ephemeral-storage")


def _expr_matches(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or ()
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


def node_affinity_matches(pod_spec: Mapping[str, Any], node_labels: Mapping[str, str],
                          node_name: str = "") -> bool:
    """``nodeSelector`` and ``requiredDuringSchedulingIgnoredDuringExecution`` (terms ORed, expressions
    ANDed; ``matchFields`` supports ``metadata.name``), as component-helpers' ``GetRequiredNodeAffinity``."""
    for k, v in (pod_spec.get("nodeSelector") or {}).items():
        if node_labels.get(k) != v:
            return False
    required = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if not required:
        return True
    fields = {"metadata.name": node_name}
    for term in required.get("nodeSelectorTerms") or ():
        exprs = term.get("matchExpressions") or ()
        fexprs = term.get("matchFields") or ()
        if not exprs and not fexprs:
            continue
        if all(_expr_matches(e, node_labels) for e in exprs) and all(_expr_matches(e, fields) for e in fexprs):
            return True
    return False


def host_ports(spec: Mapping[str, Any]) -> Iterable[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that asks for a host port."""
    for c in (*(spec.get("initContainers") or ()), *(spec.get("containers") or ())):
        for p in c.get("ports") or ():
            if p.get("hostPort"):
                yield (p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(p["hostPort"]))


def tolerates(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates ``taint`` (``Toleration.ToleratesTaint``: an effect and a key, when
    set, must match; ``Exists`` then tolerates, ``Equal`` (the default) compares values)."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("key") and t.get("key") != taint.get("key"):
            continue
        op = t.get("operator") or "Equal"
        if op == "Exists" or (op == "Equal" and (t.get("value") or "") == (taint.get("value") or "")):
            return True
    return False


def admit(pod: Mapping[str, Any], requests: Mapping[str, int], *, node_name: str,
          node_labels: Mapping[str, str], allocatable: Mapping[str, int], used: Mapping[str, int],
          admitted_pods: int, used_host_ports: Iterable[tuple[str, str, int]] = (),
          taints: Iterable[Mapping[str, Any]] = ()) -> AdmitResult:
    """``(reason, message)`` when ``pod`` must be rejected, else None. ``used`` sums the requests of the
    pods already admitted (and not terminal); ``allocatable`` includes ``pods``; ``taints`` are the live
    node's (only ``NoExecute`` ones count, as upstream's admission filter)."""
    spec = pod.get("spec") or {}
    if not node_affinity_matches(spec, node_labels, node_name):
        return "NodeAffinity", "Predicate NodeAffinity failed"
    tolerations = spec.get("tolerations") or ()
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
