"""The EndpointSlice controller: one set of EndpointSlices per selector Service, following its pods.

Follows ``pkg/controller/endpointslice/endpointslice_controller.go`` (``syncService``, ``onPodUpdate``
via ``GetPodServiceMemberships`` and ``podEndpointChanged``) and the staging reconciler
``k8s.io/endpointslice/reconciler.go`` (``reconcile``, ``reconcileByPortMapping``, ``finalize``) with
``utils.go`` (``podToEndpoint``, ``getEndpointPorts``, ``newEndpointSlice``, ``getSliceToFill``).

Contract:
- For every Service with a selector (and not ExternalName) the controller keeps EndpointSlices named
  ``<service>-<5 random>`` (``generateName``), labelled ``kubernetes.io/service-name`` and
  ``endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`` (plus the Service's own
  labels), controller-owned by the Service (the garbage collector deletes them with it), addressType
  IPv4, holding one endpoint per pod that matches the selector, has an IP and is not terminal.
- Endpoint conditions, as upstream: ``serving`` = the pod's Ready condition; ``terminating`` =
  ``deletionTimestamp`` set; ``ready`` = serving and not terminating (always true with
  ``publishNotReadyAddresses``). ``nodeName``, ``zone`` (the node's ``topology.kubernetes.io/zone``),
  ``targetRef`` and ``hostname`` (pod hostname+subdomain matching the Service) are set.
- Ports come from each service port's ``targetPort`` (a number, or a named container port; a pod
  without that name simply lacks the port). Pods with different resolved ports go to different slices.
- At most ``max_endpoints_per_slice`` (100) endpoints per slice. Churn is minimal: an endpoint stays in
  its slice; changed slices are refilled before any untouched slice is touched; new slices only when
  nothing fits (upstream's three-step ``reconcileByPortMapping``). A Service with no endpoints keeps one
  empty placeholder slice.
- Stale cache: slices written by this controller are remembered by resourceVersion (upstream's
  ``EndpointSliceTracker``); a reconcile that would act on an older cached copy is retried later
  instead of writing duplicates. Concurrent workers never reconcile the same Service at once (workqueue).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from kubelite.api.types import Node, Pod, Service
from kubelite.controllers.controller_utils import owner_reference
from kubelite.controllers.handler import unwrap
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.podutil import is_pod_ready
from kubelite.controllers.predicate import Funcs
from kubelite.controllers.reconcile import Request, Result, TransientError
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.informer import Lister

__all__ = [
    "LABEL_MANAGED_BY",
    "LABEL_SERVICE_NAME",
    "MANAGED_BY",
    "MAX_ENDPOINTS_PER_SLICE",
    "NAME",
    "EndpointSliceReconciler",
    "pod_hostname",
    "pod_to_endpoint",
    "register",
    "should_pod_be_in_endpoints",
]

NAME = "endpointslice"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"max_endpoints_per_slice", "workers"})
MANAGED_BY = "endpointslice-controller.k8s.io"
LABEL_SERVICE_NAME = "kubernetes.io/service-name"
LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
LABEL_HEADLESS = "service.kubernetes.io/headless"
LABEL_ZONE = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
#: upstream ConcurrentServiceEndpointSyncs default
WORKERS = 5

Obj = dict[str, Any]
PortKey = tuple[tuple[str, int, str, str], ...]


class StaleInformerCacheError(TransientError):
    """The cache lags behind what this controller wrote (upstream ``StaleInformerCache``): retry later.

    Part of normal operation, not an error: a pod event right after the controller wrote a slice finds the
    slice informer one event behind. Upstream's ``syncService`` returns it and ``handleErr`` logs the retry
    at Info ("Error syncing endpoint slices for service, retrying"; ``trackSync`` counts it as "stale",
    apart from "error"), so it is logged at INFO here."""

    log_level = "info"


# --- pure helpers (podToEndpoint, getEndpointPorts, ShouldPodBeInEndpoints) ---
def should_pod_be_in_endpoints(pod: Pod, include_terminating: bool) -> bool:
    """``endpointutil.ShouldPodBeInEndpoints``: not terminal (``podutil.IsPodTerminal``: Failed or Succeeded,
    whatever its restart policy), has an IP, and not terminating unless that is allowed. The EndpointSlice
    controller includes terminating pods; the Endpoints controller only when the Service publishes not-ready
    addresses."""
    st = pod.status
    if st is None or st.phase in ("Failed", "Succeeded"):
        return False
    if not (st.pod_ip or st.pod_ips):
        return False
    return include_terminating or pod.metadata is None or pod.metadata.deletion_timestamp is None


def pod_hostname(pod: Pod, svc: Service) -> str | None:
    """``ShouldSetHostname``: the pod's hostname when its subdomain is the Service's name in its namespace."""
    meta, spec, svc_meta = pod.metadata, pod.spec, svc.metadata
    if (spec is not None and spec.hostname and meta is not None and svc_meta is not None
            and spec.subdomain == svc_meta.name and meta.namespace == svc_meta.namespace):
        return spec.hostname
    return None


def find_port(pod: Pod, target: Any, protocol: str) -> int | None:
    """``podutil.FindPort``: a number is itself; a name is looked up among the containers' ports."""
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    for c in (pod.spec.containers if pod.spec is not None else None) or ():
        for p in c.ports or ():
            if p.name == target and (p.protocol or "TCP") == protocol:
                return p.container_port
    return None


def endpoint_ports(svc: Service, pod: Pod) -> list[Obj]:
    out: list[Obj] = []
    for sp in (svc.spec.ports if svc.spec is not None else None) or ():
        proto = sp.protocol or "TCP"
        num = find_port(pod, sp.target_port if sp.target_port is not None else sp.port, proto)
        if num is None:
            continue
        port: Obj = {"name": sp.name or "", "port": num, "protocol": proto}
        if sp.app_protocol:
            port["appProtocol"] = sp.app_protocol
        out.append(port)
    return out


def _port_key(ports: list[Obj]) -> PortKey:
    return tuple(sorted((p["name"], p["port"], p["protocol"], p.get("appProtocol", "")) for p in ports))


def pod_to_endpoint(pod: Pod, svc: Service, zone: str | None) -> Obj:
    """``podToEndpoint``: the endpoint dict for one pod (IPv4 addresses)."""
    meta, spec, st = pod.metadata, pod.spec, pod.status
    assert meta is not None and st is not None
    serving = is_pod_ready(pod)
    terminating = meta.deletion_timestamp is not None
    publish = bool(svc.spec is not None and svc.spec.publish_not_ready_addresses)
    ip = st.pod_ip or (st.pod_ips[0].ip if st.pod_ips else "")
    ep: Obj = {
        "addresses": [ip],
        "conditions": {"ready": publish or (serving and not terminating), "serving": serving,
                       "terminating": terminating},
        "targetRef": {"kind": "Pod", "namespace": meta.namespace, "name": meta.name, "uid": meta.uid},
    }
    node_name = spec.node_name if spec is not None else None
    if node_name:
        ep["nodeName"] = node_name
    if zone:
        ep["zone"] = zone
    hostname = pod_hostname(pod, svc)
    if hostname:
        ep["hostname"] = hostname
    return ep


def _ep_key(ep: Obj) -> tuple[str, str]:
    ref = ep.get("targetRef") or {}
    addrs = ep.get("addresses") or ("",)
    return (ref.get("uid") or f"{ref.get('namespace')}/{ref.get('name')}", addrs[0])


def _selector_matches(selector: dict[str, str], labels: dict[str, str] | None) -> bool:
    if not labels:
        return not selector
    return all(labels.get(k) == v for k, v in selector.items())


def _headless(svc: Service) -> bool:
    spec = svc.spec
    return spec is not None and spec.cluster_ip == "None"


def _pod_endpoint_changed(old: Pod, new: Pod) -> bool:
    """``podEndpointChanged`` plus labels: does this pod update matter to any slice?"""
    om, nm = old.metadata, new.metadata
    if om is None or nm is None:
        return True
    if om.labels != nm.labels or (om.deletion_timestamp is None) != (nm.deletion_timestamp is None):
        return True
    os_, ns_ = old.status, new.status
    o_ip = os_.pod_ip if os_ is not None else None
    n_ip = ns_.pod_ip if ns_ is not None else None
    if o_ip != n_ip or is_pod_ready(old) != is_pod_ready(new):
        return True
    if (os_.phase if os_ is not None else None) != (ns_.phase if ns_ is not None else None):
        return True
    osp, nsp = old.spec, new.spec
    return (osp.node_name if osp else None) != (nsp.node_name if nsp else None)


def _pod_services(services: Lister[Service]) -> Any:
    """Pod events → the Services whose selector matches (old and new labels), ``GetPodServiceMemberships``."""
    def requests(pod: Any) -> Iterable[Request]:
        meta = pod.metadata
        if meta is None:
            return ()
        ns = meta.namespace or ""
        out = []
        for svc in services.namespace(ns).list():
            sel = svc.spec.selector if svc.spec is not None else None
            if sel is not None and svc.metadata is not None and _selector_matches(sel, meta.labels):
                out.append(Request(ns, svc.metadata.name or ""))
        return out
    return requests


def _service_of_slice(obj: Any) -> Iterable[Request]:
    meta = unwrap(obj).get("metadata") or {}
    labels = meta.get("labels") or {}
    if labels.get(LABEL_MANAGED_BY) != MANAGED_BY or not labels.get(LABEL_SERVICE_NAME):
        return ()
    return (Request(meta.get("namespace") or "", labels[LABEL_SERVICE_NAME]),)


class EndpointSliceReconciler:
    """``syncService`` + the staging reconciler. See the module docstring."""

    def __init__(self, ctx: ControllerContext, *, max_endpoints_per_slice: int = MAX_ENDPOINTS_PER_SLICE) -> None:
        self.client = ctx.client
        self.recorder = ctx.recorder("endpoint-slice-controller")
        self.max = max_endpoints_per_slice
        self.services: Lister[Service] = ctx.informers.lister_for(Service)
        self.pods: Lister[Pod] = ctx.informers.lister_for(Pod)
        self.nodes: Lister[Node] = ctx.informers.lister_for(Node)
        self.slices: Lister[Obj] = ctx.informers.lister_for("endpointslices")
        # service key -> slice name -> resourceVersion we wrote (None: we deleted it)
        self._tracker: dict[Request, dict[str, int | None]] = {}

    # --- tracker (EndpointSliceTracker.StaleSlices) ---
    def _check_fresh(self, req: Request, cached: dict[str, Obj]) -> None:
        written = self._tracker.get(req)
        if not written:
            return
        for name, rv in list(written.items()):
            have = cached.get(name)
            if rv is None:
                if have is not None:
                    raise StaleInformerCacheError(f"EndpointSlice {name} is still in the cache after deletion")
            elif have is None or int(have["metadata"].get("resourceVersion") or 0) < rv:
                raise StaleInformerCacheError(f"EndpointSlice {name} in the cache is older than written")
            del written[name]  # the cache has caught up with this write
        if not written:
            del self._tracker[req]

    def _track(self, req: Request, name: str, rv: int | None) -> None:
        self._tracker.setdefault(req, {})[name] = rv

    # --- reconcile ---
    async def reconcile(self, req: Request) -> Result | None:
        try:
            svc = self.services.namespace(req.namespace).get(req.name)
        except NotFound:
            self._tracker.pop(req, None)  # the garbage collector deletes the slices with their owner
            return None
        spec = svc.spec
        if spec is None or spec.selector is None or spec.type == "ExternalName":
            return None
        existing = {}
        for s in self.slices.namespace(req.namespace).list():
            labels = s["metadata"].get("labels") or {}
            if labels.get(LABEL_SERVICE_NAME) == req.name and labels.get(LABEL_MANAGED_BY) == MANAGED_BY:
                existing[s["metadata"]["name"]] = s
        self._check_fresh(req, existing)
        desired, missing_node = self._desired(svc)
        creates, updates, deletes = self._plan(svc, list(existing.values()), desired)
        try:
            await self._apply(req, creates, updates, deletes)
        except Conflict:
            raise
        except ApiError as e:
            self.recorder.event(svc, "Warning", "FailedToUpdateEndpointSlices",
                                f"Error updating Endpoint Slices for Service {req}: {e.message}")
            raise
        if missing_node:
            # upstream's reconciler returns an error for pods on missing nodes (retried with backoff)
            raise NotFound.make(f"skipping pods of Service {req}: their Node was not found", kind="nodes")
        return None

    def _desired(self, svc: Service) -> tuple[dict[PortKey, tuple[list[Obj], dict[tuple[str, str], Obj]]], bool]:
        """Desired endpoints grouped by resolved ports; whether a pod's node was missing."""
        meta, spec = svc.metadata, svc.spec
        assert meta is not None and spec is not None
        selector = spec.selector or {}
        publish = bool(spec.publish_not_ready_addresses)
        out: dict[PortKey, tuple[list[Obj], dict[tuple[str, str], Obj]]] = {}
        zones: dict[str, str | None] = {}
        missing = False
        for pod in self.pods.namespace(meta.namespace or "").list():
            pm = pod.metadata
            if pm is None or not _selector_matches(selector, pm.labels) or not should_pod_be_in_endpoints(pod, True):
                continue
            node_name = pod.spec.node_name if pod.spec is not None else None
            zone = None
            if node_name:
                if node_name not in zones:
                    try:
                        node = self.nodes.get(node_name)
                        zones[node_name] = ((node.metadata.labels or {}).get(LABEL_ZONE)
                                            if node.metadata is not None else None)
                    except NotFound:
                        zones[node_name] = None
                        if not publish:
                            missing = True
                            continue
                zone = zones[node_name]
            ports = endpoint_ports(svc, pod)
            key = _port_key(ports)
            group = out.get(key)
            if group is None:
                group = out[key] = (ports, {})
            ep = pod_to_endpoint(pod, svc, zone)
            group[1][_ep_key(ep)] = ep
        return out, missing

    def _new_slice(self, svc: Service, ports: list[Obj]) -> Obj:
        """``newEndpointSlice``."""
        meta = svc.metadata
        assert meta is not None
        return {
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {
                "generateName": f"{meta.name}-", "namespace": meta.namespace, "labels": self._labels(svc),
                "ownerReferences": [owner_reference(svc)],
            },
            "addressType": "IPv4", "endpoints": [], "ports": ports,
        }

    @staticmethod
    def _labels(svc: Service) -> dict[str, str]:
        """``setEndpointSliceLabels``: the Service's labels, headless marker, then ours."""
        meta = svc.metadata
        assert meta is not None
        labels = {k: v for k, v in (meta.labels or {}).items() if k not in (LABEL_SERVICE_NAME, LABEL_MANAGED_BY)}
        if _headless(svc):
            labels[LABEL_HEADLESS] = ""
        labels[LABEL_SERVICE_NAME] = meta.name or ""
        labels[LABEL_MANAGED_BY] = MANAGED_BY
        return labels

    def _plan(
        self, svc: Service, existing: list[Obj], desired: dict[PortKey, tuple[list[Obj], dict[tuple[str, str], Obj]]],
    ) -> tuple[list[Obj], list[Obj], list[Obj]]:
        """``reconcile``: slices to create, update (private copies) and delete."""
        labels = self._labels(svc)
        by_ports: dict[PortKey, list[Obj]] = {}
        deletes: list[Obj] = []
        for s in existing:
            if s.get("addressType") != "IPv4":
                deletes.append(s)
                continue
            by_ports.setdefault(_port_key(list(s.get("ports") or ())), []).append(s)
        creates: list[Obj] = []
        updates: list[Obj] = []
        for key, (ports, eps) in desired.items():
            c, u, d = self._by_port_mapping(svc, labels, by_ports.pop(key, []), ports, eps)
            creates += c
            updates += u
            deletes += d
        for slices in by_ports.values():  # port mappings no pod has any more
            deletes += slices
        if len(deletes) == len(existing) and not creates:
            placeholder = self._new_slice(svc, [])
            placeholder["ports"] = None
            if (len(deletes) == 1 and not deletes[0].get("endpoints") and not deletes[0].get("ports")
                    and (deletes[0]["metadata"].get("labels") or {}) == labels):
                deletes = []  # the placeholder already exists
            else:
                creates.append(placeholder)
        # finalize: reuse slices about to be deleted for creates
        while creates and deletes:
            victim = deletes.pop()
            new = creates.pop()
            new["metadata"] = dict(victim["metadata"], labels=labels)
            updates.append(new)
        return creates, updates, deletes

    def _by_port_mapping(
        self, svc: Service, labels: dict[str, str], existing: list[Obj], ports: list[Obj],
        desired: dict[tuple[str, str], Obj],
    ) -> tuple[list[Obj], list[Obj], list[Obj]]:
        """``reconcileByPortMapping``: keep endpoints in place, fill changed slices, then create."""
        desired = dict(desired)
        to_update: list[Obj] = []
        unchanged: list[Obj] = []
        deletes: list[Obj] = []
        # 1. existing slices: drop endpoints no longer desired, refresh changed ones
        for s in existing:
            changed = (s["metadata"].get("labels") or {}) != labels
            kept: list[Obj] = []
            for ep in s.get("endpoints") or ():
                want = desired.pop(_ep_key(ep), None)
                if want is None:
                    changed = True
                    continue
                if want != ep:
                    changed = True
                kept.append(want)
            if not kept:
                deletes.append(s)
            elif changed:
                copy = dict(s, endpoints=kept, metadata=dict(s["metadata"], labels=labels))
                to_update.append(copy)
            else:
                unchanged.append(s)
        pending = list(desired.values())
        # 2. fill the slices that change anyway, fullest first
        if pending and to_update:
            for s in sorted(to_update, key=lambda x: -len(x["endpoints"])):
                room = self.max - len(s["endpoints"])
                if room > 0:
                    s["endpoints"] = s["endpoints"] + pending[:room]
                    pending = pending[room:]
        # 3. the rest: one untouched slice that fits them all, else new slices
        creates: list[Obj] = []
        while pending:
            target: Obj | None = None
            if len(pending) < self.max and unchanged:
                best = None
                for s in unchanged:
                    n = len(s.get("endpoints") or ())
                    if n + len(pending) <= self.max and (best is None or n > len(best.get("endpoints") or ())):
                        best = s
                if best is not None:
                    unchanged.remove(best)
                    target = dict(best, endpoints=list(best.get("endpoints") or ()))
                    to_update.append(target)
            if target is None:
                target = self._new_slice(svc, ports)
                creates.append(target)
            room = self.max - len(target["endpoints"])
            target["endpoints"] = target["endpoints"] + pending[:room]
            pending = pending[room:]
        return creates, to_update, deletes

    async def _apply(self, req: Request, creates: list[Obj], updates: list[Obj], deletes: list[Obj]) -> None:
        client = self.client
        for s in creates:
            got = await client.create(s)
            m = got["metadata"]
            self._track(req, m["name"], int(m["resourceVersion"]))
        for s in updates:
            got = await client.replace(s)
            m = got["metadata"]
            self._track(req, m["name"], int(m["resourceVersion"]))
        for s in deletes:
            name = s["metadata"]["name"]
            with contextlib.suppress(NotFound):
                await client.delete("endpointslices", name, namespace=req.namespace)
            self._track(req, name, None)


def register(ctx: ControllerContext) -> None:
    max_eps = int(ctx.option(NAME, "max_endpoints_per_slice", MAX_ENDPOINTS_PER_SLICE))
    reconciler = EndpointSliceReconciler(ctx, max_endpoints_per_slice=max_eps)
    (ctx.manager.controller(NAME)
        .for_(Service)
        .watches(Pod, _pod_services(reconciler.services), Funcs(update=_pod_endpoint_changed))
        .watches("endpointslices", _service_of_slice)
        .waits_for(Node)  # the zone lister reads it; a node event enqueues nothing
        .with_max_concurrent_reconciles(int(ctx.option(NAME, "workers", WORKERS)))
        .complete(reconciler))
