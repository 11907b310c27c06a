"""Framework: one profile's plugins, run extension point by extension point.

Follows ``pkg/scheduler/framework/runtime/framework.go`` (``frameworkImpl``). Contract:

- Plugins run in the profile's order; the first non-success status of a point ends that point and
  is returned tagged with the plugin's name (``Status.plugin``). PreFilter/PreScore ``SKIP`` drops that
  plugin's Filter/Score for the rest of the cycle.
- Scores: each Score plugin's raw scores for the filtered nodes are normalised by its
  ``normalize_score`` (if it has one), checked to lie in ``[0, 100]`` and multiplied by its weight;
  :meth:`run_score_plugins` returns the per-plugin weighted scores (for explanations) and the totals.
- Filtering with nominated pods follows upstream ``RunFilterPluginsWithNominatedPods``: pods nominated
  to the node with priority >= the pod's are added first, and the node must pass both with and
  without them.
- Reserve failures and Permit rejections unreserve every Reserve plugin in reverse order.
- The framework is the plugins' :class:`~kubelite.scheduler.framework.interface.Handle`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from operator import add
from typing import TYPE_CHECKING, Any

from kubelite.clock import Clock
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    ClusterEventWithHint,
    PostFilterResult,
    PreFilterResult,
)
from kubelite.scheduler.framework.profile import PluginPlan
from kubelite.scheduler.framework.registry import Registry
from kubelite.scheduler.framework.status import (
    ERROR,
    SKIP,
    SUCCESS,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    WAIT,
    Status,
)
from kubelite.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from kubelite.scheduler.framework.waiting_pods import WaitingPod, WaitingPods

if TYPE_CHECKING:
    from kubelite.scheduler.cache import Cache

__all__ = ["RESTRICTING_PLUGINS", "Framework"]

#: CycleState key: PreFilter plugins whose result restricted the candidate nodes.
RESTRICTING_PLUGINS = "framework/restricting-plugins"

FilterFn = Callable[[CycleState, PodInfo, NodeInfo], "Status | None"]


class Framework:
    """See the module docstring. Built by the scheduler from a validated :class:`PluginPlan`."""

    def __init__(
        self, plan: PluginPlan, registry: Registry, *, cache: Cache, waiting_pods: WaitingPods, client: Any,
        clock: Clock, rng: random.Random, informers: Any, spawn: Callable[..., None], recorder: Any = None,
    ) -> None:
        self.profile_name = plan.scheduler_name
        self.client = client
        self.clock = clock
        self.rng = rng
        self.informers = informers
        self._cache = cache
        self._waiting = waiting_pods
        self._spawn = spawn
        self.recorder = recorder
        #: victims chosen by preemption in this profile (counted by the preemption evaluator)
        self.preemption_victims = 0
        self.plugins: dict[str, Any] = {}
        for point in plan.points.values():
            for name, _ in point:
                if name not in self.plugins:
                    factory = registry.get(name)
                    assert factory is not None
                    self.plugins[name] = factory(plan.args.get(name, {}), self)

        def at(point: str) -> list[Any]:
            return [self.plugins[n] for n, _ in plan.points[point]]

        self.pre_enqueue_plugins = at("preEnqueue")
        self.queue_sort = at("queueSort")[0]
        self.pre_filter_plugins = at("preFilter")
        self.filter_plugins = at("filter")
        self.post_filter_plugins = at("postFilter")
        self.pre_score_plugins = at("preScore")
        self.score_plugins = at("score")
        self.score_weights = [w for _, w in plan.points["score"]]
        self.reserve_plugins = at("reserve")
        self.permit_plugins = at("permit")
        self.pre_bind_plugins = at("preBind")
        self.bind_plugins = at("bind")
        self.post_bind_plugins = at("postBind")

    # --- Handle ---
    def node_infos(self) -> Sequence[NodeInfo]:
        return self._cache.node_list()

    def node_info(self, name: str) -> NodeInfo | None:
        return self._cache.nodes.get(name)

    def node_changes_since(self, seq: int) -> tuple[list[str] | None, int]:
        """The cache's change log (:meth:`~kubelite.scheduler.cache.Cache.changes_since`)."""
        return self._cache.changes_since(seq)

    def nodes_with_label(self, namespace: str, key: str, value: str) -> Mapping[str, int]:
        """The cache's label index (:meth:`~kubelite.scheduler.cache.Cache.nodes_with_label`)."""
        return self._cache.nodes_with_label(namespace, key, value)

    def cluster_pods_with_affinity(self) -> tuple[int, int]:
        """(pods with any pod affinity term, pods with required anti-affinity) in the cache."""
        return self._cache.pods_with_affinity, self._cache.pods_with_required_anti_affinity

    def image_num_nodes(self, image: str) -> int:
        return self._cache.image_nodes.get(image, 0)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self._cache.nominator.pods_for_node(node_name)

    @property
    def waiting_pods(self) -> WaitingPods:
        return self._waiting

    def clear_nomination(self, pod: PodInfo) -> None:
        self._cache.nominator.delete(pod)

    def spawn(self, coro_fn: Callable[..., Any], *args: Any) -> None:
        self._spawn(coro_fn, *args)

    def events_to_register(self) -> dict[str, list[ClusterEventWithHint]]:
        """plugin name -> the cluster events that may make a pod it rejected schedulable."""
        out: dict[str, list[ClusterEventWithHint]] = {}
        for name, p in self.plugins.items():
            fn = getattr(p, "events_to_register", None)
            if fn is not None:
                out[name] = list(fn())
        return out

    # --- queueing ---
    def run_pre_enqueue_plugins(self, pod: PodInfo) -> Status | None:
        for p in self.pre_enqueue_plugins:
            st = p.pre_enqueue(pod)
            if st is not None and st.code != SUCCESS:
                return st.with_plugin(p.name)  # type: ignore[no-any-return]
        return None

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return bool(self.queue_sort.less(a, b))

    @property
    def sort_key(self) -> Callable[[QueuedPodInfo], Any] | None:
        """The QueueSort plugin's ``sort_key(qpi)`` if it has one (ordered exactly as ``less``)."""
        return getattr(self.queue_sort, "sort_key", None)

    # --- scheduling cycle ---
    def run_pre_filter_plugins(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo],
                               ) -> tuple[PreFilterResult | None, Status | None]:
        result: PreFilterResult | None = None
        skipped = state.skip_filter_plugins
        for p in self.pre_filter_plugins:
            r, st = p.pre_filter(state, pod, nodes)
            if st is not None and st.code != SUCCESS:
                if st.code == SKIP:
                    skipped.add(p.name)
                    continue
                if st.code == ERROR:
                    return None, Status(ERROR, f'running PreFilter plugin "{p.name}": {st.message}', plugin=p.name)
                return None, st.with_plugin(p.name)
            if r is not None:
                if r.node_names is not None:
                    state.data.setdefault(RESTRICTING_PLUGINS, []).append(p.name)
                result = r if result is None else result.merge(r)
                if result.node_names is not None and not result.node_names:
                    return result, Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                                          "node(s) didn't satisfy plugin(s) [" + p.name + "]", plugin=p.name)
        return result, None

    def filter_fns(self, state: CycleState) -> list[tuple[str, FilterFn]]:
        skipped = state.skip_filter_plugins
        return [(p.name, p.filter) for p in self.filter_plugins if p.name not in skipped]

    @staticmethod
    def run_filters(fns: list[tuple[str, FilterFn]], state: CycleState, pod: PodInfo,
                    node: NodeInfo) -> Status | None:
        for name, fn in fns:
            st = fn(state, pod, node)
            if st is not None and st.code != SUCCESS:
                return st.with_plugin(name)
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo,
                                               node: NodeInfo) -> Status | None:
        fns = self.filter_fns(state)
        nominated = [p for p in self.nominated_pods_for_node(node.name)
                     if p.uid != pod.uid and p.priority >= pod.priority]
        if not nominated:
            return self.run_filters(fns, state, pod, node)
        # Pass 1 with the nominated pods added (they will land here), pass 2 without (they may not).
        state2 = state.clone()
        node2 = node.clone()
        for np in nominated:
            node2.add_pod(np)
            st = self.run_pre_filter_extension_add_pod(state2, pod, np, node2)
            if st is not None:
                return st
        st = self.run_filters(fns, state2, pod, node2)
        if st is not None:
            return st
        return self.run_filters(fns, state, pod, node)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: PodInfo, add: PodInfo,
                                         node: NodeInfo) -> Status | None:
        for p in self.pre_filter_plugins:
            if p.name in state.skip_filter_plugins:
                continue
            ext = getattr(p, "add_pod", None)
            if ext is not None:
                st = ext(state, pod, add, node)
                if st is not None and st.code != SUCCESS:
                    return st.with_plugin(p.name)  # type: ignore[no-any-return]
        return None

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: PodInfo, remove: PodInfo,
                                            node: NodeInfo) -> Status | None:
        for p in self.pre_filter_plugins:
            if p.name in state.skip_filter_plugins:
                continue
            ext = getattr(p, "remove_pod", None)
            if ext is not None:
                st = ext(state, pod, remove, node)
                if st is not None and st.code != SUCCESS:
                    return st.with_plugin(p.name)  # type: ignore[no-any-return]
        return None

    def run_post_filter_plugins(self, state: CycleState, pod: PodInfo, statuses: dict[str, Status],
                                ) -> tuple[PostFilterResult | None, Status]:
        reasons: list[str] = []
        rejector = ""
        for p in self.post_filter_plugins:
            r, st = p.post_filter(state, pod, statuses)
            if st is None or st.code == SUCCESS:
                return r, Status(SUCCESS, plugin=p.name)
            if st.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, st.with_plugin(p.name)
            if not st.is_rejected():
                return None, Status(ERROR, st.message, plugin=p.name)
            reasons.extend(st.reasons)
            rejector = rejector or p.name
        return None, Status(UNSCHEDULABLE, *reasons, plugin=rejector)

    def run_pre_score_plugins(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        skipped = state.skip_score_plugins
        for p in self.pre_score_plugins:
            st = p.pre_score(state, pod, nodes)
            if st is not None and st.code != SUCCESS:
                if st.code == SKIP:
                    skipped.add(p.name)
                    continue
                return Status(ERROR, f'running PreScore plugin "{p.name}": {st.message}', plugin=p.name)
        return None

    def run_score_plugins(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo],
                          ) -> tuple[dict[str, list[int]], list[int]]:
        """(plugin -> weighted scores per node, total per node).

        A plugin may offer ``score_nodes(state, pod, nodes) -> list[int]``, which must equal
        ``[score(state, pod, n) for n in nodes]``; it is used instead of a call per node."""
        totals = [0] * len(nodes)
        per_plugin: dict[str, list[int]] = {}
        skipped = state.skip_score_plugins
        for p, weight in zip(self.score_plugins, self.score_weights):
            if p.name in skipped:
                continue
            batch = getattr(p, "score_nodes", None)
            if batch is not None:
                scores: list[int] = batch(state, pod, nodes)
            else:
                fn = p.score
                scores = [fn(state, pod, n) for n in nodes]
            norm = getattr(p, "normalize_score", None)
            if norm is not None:
                norm(state, pod, scores)
            # Scores take few distinct values (nodes of one shape score alike): check and weight
            # those, then spread them with C-level passes.
            values = set(scores)
            if values and (min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE):
                bad = next(s for s in scores if s < MIN_NODE_SCORE or s > MAX_NODE_SCORE)
                raise ValueError(f"plugin {p.name} returns an invalid score {bad}, it should be in the "
                                 f"range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")
            if weight != 1:
                scores = list(map({v: v * weight for v in values}.__getitem__, scores))
            totals = list(map(add, totals, scores)) if per_plugin else list(scores)
            per_plugin[p.name] = scores
        return per_plugin, totals

    def run_reserve_plugins_reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        for p in self.reserve_plugins:
            st = p.reserve(state, pod, node_name)
            if st is not None and st.code != SUCCESS:
                return st.with_plugin(p.name)  # type: ignore[no-any-return]
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        for p in reversed(self.reserve_plugins):
            p.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        timeouts: dict[str, float] = {}
        for p in self.permit_plugins:
            st, timeout = p.permit(state, pod, node_name)
            if st is None or st.code == SUCCESS:
                continue
            if st.code == WAIT:
                timeouts[p.name] = min(float(timeout), 15 * 60.0)  # upstream maxTimeout
                continue
            if st.is_rejected():
                return st.with_plugin(p.name)  # type: ignore[no-any-return]
            return Status(ERROR, f'running Permit plugin "{p.name}": {st.message}', plugin=p.name)
        if timeouts:
            self._waiting.add(WaitingPod(pod, node_name, timeouts, self.clock))
            return Status(WAIT, f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"')
        return None

    # --- binding cycle ---
    async def wait_on_permit(self, pod: PodInfo) -> Status | None:
        wp = self._waiting.get(pod.uid)
        if wp is None:
            return None
        try:
            return await wp.wait()
        finally:
            self._waiting.remove(pod.uid)

    async def run_pre_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        for p in self.pre_bind_plugins:
            st = await p.pre_bind(state, pod, node_name)
            if st is not None and st.code not in (SUCCESS, SKIP):
                return Status(st.code, f'running PreBind plugin "{p.name}": {st.message}', plugin=p.name)
        return None

    async def run_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        for p in self.bind_plugins:
            st = await p.bind(state, pod, node_name)
            if st is not None and st.code == SKIP:
                continue
            if st is not None and st.code != SUCCESS:
                return Status(st.code, f'running Bind plugin "{p.name}": {st.message}', plugin=p.name)
            return None
        return Status(SKIP, "all bind plugins skipped")

    def run_post_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        for p in self.post_bind_plugins:
            p.post_bind(state, pod, node_name)

    def plugin_args(self) -> Mapping[str, Any]:
        return dict(self.plugins)
