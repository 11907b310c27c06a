"""The Endpoints controller: one core/v1 Endpoints per selector Service, following its pods.

Follows ``pkg/controller/endpoint/endpoints_controller.go`` (``syncService``, ``addEndpointSubset``,
``truncateEndpoints``, ``onEndpointsDelete``), ``pkg/api/v1/endpoints`` (``RepackSubsets``) and
``pkg/controller/util/endpoint`` (``ShouldPodBeInEndpoints``, ``TriggerTimeTracker``). It runs beside the
EndpointSlice controller (:mod:`kubelite.controllers.endpointslice`), as kube-controller-manager runs both; the
two read the same Services and pods and write different kinds.

Contract:
- A deleted Service's Endpoints of the same name are deleted. A Service without a selector, or of type
  ExternalName, is left alone: its Endpoints are the user's (or the apiserver's, ``default/kubernetes``).
- Pods matching the selector are in if they are not terminal, have an IP and, unless the Service has
  ``publishNotReadyAddresses``, are not terminating. Each is an address (``ip``, ``nodeName``, a ``targetRef``
  to the pod, ``hostname`` when the pod's ``subdomain`` is the Service's name) under ``addresses`` when the pod
  is Ready or the Service publishes not-ready addresses, else under ``notReadyAddresses``, once per service port
  its ``targetPort`` resolves on (a named port the pod lacks leaves that port out; a headless Service without
  ports still lists the address). The subsets are repacked: addresses offering the same ports share a subset,
  sorted by IP (upstream sorts ports and subsets by hash; here by name/port and by first address, both
  deterministic).
- Labels are the Service's, plus ``endpoints.kubernetes.io/managed-by: endpoint-controller`` (1.33+) and
  ``service.kubernetes.io/headless`` for a Service without a ClusterIP.
  ``endpoints.kubernetes.io/last-change-trigger-time`` is the earliest pod Ready transition or Service creation
  that changed since the previous sync (absent on a Service's first sync after a start). More than 1,000
  addresses are truncated to 1,000, ready ones first, with ``endpoints.kubernetes.io/over-capacity: truncated``.
- Nothing is written when the subsets, the labels and the capacity annotation are unchanged. A deleted
  Endpoints of a selector Service is recreated (its deletion enqueues the Service).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from kubelite.api.types import Pod, Service
from kubelite.clock import parse_time
from kubelite.controllers.endpointslice import (
    _pod_endpoint_changed,
    _pod_services,
    _selector_matches,
    find_port,
    pod_hostname,
    should_pod_be_in_endpoints,
)
from kubelite.controllers.handler import unwrap
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.podutil import is_pod_ready
from kubelite.controllers.predicate import Funcs
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.informer import Lister

__all__ = ["CONTROLLER_NAME", "LAST_CHANGE_TRIGGER_TIME", "MANAGED_BY", "MAX_CAPACITY", "NAME", "OVER_CAPACITY", "EndpointsController",
           "repack_subsets", "register", "should_pod_be_in_endpoints"]

NAME = "endpoint"
#: the keys ``controller_options[NAME]`` may hold
OPTIONS = frozenset({"workers"})
#: upstream ConcurrentEndpointSyncs default
WORKERS = 5
MAX_CAPACITY = 1000
OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"
LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
HEADLESS = "service.kubernetes.io/headless"
#: ``LabelManagedBy`` = ``ControllerName`` (1.33+): the Endpoints this controller writes say so
MANAGED_BY, CONTROLLER_NAME = "endpoints.kubernetes.io/managed-by", "endpoint-controller"

Obj = dict[str, Any]


def _address(pod: Pod, svc: Service) -> Obj:
    """``podToEndpointAddressForService`` (+ ``ShouldSetHostname``)."""
    meta, spec, st = pod.metadata, pod.spec, pod.status
    assert meta is not None and st is not None
    addr: Obj = {"ip": st.pod_ip or (st.pod_ips[0].ip if st.pod_ips else "")}
    hostname = pod_hostname(pod, svc)
    if hostname:
        addr["hostname"] = hostname
    if spec is not None and spec.node_name:
        addr["nodeName"] = spec.node_name
    addr["targetRef"] = {"kind": "Pod", "namespace": meta.namespace, "name": meta.name, "uid": meta.uid}
    return addr


def _port_tuple(port: Obj | None) -> tuple[str, int, str, str]:
    if port is None:
        return ("", -1, "", "")  # RepackSubsets' sentinel for addresses offering no port
    return (port.get("name", ""), port["port"], port.get("protocol", "TCP"), port.get("appProtocol", ""))


def repack_subsets(entries: Iterable[tuple[Obj, Obj | None, bool]]) -> list[Obj]:
    """``RepackSubsets`` of one (address, port or None, ready) per pod and port: addresses offering the same set
    of ports share one subset; an address ready on a port stays ready there (ready wins)."""
    addrs: dict[tuple[str, str], Obj] = {}
    by_port: dict[tuple[str, int, str, str], dict[tuple[str, str], bool]] = {}
    port_objs: dict[tuple[str, int, str, str], Obj] = {}
    for addr, port, ready in entries:
        key = (addr["ip"], (addr.get("targetRef") or {}).get("uid") or "")
        addrs.setdefault(key, addr)
        pk = _port_tuple(port)
        if port is not None:
            port_objs[pk] = port
        seen = by_port.setdefault(pk, {})
        seen[key] = seen.get(key, False) or ready
    groups: dict[tuple[tuple[tuple[str, str], bool], ...], list[tuple[str, int, str, str]]] = {}
    for pk, members in by_port.items():
        groups.setdefault(tuple(sorted(members.items())), []).append(pk)
    out: list[Obj] = []
    for members_key, pks in sorted(groups.items()):
        subset: Obj = {}
        ready_addrs = [addrs[k] for k, r in members_key if r]
        not_ready = [addrs[k] for k, r in members_key if not r]
        if ready_addrs:
            subset["addresses"] = ready_addrs
        if not_ready:
            subset["notReadyAddresses"] = not_ready
        ports = [port_objs[pk] for pk in sorted(pks) if pk[1] >= 0]
        if ports:
            subset["ports"] = ports
        out.append(subset)
    return out


def _truncate(subsets: list[Obj]) -> bool:
    """``truncateEndpoints``, simplified: keep at most MAX_CAPACITY addresses, ready ones first; True if cut."""
    total = sum(len(s.get("addresses", ())) + len(s.get("notReadyAddresses", ())) for s in subsets)
    if total <= MAX_CAPACITY:
        return False
    room = MAX_CAPACITY
    for field in ("addresses", "notReadyAddresses"):
        for s in subsets:
            have = s.get(field)
            if have:
                s[field] = have[:room]
                room -= len(s[field])
                if not s[field]:
                    del s[field]
    subsets[:] = [s for s in subsets if s.get("addresses") or s.get("notReadyAddresses")]
    return True


class _TriggerTimes:
    """``TriggerTimeTracker``: per Service, the trigger times seen at the previous sync."""

    def __init__(self) -> None:
        self._states: dict[Request, tuple[str, dict[str, str]]] = {}

    def compute(self, req: Request, svc: Service, pods: list[Pod]) -> str:
        """The earliest trigger time that changed since the last sync ("" for none, or a first sync)."""
        last = self._states.get(req)
        last_svc, last_pods = last if last is not None else ("", {})
        changed: list[str] = []
        now_pods: dict[str, str] = {}
        for pod in pods:
            cond = next((c for c in (pod.status.conditions if pod.status else None) or () if c.type == "Ready"), None)
            t = cond.last_transition_time if cond is not None else None
            if t and pod.metadata is not None:
                now_pods[pod.metadata.name or ""] = t
                prev = last_pods.get(pod.metadata.name or "")
                if prev is None or parse_time(t) > parse_time(prev):
                    changed.append(t)
        svc_t = (svc.metadata.creation_timestamp if svc.metadata else None) or ""
        if svc_t and (not last_svc or parse_time(svc_t) > parse_time(last_svc)):
            changed.append(svc_t)
        self._states[req] = (svc_t, now_pods)
        if last is None or not changed:
            return ""
        return min(changed, key=parse_time)

    def delete(self, req: Request) -> None:
        self._states.pop(req, None)


def _endpoints_requests(obj: Any) -> Iterable[Request]:
    meta = unwrap(obj).get("metadata") or {}
    return (Request(meta.get("namespace") or "", meta.get("name") or ""),)


class EndpointsController:
    """``syncService``. See the module docstring."""

    def __init__(self, ctx: ControllerContext) -> None:
        self.client = ctx.client
        self.recorder = ctx.recorder("endpoint-controller")
        self.services: Lister[Service] = ctx.informers.lister_for(Service)
        self.pods: Lister[Pod] = ctx.informers.lister_for(Pod)
        self.endpoints: Lister[Obj] = ctx.informers.lister_for("endpoints")
        self.trigger_times = _TriggerTimes()

    async def reconcile(self, req: Request) -> Result | None:
        try:
            svc = self.services.namespace(req.namespace).get(req.name)
        except NotFound:
            # the Service is gone: so are its Endpoints
            with contextlib.suppress(NotFound):
                await self.client.delete("endpoints", req.name, namespace=req.namespace)
            self.trigger_times.delete(req)
            return None
        spec = svc.spec
        if spec is None or spec.selector is None or spec.type == "ExternalName":
            return None
        selector = dict(spec.selector)
        pods = [p for p in self.pods.namespace(req.namespace).list()
                if p.metadata is not None and _selector_matches(selector, p.metadata.labels)]
        publish = bool(spec.publish_not_ready_addresses)
        entries: list[tuple[Obj, Obj | None, bool]] = []
        for pod in pods:
            if not should_pod_be_in_endpoints(pod, publish):
                continue
            addr = _address(pod, svc)
            ready = publish or is_pod_ready(pod)
            if not spec.ports:
                if spec.cluster_ip == "None":  # a headless Service may have no ports
                    entries.append((addr, None, ready))
                continue
            for sp in spec.ports:
                proto = sp.protocol or "TCP"
                num = find_port(pod, sp.target_port if sp.target_port is not None else sp.port, proto)
                if num is None:
                    continue  # "Failed to find port for service"
                port: Obj = {"name": sp.name or "", "port": num, "protocol": proto}
                if not port["name"]:
                    del port["name"]
                if sp.app_protocol:
                    port["appProtocol"] = sp.app_protocol
                entries.append((addr, port, ready))
        subsets = repack_subsets(entries)
        truncated = _truncate(subsets)
        trigger = self.trigger_times.compute(req, svc, pods)
        labels = dict(svc.metadata.labels or {}) if svc.metadata is not None else {}
        try:
            current: Obj | None = self.endpoints.namespace(req.namespace).get(req.name)
        except NotFound:
            current = None
        if current is not None:
            cur_labels = dict(current["metadata"].get("labels") or {})
            cur_labels.pop(HEADLESS, None)
            cur_labels.pop(MANAGED_BY, None)
            cur_annotations = current["metadata"].get("annotations") or {}
            if (current.get("subsets") or []) == subsets and cur_labels == labels and (
                    (cur_annotations.get(OVER_CAPACITY) == "truncated") == truncated):
                return None  # up to date
        labels[MANAGED_BY] = CONTROLLER_NAME
        if not spec.cluster_ip or spec.cluster_ip == "None":
            labels[HEADLESS] = ""
        annotations = dict(current["metadata"].get("annotations") or {}) if current is not None else {}
        annotations.pop(LAST_CHANGE_TRIGGER_TIME, None)
        if trigger:
            annotations[LAST_CHANGE_TRIGGER_TIME] = trigger
        annotations.pop(OVER_CAPACITY, None)
        if truncated:
            annotations[OVER_CAPACITY] = "truncated"
        meta: Obj = {"name": req.name, "namespace": req.namespace}
        if labels:
            meta["labels"] = labels
        if annotations:
            meta["annotations"] = annotations
        body: Obj = {"apiVersion": "v1", "kind": "Endpoints", "metadata": meta}
        if subsets:
            body["subsets"] = subsets
        try:
            if current is None:
                await self.client.create(body)
            else:
                meta["resourceVersion"] = current["metadata"].get("resourceVersion")
                await self.client.replace(body)
        except (Conflict, NotFound):
            raise  # a stale cache or a race: retried with backoff
        except ApiError as e:
            verb = "create" if current is None else "update"
            self.recorder.event(svc, "Warning", f"Failed{verb.capitalize()}Endpoint" if verb == "create"
                                else "FailedToUpdateEndpoint", f"Failed to {verb} endpoint {req}: {e.message}")
            raise
        return None


def register(ctx: ControllerContext) -> None:
    ctrl = EndpointsController(ctx)
    (ctx.manager.controller("endpoint-controller")
        .for_(Service)
        .watches(Pod, _pod_services(ctrl.services), Funcs(update=_pod_endpoint_changed))
        # onEndpointsDelete: a deleted Endpoints of a selector Service is put back
        .watches("endpoints", _endpoints_requests, Funcs(create=lambda _o: False, update=lambda _o, _n: False))
        .with_max_concurrent_reconciles(int(ctx.option(NAME, "workers", WORKERS)))
        .complete(ctrl))
