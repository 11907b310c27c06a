"""The Filter loop of one scheduling cycle, with the default filters fused (kubelite-specific speed-up
of upstream ``schedule_one.go`` ``findNodesThatPassFilters``).

Contract: :func:`find_feasible_nodes` returns exactly what running every non-skipped Filter plugin on
each node, in profile order, would: the same feasible nodes in the same order, the same rejection
Status (plugin-tagged, first failing plugin) for each rejected node, the same early stop after
``to_find`` feasible nodes and the same number of processed nodes. Only the cost differs:

- The non-skipped Filter plugins are split into a *fused prefix* - the longest leading run of the
  in-tree NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts and NodeResourcesFit
  (exact classes, so subclasses and out-of-tree plugins take the generic path) - and the rest, which
  run per node as usual. The prefix is compiled once per pod into a few attribute tests per node.
- NodeResourcesFit's result is memoised per ``NodeInfo.res_key`` (nodes in the same resource state
  share it), see :mod:`kubelite.scheduler.plugins.node_resources_fit`.
- When a fused test rejects a node the whole plugin list is re-run on that node the generic way, so
  the reported Status is the plugins' own; only the resource memo answers a rejection directly (it
  holds NodeResourcesFit's own Status, and every earlier prefix test passed).
- Nodes that are tainted or cordoned (the cache's ``restricted`` set) are tested one by one; chunks
  of other nodes skip those tests. Nodes with nominated pods go through the framework's
  ``RunFilterPluginsWithNominatedPods``.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from operator import attrgetter
from typing import Any

from kubelite.api.scheduling import find_untolerated_taint, pod_matches_node_selector_and_affinity
from kubelite.scheduler.framework.cycle_state import FEASIBLE_FACTS, CycleState, FeasibleFacts
from kubelite.scheduler.framework.runtime import Framework
from kubelite.scheduler.framework.status import ERROR, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo
from kubelite.scheduler.plugins.node_affinity import NodeAffinity
from kubelite.scheduler.plugins.node_name import NodeName
from kubelite.scheduler.plugins.node_ports import NodePorts, ports_conflict
from kubelite.scheduler.plugins.node_resources_fit import NodeResourcesFit
from kubelite.scheduler.plugins.node_unschedulable import NodeUnschedulable, tolerates_unschedulable
from kubelite.scheduler.plugins.taint_toleration import FILTER_EFFECTS, TaintToleration

__all__ = ["FUSED_FILTERS", "find_feasible_nodes"]

_NAME = attrgetter("name")
_RES_KEY = attrgetter("res_key")

#: the in-tree Filter plugins the fused loop evaluates itself
FUSED_FILTERS: tuple[type, ...] = (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
                                   NodeResourcesFit)


def find_feasible_nodes(fwk: Framework, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], *,
                        begin: int, to_find: int, statuses: dict[str, Status],
                        nominated_nodes: Set[str], restricted: Set[str]) -> tuple[list[NodeInfo], int]:
    """Scan ``nodes`` round-robin from index ``begin`` until ``to_find`` fit; record each rejection in
    ``statuses``. Returns (feasible nodes, nodes processed) and leaves :class:`FeasibleFacts` about
    the feasible nodes in ``state``. ``restricted`` holds every node with taints or cordoned, and
    ``nominated_nodes`` every node with nominated pods. Raises RuntimeError on a plugin Error.

    The scan goes in chunks of exactly as many nodes as are still missing: the sequential scan could
    not stop inside such a chunk, so checking it as a whole processes the same nodes. A chunk of
    plain nodes (not ``restricted``, no nominated pods) for a pod that only the resource test can
    reject is checked with C-level passes and one resource test per distinct ``res_key``."""
    plugins = [p for p in fwk.filter_plugins if p.name not in state.skip_filter_plugins]
    fns = [(p.name, p.filter) for p in plugins]
    run_filters = fwk.run_filters
    k = 0
    while k < len(plugins) and type(plugins[k]) in FUSED_FILTERS:
        k += 1
    fused = {type(p): p for p in plugins[:k]}
    rest = fns[k:]
    spec: Any = pod.pod.spec
    tolerations = list((spec.tolerations if spec is not None else None) or ())
    # Each flag is true only when that fused test can reject some node for this pod.
    chk_unsched = NodeUnschedulable in fused and not tolerates_unschedulable(tolerations)
    name = pod.node_name if NodeName in fused else ""
    chk_taints = TaintToleration in fused
    chk_affinity = NodeAffinity in fused and spec is not None
    ports = pod.host_ports if NodePorts in fused else []
    fit: NodeResourcesFit | None = fused.get(NodeResourcesFit)
    memo: dict[str, Status | None] = {}
    # The pod can be rejected by the resource test alone (on plain nodes): chunks may go in bulk.
    bulk = k > 0 and not (rest or name or chk_affinity or ports)
    feasible: list[NodeInfo] = []
    keys_out: list[str] = []
    tainted = False
    n = len(nodes)
    pos = 0
    while pos < n and len(feasible) < to_find:
        want = min(to_find - len(feasible), n - pos)
        i = (begin + pos) % n
        chunk = list(nodes[i:i + want])
        if len(chunk) < want:
            chunk += nodes[:want - len(chunk)]
        pos += want
        if (bulk and not (restricted and not restricted.isdisjoint(map(_NAME, chunk)))
                and not (nominated_nodes and not nominated_nodes.isdisjoint(map(_NAME, chunk)))):
            keys = list(map(_RES_KEY, chunk))
            rejected = False
            if fit is not None:
                for ni in dict(zip(keys, chunk)).values():
                    if fit.filter_memo(state, pod, ni, memo) is not None:
                        rejected = True
            if not rejected:
                feasible += chunk
                keys_out += keys
                continue
            for ni, key in zip(chunk, keys):
                st = memo[key]
                if st is None:
                    feasible.append(ni)
                    keys_out.append(key)
                else:
                    if st.code == ERROR:
                        raise RuntimeError(st.message)
                    statuses[ni.name] = st
            continue
        for ni in chunk:
            if nominated_nodes and ni.name in nominated_nodes:
                st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
            elif k == 0 or ((chk_unsched and ni.unschedulable) or (name and ni.name != name)
                  or (chk_taints and ni.taints
                      and find_untolerated_taint(ni.taints, tolerations, FILTER_EFFECTS) is not None)
                  or (chk_affinity and not pod_matches_node_selector_and_affinity(spec, ni.labels, ni.name))
                  or (ports and ni.used_ports and ports_conflict(ports, ni.used_ports))):
                st = run_filters(fns, state, pod, ni)
            else:
                st = fit.filter_memo(state, pod, ni, memo) if fit is not None else None
                if st is None and rest:
                    st = run_filters(rest, state, pod, ni)
            if st is None:
                feasible.append(ni)
                keys_out.append(ni.res_key)
                if ni.taints:
                    tainted = True
            else:
                if st.code == ERROR:
                    raise RuntimeError(st.message)
                statuses[ni.name] = st
    state.write(FEASIBLE_FACTS, FeasibleFacts(feasible, keys_out, tainted))
    return feasible, pos
