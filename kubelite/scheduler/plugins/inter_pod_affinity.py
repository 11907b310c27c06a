"""InterPodAffinity (upstream ``plugins/interpodaffinity`` filtering.go and scoring.go).

Filter, from counts per topology pair (key, value) computed once in PreFilter over every node:
- the pod's required affinity: every term needs a matching pod in the node's domain, unless no pod in
  the cluster matches and the pod matches its own terms (the first pod of a group) - else unresolvable
  "node(s) didn't match pod affinity rules";
- the pod's required anti-affinity: no matching pod in the node's domain - "node(s) didn't match pod
  anti-affinity rules";
- existing pods' required anti-affinity must not match the pod in their domain - "node(s) didn't
  satisfy existing pods anti-affinity rules".
The PreFilter extensions keep the counts right when preemption adds or removes pods.
Score: preferred (anti-)affinity of the pod and of existing pods (existing required affinity with
``hardPodAffinityWeight``, default 1), summed per domain, min-max normalised to [0, 100].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    MAX_NODE_SCORE,
    UPDATE_NODE_LABEL,
    UPDATE_POD_LABEL,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
)
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_AFFINITY", "ERR_ANTI_AFFINITY", "ERR_EXISTING_ANTI_AFFINITY", "NAME", "InterPodAffinity", "new"]

NAME = "InterPodAffinity"
ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
_PRE_FILTER = "PreFilter" + NAME
_PRE_SCORE = "PreScore" + NAME
_SKIP = Status(SKIP)

Counts = dict[tuple[str, str], int]


class _FilterState:
    __slots__ = ("affinity", "anti_affinity", "existing_anti_affinity")

    def __init__(self) -> None:
        self.existing_anti_affinity: Counts = {}
        self.affinity: Counts = {}
        self.anti_affinity: Counts = {}

    def clone(self) -> _FilterState:
        c = _FilterState()
        c.existing_anti_affinity = dict(self.existing_anti_affinity)
        c.affinity = dict(self.affinity)
        c.anti_affinity = dict(self.anti_affinity)
        return c

    def update_with_pod(self, pod: PodInfo, existing: PodInfo, node: NodeInfo, delta: int) -> None:
        labels = node.labels
        for t in existing.required_anti_affinity_terms:
            v = labels.get(t.topology_key)
            if v is not None and t.matches(pod):
                _bump(self.existing_anti_affinity, (t.topology_key, v), delta)
        terms = pod.required_affinity_terms
        if terms and all(t.matches(existing) for t in terms):
            for t in terms:
                v = labels.get(t.topology_key)
                if v is not None:
                    _bump(self.affinity, (t.topology_key, v), delta)
        for t in pod.required_anti_affinity_terms:
            v = labels.get(t.topology_key)
            if v is not None and t.matches(existing):
                _bump(self.anti_affinity, (t.topology_key, v), delta)


def _bump(counts: Counts, key: tuple[str, str], delta: int) -> None:
    n = counts.get(key, 0) + delta
    if n:
        counts[key] = n
    else:
        counts.pop(key, None)


class InterPodAffinity:
    name = NAME

    def __init__(self, args: Mapping[str, Any], handle: Any) -> None:
        self.handle = handle
        self.hard_pod_affinity_weight = int(args.get("hardPodAffinityWeight", 1))

    # --- filtering ---
    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        _, with_anti = self.handle.cluster_pods_with_affinity()
        if not pod.required_affinity_terms and not pod.required_anti_affinity_terms and not with_anti:
            return None, _SKIP
        s = _FilterState()
        needs_all = bool(pod.required_affinity_terms or pod.required_anti_affinity_terms)
        for ni in nodes:
            if needs_all:
                for existing in ni.pods:
                    s.update_with_pod(pod, existing, ni, 1)
            else:
                for existing in ni.pods_with_required_anti_affinity:
                    s.update_with_pod(pod, existing, ni, 1)
        state.write(_PRE_FILTER, s)
        return None, None

    def add_pod(self, state: CycleState, pod: PodInfo, add: PodInfo, node: NodeInfo) -> Status | None:
        state.read(_PRE_FILTER).update_with_pod(pod, add, node, 1)
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, remove: PodInfo, node: NodeInfo) -> Status | None:
        state.read(_PRE_FILTER).update_with_pod(pod, remove, node, -1)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s: _FilterState = state.read(_PRE_FILTER)
        labels = node.labels
        terms = pod.required_affinity_terms
        if terms:
            ok = True
            for t in terms:
                v = labels.get(t.topology_key)
                if v is None or s.affinity.get((t.topology_key, v), 0) <= 0:
                    ok = False
                    break
            # The first pod of a self-affine group may go anywhere its topology keys exist.
            if not ok and not (not s.affinity and all(t.matches(pod) for t in terms)
                               and all(t.topology_key in labels for t in terms)):
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY)
        if s.anti_affinity:
            for t in pod.required_anti_affinity_terms:
                v = labels.get(t.topology_key)
                if v is not None and s.anti_affinity.get((t.topology_key, v), 0) > 0:
                    return Status(UNSCHEDULABLE, ERR_ANTI_AFFINITY)
        if s.existing_anti_affinity:
            for key, value in s.existing_anti_affinity:
                if labels.get(key) == value:
                    return Status(UNSCHEDULABLE, ERR_EXISTING_ANTI_AFFINITY)
        return None

    # --- scoring ---
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        with_aff, _ = self.handle.cluster_pods_with_affinity()
        has_pref = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if not has_pref and not with_aff:
            return _SKIP
        scores: dict[tuple[str, str], int] = {}
        hard = self.hard_pod_affinity_weight
        for ni in self.handle.node_infos():
            labels = ni.labels
            for existing in ni.pods if has_pref else ni.pods_with_affinity:
                for w in pod.preferred_affinity_terms:
                    v = labels.get(w.term.topology_key)
                    if v is not None and w.term.matches(existing):
                        _bump(scores, (w.term.topology_key, v), w.weight)
                for w in pod.preferred_anti_affinity_terms:
                    v = labels.get(w.term.topology_key)
                    if v is not None and w.term.matches(existing):
                        _bump(scores, (w.term.topology_key, v), -w.weight)
                if hard:
                    for t in existing.required_affinity_terms:
                        v = labels.get(t.topology_key)
                        if v is not None and t.matches(pod):
                            _bump(scores, (t.topology_key, v), hard)
                for w in existing.preferred_affinity_terms:
                    v = labels.get(w.term.topology_key)
                    if v is not None and w.term.matches(pod):
                        _bump(scores, (w.term.topology_key, v), w.weight)
                for w in existing.preferred_anti_affinity_terms:
                    v = labels.get(w.term.topology_key)
                    if v is not None and w.term.matches(pod):
                        _bump(scores, (w.term.topology_key, v), -w.weight)
        if not scores:
            return _SKIP
        state.write(_PRE_SCORE, scores)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        scores = state.read(_PRE_SCORE)
        total = 0
        for (key, value), s in scores.items():
            if node.labels.get(key) == value:
                total += s
        return total

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> None:
        if not scores:
            return
        lo, hi = min(scores), max(scores)
        diff = hi - lo
        for i, s in enumerate(scores):
            scores[i] = int(MAX_NODE_SCORE * (s - lo) / diff) if diff > 0 else 0

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Pod", ADD | UPDATE_POD_LABEL | DELETE)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE_NODE_LABEL))]


def new(args: Mapping[str, Any], handle: Any) -> InterPodAffinity:
    return InterPodAffinity(args, handle)
