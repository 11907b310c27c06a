"""``ClusterView``: the runner's read-only window on a running cluster, and the expressions' environment.

Contract:
- Reads through informers only (one :class:`~kubelite.informer.SharedInformerFactory` on the cluster's
  client, objects as dicts), like any other component; it never writes to the API.
- Records, at the virtual time the informer delivers each change (which, on a virtual clock, is the
  time of the change): each pod's first appearance, first ``Running`` phase and first ``Ready``
  condition (for startup latency), its state per node over time (:class:`PodInterval`), and every
  Event's first and last sighting. Nothing recorded depends on wall time or hash order.
- :meth:`call` implements the cluster functions of :mod:`kubelite.scenario.expressions` over the
  informers' caches; results are plain dicts and lists, copies the expression cannot leak back.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import Any

from kubelite.api.labels import parse_selector
from kubelite.clock import EPOCH
from kubelite.informer import ResourceEventHandlerFuncs, SharedInformerFactory
from kubelite.scenario.printing import pod_status
from kubelite.scenario.result import EventRecord, PodInterval

__all__ = ["KIND_RESOURCES", "ClusterView", "pod_state"]

#: expression kind name -> API resource
KIND_RESOURCES: dict[str, str] = {
    "pod": "pods", "deployment": "deployments", "replicaset": "replicasets", "statefulset": "statefulsets",
    "daemonset": "daemonsets", "job": "jobs", "service": "services", "node": "nodes",
    "pvc": "persistentvolumeclaims", "endpointslice": "endpointslices",
    "poddisruptionbudget": "poddisruptionbudgets", "hpa": "horizontalpodautoscalers", "event": "events",
    "namespace": "namespaces",
}
_ALIASES = {"po": "pod", "pods": "pod", "deploy": "deployment", "deployments": "deployment", "rs": "replicaset",
            "replicasets": "replicaset", "sts": "statefulset", "ds": "daemonset", "jobs": "job", "svc": "service",
            "services": "service", "no": "node", "nodes": "node", "pdb": "poddisruptionbudget",
            "persistentvolumeclaim": "pvc", "horizontalpodautoscaler": "hpa", "horizontalpodautoscalers": "hpa",
            "hpas": "hpa", "endpointslices": "endpointslice", "ns": "namespace", "namespaces": "namespace",
            "statefulsets": "statefulset", "daemonsets": "daemonset", "pvcs": "pvc",
            "persistentvolumeclaims": "pvc", "poddisruptionbudgets": "poddisruptionbudget"}
_CLUSTER_SCOPED = frozenset({"nodes", "namespaces"})
#: every resource of KIND_RESOURCES is watched (an object function must never find its informer missing)
_WATCHED = tuple(dict.fromkeys(KIND_RESOURCES.values()))


def kind_of(name: str) -> str:
    k = name.lower()
    return _ALIASES.get(k, k)


def _cond(obj: Mapping[str, Any], type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or ())


def pod_state(pod: Mapping[str, Any]) -> str:
    """The state shown on the pod timeline: kubectl's STATUS, with a Running pod split into Running
    (not Ready) and Ready, and an unscheduled pod shown as Pending."""
    s = pod_status(pod)
    if s == "Running" and _cond(pod, "Ready"):
        return "Ready"
    return s


class _PodTrack:
    __slots__ = ("created", "node", "ready", "running", "since", "state")

    def __init__(self, created: float) -> None:
        self.created = created
        self.running: float | None = None
        self.ready: float | None = None
        self.state = ""
        self.node = ""
        self.since = created


class ClusterView:
    """See the module docstring. ``start`` is the virtual time the scenario started."""

    def __init__(self, cluster: Any, *, start: float, diagnose: Any = None,
                 on_change: Callable[[str, Any], None] | None = None) -> None:
        self.cluster = cluster
        self.start = start
        self.now = 0.0
        self.metrics_provider: Callable[[], Mapping[str, Any]] = dict
        #: the data plane (for dns()), and "ns/service" -> traffic handles (for traffic()); set by the runner
        self.network: Any = None
        self.traffic_handles: Callable[[], Mapping[str, builtins.list[Any]]] = dict
        self._metrics: tuple[float, Mapping[str, Any]] | None = None
        self._selectors: dict[str, Any] = {}
        #: bumped on every informer notification: an expression that reads neither `now` nor `metrics`
        #: cannot change value while this stays the same
        self.version = 0
        self._diagnose = diagnose
        self.factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
        self.informers = {r: self.factory.informer_for(r) for r in _WATCHED}
        self.on_change = on_change
        for resource, inf in self.informers.items():
            self._observe(resource, inf)
        self.pods: dict[str, _PodTrack] = {}
        self.intervals: list[PodInterval] = []
        self.events: dict[str, EventRecord] = {}
        self._event_order: dict[str, tuple[float, int]] = {}
        self._seq = 0
        self.informers["pods"].add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._pod_changed, on_update=self._pod_update, on_delete=self._pod_deleted))
        self.informers["events"].add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._event, on_update=self._event_update))

    @property
    def metrics(self) -> Mapping[str, Any]:
        """The run's metrics as of ``now`` (computed at most once per sample time)."""
        cached = self._metrics
        if cached is None or cached[0] != self.now:
            cached = self._metrics = (self.now, self.metrics_provider())
        return cached[1]

    def t(self) -> float:
        """Seconds since t = 0, to the microsecond (the clock's sums of float durations carry noise
        such as 0.7000000476837158 that no reader wants)."""
        return round(float(self.cluster.clock.now() - self.start), 6)

    # --- recording ---
    def _observe(self, resource: str, inf: Any) -> None:
        """Count (and report to ``on_change``) every change of ``resource``'s cache at the moment it is
        written. The informer writes its cache and then, synchronously, hands the notification to each
        registration's producer side (``ProcessorListener.add``, client-go's ``processorListener.add``);
        observing that call sees every change in order, before any handler task runs, so nothing between
        two writes can be missed."""
        reg = inf.add_event_handler(ResourceEventHandlerFuncs())
        produce = reg.add

        def add(n: Any) -> None:
            produce(n)
            self.version += 1
            if self.on_change is not None:
                self.on_change(resource, n[1])

        reg.add = add

    def _pod_update(self, old: Any, new: Any) -> None:
        self._pod_changed(new)

    def _pod_changed(self, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        key = f"{meta.get('namespace')}/{meta['name']}"
        now = self.t()
        tr = self.pods.get(key)
        if tr is None:
            tr = self.pods[key] = _PodTrack(now)
        st = pod.get("status") or {}
        if tr.running is None and st.get("phase") == "Running":
            tr.running = now
        if tr.ready is None and _cond(pod, "Ready"):
            tr.ready = now
        state = pod_state(pod)
        node = (pod.get("spec") or {}).get("nodeName") or ""
        if state != tr.state or node != tr.node:
            self._close(key, tr, now)
            tr.state, tr.node, tr.since = state, node, now

    def _close(self, key: str, tr: _PodTrack, now: float) -> None:
        if tr.state:
            self.intervals.append(PodInterval(pod=key, node=tr.node, state=tr.state, start=tr.since, end=now))

    def _pod_deleted(self, pod: Any) -> None:
        obj = getattr(pod, "obj", pod)  # DeletedFinalStateUnknown carries the last known object
        meta = obj["metadata"]
        key = f"{meta.get('namespace')}/{meta['name']}"
        tr = self.pods.get(key)
        if tr is not None:
            self._close(key, tr, self.t())
            tr.state = ""

    def _event(self, ev: dict[str, Any]) -> None:
        meta = ev["metadata"]
        key = f"{meta.get('namespace')}/{meta['name']}"
        inv = ev.get("involvedObject") or {}
        ns = inv.get("namespace") or ""
        obj = f"{inv.get('kind', '')}/{ns}/{inv.get('name', '')}" if ns else f"{inv.get('kind', '')}/{inv.get('name', '')}"
        src = ev.get("source") or {}
        source = src.get("component") or ev.get("reportingComponent") or ""
        if src.get("host"):
            source += f", {src['host']}"
        now = self.t()
        rec = self.events.get(key)
        if rec is None:
            self._seq += 1
            self._event_order[key] = (now, self._seq)
            self.events[key] = EventRecord(
                time=now, type=ev.get("type") or "", reason=ev.get("reason") or "", object=obj, source=source,
                message=ev.get("message") or "", count=int(ev.get("count") or 1), last_seen=now,
                namespace=meta.get("namespace") or "")
        else:
            rec.count = int(ev.get("count") or 1)
            rec.message = ev.get("message") or rec.message
            rec.last_seen = now

    def _event_update(self, old: Any, new: Any) -> None:
        self._event(new)

    def finish(self) -> None:
        """Close every open pod interval at the current time."""
        now = self.t()
        for key in sorted(self.pods):
            tr = self.pods[key]
            self._close(key, tr, now)
            tr.state = ""
            tr.since = now

    def event_records(self) -> list[EventRecord]:
        return [self.events[k] for k in sorted(self.events, key=lambda k: self._event_order[k])]

    # --- reading ---
    def list(self, resource: str) -> builtins.list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.informers[resource].get_indexer().list()
        return items

    def get(self, resource: str, ref: str) -> dict[str, Any] | None:
        if resource in _CLUSTER_SCOPED:
            key = ref
        else:
            key = ref if "/" in ref else f"default/{ref}"
        obj: dict[str, Any] | None = self.informers[resource].get_indexer().get_by_key(key)
        return obj

    def selector(self, text: str) -> Any:
        sel = self._selectors.get(text)
        if sel is None:
            sel = self._selectors[text] = parse_selector(text)
        return sel

    def pods_matching(self, *, namespace: str | None = None, label: str | None = None, phase: str | None = None,
                      condition: str | None = None, node: str | None = None, status: str | None = None,
                      owner: str | None = None, deployment: str | None = None) -> builtins.list[dict[str, Any]]:
        sel = self.selector(label) if label else None
        owners = None
        if deployment is not None:
            # the pods of a Deployment: those its ReplicaSets own (what `kubectl get pods` of it shows)
            dns_, _, dname = _ref(deployment).rpartition("/")
            namespace = namespace or dns_ or "default"
            owners = {rs["metadata"]["name"] for rs in self._replicasets(namespace=namespace, deployment=dname)}
        out = []
        for p in self.list("pods"):
            meta, st = p["metadata"], p.get("status") or {}
            if namespace is not None and meta.get("namespace") != namespace:
                continue
            if sel is not None and not sel.matches(meta.get("labels") or {}):
                continue
            if phase is not None and st.get("phase") != phase:
                continue
            if condition is not None and not _cond(p, condition):
                continue
            if node is not None and (p.get("spec") or {}).get("nodeName") != node:
                continue
            if status is not None and pod_status(p) != status:
                continue
            if owner is not None and not any(
                    f"{r.get('kind', '').lower()}/{r.get('name')}" == owner.lower()
                    for r in meta.get("ownerReferences") or ()):
                continue
            if owners is not None and not any(r.get("kind") == "ReplicaSet" and r.get("controller")
                                              and r.get("name") in owners for r in meta.get("ownerReferences") or ()):
                continue
            out.append(p)
        # oldest first (then by name): `pods(deployment="web")[0]` is the same pod for every seed, though
        # its generated name is not
        out.sort(key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"].get("creationTimestamp") or "",
                                self._first_seen(p), p["metadata"]["name"]))
        return out

    def _first_seen(self, pod: Mapping[str, Any]) -> float:
        meta = pod["metadata"]
        tr = self.pods.get(f"{meta.get('namespace')}/{meta['name']}")
        return tr.created if tr is not None else 0.0

    def _replicasets(self, namespace: str | None = None, label: str | None = None, owner: str | None = None,
                     deployment: str | None = None) -> builtins.list[dict[str, Any]]:
        if deployment is not None:
            dns_, _, deployment = deployment.rpartition("/")
            namespace = namespace or dns_ or "default"
            owner = f"deployment/{deployment}"
        out = []
        for rs in self._simple("replicasets", namespace=namespace, label=label):
            if owner is not None and not any(f"{r.get('kind', '').lower()}/{r.get('name')}" == owner.lower()
                                             for r in rs["metadata"].get("ownerReferences") or ()):
                continue
            out.append(rs)
        return out

    def _slices(self, namespace: str | None = None, service: str | None = None) -> builtins.list[dict[str, Any]]:
        if service is not None:
            sns, _, service = service.rpartition("/")
            namespace = namespace or sns or "default"
            return self._simple("endpointslices", namespace=namespace, label=f"kubernetes.io/service-name={service}")
        return self._simple("endpointslices", namespace=namespace)

    def _endpoints(self, ref: str, ready: bool | None = True) -> builtins.list[str] | None:
        """The names of the pods behind Service ``ref``, as its EndpointSlices list them (each endpoint's
        targetRef, sorted; by default only those whose ``conditions.ready`` is true, as kube-proxy routes)."""
        ns, _, name = ref.rpartition("/")
        ns = ns or "default"
        if self.get("services", f"{ns}/{name}") is None:
            return None
        out = set()
        for sl in self._slices(namespace=ns, service=name):
            for ep in sl.get("endpoints") or ():
                if ready and (ep.get("conditions") or {}).get("ready") is False:
                    continue
                target = ep.get("targetRef") or {}
                if target.get("kind") == "Pod" and target.get("name"):
                    out.add(target["name"])
        return sorted(out)

    def _dns(self, name: str, namespace: str | None = None) -> builtins.list[str]:
        """A records of ``name`` from the cluster DNS (as a pod in ``namespace`` resolves it, with the
        search path); [] for NXDOMAIN."""
        net = self.network
        if net is None:
            raise ValueError("the cluster has no network (no cluster DNS)")
        return builtins.list(net.dns.resolve(name, namespace=namespace))

    def _traffic(self, ref: str) -> dict[str, Any] | None:
        """Totals of the traffic sent to Service ``ref``, with ``by_pod`` (answered requests per pod)."""
        ns, _, name = ref.rpartition("/")
        handles = self.traffic_handles().get(f"{ns or 'default'}/{name}")
        if not handles:
            return None
        sent = ok = 0
        by_pod: dict[str, int] = {}
        for h in handles:
            rep = h.report()
            sent += rep.sent
            ok += rep.succeeded
            for pod, k in rep.per_pod.items():
                by_pod[pod] = by_pod.get(pod, 0) + k
        return {"sent": sent, "succeeded": ok, "failed": sent - ok,
                "success_rate": round(ok / sent, 6) if sent else None, "by_pod": dict(sorted(by_pod.items()))}

    # --- the expression environment ---
    def call(self, name: str, args: builtins.list[Any], kwargs: dict[str, Any]) -> Any:
        if name in KIND_RESOURCES:
            return self.get(KIND_RESOURCES[name], _ref(args[0]))
        if name in ("object", "objects"):
            kind = kind_of(str(args[0]))
            if kind not in KIND_RESOURCES:
                raise ValueError(f"unknown kind {args[0]!r} (one of: {', '.join(sorted(KIND_RESOURCES))})")
            if name == "objects":
                return self._simple(KIND_RESOURCES[kind], **kwargs)
            return self.get(KIND_RESOURCES[kind], _ref(args[1]))
        if name == "pods":
            return self.pods_matching(**{k: None if v is None else str(v) for k, v in kwargs.items()})
        if name == "nodes":
            return self._nodes(**kwargs)
        if name in ("deployments", "jobs"):
            return self._simple(name, **kwargs)
        if name == "replicasets":
            return self._replicasets(**kwargs)
        if name == "endpointslices":
            return self._slices(**kwargs)
        if name == "endpoints":
            return self._endpoints(_ref(args[0]), **kwargs)
        if name == "dns":
            return self._dns(_ref(args[0]), **kwargs)
        if name == "traffic":
            return self._traffic(_ref(args[0]))
        if name == "events":
            return self._events(**kwargs)
        if name == "status":
            pod = self.get("pods", args[0]) if isinstance(args[0], str) else args[0]
            return None if pod is None else pod_status(pod)
        if name == "diagnosis":
            ref = _ref(args[0])
            ns, _, pod = ref.rpartition("/")
            if self._diagnose is None:
                return None
            text: str = self._diagnose(self, ns or "default", pod)
            return text
        raise ValueError(f"unknown function {name!r}")

    def _nodes(self, label: str | None = None, condition: str | None = None,
               unschedulable: bool | None = None) -> builtins.list[dict[str, Any]]:
        sel = self.selector(label) if label else None
        out = []
        for n in self.list("nodes"):
            if sel is not None and not sel.matches(n["metadata"].get("labels") or {}):
                continue
            if condition is not None and not _cond(n, condition):
                continue
            if unschedulable is not None and bool((n.get("spec") or {}).get("unschedulable")) != unschedulable:
                continue
            out.append(n)
        return sorted(out, key=lambda n: n["metadata"]["name"])

    def _simple(self, resource: str, namespace: str | None = None, label: str | None = None) -> builtins.list[dict[str, Any]]:
        sel = self.selector(label) if label else None
        out = [o for o in self.list(resource)
               if (namespace is None or o["metadata"].get("namespace") == namespace)
               and (sel is None or sel.matches(o["metadata"].get("labels") or {}))]
        return sorted(out, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))

    def _events(self, reason: str | None = None, type: str | None = None, object: str | None = None,
                namespace: str | None = None) -> builtins.list[dict[str, Any]]:
        out = []
        for e in self.event_records():
            if reason is not None and e.reason != reason:
                continue
            if type is not None and e.type != type:
                continue
            if namespace is not None and e.namespace != namespace:
                continue
            if object is not None and not _same_object(e.object, object):
                continue
            out.append({"time": e.time, "type": e.type, "reason": e.reason, "object": e.object,
                        "message": e.message, "count": e.count, "source": e.source})
        return out


def _ref(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"expects a name such as \"default/web\", not {v!r}")
    return v


def _same_object(recorded: str, wanted: str) -> bool:
    """``wanted`` as kubectl names objects: ``pod/web`` (namespace default), ``pod/ns/web`` or ``node/n1``."""
    kind, _, rest = wanted.partition("/")
    rkind, _, rrest = recorded.partition("/")
    if kind_of(kind) != kind_of(rkind):
        return False
    if "/" in rrest and "/" not in rest:
        rest = "default/" + rest
    return rest == rrest


def virtual_seconds(cluster: Any) -> float:
    return float(cluster.clock.now() - EPOCH)
