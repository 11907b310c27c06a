"""NodeInfo, PodInfo and QueuedPodInfo: the scheduler's precomputed views of pods and nodes.

Follows ``pkg/scheduler/framework/types.go``. Contract:

- A :class:`PodInfo` is built once per pod object version (:meth:`PodInfo.of`) and never changes:
  requests, host ports and parsed affinity terms are computed up front so Filter and Score plugins
  do no parsing in the per-node loop. It holds the informer's Pod, which nobody may mutate.
- A :class:`NodeInfo` aggregates one node and the pods assigned (or assumed) to it. Only the
  scheduler cache mutates it (:meth:`add_pod`/:meth:`remove_pod`/:meth:`set_node`), always between
  scheduling cycles or inside one (never across an ``await``), so plugins see a consistent view.
  Preemption works on :meth:`clone`\\ s. ``generation`` increases on every change.
- ``NodeInfo.res_key`` is a string that determines every resource aggregate NodeResourcesFit and
  NodeResourcesBalancedAllocation read (allocatable, requested, non-zero requested, pod count and
  slots). It is recomputed on every change, so two nodes with equal keys get the same Filter status
  and the same resource scores for a pod: the fast path memoises those per key within a cycle.
- Quantities are integers: ``cpu`` in millicores, everything else in base units (upstream
  ``Resource``). ``pods`` is the allocatable pod count.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable
from typing import Any

import msgspec

from kubelite.api.labels import EVERYTHING, Selector, selector_from_label_selector
from kubelite.api.podresources import pod_requests, quantity_units
from kubelite.api.types import Node, Pod

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "AffinityTerm",
    "NodeInfo",
    "PodInfo",
    "QueuedPodInfo",
    "WeightedAffinityTerm",
    "same_spec",
]

#: ``pkg/scheduler/util/pod_resources.go``: what scoring assumes for a container without requests.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

_generation = itertools.count(1)


class AffinityTerm:
    """A parsed PodAffinityTerm (upstream ``framework.AffinityTerm``)."""

    __slots__ = ("namespace_selector", "namespaces", "selector", "topology_key")

    def __init__(self, owner_ns: str, term: Any) -> None:
        ls = term.label_selector
        self.selector: Selector = selector_from_label_selector(msgspec.to_builtins(ls) if ls is not None else None)
        ns_sel = term.namespace_selector
        # Upstream: no namespaces and no namespaceSelector means "the pod's own namespace"; an empty
        # namespaceSelector means every namespace. A non-empty namespaceSelector needs namespace labels,
        # which this scheduler does not watch: it is treated as "every namespace" (documented gap).
        self.namespace_selector: Selector | None = None if ns_sel is None else EVERYTHING
        names = set(term.namespaces or ())
        if not names and ns_sel is None:
            names = {owner_ns}
        self.namespaces = names
        self.topology_key: str = term.topology_key or ""

    def matches(self, pod: PodInfo) -> bool:
        if pod.namespace not in self.namespaces and self.namespace_selector is None:
            return False
        return self.selector.matches(pod.labels)


class WeightedAffinityTerm:
    __slots__ = ("term", "weight")

    def __init__(self, term: AffinityTerm, weight: int) -> None:
        self.term = term
        self.weight = weight


def _no_terms() -> list[AffinityTerm]:
    return []


class PodInfo:
    """See the module docstring. Build with :meth:`of`."""

    __slots__ = (
        "creation",
        "host_ports",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "non_zero_cpu",
        "non_zero_mem",
        "pod",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "priority",
        "requests",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "uid",
    )

    def __init__(self, pod: Pod) -> None:
        meta = pod.metadata
        spec = pod.spec
        assert meta is not None and spec is not None, "a scheduled pod has metadata and spec"
        self.pod = pod
        self.namespace: str = meta.namespace or ""
        self.name: str = meta.name or ""
        self.key = f"{self.namespace}/{self.name}"
        self.uid: str = meta.uid or self.key
        self.labels: dict[str, str] = meta.labels or {}
        self.creation: str = meta.creation_timestamp or ""
        self.priority: int = spec.priority or 0
        self.node_name: str = spec.node_name or ""
        self.requests: dict[str, int] = pod_requests(pod)
        containers = spec.containers or ()
        missing_cpu = missing_mem = 0
        for c in containers:
            r = c.resources
            req = (r.requests or {}) if r is not None else {}
            lim = (r.limits or {}) if r is not None else {}
            if "cpu" not in req and "cpu" not in lim:
                missing_cpu += 1
            if "memory" not in req and "memory" not in lim:
                missing_mem += 1
        self.non_zero_cpu = self.requests.get("cpu", 0) + missing_cpu * DEFAULT_MILLI_CPU_REQUEST
        self.non_zero_mem = self.requests.get("memory", 0) + missing_mem * DEFAULT_MEMORY_REQUEST
        ports: list[tuple[str, str, int]] = []
        for c in containers:
            for p in c.ports or ():
                if p.host_port:
                    ports.append((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        self.host_ports = ports
        self.required_affinity_terms = _no_terms()
        self.required_anti_affinity_terms = _no_terms()
        self.preferred_affinity_terms: list[WeightedAffinityTerm] = []
        self.preferred_anti_affinity_terms: list[WeightedAffinityTerm] = []
        aff = spec.affinity
        if aff is not None:
            ns = self.namespace
            pa, paa = aff.pod_affinity, aff.pod_anti_affinity
            if pa is not None:
                self.required_affinity_terms = [
                    AffinityTerm(ns, t) for t in pa.required_during_scheduling_ignored_during_execution or ()]
                self.preferred_affinity_terms = [
                    WeightedAffinityTerm(AffinityTerm(ns, w.pod_affinity_term), w.weight or 0)
                    for w in pa.preferred_during_scheduling_ignored_during_execution or ()]
            if paa is not None:
                self.required_anti_affinity_terms = [
                    AffinityTerm(ns, t) for t in paa.required_during_scheduling_ignored_during_execution or ()]
                self.preferred_anti_affinity_terms = [
                    WeightedAffinityTerm(AffinityTerm(ns, w.pod_affinity_term), w.weight or 0)
                    for w in paa.preferred_during_scheduling_ignored_during_execution or ()]

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        """The PodInfo of ``pod`` (``framework.NewPodInfo``)."""
        return cls(pod)

    def updated(self, pod: Pod) -> PodInfo:
        """The PodInfo of ``pod``, a newer version of this one's pod. Everything a PodInfo derives comes from
        the pod's identity, labels and spec, so when those are unchanged (a status update: most pod writes) the
        derived fields are shared instead of recomputed, as upstream ``PodInfo.Update`` keeps them for the same
        pod; otherwise it is built afresh. This PodInfo itself is not changed."""
        pi = self.status_update(pod)
        return pi if pi is not None else PodInfo(pod)

    def status_update(self, pod: Pod) -> PodInfo | None:
        """The PodInfo of ``pod`` sharing this one's derived fields when ``pod`` is this pod with the same
        identity, labels, spec and deletionTimestamp (a status write, or a change of what the scheduler never
        reads: annotations, finalizers, ownerReferences); None when any of those changed. Nothing the
        scheduler accounts (requests, ports, affinity terms, labels, its node, whether it is terminating)
        differs between the two."""
        if not self._same_identity(pod) or not same_spec(self.pod.spec, pod.spec):
            return None
        return self._sharing(pod)

    def bound_update(self, pod: Pod) -> PodInfo | None:
        """The PodInfo of ``pod``, this (assumed, unbound) pod as its binding wrote it, sharing this one's
        derived fields: as :meth:`status_update`, but ``spec.nodeName`` may differ (the one field of the spec
        a ``pods/binding`` sets). None when anything else the scheduler reads changed."""
        spec, mine = pod.spec, self.pod.spec
        if spec is None or mine is None or not self._same_identity(pod):
            return None
        # the bound spec with this version's nodeName: a shallow copy, compared by encoding (C) first
        if not same_spec(mine, msgspec.structs.replace(spec, node_name=mine.node_name)):
            return None
        pi = self._sharing(pod)
        pi.node_name = spec.node_name or ""
        return pi

    def _same_identity(self, pod: Pod) -> bool:
        om, nm = self.pod.metadata, pod.metadata
        return not (om is None or nm is None or om.uid != nm.uid or om.name != nm.name
                    or om.namespace != nm.namespace or om.labels != nm.labels
                    or om.creation_timestamp != nm.creation_timestamp or om.deletion_timestamp != nm.deletion_timestamp)

    def _sharing(self, pod: Pod) -> PodInfo:
        pi: PodInfo = object.__new__(PodInfo)
        for slot in _POD_INFO_SLOTS:
            setattr(pi, slot, getattr(self, slot))
        pi.pod = pod
        return pi

    @property
    def has_affinity(self) -> bool:
        """Whether the pod has any (anti-)affinity term, required or preferred."""
        return bool(self.required_affinity_terms or self.required_anti_affinity_terms
                    or self.preferred_affinity_terms or self.preferred_anti_affinity_terms)

    def __repr__(self) -> str:
        return f"PodInfo({self.key})"


_POD_INFO_SLOTS = PodInfo.__slots__
_encode = msgspec.json.Encoder().encode


def same_spec(a: Any, b: Any) -> bool:
    """Whether two pod specs are equal (``==``), cheaply in the common case. Most pod writes are status writes
    that leave the spec as it was, and the scheduler asks this of every pod update (upstream's ``PodInfo.Update``,
    ``podSchedulingPropertiesChange``, ``isPodUpdated``). A shared view's ``==`` walks the whole spec in
    Python (about 0.1 ms for a pod with one container); its JSON encoding runs in C, about ten times less, and
    equal encodings mean equal specs. Unequal encodings may still be equal specs (a map's keys in another
    order), so they are decided by ``==``."""
    return a is b or _encode(a) == _encode(b) or bool(a == b)


class QueuedPodInfo:
    """A pod in the scheduling queue plus its queueing history (upstream ``QueuedPodInfo``).

    Owned by the scheduling queue; the scheduler reads it while the pod is popped (in flight)."""

    __slots__ = ("added", "attempts", "backoff_expiration", "gated", "gating_plugin", "initial_attempt_timestamp",
                 "pending_plugins", "pod_info", "timestamp", "unschedulable_plugins")

    def __init__(self, pod_info: PodInfo, timestamp: float) -> None:
        self.pod_info = pod_info
        self.timestamp = timestamp
        #: when the pod first entered the queue (start of the e2e scheduling latency)
        self.added = timestamp
        self.initial_attempt_timestamp: float | None = None
        self.attempts = 0
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.gated = False
        self.gating_plugin = ""
        self.backoff_expiration = 0.0

    @property
    def pod(self) -> Pod:
        """The queued Pod object."""
        return self.pod_info.pod

    def __repr__(self) -> str:
        return f"QueuedPodInfo({self.pod_info.key}, attempts={self.attempts})"


class NodeInfo:
    """See the module docstring."""

    __slots__ = (
        "allocatable", "allowed_pods", "generation", "image_sizes", "labels", "name", "node", "non_zero_cpu",
        "non_zero_mem", "pods", "pods_with_affinity", "pods_with_required_anti_affinity", "requested", "res_key",
        "taints", "unschedulable", "used_ports",
    )

    def __init__(self, node: Node | None = None) -> None:
        self.node: Node | None = None
        self.name = ""
        self.labels: dict[str, str] = {}
        self.taints: list[Any] = []
        self.unschedulable = False
        self.allocatable: dict[str, int] = {}
        self.allowed_pods = 0
        self.image_sizes: dict[str, int] = {}
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.requested: dict[str, int] = {}
        self.non_zero_cpu = 0
        self.non_zero_mem = 0
        self.used_ports: dict[tuple[str, str, int], int] = {}
        self.generation = next(_generation)
        self.res_key = ""
        self._update_res_key()
        if node is not None:
            self.set_node(node)

    def set_node(self, node: Node) -> None:
        """Replace the Node object and recompute allocatable, taints and labels from it (``NodeInfo.SetNode``)."""
        meta, spec, status = node.metadata, node.spec, node.status
        self.node = node
        self.name = (meta.name if meta is not None else None) or ""
        self.labels = (meta.labels if meta is not None else None) or {}
        self.taints = list((spec.taints if spec is not None else None) or ())
        self.unschedulable = bool(spec is not None and spec.unschedulable)
        alloc = (status.allocatable if status is not None else None) or {}
        parsed = {k: quantity_units(k, v) for k, v in alloc.items()}
        self.allowed_pods = parsed.pop("pods", 0)
        self.allocatable = parsed
        sizes: dict[str, int] = {}
        for img in (status.images if status is not None else None) or ():
            for n in img.names or ():
                sizes[n] = img.size_bytes or 0
        self.image_sizes = sizes
        self.generation = next(_generation)
        self._update_res_key()

    def _update_res_key(self) -> None:
        # A str so that its hash is computed once per change, not once per lookup (tuples rehash);
        # interned so that nodes in the same state share one object, and memo lookups over hundreds
        # of nodes hit by identity in a few hot objects instead of comparing scattered copies.
        # Dict reprs are unambiguous for str keys and int values; equal states written in another
        # key order only cost a memo miss.
        self.res_key = sys.intern(f"{self.allowed_pods} {len(self.pods)} {self.non_zero_cpu} {self.non_zero_mem} "
                                  f"{self.allocatable!r} {self.requested!r}")

    def add_pod(self, pi: PodInfo) -> None:
        """Account ``pi`` on this node: requested resources, ports, affinity lists, generation (``NodeInfo.AddPod``).
        Account ``pi`` on this node: requested resources, ports, affinity lists, generation (``NodeInfo.AddPod``)."""
        self.pods.append(pi)
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
        if pi.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(pi)
        req = self.requested
        for k, v in pi.requests.items():
            req[k] = req.get(k, 0) + v
        self.non_zero_cpu += pi.non_zero_cpu
        self.non_zero_mem += pi.non_zero_mem
        ports = self.used_ports
        for p in pi.host_ports:
            ports[p] = ports.get(p, 0) + 1
        self.generation = next(_generation)
        self._update_res_key()

    def remove_pod(self, pi: PodInfo) -> bool:
        """Remove the pod with ``pi``'s uid (the stored PodInfo's requests are subtracted)."""
        idx = next((i for i, p in enumerate(self.pods) if p.uid == pi.uid), -1)
        if idx < 0:
            return False
        cur = self.pods.pop(idx)
        self.pods_with_affinity = [p for p in self.pods_with_affinity if p.uid != cur.uid] \
            if cur.has_affinity else self.pods_with_affinity
        if cur.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity = [
                p for p in self.pods_with_required_anti_affinity if p.uid != cur.uid]
        req = self.requested
        for k, v in cur.requests.items():
            req[k] = req.get(k, 0) - v
        self.non_zero_cpu -= cur.non_zero_cpu
        self.non_zero_mem -= cur.non_zero_mem
        ports = self.used_ports
        for p in cur.host_ports:
            n = ports.get(p, 0) - 1
            if n > 0:
                ports[p] = n
            else:
                ports.pop(p, None)
        self.generation = next(_generation)
        self._update_res_key()
        return True

    def replace_pod(self, old: PodInfo, new: PodInfo) -> bool:
        """Put ``new`` where ``old`` (the same pod, accounted alike: :meth:`PodInfo.status_update`) is, keeping the
        node's totals, order and generation; False if ``old`` is not on this node."""
        pods = self.pods
        idx = next((i for i, p in enumerate(pods) if p is old), -1)
        if idx < 0:
            return False
        pods[idx] = new
        if old.has_affinity:
            self.pods_with_affinity = [new if p is old else p for p in self.pods_with_affinity]
        if old.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity = [
                new if p is old else p for p in self.pods_with_required_anti_affinity]
        return True

    def clone(self) -> NodeInfo:
        """A copy whose pod lists and counters can change independently (``NodeInfo.Snapshot``)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.labels = self.labels
        c.taints = self.taints
        c.unschedulable = self.unschedulable
        c.allocatable = self.allocatable
        c.allowed_pods = self.allowed_pods
        c.image_sizes = self.image_sizes
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.requested = dict(self.requested)
        c.non_zero_cpu = self.non_zero_cpu
        c.non_zero_mem = self.non_zero_mem
        c.used_ports = dict(self.used_ports)
        c.generation = self.generation
        c.res_key = self.res_key
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)})"


def node_infos(nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> list[NodeInfo]:
    """NodeInfos for ``nodes`` with the ``pods`` bound to them (a test and benchmark helper)."""
    by_name = {ni.name: ni for ni in (NodeInfo(n) for n in nodes)}
    for p in pods:
        ni = by_name.get((p.spec.node_name if p.spec is not None else None) or "")
        if ni is not None:
            ni.add_pod(PodInfo(p))
    return list(by_name.values())
