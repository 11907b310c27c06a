"""Scheduling predicates shared by the scheduler and the controllers (upstream
``k8s.io/component-helpers/scheduling/corev1``: ``nodeaffinity``, ``FindMatchingUntoleratedTaint``, and
core/v1 ``Toleration.ToleratesTaint``). Pure functions over typed objects; they never mutate what they read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "find_untolerated_taint",
    "node_selector_requirement_matches",
    "node_selector_term_matches",
    "pod_matches_node_selector_and_affinity",
    "tolerates_taint",
]


def tolerates_taint(tol: Any, taint: Any) -> bool:
    """``Toleration.ToleratesTaint`` (core/v1/toleration.go)."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    op = tol.operator or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return (tol.value or "") == (taint.value or "")
    return False


def find_untolerated_taint(taints: Iterable[Any], tolerations: list[Any], effects: tuple[str, ...]) -> Any | None:
    for t in taints:
        if t.effect not in effects:
            continue
        if not any(tolerates_taint(tol, t) for tol in tolerations):
            return t
    return None


def _int(s: str) -> int | None:
    try:
        return int(s)
    except ValueError:
        return None


def node_selector_requirement_matches(req: Any, labels: Mapping[str, str]) -> bool:
    op, key = req.operator, req.key or ""
    values: list[str] = req.values or []
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt"):
        if key not in labels or len(values) != 1:
            return False
        have, want = _int(labels[key]), _int(values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def node_selector_term_matches(term: Any, labels: Mapping[str, str], node_name: str) -> bool:
    """A NodeSelectorTerm: all matchExpressions on labels and all matchFields (metadata.name) hold; an
    empty term matches nothing (upstream)."""
    exprs: list[Any] = term.match_expressions or []
    fields: list[Any] = term.match_fields or []
    if not exprs and not fields:
        return False
    for r in exprs:
        if not node_selector_requirement_matches(r, labels):
            return False
    name_labels = {"metadata.name": node_name}
    for r in fields:
        if r.key != "metadata.name" or not node_selector_requirement_matches(r, name_labels):
            return False
    return True


def pod_matches_node_selector_and_affinity(spec: Any, labels: Mapping[str, str], node_name: str) -> bool:
    """nodeSelector AND (any required nodeAffinity term) - upstream ``GetRequiredNodeAffinity().Match``."""
    sel = spec.node_selector
    if sel:
        for k, v in sel.items():
            if labels.get(k) != v:
                return False
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    req = na.required_during_scheduling_ignored_during_execution if na is not None else None
    if req is not None:
        terms = req.node_selector_terms or ()
        if not any(node_selector_term_matches(t, labels, node_name) for t in terms):
            return False
    return True
