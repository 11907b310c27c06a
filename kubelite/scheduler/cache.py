"""The scheduler cache: nodes, the pods on them (bound and assumed), and nominated pods.

Follows ``pkg/scheduler/backend/cache/cache.go`` and ``backend/queue/nominator.go``. Contract:

- **Assumed pods.** When a scheduling cycle picks a node, the pod is *assumed* on it at once
  (:meth:`Cache.assume_pod`): every later cycle sees its resources reserved although the binding is
  still in flight. When the informer reports the pod bound, the assumed entry is replaced by the real
  one (:meth:`confirm_pod` when it is bound where it was assumed, else :meth:`add_pod`); when binding
  fails, :meth:`forget_pod` removes it. Assumed pods never expire
  here (upstream's default since the binding TTL became 0).
- **Single writer.** Only the scheduler's informer handlers and its scheduling/binding cycles write,
  and never across an ``await``; a scheduling cycle therefore reads the cache directly as its
  snapshot (upstream copies a snapshot because its cycles run on other goroutines).
- **Node order.** :meth:`node_list` returns nodes in a stable order (by name), the order in which
  ``percentageOfNodesToScore`` scans them round-robin. Pods whose node is not (yet) known are kept
  on a placeholder NodeInfo that is not listed, as upstream's "imaginary" nodes.
- **Change log.** Every change of a node's pods, labels or presence appends the node's name to a
  bounded log; :meth:`Cache.changes_since` hands a reader the names changed since its last look, so
  aggregates over the cluster (PodTopologySpread's domain totals) cost what changed per cycle, not a
  walk of every node. A reader that fell behind the log's start recounts everything.
- **Nominated pods** (preemptors waiting for their victims to leave) are tracked per node so
  Filter can account for them (:class:`Nominator`).
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from kubelite.api.types import Node
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["CHANGE_LOG_LIMIT", "Cache", "Nominator"]

#: node names kept in the change log before its older half is dropped (readers behind it recount)
CHANGE_LOG_LIMIT = 1 << 16
_NO_NODES: Mapping[str, int] = {}


class Nominator:
    """pod uid -> nominated node; node -> its nominated pods (in nomination order)."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}

    def add(self, pod: PodInfo, node_name: str) -> None:
        self.delete(pod)
        if not node_name:
            return
        self._node_of[pod.uid] = node_name
        self._by_node.setdefault(node_name, []).append(pod)

    def delete(self, pod: PodInfo) -> None:
        node = self._node_of.pop(pod.uid, None)
        if node is None:
            return
        lst = [p for p in self._by_node.get(node, ()) if p.uid != pod.uid]
        if lst:
            self._by_node[node] = lst
        else:
            self._by_node.pop(node, None)

    def update(self, pod: PodInfo) -> None:
        """Refresh the stored PodInfo (same uid) without changing its node."""
        node = self._node_of.get(pod.uid)
        if node is not None:
            self._by_node[node] = [pod if p.uid == pod.uid else p for p in self._by_node[node]]

    def node_names(self) -> Set[str]:
        """The nodes that have nominated pods (a live view; do not keep it across changes)."""
        return self._by_node.keys()

    def node_of(self, uid: str) -> str:
        return self._node_of.get(uid, "")

    def pods_for_node(self, node_name: str) -> list[PodInfo]:
        if not self._by_node:
            return []
        return list(self._by_node.get(node_name, ()))

    def __len__(self) -> int:
        return len(self._node_of)


class Cache:
    def __init__(self) -> None:
        #: node name -> NodeInfo (including placeholders for unknown nodes with pods)
        self.nodes: dict[str, NodeInfo] = {}
        #: uid -> (PodInfo, node name, assumed)
        self._pods: dict[str, tuple[PodInfo, str, bool]] = {}
        self._list: list[NodeInfo] | None = None
        self.nominator = Nominator()
        #: how many cached pods have (any) pod affinity terms / required anti-affinity terms, so
        #: InterPodAffinity can skip the whole-cluster scan when there are none
        self.pods_with_affinity = 0
        self.pods_with_required_anti_affinity = 0
        #: image name -> number of nodes that have it (ImageLocality's spread)
        self.image_nodes: dict[str, int] = {}
        #: names of the nodes with taints or ``spec.unschedulable`` (only those can fail the fused
        #: taint and cordon tests of :mod:`kubelite.scheduler.fast_path`)
        self.restricted: set[str] = set()
        #: names of the nodes changed, oldest first; ``_log[0]`` has sequence number ``_log_base``
        self._log: list[str] = []
        self._log_base = 0
        #: label key -> (namespace, value) -> node name -> how many of the node's pods (bound or assumed)
        #: carry that label; kept only for the keys someone asked about (:meth:`nodes_with_label`)
        self._label_index: dict[str, dict[tuple[str, str], dict[str, int]]] = {}

    def _touch(self, name: str) -> None:
        log = self._log
        log.append(name)
        if len(log) > CHANGE_LOG_LIMIT:
            drop = len(log) // 2
            del log[:drop]
            self._log_base += drop

    def nodes_with_label(self, namespace: str, key: str, value: str) -> Mapping[str, int]:
        """The nodes holding pods of ``namespace`` labelled ``key=value``, with how many each (a live view; do
        not keep it across changes). The first question about a key indexes every cached pod once; from then on
        the index follows every pod placement, so a new selector's matching pods are found without walking
        every node's pods (PodTopologySpread's first count for a new workload)."""
        idx = self._label_index.get(key)
        if idx is None:
            idx = self._label_index[key] = {}
            for pod, node_name, _ in self._pods.values():
                _index_label(idx, key, pod, node_name, 1)
        return idx.get((namespace, value)) or _NO_NODES

    def _index_pod(self, pod: PodInfo, node_name: str, delta: int) -> None:
        for key, idx in self._label_index.items():
            _index_label(idx, key, pod, node_name, delta)

    def changes_since(self, seq: int) -> tuple[list[str] | None, int]:
        """(names of the nodes changed since sequence number ``seq``, possibly repeated, or None when
        the log no longer reaches back that far; the sequence number to ask with next time)."""
        end = self._log_base + len(self._log)
        if seq < self._log_base:
            return None, end
        return self._log[seq - self._log_base:], end

    def _count_images(self, ni: NodeInfo, delta: int) -> None:
        counts = self.image_nodes
        for name in ni.image_sizes:
            n = counts.get(name, 0) + delta
            if n > 0:
                counts[name] = n
            else:
                counts.pop(name, None)

    # --- nodes ---
    def node_list(self) -> list[NodeInfo]:
        lst = self._list
        if lst is None:
            lst = self._list = [self.nodes[n] for n in sorted(self.nodes) if self.nodes[n].node is not None]
        return lst

    def add_node(self, node: Node) -> NodeInfo:
        name = node.metadata.name if node.metadata is not None else ""
        ni = self.nodes.get(name or "")
        if ni is None:
            ni = self.nodes[name or ""] = NodeInfo(node)
            self._list = None
        else:
            was_placeholder = ni.node is None
            self._count_images(ni, -1)
            ni.set_node(node)
            if was_placeholder:
                self._list = None
        self._touch(ni.name)
        self._count_images(ni, 1)
        if ni.taints or ni.unschedulable:
            self.restricted.add(ni.name)
        else:
            self.restricted.discard(ni.name)
        return ni

    update_node = add_node

    def remove_node(self, name: str) -> None:
        ni = self.nodes.get(name)
        if ni is None:
            return
        self._list = None
        self._touch(name)
        self.restricted.discard(name)
        self._count_images(ni, -1)
        ni.image_sizes = {}
        if ni.pods:  # keep the pods accounted for until they are deleted (upstream does the same)
            ni.node = None
        else:
            del self.nodes[name]

    # --- pods ---
    def _node_for(self, name: str) -> NodeInfo:
        ni = self.nodes.get(name)
        if ni is None:
            ni = self.nodes[name] = NodeInfo()
            ni.name = name
        return ni

    def assume_pod(self, pod: PodInfo, node_name: str) -> None:
        if pod.uid in self._pods:
            raise ValueError(f"pod {pod.key}({pod.uid}) is in the cache, so can't be assumed")
        self._node_for(node_name).add_pod(pod)
        self._touch(node_name)
        self._count(pod, 1)
        self._index_pod(pod, node_name, 1)
        self._pods[pod.uid] = (pod, node_name, True)

    def forget_pod(self, pod: PodInfo) -> None:
        entry = self._pods.get(pod.uid)
        if entry is None or not entry[2]:
            return
        del self._pods[pod.uid]
        self._remove_from_node(entry[0], entry[1])

    def is_assumed(self, uid: str) -> bool:
        entry = self._pods.get(uid)
        return entry is not None and entry[2]

    def add_pod(self, pod: PodInfo) -> None:
        """An assigned pod seen by the informer (replaces an assumed entry of the same uid)."""
        entry = self._pods.get(pod.uid)
        if entry is not None:
            self._remove_from_node(entry[0], entry[1])
        self._node_for(pod.node_name).add_pod(pod)
        self._touch(pod.node_name)
        self._count(pod, 1)
        self._index_pod(pod, pod.node_name, 1)
        self._pods[pod.uid] = (pod, pod.node_name, False)

    update_pod = add_pod

    def refresh_pod(self, old: PodInfo, new: PodInfo) -> bool:
        """A bound pod's newer version whose scheduling state is unchanged (``new`` from ``old``'s
        :meth:`~kubelite.scheduler.framework.types.PodInfo.status_update`, ``old`` the cached entry) replaces the
        cached one in place: no node totals recomputed, no change-log entry, no generation bump, so readers of
        the change log (PodTopologySpread's domain totals) recount nothing for a status write. Upstream's
        ``cache.UpdatePod`` removes and re-adds the pod, which leaves the same NodeInfo but for its generation.
        False, changing nothing, when ``old`` is not the cached bound (not assumed) entry."""
        return self._replace_in_place(old, new, assumed=False)

    def confirm_pod(self, old: PodInfo, new: PodInfo) -> bool:
        """The informer reports an assumed pod bound to the node it was assumed on (``new`` from ``old``'s
        :meth:`~kubelite.scheduler.framework.types.PodInfo.bound_update`, ``old`` the assumed entry): the entry
        becomes the bound one in place, as :meth:`refresh_pod` does for a status write. The assumed entry
        already held the same requests, labels and terms on that node, so no totals, label index or change
        log move (upstream's ``cache.AddPod`` of an assumed pod removes and re-adds it to the same totals).
        False, changing nothing, when ``old`` is not the assumed entry or ``new`` names another node."""
        return self._replace_in_place(old, new, assumed=True)

    def _replace_in_place(self, old: PodInfo, new: PodInfo, *, assumed: bool) -> bool:
        """``new`` takes ``old``'s place as the bound entry on the same node, when ``old`` is the cached entry
        and is assumed exactly when ``assumed`` says (an assumed one must be confirmed on its own node)."""
        entry = self._pods.get(old.uid)
        if entry is None or entry[0] is not old or entry[2] is not assumed or new.uid != old.uid:
            return False
        if assumed and new.node_name != entry[1]:
            return False
        ni = self.nodes.get(entry[1])
        if ni is None or not ni.replace_pod(old, new):
            return False
        self._pods[old.uid] = (new, entry[1], False)
        return True

    def pod_info(self, uid: str) -> PodInfo | None:
        """The cached PodInfo of pod ``uid`` (bound or assumed), or None."""
        entry = self._pods.get(uid)
        return entry[0] if entry is not None else None

    def remove_pod(self, uid: str) -> None:
        entry = self._pods.pop(uid, None)
        if entry is not None:
            self._remove_from_node(entry[0], entry[1])

    def _count(self, pod: PodInfo, delta: int) -> None:
        if pod.has_affinity:
            self.pods_with_affinity += delta
        if pod.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity += delta

    def _remove_from_node(self, pod: PodInfo, node_name: str) -> None:
        self._count(pod, -1)
        self._index_pod(pod, node_name, -1)
        ni = self.nodes.get(node_name)
        if ni is None:
            return
        ni.remove_pod(pod)
        self._touch(node_name)
        if ni.node is None and not ni.pods:
            del self.nodes[node_name]

    def pod_count(self) -> int:
        return len(self._pods)

    def assumed_count(self) -> int:
        return sum(1 for e in self._pods.values() if e[2])


def _index_label(idx: dict[tuple[str, str], dict[str, int]], key: str, pod: PodInfo, node_name: str,
                 delta: int) -> None:
    value = pod.labels.get(key)
    if value is None:
        return
    k = (pod.namespace, value)
    nodes = idx.get(k)
    if nodes is None:
        nodes = idx[k] = {}
    n = nodes.get(node_name, 0) + delta
    if n > 0:
        nodes[node_name] = n
    else:
        nodes.pop(node_name, None)
        if not nodes:
            del idx[k]
