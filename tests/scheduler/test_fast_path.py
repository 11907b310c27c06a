"""The fast scheduling cycle (fused Filter, memoised and batch scores, inlined tie-break) against a
plain reference: every node through every plugin one call at a time, as upstream's framework does.

On randomized clusters with fixed seeds both must give the same feasible nodes, rejection statuses,
per-plugin scores, chosen node, round-robin start and rng state, pod after pod."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from kubelite.api.types import Pod
from kubelite.clock import VirtualClock
from kubelite.scheduler.cache import Cache
from kubelite.scheduler.framework import CycleState, FitError, PodInfo, Status
from kubelite.scheduler.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubelite.scheduler.framework.runtime import RESTRICTING_PLUGINS, Framework
from kubelite.scheduler.framework.status import UNSCHEDULABLE_AND_UNRESOLVABLE
from kubelite.scheduler.framework.types import NodeInfo
from kubelite.scheduler.schedule_one import num_feasible_nodes_to_find, schedule_pod, select_host
from kubelite.scheduler.scheduler import Scheduler
from tests.scheduler.helpers import make_node, make_pod, pod_dict

Outcome = dict[str, Any]


def _reference(fwk: Framework, cache: Cache, state: CycleState, pod: PodInfo, *, percentage: int | None,
               start: int, rng: random.Random) -> tuple[Outcome, int]:
    """The unoptimised cycle: upstream findNodesThatFitPod / prioritizeNodes / selectHost (a uniform pick among the
    top-scoring nodes, as upstream's reservoir makes it, in one draw)."""
    all_nodes = cache.node_list()
    n_all = len(all_nodes)
    pre_res, st = fwk.run_pre_filter_plugins(state, pod, all_nodes)
    if st is not None:
        return {"error": st.message}, start
    statuses: dict[str, Status] = {}
    nodes = all_nodes
    if pre_res is not None and pre_res.node_names is not None:
        names = pre_res.node_names
        nodes = [ni for ni in all_nodes if ni.name in names]
        restricting = " ".join(sorted(state.get(RESTRICTING_PLUGINS, [])))
        for ni in all_nodes:
            if ni.name not in names:
                statuses[ni.name] = Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                                           f"node(s) didn't satisfy plugin(s) [{restricting}]")
    feasible: list[NodeInfo] = []
    with_nominated = len(cache.nominator) > 0
    n = len(nodes)
    to_find = num_feasible_nodes_to_find(percentage, n) if nodes is all_nodes else n
    fns = fwk.filter_fns(state)
    processed = 0
    for i in range(n):
        ni = nodes[(start % n + i) % n]
        processed += 1
        if with_nominated:
            fst = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        else:
            fst = fwk.run_filters(fns, state, pod, ni)
        if fst is None:
            feasible.append(ni)
            if len(feasible) >= to_find:
                break
        else:
            statuses[ni.name] = fst
    next_start = (start + processed) % n_all if nodes is all_nodes else start
    out: Outcome = {"statuses": _statuses(statuses), "feasible": [ni.name for ni in feasible]}
    if not feasible:
        return out, next_start
    if len(feasible) == 1:
        out["host"] = feasible[0].name
        return out, next_start
    assert fwk.run_pre_score_plugins(state, pod, feasible) is None
    totals = [0] * len(feasible)
    per_plugin: dict[str, list[int]] = {}
    for p, weight in zip(fwk.score_plugins, fwk.score_weights):
        if p.name in state.skip_score_plugins:
            continue
        scores = [p.score(state, pod, ni) for ni in feasible]
        norm = getattr(p, "normalize_score", None)
        if norm is not None:
            norm(state, pod, scores)
        assert all(MIN_NODE_SCORE <= s <= MAX_NODE_SCORE for s in scores)
        per_plugin[p.name] = [s * weight for s in scores]
        totals = [t + s * weight for t, s in zip(totals, scores)]
    top = max(totals)
    tops = [i for i, t in enumerate(totals) if t == top]
    best = tops[rng.randrange(len(tops))] if len(tops) > 1 else tops[0]
    out.update(host=feasible[best].name, per_plugin=per_plugin, totals=totals)
    return out, next_start


def _statuses(statuses: dict[str, Status]) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    return {n: (s.plugin, s.code, s.reasons) for n, s in statuses.items()}


def _fast(fwk: Framework, cache: Cache, state: CycleState, pod: PodInfo, *, percentage: int | None,
          start: int, rng: random.Random) -> tuple[Outcome, int]:
    try:
        r, next_start = schedule_pod(fwk, cache, state, pod, percentage=percentage, start=start, rng=rng)
    except FitError as fe:
        if fe.pre_filter_msg:
            return {"error": fe.pre_filter_msg}, start
        # schedule_pod does not return the start on failure; the scheduler keeps its old value then,
        # so compare what the reference computed only for the statuses.
        return {"statuses": _statuses(fe.statuses), "feasible": []}, -1
    out: Outcome = {"statuses": _statuses(r.statuses), "feasible": [ni.name for ni in r.nodes],
                    "host": r.suggested_host}
    if r.per_plugin:
        out.update(per_plugin=r.per_plugin, totals=r.totals)
    return out, next_start


def _random_node(rnd: random.Random, i: int) -> Any:
    kw: dict[str, Any] = {"cpu": rnd.choice(["1", "2", "4"]), "memory": rnd.choice(["2Gi", "4Gi", "16Gi"]),
                          "pods": rnd.choice([3, 10, 110]), "labels": {"zone": f"z{rnd.randrange(3)}"}}
    if rnd.random() < 0.3:
        kw["gpu"] = rnd.choice([1, 4, 8])
    if rnd.random() < 0.15:
        kw["taints"] = [{"key": rnd.choice(["dedicated", "spot"]), "value": "x",
                         "effect": rnd.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"])}]
    if rnd.random() < 0.05:
        kw["unschedulable"] = True
    if rnd.random() < 0.2:
        kw["labels"]["disk"] = "ssd"
    if rnd.random() < 0.2:
        kw["images"] = [("busybox:latest", rnd.choice([10, 300, 900]) * 1024 * 1024)]
    return make_node(f"n{i:03d}", **kw)


def _random_pod(rnd: random.Random, i: int, n_nodes: int) -> Pod:
    kw: dict[str, Any] = {}
    if rnd.random() < 0.9:
        kw["cpu"] = rnd.choice(["100m", "500m", "1", "3"])
        kw["memory"] = rnd.choice(["100Mi", "1Gi", "3Gi"])
    if rnd.random() < 0.15:
        kw["gpu"] = rnd.choice([1, 2, 4])
    if rnd.random() < 0.2:
        kw["tolerations"] = [{"key": rnd.choice(["dedicated", "spot"]), "operator": "Exists"}]
    if rnd.random() < 0.05:
        kw["tolerations"] = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
    if rnd.random() < 0.1:
        kw["nodeSelector"] = {"disk": "ssd"}
    if rnd.random() < 0.1:
        kw["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["z1"]}]}}]}}
    if rnd.random() < 0.1:
        kw["ports"] = [{"containerPort": 80, "hostPort": rnd.choice([80, 443])}]
    if rnd.random() < 0.02:
        kw["node_name"] = f"n{rnd.randrange(n_nodes):03d}"
    if rnd.random() < 0.1:
        kw["labels"] = {"app": "spread"}
        kw["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                            "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "spread"}}}]
    elif rnd.random() < 0.05:
        kw["labels"] = {"app": "solo"}
        kw["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "solo"}}}]}}
    kw["priority"] = rnd.choice([0, 0, 10])
    return make_pod(f"p{i:04d}", **kw)


@pytest.mark.parametrize(("seed", "percentage"), [(1, None), (2, None), (3, 30), (4, 100)],
                         ids=["seed1-adaptive", "seed2-adaptive", "seed3-30pct", "seed4-all"])
def test_fast_cycle_matches_reference_on_random_cluster(seed: int, percentage: int | None) -> None:
    rnd = random.Random(seed)
    sched = Scheduler(None, None, clock=VirtualClock(), rng=random.Random(seed))
    sched.build()
    fwk = sched.frameworks["default-scheduler"]
    cache = sched.cache
    n_nodes = 150
    for i in range(n_nodes):
        cache.add_node(_random_node(rnd, i))
    rng_fast, rng_ref = random.Random(seed), random.Random(seed)
    start_fast = start_ref = 0
    placed = rejected = 0
    for i in range(500):
        pod = PodInfo(_random_pod(rnd, i, n_nodes))
        if rnd.random() < 0.05:  # a preemptor nominated somewhere (Filter must count it there)
            cache.nominator.add(pod, f"n{rnd.randrange(n_nodes):03d}")
            continue
        ref, ref_start = _reference(fwk, cache, CycleState(), pod, percentage=percentage, start=start_ref,
                                    rng=rng_ref)
        got, got_start = _fast(fwk, cache, CycleState(), pod, percentage=percentage, start=start_fast,
                               rng=rng_fast)
        assert got == ref, f"pod {i}"
        assert rng_fast.getstate() == rng_ref.getstate(), f"pod {i}"
        if "host" in got:
            assert got_start == ref_start, f"pod {i}"
            start_fast = start_ref = got_start
            cache.assume_pod(pod, got["host"])
            placed += 1
        else:
            rejected += 1
        if i % 50 == 49:  # pods leave too (aggregates and memo keys go down as well as up)
            for pi in list(cache.nodes[f"n{rnd.randrange(n_nodes):03d}"].pods):
                cache.forget_pod(pi)
        if i % 20 == 19:  # and nodes change: taints, cordon, capacity, labels
            cache.update_node(_random_node(rnd, rnd.randrange(n_nodes)))
    # The cluster is small enough to fill up: both outcomes were exercised.
    assert placed > 200 and rejected > 30, (placed, rejected)


@pytest.mark.parametrize("seed", [0, 1, 99], ids=["seed0", "seed1", "seed99"])
def test_select_host_draws_once_among_the_top_scores(seed: int) -> None:
    """A highest total, the ``randrange(ties)``-th of them in list order: one draw when several share the top,
    none when one node has it (upstream selectHost draws only on a tie too)."""
    rnd = random.Random(seed)
    singles = 0
    for _ in range(300):
        totals = [rnd.choice([1, 2, 3, 3, 3, 4]) for _ in range(rnd.randrange(1, 300))]
        if rnd.random() < 0.2:
            totals[rnd.randrange(len(totals))] = 9  # a unique top
        got_rng, ref_rng = random.Random(seed), random.Random(seed)
        top = max(totals)
        tops = [i for i, t in enumerate(totals) if t == top]
        want = tops[ref_rng.randrange(len(tops))] if len(tops) > 1 else tops[0]
        singles += len(tops) == 1
        assert select_host(totals, got_rng) == want
        assert got_rng.getstate() == ref_rng.getstate()
    assert singles > 20  # both branches ran


def test_select_host_is_uniform_over_ties() -> None:
    """Each of the tied top nodes is picked with probability 1/ties, as upstream's reservoir sampling picks
    them; a lower score never is. Seeded, so the counts are fixed: the bounds only say they are even."""
    totals = [5, 1, 5, 4, 5, 5]
    counts = [0] * len(totals)
    rng = random.Random(7)
    for _ in range(4000):
        counts[select_host(totals, rng)] += 1
    assert counts[1] == counts[3] == 0
    assert all(900 <= counts[i] <= 1100 for i in (0, 2, 4, 5)), counts


def test_topology_spread_score_nodes_is_score_per_node() -> None:
    """PodTopologySpread's batch score equals its per-node score: two constraints (weights that are not
    whole numbers), maxSkew above 1, nodes without a key (ignored: 0), counts from bound pods."""
    from kubelite.scheduler.plugins import pod_topology_spread

    class Handle:
        def __init__(self, cache: Cache) -> None:
            self.cache = cache

        def node_infos(self) -> list[NodeInfo]:
            return self.cache.node_list()

    rnd = random.Random(3)
    cache = Cache()
    for i in range(30):
        cache.add_node(make_node(f"n{i:02d}", labels={} if i % 7 == 0 else {"zone": f"z{i % 4}"}))
    for i in range(60):
        cache.add_pod(PodInfo(make_pod(f"q{i}", node_name=f"n{rnd.randrange(30):02d}", labels={"app": "a"})))
    pod = PodInfo(make_pod("p", labels={"app": "a"}, topologySpreadConstraints=[
        {"maxSkew": s, "topologyKey": k, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "a"}}} for k, s in (("zone", 2), ("kubernetes.io/hostname", 3))]))
    plugin = pod_topology_spread.new({}, Handle(cache))
    nodes = [ni for ni in cache.node_list() if rnd.random() < 0.7]
    state = CycleState()
    assert plugin.pre_score(state, pod, nodes) is None
    assert state.read("PreScorePodTopologySpread").ignored  # some nodes are ignored
    want = [plugin.score(state, pod, ni) for ni in nodes]
    assert len(set(want)) > 3
    assert plugin.score_nodes(state, pod, nodes) == want


def test_score_nodes_of_a_subclass_calls_its_score_per_node() -> None:
    from kubelite.scheduler.plugins.node_resources_fit import NodeResourcesFit

    class ByName(NodeResourcesFit):
        def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
            return int(node.name[1:])

    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(4)]
    assert len({ni.res_key for ni in nodes}) == 1  # same shape: the memo would share one score
    pod = PodInfo(make_pod("p", cpu="1"))
    assert ByName({}).score_nodes(CycleState(), pod, nodes) == [0, 1, 2, 3]
    assert NodeResourcesFit({}).score_nodes(CycleState(), pod, nodes) == [
        NodeResourcesFit({}).score(CycleState(), pod, ni) for ni in nodes]


def test_topology_spread_remembered_counts_follow_pod_changes() -> None:
    """PodTopologySpread remembers per-node counts across cycles; after pods come and go (and a pod
    starts terminating) a long-lived plugin must count exactly what a fresh one counts."""
    from kubelite.scheduler.plugins import pod_topology_spread

    rnd = random.Random(3)
    cache = Cache()
    for i in range(30):
        cache.add_node(make_node(f"n{i:02d}", labels={"zone": f"z{i % 4}"}))
    spread = {"labels": {"app": "a"}, "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "a"}}}]}
    long_lived = pod_topology_spread.new({}, None)
    placed: list[PodInfo] = []
    for i in range(120):
        pod = PodInfo(make_pod(f"p{i}", **spread))
        nodes = cache.node_list()
        got, want = CycleState(), CycleState()
        assert long_lived.pre_filter(got, pod, nodes) == (None, None)
        assert pod_topology_spread.new({}, None).pre_filter(want, pod, nodes) == (None, None)
        assert got.read("PreFilterPodTopologySpread").counts == want.read("PreFilterPodTopologySpread").counts, i
        roll = rnd.random()
        if roll < 0.6:
            other = PodInfo(make_pod(f"q{i}", node_name=f"n{rnd.randrange(30):02d}",
                                     labels={"app": rnd.choice(["a", "b"])}))
            cache.add_pod(other)
            placed.append(other)
        elif roll < 0.8 and placed:
            cache.remove_pod(placed.pop(rnd.randrange(len(placed))).uid)
        elif placed:  # the same pod, now terminating: it no longer counts
            victim = placed[rnd.randrange(len(placed))]
            body = make_pod(victim.name, node_name=victim.node_name, labels=victim.labels, uid=victim.uid)
            assert body.metadata is not None
            terminating = PodInfo(msgspec.structs.replace(
                body, metadata=msgspec.structs.replace(body.metadata, deletion_timestamp="2025-01-01T00:00:00Z")))
            cache.update_pod(terminating)


def test_topology_spread_score_counts_follow_pod_changes() -> None:
    """The scoring side (ScheduleAnyway constraints, which ReplicaSet pods get by default) shares the
    remembered per-node counts; a long-lived plugin must score exactly as a fresh one does."""
    from kubelite.scheduler.plugins import pod_topology_spread

    class Handle:
        def __init__(self, cache: Cache) -> None:
            self.cache = cache

        def node_infos(self) -> list[NodeInfo]:
            return self.cache.node_list()

    rnd = random.Random(5)
    cache = Cache()
    for i in range(20):
        cache.add_node(make_node(f"n{i:02d}", labels={"zone": f"z{i % 3}"}))
    soft = {"labels": {"app": "a"}, "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "a"}}}]}
    handle = Handle(cache)
    long_lived = pod_topology_spread.new({}, handle)
    placed: list[PodInfo] = []
    for i in range(80):
        pod = PodInfo(make_pod(f"p{i}", **soft))
        nodes = cache.node_list()
        got, want = CycleState(), CycleState()
        assert long_lived.pre_score(got, pod, nodes) is None
        assert pod_topology_spread.new({}, handle).pre_score(want, pod, nodes) is None
        assert got.read("PreScorePodTopologySpread").raw == want.read("PreScorePodTopologySpread").raw, i
        if rnd.random() < 0.7 or not placed:
            other = PodInfo(make_pod(f"q{i}", node_name=f"n{rnd.randrange(20):02d}",
                                     labels={"app": rnd.choice(["a", "b"])}))
            cache.add_pod(other)
            placed.append(other)
        else:
            cache.remove_pod(placed.pop(rnd.randrange(len(placed))).uid)


def _plain_spread_scores(pod: PodInfo, nodes: list[NodeInfo], cluster: list[NodeInfo],
                         keys: tuple[str, ...]) -> tuple[list[float], set[str], list[float]]:
    """Upstream scoring.go ``initPreScoreState`` and ``Score`` written out plainly (maxSkew 1): every
    non-hostname key's domains from the filtered nodes, counted over every eligible cluster node; a
    hostname domain is the node itself, weighted by the number of filtered nodes not ignored. Returns
    (raw score per filtered node, ignored nodes, weights)."""
    assert pod.pod.spec is not None
    selector = pod.pod.spec.node_selector or {}
    ignored = {ni.name for ni in nodes if not all(k in ni.labels for k in keys)}
    live = [ni for ni in nodes if ni.name not in ignored]

    def matching(ni: NodeInfo) -> int:
        return sum(1 for p in ni.pods if p.namespace == pod.namespace and p.labels.get("app") == "a"
                   and not (p.pod.metadata is not None and p.pod.metadata.deletion_timestamp))

    counts = {(k, ni.labels[k]): 0 for k in keys if k != "kubernetes.io/hostname" for ni in live}
    for ni in cluster:
        if any(ni.labels.get(k) != v for k, v in selector.items()) or not all(k in ni.labels for k in keys):
            continue
        for k in keys:
            if (k, ni.labels[k]) in counts:
                counts[(k, ni.labels[k])] += matching(ni)
    weights = [math.log((len(live) if k == "kubernetes.io/hostname" else sum(1 for d, _ in counts if d == k)) + 2)
               for k in keys]
    raw = []
    for ni in nodes:
        total = 0.0
        if ni.name not in ignored:
            for k, w in zip(keys, weights):
                total += (matching(ni) if k == "kubernetes.io/hostname" else counts[(k, ni.labels[k])]) * w
        raw.append(total)
    return raw, ignored, weights


@pytest.mark.parametrize(("change_log", "log_limit"), [(False, 0), (True, 0), (True, 7)],
                         ids=["generation-walk", "change-log", "change-log-overrun"])
def test_topology_spread_score_totals_follow_cluster_changes(
    change_log: bool, log_limit: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cluster-wide per-domain totals PodTopologySpread keeps across scoring cycles must give the
    plain counts after pods come, go and start terminating, and nodes are relabelled, added, removed;
    for zone plus hostname constraints, with and without a nodeSelector, over random filtered subsets.
    Kept up to date from the cache's change log (the scheduler's handle), with a log so short that the
    totals often fall behind its start (and recount), or by walking node generations (a handle without
    a log)."""
    from kubelite.scheduler import cache as cache_module
    from kubelite.scheduler.plugins import pod_topology_spread

    if log_limit:
        monkeypatch.setattr(cache_module, "CHANGE_LOG_LIMIT", log_limit)

    class Handle:
        def __init__(self, cache: Cache) -> None:
            self.cache = cache

        def node_infos(self) -> list[NodeInfo]:
            return self.cache.node_list()

    class LoggedHandle(Handle):
        def node_info(self, name: str) -> NodeInfo | None:
            return self.cache.nodes.get(name)

        def node_changes_since(self, seq: int) -> tuple[list[str] | None, int]:
            names, end = self.cache.changes_since(seq)
            used[names is not None] += 1
            return names, end

        def nodes_with_label(self, namespace: str, key: str, value: str) -> Mapping[str, int]:
            return self.cache.nodes_with_label(namespace, key, value)

    used = {True: 0, False: 0}  # log reads that reached back far enough, and those that did not

    def node_labels(i: int) -> dict[str, str]:
        roll = rnd.random()
        labels = {} if roll < 0.15 else {"zone": f"z{rnd.randrange(4)}"}
        if rnd.random() < 0.4:
            labels["disk"] = "ssd"
        return labels

    rnd = random.Random(11)
    cache = Cache()
    for i in range(40):
        cache.add_node(make_node(f"n{i:02d}", labels=node_labels(i)))
    keys = ("zone", "kubernetes.io/hostname")
    soft = {"labels": {"app": "a"}, "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": k, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "a"}}} for k in keys]}
    plugin = pod_topology_spread.new({}, (LoggedHandle if change_log else Handle)(cache))
    placed: list[PodInfo] = []
    with_selector = 0
    for i in range(300):
        extra: dict[str, Any] = {}
        if rnd.random() < 0.25:
            extra["nodeSelector"] = {"disk": "ssd"}
            with_selector += 1
        pod = PodInfo(make_pod(f"p{i}", ns=rnd.choice(["default", "default", "other"]), **soft, **extra))
        cluster = cache.node_list()
        nodes = [ni for ni in cluster if rnd.random() < 0.6]
        state = CycleState()
        assert plugin.pre_score(state, pod, nodes) is None
        got = state.read("PreScorePodTopologySpread")
        raw, ignored, weights = _plain_spread_scores(pod, nodes, cluster, keys)
        assert (got.raw, got.ignored, got.weights) == (raw, ignored, weights), i
        assert plugin.score_nodes(state, pod, nodes) == [plugin.score(state, pod, ni) for ni in nodes] \
            == [round(r) for r in raw], i
        roll = rnd.random()
        names = sorted(cache.nodes)
        if roll < 0.5:
            other = PodInfo(make_pod(f"q{i}", ns=rnd.choice(["default", "other"]), node_name=rnd.choice(names),
                                     labels={"app": rnd.choice(["a", "b"])}))
            cache.add_pod(other)
            placed.append(other)
        elif roll < 0.65 and placed:
            cache.remove_pod(placed.pop(rnd.randrange(len(placed))).uid)
        elif roll < 0.75 and placed:  # the same pod, now terminating: it no longer counts
            victim = placed[rnd.randrange(len(placed))]
            body = make_pod(victim.name, ns=victim.namespace, node_name=victim.node_name, labels=victim.labels,
                            uid=victim.uid)
            assert body.metadata is not None
            cache.update_pod(PodInfo(msgspec.structs.replace(
                body, metadata=msgspec.structs.replace(body.metadata, deletion_timestamp="2025-01-01T00:00:00Z"))))
        elif roll < 0.85:  # relabelled (or a new node, or a removed node coming back)
            j = rnd.randrange(45)
            cache.update_node(make_node(f"n{j:02d}", labels=node_labels(j)))
        elif len(cache.node_list()) > 5:  # a node leaves (its pods stay on a placeholder)
            cache.remove_node(rnd.choice([ni.name for ni in cache.node_list()]))
    assert with_selector > 30
    assert (used[True] > 100) is change_log
    assert (used[False] > 10) is bool(log_limit)


def test_cache_label_index_follows_every_pod_placement() -> None:
    """``Cache.nodes_with_label`` (asked first with pods already cached, then kept up to date) equals a plain
    count over the cached pods after assumes, binds, forgets, relabels and removals."""
    rnd = random.Random(7)
    cache = Cache()
    for i in range(12):
        cache.add_node(make_node(f"n{i:02d}"))
    live: dict[str, PodInfo] = {}

    def plain(ns: str, value: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for ni in cache.nodes.values():
            n = sum(1 for p in ni.pods if p.namespace == ns and p.labels.get("app") == value)
            if n:
                out[ni.name] = n
        return out

    asked = False
    for i in range(400):
        roll = rnd.random()
        if roll < 0.45 or not live:
            pod = PodInfo(make_pod(f"p{i}", ns=rnd.choice(["a", "b"]), node_name=f"n{rnd.randrange(12):02d}",
                                   labels={"app": rnd.choice(["x", "y", "z"])}))
            if rnd.random() < 0.5:
                cache.assume_pod(pod, pod.node_name)
            else:
                cache.add_pod(pod)
            live[pod.uid] = pod
        elif roll < 0.6:  # bound elsewhere, relabelled (replaces an assumed or bound entry)
            old = live[rnd.choice(sorted(live))]
            pod = PodInfo(make_pod(old.name, ns=old.namespace, uid=old.uid, node_name=f"n{rnd.randrange(12):02d}",
                                   labels={"app": rnd.choice(["x", "y"])}))
            cache.add_pod(pod)
            live[pod.uid] = pod
        elif roll < 0.8:
            uid = rnd.choice(sorted(live))
            if cache.is_assumed(uid):
                cache.forget_pod(live.pop(uid))
            else:
                cache.remove_pod(uid)
                live.pop(uid)
        else:
            uid = rnd.choice(sorted(live))
            cache.remove_pod(uid)
            live.pop(uid)
        if i == 50:
            asked = True
        if asked:
            for ns in ("a", "b"):
                for value in ("x", "y", "z"):
                    assert dict(cache.nodes_with_label(ns, "app", value)) == plain(ns, value), i
    assert live


class _Listed:
    """A lister over a dict of objects by name (what PodTopologySpread's default selector reads)."""

    def __init__(self, objs: dict[str, Any]) -> None:
        self.objs = objs

    def namespace(self, ns: str) -> _Listed:
        return self

    def list(self) -> list[Any]:
        return list(self.objs.values())

    def get(self, name: str) -> Any:
        return self.objs[name]


@pytest.mark.parametrize("change", ["new-version", "same-version"], ids=["new-version", "same-version"])
def test_topology_spread_default_selector_follows_its_owners_version(change: str) -> None:
    """Upstream ``helper.DefaultSelector``: the owning ReplicaSet's selector, parsed once per ReplicaSet version (the
    plugin remembers it by resourceVersion): a new version's selector is used at once, and the same version is not
    parsed again."""
    from kubelite.api.types import ReplicaSet, Service, StatefulSet
    from kubelite.scheduler.plugins import pod_topology_spread

    def rs(rv: str, app: str) -> ReplicaSet:
        return msgspec.convert({"metadata": {"name": "web", "namespace": "default", "resourceVersion": rv},
                                "spec": {"selector": {"matchLabels": {"app": app}}}}, ReplicaSet)

    sets = _Listed({"web": rs("5", "a")})

    class Informers:
        def lister_for(self, cls: Any) -> _Listed:
            return {Service: _Listed({}), ReplicaSet: sets, StatefulSet: _Listed({})}[cls]

    class Handle:
        informers = Informers()

    plugin = pod_topology_spread.new({}, Handle())
    body = pod_dict("p", labels={"app": "a"})
    body["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs",
                                            "controller": True}]
    pod = PodInfo(msgspec.convert(body, Pod))
    first = plugin._default_selector(pod)
    assert first is not None and str(first) == "app=a"
    parsed = pod_topology_spread._OWNER_SELECTORS.statistics()
    sets.objs["web"] = rs("6", "b") if change == "new-version" else rs("5", "a")
    again = plugin._default_selector(pod)
    assert again is not None
    after = pod_topology_spread._OWNER_SELECTORS.statistics()
    if change == "new-version":
        assert str(again) == "app=b" and after.misses == parsed.misses + 1
    else:
        assert again == first and after.hits == parsed.hits + 1 and after.misses == parsed.misses
