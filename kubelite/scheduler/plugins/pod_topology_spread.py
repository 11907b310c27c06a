"""PodTopologySpread (upstream ``plugins/podtopologyspread`` filtering.go, scoring.go, common.go).

Constraints come from ``spec.topologySpreadConstraints``; a pod without any gets the cluster default
constraints (``defaultingType: System``: zone maxSkew 5 and hostname maxSkew 3, both ScheduleAnyway)
with a selector built from the Services, ReplicaSets and StatefulSets that select or own it (upstream
``DefaultSelector``); with no such selector nothing applies.

Counting: pods in the pod's namespace matching the constraint's selector (plus ``matchLabelKeys``),
not terminating, on nodes that pass the pod's nodeSelector/affinity (``nodeAffinityPolicy: Honor``)
and carry every constraint's topology key.
Filter (DoNotSchedule): ``count(domain) + self - min(count over domains) <= maxSkew``, the minimum
being 0 while fewer than ``minDomains`` domains exist; a node without the key is unresolvable.
Score (ScheduleAnyway): fewer matching pods in the node's domains is better, weighted by
``log(domains + 2)`` per constraint, normalised so the emptiest domain scores 100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from operator import add, attrgetter, itemgetter
from typing import Any

import msgspec

from kubelite.api.labels import (
    DOUBLE_EQUALS,
    EQUALS,
    IN,
    Requirement,
    Selector,
    selector_from_label_selector,
    selector_from_set,
)
from kubelite.api.scheduling import pod_matches_node_selector_and_affinity
from kubelite.api.types import ReplicaSet, Service, StatefulSet
from kubelite.memo import BoundedCache
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    ADD,
    DELETE,
    MAX_NODE_SCORE,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    UPDATE_POD_LABEL,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
)
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["ERR_REASON_CONSTRAINTS_NOT_MATCH", "ERR_REASON_NODE_LABEL_NOT_MATCH", "NAME", "PodTopologySpread",
           "SYSTEM_DEFAULT_CONSTRAINTS", "new"]

NAME = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SYSTEM_DEFAULT_CONSTRAINTS: tuple[tuple[str, int], ...] = ((ZONE, 5), (HOSTNAME, 3))
_PRE_FILTER = "PreFilter" + NAME
_PRE_SCORE = "PreScore" + NAME
_SKIP = Status(SKIP)
# Rejections are immutable and identical for every node: shared, already tagged with the plugin.
_LABEL_NOT_MATCH = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH, plugin=NAME)
_CONSTRAINTS_NOT_MATCH = Status(UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH, plugin=NAME)
#: distinct (namespace, selector) pairs whose per-node counts are remembered before starting over
_MAX_REMEMBERED_SELECTORS = 64
_NAME = attrgetter("name")
_LABELS = attrgetter("labels")


class _Constraint:
    __slots__ = ("key", "max_skew", "min_domains", "selector")

    def __init__(self, key: str, max_skew: int, min_domains: int, selector: Selector) -> None:
        self.key = key
        self.max_skew = max_skew
        self.min_domains = min_domains
        self.selector = selector


class _FilterState:
    """Counts per (topology key, value) of the pods matching each constraint. ``counts`` changes only
    through PreFilter and :meth:`bump` (the PreFilter extensions), which drops the memoised minima."""

    __slots__ = ("_mins", "constraints", "counts", "self_match")

    def __init__(self, constraints: list[_Constraint], self_match: list[int]) -> None:
        self.constraints = constraints
        #: per constraint, 1 if the incoming pod matches its selector (it will count itself)
        self.self_match = self_match
        self.counts: dict[tuple[str, str], int] = {}
        self._mins: dict[tuple[str, int], int] = {}

    def clone(self) -> _FilterState:
        c = _FilterState(self.constraints, self.self_match)
        c.counts = dict(self.counts)
        return c

    def bump(self, key: tuple[str, str], delta: int) -> None:
        self.counts[key] = self.counts.get(key, 0) + delta
        self._mins.clear()

    def min_match(self, c: _Constraint) -> int:
        mk = (c.key, c.min_domains)
        m = self._mins.get(mk)
        if m is None:
            vals = [n for (k, _), n in self.counts.items() if k == c.key]
            m = self._mins[mk] = 0 if len(vals) < c.min_domains else min(vals, default=0)
        return m


def _counts_pod(c: _Constraint, pod: PodInfo, other: PodInfo) -> bool:
    if other.namespace != pod.namespace:
        return False
    meta = other.pod.metadata
    if meta is not None and meta.deletion_timestamp:
        return False
    return c.selector.matches(other.labels)


def _node_count(memo: dict[str, tuple[int, int]], ni: NodeInfo, c: _Constraint, ns: str) -> int:
    """How many of the node's pods match ``c`` in namespace ``ns`` and are not terminating (``_counts_pod``
    summed over the node), remembered with the node's generation, which changes whenever its pods do."""
    pods = ni.pods
    if not pods:
        return 0
    hit = memo.get(ni.name)
    if hit is not None and hit[0] == ni.generation:
        return hit[1]
    matches = c.selector.matches
    n = 0
    for p in pods:
        if p.namespace == ns and matches(p.labels) and not _terminating(p):
            n += 1
    memo[ni.name] = (ni.generation, n)
    return n


class _DomainTotals:
    """Per value of one topology key, the pods matching a constraint on the cluster's nodes that carry
    every key of the pod's constraints; per node, its own matching pods (the hostname constraint's
    count) and whether it lacks a key (upstream's ignored nodes). Kept across cycles and brought up to
    date from the cache's change log (:meth:`~kubelite.scheduler.cache.Cache.changes_since`): a cycle
    recounts only the nodes changed since the last one (usually the one node the previous pod was
    assumed on), so it never walks every node. Without a log (a handle that has none) or behind its
    start, it recounts every node whose generation moved and starts over when nodes were removed."""

    __slots__ = ("by_node", "by_value", "count_of", "members", "missing", "seq")

    def __init__(self) -> None:
        #: node name -> (node generation, its value or None without every key, its matching pods)
        self.by_node: dict[str, tuple[int, str | None, int]] = {}
        self.by_value: dict[str, int] = {}
        #: value -> how many listed nodes with every key have it (a value no node has is no domain)
        self.members: dict[str, int] = {}
        #: node name -> its matching pods, for the nodes with every key
        self.count_of: dict[str, int] = {}
        #: the listed nodes without every key
        self.missing: set[str] = set()
        #: the change log's sequence number the totals are up to date with; None before a full count
        self.seq: int | None = None

    def refresh(self, handle: Any, c: _Constraint, keys: tuple[str, ...], ns: str,
                memo: dict[str, tuple[int, int]]) -> None:
        changes = getattr(handle, "node_changes_since", None)
        if changes is not None and self.seq is not None:
            names, end = changes(self.seq)
            if names is not None:
                node_info = handle.node_info
                for name in dict.fromkeys(names):
                    ni = node_info(name)
                    self._recount(name, ni if ni is not None and ni.node is not None else None, c, keys, ns, memo)
                self.seq = end
                return
        self.seq = changes(0)[1] if changes is not None else None
        nodes = handle.node_infos()
        candidates = _candidates(handle, ns, c.selector)
        for ni in nodes:
            self._recount(ni.name, ni, c, keys, ns, memo, candidates)
        # Node names are unique, so every listed node has an entry: more entries mean some node left
        # the cluster (its contribution is stale), so count everything again.
        if len(self.by_node) > len(nodes):
            for d in (self.by_node, self.by_value, self.members, self.count_of):
                d.clear()
            self.missing.clear()
            for ni in nodes:
                self._recount(ni.name, ni, c, keys, ns, memo, candidates)

    def _recount(self, name: str, ni: NodeInfo | None, c: _Constraint, keys: tuple[str, ...], ns: str,
                 memo: dict[str, tuple[int, int]], candidates: Set[str] | None = None) -> None:
        """Bring node ``name``'s contribution up to date; ``ni`` None: the node is gone (or unlisted).
        ``candidates``: the only nodes that can hold matching pods (the others count 0 unwalked)."""

        by_node, by_value, members = self.by_node, self.by_value, self.members
        hit = by_node.get(name)
        if hit is not None:
            if ni is not None and hit[0] == ni.generation:
                return
            val = hit[1]
            if val is not None:
                by_value[val] -= hit[2]
                members[val] -= 1
                if not members[val]:
                    del members[val], by_value[val]
                del self.count_of[name]
            else:
                self.missing.discard(name)
        if ni is None:
            by_node.pop(name, None)
            return
        labels = ni.labels
        if all(map(labels.__contains__, keys)):
            val = labels[c.key]
            n = _node_count(memo, ni, c, ns) if candidates is None or name in candidates else 0
            by_value[val] = by_value.get(val, 0) + n
            members[val] = members.get(val, 0) + 1
            by_node[name] = (ni.generation, val, n)
            self.count_of[name] = n
        else:
            by_node[name] = (ni.generation, None, 0)
            self.missing.add(name)


class _ScoreState:
    """What PreScore leaves for Score and NormalizeScore: the pre-scored nodes' names, the nodes among
    them without every key (upstream's ``IgnoredNodes``, scored 0) and each node's raw score, the sum
    over constraints of ``count * weight + (maxSkew - 1)`` (upstream ``scoreForCount``), 0.0 when
    ignored. Also the weights (upstream ``TopologyNormalizingWeight``), for explanations and tests."""

    __slots__ = ("_index", "ignored", "names", "raw", "weights")

    def __init__(self, names: list[str], raw: list[float], ignored: set[str], weights: list[float]) -> None:
        self.names = names
        self.raw = raw
        self.ignored = ignored
        self.weights = weights
        self._index: dict[str, int] | None = None

    def raw_of(self, name: str) -> float:
        """A node's raw score (0.0 for a node that was not pre-scored: it has no domain to count)."""
        index = self._index
        if index is None:
            index = self._index = {n: i for i, n in enumerate(self.names)}
        i = index.get(name)
        return 0.0 if i is None else self.raw[i]


def _candidates(handle: Any, ns: str, selector: Selector) -> Set[str] | None:
    """The nodes that can hold pods of ``ns`` matching ``selector``: those with a pod carrying one of the
    values of the selector's most selective ``in``/``=`` requirement, from the scheduler cache's label index
    (every other node has no matching pod); None when the handle has no index or the selector no such
    requirement (then every node's pods are counted)."""
    lookup = getattr(handle, "nodes_with_label", None)
    if lookup is None:
        return None
    best: Set[str] | None = None
    for r in selector.requirements:
        if r.operator not in (IN, EQUALS, DOUBLE_EQUALS) or not r.values:
            continue
        if len(r.values) == 1:
            nodes: Set[str] = lookup(ns, r.key, r.values[0]).keys()
        else:
            nodes = set().union(*(lookup(ns, r.key, v).keys() for v in r.values))
        if best is None or len(nodes) < len(best):
            best = nodes
    return best


def _terminating(pod: PodInfo) -> bool:
    meta = pod.pod.metadata
    return bool(meta is not None and meta.deletion_timestamp)


def _has_node_constraints(spec: Any) -> bool:
    """Whether ``pod_matches_node_selector_and_affinity`` can be false for some node."""
    if spec.node_selector:
        return True
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    return na is not None and na.required_during_scheduling_ignored_during_execution is not None


#: (owner kind, namespace, name, resourceVersion) -> its selector's requirements: a version's selector never
#: changes, and 1024 owners' worth covers every workload a scheduling burst spreads at once
_OWNER_SELECTORS: BoundedCache[tuple[str, str, str, str], tuple[Requirement, ...]] = BoundedCache(
    "scheduler.pod_topology_spread.owner_selectors", maxsize=1024)


class PodTopologySpread:
    name = NAME

    def __init__(self, args: Mapping[str, Any], handle: Any) -> None:
        self.handle = handle
        #: (the informer factory, its Service, ReplicaSet and StatefulSet listers), made on first use
        self._listers: tuple[Any, Any, Any, Any] | None = None
        #: (namespace, selector) -> node name -> (node generation, matching pods), see pre_filter
        self._remembered: dict[tuple[str, Selector], dict[str, tuple[int, int]]] = {}
        #: (namespace, selector, topology key, all constraint keys) -> cluster-wide totals, see pre_score
        self._totals: dict[tuple[str, Selector, str, tuple[str, ...]], _DomainTotals] = {}
        typ = args.get("defaultingType") or "System"
        listed = args.get("defaultConstraints") or ()
        if typ == "System":
            self.defaults: list[tuple[str, int, str]] = [(k, s, "ScheduleAnyway") for k, s in SYSTEM_DEFAULT_CONSTRAINTS]
        else:
            self.defaults = [(str(c["topologyKey"]), int(c.get("maxSkew", 1)),
                              str(c.get("whenUnsatisfiable", "DoNotSchedule"))) for c in listed]

    # --- constraints ---
    def _constraints(self, pod: PodInfo, when: str) -> list[_Constraint]:
        spec = pod.pod.spec
        own = (spec.topology_spread_constraints if spec is not None else None) or ()
        out: list[_Constraint] = []
        if own:
            for c in own:
                if (c.when_unsatisfiable or "DoNotSchedule") != when:
                    continue
                ls = c.label_selector
                sel: Selector = selector_from_label_selector(msgspec.to_builtins(ls) if ls is not None else None)
                for k in c.match_label_keys or ():
                    if k in pod.labels:
                        sel = sel.add(Requirement(k, "in", (pod.labels[k],)))
                out.append(_Constraint(c.topology_key or "", c.max_skew or 1, c.min_domains or 1, sel))
            return out
        defaults = [d for d in self.defaults if d[2] == when]
        if not defaults:
            return out
        dsel = self._default_selector(pod)
        if dsel is None:
            return out
        return [_Constraint(k, s, 1, dsel) for k, s, _ in defaults]

    def _default_selector(self, pod: PodInfo) -> Selector | None:
        """Upstream ``helper.DefaultSelector``: labels of selecting Services plus owning RS/SS selectors."""
        informers = self.handle.informers
        if informers is None:
            return None
        listers = self._listers
        if listers is None or listers[0] is not informers:
            listers = self._listers = (informers, informers.lister_for(Service), informers.lister_for(ReplicaSet),
                                       informers.lister_for(StatefulSet))
        labels: dict[str, str] = {}
        reqs: list[Requirement] = []
        for svc in listers[1].namespace(pod.namespace).list():
            sel = svc.spec.selector if svc.spec is not None else None
            if sel and selector_from_set(sel).matches(pod.labels):
                labels.update(sel)
        meta = pod.pod.metadata
        for ref in (meta.owner_references if meta is not None else None) or ():
            if not ref.controller or ref.kind not in ("ReplicaSet", "StatefulSet"):
                continue
            try:
                owner = listers[2 if ref.kind == "ReplicaSet" else 3].namespace(pod.namespace).get(ref.name or "")
            except Exception:  # not cached (yet): no selector from it
                continue
            ls = owner.spec.selector if owner.spec is not None else None
            if ls is not None:
                rv = owner.metadata.resource_version if owner.metadata is not None else None
                # one parse per owner version (each of a Deployment's pods asks for its ReplicaSet's)
                key = (ref.kind, pod.namespace, ref.name or "", rv or "")
                got = _OWNER_SELECTORS.get(key) if rv else None
                if got is None:
                    got = selector_from_label_selector(msgspec.to_builtins(ls)).requirements
                    if rv:
                        _OWNER_SELECTORS.put(key, got)
                reqs.extend(got)
        if not labels and not reqs:
            return None
        return selector_from_set(labels).add(*reqs)

    def _eligible(self, pod: PodInfo, ni: NodeInfo, constraints: list[_Constraint]) -> bool:
        spec = pod.pod.spec
        if spec is not None and not pod_matches_node_selector_and_affinity(spec, ni.labels, ni.name):
            return False
        return all(c.key in ni.labels for c in constraints)

    # --- filtering ---
    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        cs = self._constraints(pod, "DoNotSchedule")
        if not cs:
            return None, _SKIP
        s = _FilterState(cs, [1 if c.selector.matches(pod.labels) else 0 for c in cs])
        # The same counting as _eligible/_counts_pod per node, with the per-pod parts hoisted out of
        # this loop over every node (it dominates the cycle of a pod with constraints). A node's count
        # for (namespace, selector) is remembered with the node's generation, which changes whenever
        # its pods do, so unchanged nodes are not recounted cycle after cycle.
        spec = pod.pod.spec
        affinity = spec is not None and _has_node_constraints(spec)
        keys = [c.key for c in cs]
        counts = s.counts
        ns = pod.namespace
        remembered = self._remembered
        if len(remembered) > _MAX_REMEMBERED_SELECTORS:
            remembered.clear()
        per_constraint = [(c, c.key, remembered.setdefault((ns, c.selector), {}), _candidates(self.handle, ns, c.selector))
                          for c in cs]
        for ni in nodes:
            labels = ni.labels
            if affinity and not pod_matches_node_selector_and_affinity(spec, labels, ni.name):
                continue
            if not all(map(labels.__contains__, keys)):
                continue
            for c, ckey, memo, cand in per_constraint:
                key = (ckey, labels[ckey])
                n = _node_count(memo, ni, c, ns) if cand is None or ni.name in cand else 0
                counts[key] = counts.get(key, 0) + n
        state.write(_PRE_FILTER, s)
        return None, None

    def _update(self, state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo, delta: int) -> None:
        s: _FilterState = state.read(_PRE_FILTER)
        if not self._eligible(pod, node, s.constraints):
            return
        for c in s.constraints:
            if _counts_pod(c, pod, other):
                s.bump((c.key, node.labels[c.key]), delta)

    def add_pod(self, state: CycleState, pod: PodInfo, add: PodInfo, node: NodeInfo) -> Status | None:
        self._update(state, pod, add, node, 1)
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, remove: PodInfo, node: NodeInfo) -> Status | None:
        self._update(state, pod, remove, node, -1)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s: _FilterState = state.read(_PRE_FILTER)
        labels = node.labels
        for c, self_match in zip(s.constraints, s.self_match):
            v = labels.get(c.key)
            if v is None:
                return _LABEL_NOT_MATCH
            skew = s.counts.get((c.key, v), 0) + self_match - s.min_match(c)
            if skew > c.max_skew:
                return _CONSTRAINTS_NOT_MATCH
        return None

    # --- scoring ---
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        """Upstream scoring.go ``PreScore``/``initPreScoreState`` and the per-node part of ``Score``,
        computed for every filtered node at once: hostname domains are the filtered nodes themselves
        (a node's own matching pods, weight ``log(nodes + 2)``), every other key's domains are those of
        the filtered nodes, counted over all eligible nodes of the cluster."""
        cs = self._constraints(pod, "ScheduleAnyway")
        if not cs:
            return _SKIP
        keys = tuple(c.key for c in cs)
        names = list(map(_NAME, nodes))
        ns = pod.namespace
        remembered = self._remembered
        if len(remembered) > _MAX_REMEMBERED_SELECTORS:
            remembered.clear()
        memos = [remembered.setdefault((ns, c.selector), {}) for c in cs]
        spec = pod.pod.spec
        if spec is not None and _has_node_constraints(spec):
            ignored = {ni.name for ni in nodes if not all(map(ni.labels.__contains__, keys))}
            live = [ni for ni in nodes if ni.name not in ignored] if ignored else nodes
            per_constraint = self._counts_with_affinity(pod, live, cs, memos)
        else:
            ignored, live, per_constraint = self._counts_from_totals(ns, nodes, names, cs, keys, memos)
        raw: list[float] | None = None
        weights: list[float] = []
        for c, (domains, counts) in zip(cs, per_constraint):
            # log(number of domains + 2) per constraint (upstream ``topologyNormalizingWeight``)
            w = math.log(domains + 2)
            weights.append(w)
            base = c.max_skew - 1
            contrib = {n: n * w + base for n in set(counts)}
            part = list(map(contrib.__getitem__, counts))
            raw = part if raw is None else list(map(add, raw, part))
        assert raw is not None
        if ignored:  # ignored nodes score 0
            it = iter(raw)
            raw = [0.0 if n in ignored else next(it) for n in names]
        state.write(_PRE_SCORE, _ScoreState(names, raw, ignored, weights))
        return None

    def _counts_from_totals(self, ns: str, nodes: Sequence[NodeInfo], names: list[str], cs: list[_Constraint],
                            keys: tuple[str, ...], memos: list[dict[str, tuple[int, int]]],
                            ) -> tuple[set[str], Sequence[NodeInfo], list[tuple[int, list[int]]]]:
        """(ignored nodes, the others, per constraint (domains, each other node's count)) from cluster-wide
        totals kept across cycles. Without a nodeSelector/required node affinity a node is eligible iff it
        has every key, so the filtered nodes that are not ignored are exactly the eligible ones among them,
        and every key's counts are summed per value over the cluster by an aggregate that recounts only
        the nodes changed since last time."""
        totals = self._totals
        if len(totals) > _MAX_REMEMBERED_SELECTORS:
            totals.clear()
        aggs: list[_DomainTotals] = []
        for c, memo in zip(cs, memos):
            tk = (ns, c.selector, c.key, keys)
            agg = totals.get(tk)
            if agg is None:
                agg = totals[tk] = _DomainTotals()
            agg.refresh(self.handle, c, keys, ns, memo)
            aggs.append(agg)
        first = aggs[0]
        unknown = set(names).difference(first.by_node)  # filtered nodes the handle does not list
        if unknown:
            for ni in nodes:
                if ni.name in unknown:
                    for c, agg, memo in zip(cs, aggs, memos):
                        agg._recount(ni.name, ni, c, keys, ns, memo)
        missing = first.missing
        ignored = missing.intersection(names) if missing else set()
        live = [ni for ni in nodes if ni.name not in ignored] if ignored else nodes
        live_names = [n for n in names if n not in ignored] if ignored else names
        out: list[tuple[int, list[int]]] = []
        for c, agg in zip(cs, aggs):
            if c.key == HOSTNAME:
                out.append((len(live_names), list(map(agg.count_of.__getitem__, live_names))))
                continue
            vals = list(map(itemgetter(c.key), map(_LABELS, live)))
            by_value = agg.by_value
            domain_counts = {v: by_value.get(v, 0) for v in set(vals)}
            out.append((len(domain_counts), list(map(domain_counts.__getitem__, vals))))
        if unknown:  # they were counted for this cycle only; the handle's own view is what lasts
            for agg in aggs:
                for name in unknown:
                    agg._recount(name, None, cs[0], keys, ns, memos[0])
        return ignored, live, out

    def _counts_with_affinity(self, pod: PodInfo, live: Sequence[NodeInfo], cs: list[_Constraint],
                              memos: list[dict[str, tuple[int, int]]]) -> list[tuple[int, list[int]]]:
        """The plain walk over every cluster node, for pods whose node affinity restricts eligibility:
        per constraint (domains, each live node's count)."""
        ns = pod.namespace
        out: list[tuple[int, list[int]]] = []
        for c, memo in zip(cs, memos):
            if c.key == HOSTNAME:
                out.append((len(live), [_node_count(memo, ni, c, ns) for ni in live]))
                continue
            by_value = dict.fromkeys([ni.labels[c.key] for ni in live], 0)
            for ni in self.handle.node_infos():
                v = ni.labels.get(c.key)
                if v in by_value and self._eligible(pod, ni, cs):
                    # the same count as _counts_pod over the node's pods, remembered per node generation
                    by_value[v] += _node_count(memo, ni, c, ns)
            out.append((len(by_value), [by_value[ni.labels[c.key]] for ni in live]))
        return out

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        s: _ScoreState = state.read(_PRE_SCORE)
        return round(s.raw_of(node.name))

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """``[score(state, pod, n) for n in nodes]`` (the framework's batch form): the raw scores PreScore
        computed, rounded, when ``nodes`` are the pre-scored ones (as the framework calls it)."""
        if type(self).score is not PodTopologySpread.score:  # a subclass's own score is called per node
            return [self.score(state, pod, ni) for ni in nodes]
        s: _ScoreState = state.read(_PRE_SCORE)
        if list(map(_NAME, nodes)) != s.names:
            return [round(s.raw_of(ni.name)) for ni in nodes]
        return list(map(round, s.raw))  # an ignored node keeps 0.0, score's 0

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[int]) -> None:
        """Upstream ``NormalizeScore``: ``MaxNodeScore * (max + min - score) / max`` over the nodes not
        ignored (every one ``MaxNodeScore`` when the maximum is 0); ignored nodes score 0."""
        s: _ScoreState = state.read(_PRE_SCORE)
        ignored = s.ignored
        if not ignored:
            if not scores:
                return
            lo, hi = min(scores), max(scores)
            if hi == 0:
                scores[:] = [MAX_NODE_SCORE] * len(scores)
            else:  # few distinct scores (nodes with the same counts score alike): map those
                top = hi + lo
                scores[:] = map({v: MAX_NODE_SCORE * (top - v) // hi for v in set(scores)}.__getitem__, scores)
            return
        nodes = s.names
        considered = [v for v, n in zip(scores, nodes) if n not in ignored]
        if not considered:
            return
        lo, hi = min(considered), max(considered)
        for i, v in enumerate(scores):
            if nodes[i] in ignored:
                scores[i] = 0
            elif hi == 0:
                scores[i] = MAX_NODE_SCORE
            else:
                scores[i] = MAX_NODE_SCORE * (hi + lo - v) // hi

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Pod", ADD | UPDATE_POD_LABEL | DELETE)),
                ClusterEventWithHint(ClusterEvent("Node", ADD | DELETE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT))]


def new(args: Mapping[str, Any], handle: Any) -> PodTopologySpread:
    return PodTopologySpread(args, handle)
