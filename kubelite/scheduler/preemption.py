"""Preemption: make room for a pod that fits nowhere by evicting lower-priority pods.

Follows ``pkg/scheduler/framework/preemption/preemption.go`` (``Evaluator.Preempt``) and
``plugins/defaultpreemption/default_preemption.go`` (``SelectVictimsOnNode``). Contract:

1. Eligibility: a pod with ``preemptionPolicy: Never`` never preempts; a pod already nominated to a
   node where a lower-priority pod is terminating waits for it instead.
2. Only nodes whose rejection was plain UNSCHEDULABLE are candidates ("Preemption is not helpful for
   scheduling" for the others). On each (a dry run on clones, nothing changes): remove every pod of
   lower priority; if the pod still does not fit, the node is out; otherwise add victims back, most
   important first, PodDisruptionBudget-protected ones first, keeping each that still lets the pod fit.
3. The best candidate has, in order: fewest PDB violations, the lowest highest-victim priority, the
   lowest priority sum, the fewest victims, the latest start among highest-priority victims, then
   the first in node order.
4. Then (in the background, through the client): victims waiting at Permit are rejected, the others get
   a ``DisruptionTarget`` condition and are deleted gracefully; lower-priority pods nominated to the
   node lose their nomination. The preemptor gets ``status.nominatedNodeName`` and waits in the queue
   until the victims' deletions requeue it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import msgspec

from kubelite.api.labels import selector_from_label_selector
from kubelite.errors import ApiError, NotFound
from kubelite.logs import get_logger
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.fit_error import FitError
from kubelite.scheduler.framework.interface import PostFilterResult
from kubelite.scheduler.framework.status import ERROR, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["Candidate", "Evaluator"]

log = get_logger("kubelite.scheduler.preemption")

MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


class Candidate:
    __slots__ = ("node_name", "num_pdb_violations", "victims")

    def __init__(self, node_name: str, victims: list[PodInfo], num_pdb_violations: int) -> None:
        self.node_name = node_name
        self.victims = victims
        self.num_pdb_violations = num_pdb_violations

    def __repr__(self) -> str:
        return f"Candidate({self.node_name}, victims={[v.key for v in self.victims]})"


def _more_important(a: PodInfo, b: PodInfo) -> bool:
    if a.priority != b.priority:
        return a.priority > b.priority
    return _start(a) < _start(b)


def _start(p: PodInfo) -> str:
    st = p.pod.status
    return (st.start_time if st is not None else None) or p.creation or ""


def _importance_key(a: PodInfo, b: PodInfo) -> int:
    return -1 if _more_important(a, b) else (1 if _more_important(b, a) else 0)


class Evaluator:
    def __init__(self, handle: Any, plugin_name: str, *, min_percentage: int = MIN_CANDIDATE_NODES_PERCENTAGE,
                 min_absolute: int = MIN_CANDIDATE_NODES_ABSOLUTE) -> None:
        self.handle = handle
        self.plugin_name = plugin_name
        self.min_percentage = min_percentage
        self.min_absolute = min_absolute

    # --- eligibility ---
    def eligible(self, pod: PodInfo) -> str:
        spec = pod.pod.spec
        if spec is not None and spec.preemption_policy == "Never":
            return "not eligible due to preemptionPolicy=Never."
        st = pod.pod.status
        nominated = st.nominated_node_name if st is not None else None
        if nominated:
            ni = self.handle.node_info(nominated)
            if ni is not None:
                for p in ni.pods:
                    meta = p.pod.metadata
                    if meta is not None and meta.deletion_timestamp and p.priority < pod.priority:
                        return "not eligible due to a terminating pod on the nominated node."
        return ""

    # --- the whole PostFilter ---
    def preempt(self, state: CycleState, pod: PodInfo,
                statuses: dict[str, Status]) -> tuple[PostFilterResult | None, Status]:
        why = self.eligible(pod)
        if why:
            return None, Status(UNSCHEDULABLE, why)
        all_nodes = self.handle.node_infos()
        candidates, node_statuses = self.find_candidates(state, pod, all_nodes, statuses)
        if not candidates:
            fe = FitError(pod.key, len(all_nodes), node_statuses)
            return PostFilterResult(""), Status(UNSCHEDULABLE, str(fe))
        best = self.select_candidate(candidates)
        self.prepare_candidate(best, pod)
        return PostFilterResult(best.node_name), Status(0)

    def find_candidates(self, state: CycleState, pod: PodInfo, all_nodes: Sequence[NodeInfo],
                        statuses: dict[str, Status]) -> tuple[list[Candidate], dict[str, Status]]:
        node_statuses: dict[str, Status] = {}
        potential: list[NodeInfo] = []
        for ni in all_nodes:
            st = statuses.get(ni.name)
            if st is not None and st.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
                node_statuses[ni.name] = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL)
                continue
            potential.append(ni)
        if not potential:
            return [], node_statuses
        pdbs = self._pdbs()
        n = len(potential)
        want = min(n, max(n * self.min_percentage // 100, self.min_absolute))
        offset = self.handle.rng.randrange(n)
        violating: list[Candidate] = []
        clean: list[Candidate] = []
        for i in range(n):
            ni = potential[(offset + i) % n]
            victims, n_viol, st = self.select_victims_on_node(state.clone(), pod, ni.clone(), pdbs)
            if st is None and victims:
                (violating if n_viol else clean).append(Candidate(ni.name, victims, n_viol))
                if len(clean) >= want or len(clean) + len(violating) >= want:
                    break
                continue
            if st is None:
                st = Status(ERROR, f'expected at least one victim pod on node "{ni.name}"')
            node_statuses[ni.name] = st
        return clean + violating, node_statuses

    def _pdbs(self) -> list[Any]:
        informers = self.handle.informers
        if informers is None:
            return []
        from kubelite.api.types import PodDisruptionBudget

        return list(informers.lister_for(PodDisruptionBudget).list())

    def select_victims_on_node(self, state: CycleState, pod: PodInfo, ni: NodeInfo,
                               pdbs: list[Any]) -> tuple[list[PodInfo], int, Status | None]:
        h = self.handle
        lower = [p for p in ni.pods if p.priority < pod.priority]
        if not lower:
            return [], 0, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
        for p in lower:
            ni.remove_pod(p)
            st = h.run_pre_filter_extension_remove_pod(state, pod, p, ni)
            if st is not None:
                return [], 0, st
        st = h.run_filter_plugins_with_nominated_pods(state, pod, ni)
        if st is not None:
            return [], 0, st
        lower.sort(key=functools.cmp_to_key(_importance_key))
        violating, non_violating = self._split_by_pdb(lower, pdbs)
        victims: list[PodInfo] = []
        n_viol = 0

        def reprieve(p: PodInfo) -> bool:
            ni.add_pod(p)
            h.run_pre_filter_extension_add_pod(state, pod, p, ni)
            if h.run_filter_plugins_with_nominated_pods(state, pod, ni) is None:
                return True
            ni.remove_pod(p)
            h.run_pre_filter_extension_remove_pod(state, pod, p, ni)
            victims.append(p)
            return False

        for p in violating:
            if not reprieve(p):
                n_viol += 1
        for p in non_violating:
            reprieve(p)
        victims.sort(key=functools.cmp_to_key(_importance_key))
        return victims, n_viol, None

    @staticmethod
    def _split_by_pdb(pods: list[PodInfo], pdbs: list[Any]) -> tuple[list[PodInfo], list[PodInfo]]:
        """Upstream ``filterPodsWithPDBViolation``: walk pods in order, spending each PDB's
        ``disruptionsAllowed``; a pod that overdraws any matching PDB is "violating"."""
        allowed = [((p.status.disruptions_allowed if p.status is not None else None) or 0) for p in pdbs]
        selectors = []
        for pdb in pdbs:
            sel = pdb.spec.selector if pdb.spec is not None else None
            selectors.append(selector_from_label_selector(msgspec.to_builtins(sel)) if sel is not None else None)
        violating: list[PodInfo] = []
        ok: list[PodInfo] = []
        for p in pods:
            bad = False
            for i, pdb in enumerate(pdbs):
                sel = selectors[i]
                if pdb.metadata.namespace != p.namespace or sel is None or sel.empty() or not sel.matches(p.labels):
                    continue
                disrupted = (pdb.status.disrupted_pods if pdb.status is not None else None) or {}
                if p.name in disrupted:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    bad = True
            (violating if bad else ok).append(p)
        return violating, ok

    @staticmethod
    def select_candidate(candidates: list[Candidate]) -> Candidate:
        def key(c: Candidate) -> tuple[int, int, int, int, str]:
            top = c.victims[0].priority
            # Latest start of the highest-priority victims wins: negate by sorting on a reversed string key.
            earliest = min(_start(v) for v in c.victims if v.priority == top)
            inverted = "".join(chr(0x10FFFF - ord(ch)) for ch in earliest)
            return (c.num_pdb_violations, top, sum(v.priority + 2**31 for v in c.victims), len(c.victims), inverted)

        return min(candidates, key=key)

    def prepare_candidate(self, c: Candidate, pod: PodInfo) -> None:
        h = self.handle
        h.preemption_victims += len(c.victims)
        to_delete: list[PodInfo] = []
        for v in c.victims:
            wp = h.waiting_pods.get(v.uid)
            if wp is not None:
                wp.reject(self.plugin_name, "preempted")
            else:
                to_delete.append(v)
        # Lower-priority pods nominated to this node will not fit any more.
        demoted = [p for p in h.nominated_pods_for_node(c.node_name) if p.priority < pod.priority]
        if to_delete or demoted:
            h.spawn(self._evict, to_delete, demoted, pod, c.node_name)

    async def _evict(self, victims: list[PodInfo], demoted: list[PodInfo], pod: PodInfo, node: str) -> None:
        client = self.handle.client
        profile = getattr(self.handle, "profile_name", "default-scheduler")
        recorder = getattr(self.handle, "recorder", None)
        for v in victims:
            try:
                await client.patch("pods", v.name, {"status": {"conditions": [{
                    "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                    "message": f"{profile}: preempting to accommodate a higher priority pod",
                    "lastTransitionTime": self.handle.clock.timestamp()}]}},
                    namespace=v.namespace, subresource="status")
                await client.delete("pods", v.name, namespace=v.namespace)
            except NotFound:
                continue
            except ApiError as e:
                log.warning("preemption_victim_delete_failed", pod=v.key, error=str(e))
                continue
            if recorder is not None:
                recorder.event(v.pod, "Normal", "Preempted", f"Preempted by pod {pod.uid} on node {node}")
        for p in demoted:
            h_nom = self.handle
            h_nom.clear_nomination(p)
            try:
                await client.patch("pods", p.name, {"status": {"nominatedNodeName": None}},
                                   namespace=p.namespace, subresource="status")
            except ApiError:
                continue
