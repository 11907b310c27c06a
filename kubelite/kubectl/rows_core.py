"""``kubectl get`` rows for core, discovery, storage and config kinds.

Each function follows the same-named ``print*`` in ``pkg/printers/internalversion/printers.go``:
``printPod``, ``printNode``, ``printNamespace``, ``printService``, ``printEndpoints``, ``printEndpointSlice``, ``printComponentStatus``, ``printEvent``,
``printPersistentVolumeClaim``, ``printPersistentVolume``, ``printConfigMap``, ``printSecret``. A row
function takes the object (a dict as the API returns it), the virtual ``now`` and ``wide`` and returns the
cells; it never mutates the object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.kubectl.status import format_labels, node_roles, node_status, pod_summary
from kubelite.kubectl.timefmt import since

__all__ = ["ROWS"]

Obj = Mapping[str, Any]


def _meta(o: Obj) -> Obj:
    return o.get("metadata") or {}


def _age(o: Obj, now: float) -> str:
    return since(_meta(o).get("creationTimestamp"), now)


def pod_row(p: Obj, now: float, wide: bool) -> list[str]:
    s = pod_summary(p)
    restarts = str(s.restarts)
    if s.restarts and s.last_restart:
        restarts = f"{s.restarts} ({since(s.last_restart, now)} ago)"
    row = [str(_meta(p).get("name", "")), f"{s.ready}/{s.total}", s.reason, restarts, _age(p, now)]
    if wide:
        st, spec = p.get("status") or {}, p.get("spec") or {}
        ips = st.get("podIPs") or ()
        gates = spec.get("readinessGates") or ()
        gate_text = "<none>"
        if gates:
            conds = {c.get("type"): c.get("status") for c in st.get("conditions") or ()}
            gate_text = f"{sum(1 for g in gates if conds.get(g.get('conditionType')) == 'True')}/{len(gates)}"
        row += [(ips[0].get("ip") if ips else "") or "<none>", spec.get("nodeName") or "<none>",
                st.get("nominatedNodeName") or "<none>", gate_text]
    return row


def _address(node: Obj, type_: str) -> str:
    for a in (node.get("status") or {}).get("addresses") or ():
        if a.get("type") == type_:
            return str(a.get("address", ""))
    return "<none>"


def node_row(n: Obj, now: float, wide: bool) -> list[str]:
    info = (n.get("status") or {}).get("nodeInfo") or {}
    row = [str(_meta(n).get("name", "")), node_status(n), node_roles(n), _age(n, now),
           str(info.get("kubeletVersion", ""))]
    if wide:
        row += [_address(n, "InternalIP"), _address(n, "ExternalIP"), info.get("osImage") or "<unknown>",
                info.get("kernelVersion") or "<unknown>", info.get("containerRuntimeVersion") or "<unknown>"]
    return row


def namespace_row(n: Obj, now: float, wide: bool) -> list[str]:
    return [str(_meta(n).get("name", "")), str((n.get("status") or {}).get("phase", "")), _age(n, now)]


def _ports(ports: Sequence[Obj]) -> str:
    """``makePortString``."""
    out = []
    for p in ports:
        proto = p.get("protocol") or "TCP"
        out.append(f"{p.get('port')}:{p['nodePort']}/{proto}" if p.get("nodePort") else f"{p.get('port')}/{proto}")
    return ",".join(out)


def _external_ip(svc: Obj) -> str:
    """``getServiceExternalIP``."""
    spec = svc.get("spec") or {}
    typ = spec.get("type") or "ClusterIP"
    ext = spec.get("externalIPs") or ()
    if typ in ("ClusterIP", "NodePort"):
        return ",".join(ext) or "<none>"
    if typ == "LoadBalancer":
        ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or ()
        ips = [str(i.get("ip") or i.get("hostname") or "") for i in ingress] + list(ext)
        return ",".join(x for x in ips if x) or "<pending>"
    if typ == "ExternalName":
        return str(spec.get("externalName", ""))
    return "<unknown>"


def service_row(s: Obj, now: float, wide: bool) -> list[str]:
    spec = s.get("spec") or {}
    ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    row = [str(_meta(s).get("name", "")), str(spec.get("type") or "ClusterIP"), ips[0] if ips else "<none>",
           _external_ip(s), _ports(spec.get("ports") or ()) or "<none>", _age(s, now)]
    if wide:
        row.append(format_labels(spec.get("selector")))
    return row


def _more(items: list[str], count: int, limit: int = 3) -> str:
    """``listWithMoreString``."""
    text = ",".join(items[:limit])
    if count > limit:
        return f"{text} + {count - limit} more..."
    return text or "<unset>"


def endpointslice_row(e: Obj, now: float, wide: bool) -> list[str]:
    ports = [str(p["port"]) if p.get("port") is not None else str(p.get("name") or "*") for p in e.get("ports") or ()]
    addrs = [str(a) for ep in e.get("endpoints") or () for a in ep.get("addresses") or ()]
    return [str(_meta(e).get("name", "")), str(e.get("addressType", "")), _more(ports, len(ports)),
            _more(addrs, len(addrs)), _age(e, now)]


def endpoints_row(e: Obj, now: float, wide: bool) -> list[str]:
    """``printEndpoints`` with ``formatEndpoints``: ready ip:port pairs (bare IPs for a subset with no ports), at
    most three and then "+ N more..."; ``<none>`` without subsets."""
    subsets = e.get("subsets") or ()
    if not subsets:
        return [str(_meta(e).get("name", "")), "<none>", _age(e, now)]
    shown: list[str] = []
    count, more = 0, False
    for ss in subsets:
        addrs = ss.get("addresses") or ()
        for port in ss.get("ports") or (None,):
            count += len(addrs)
            for a in addrs:
                if len(shown) == 3:
                    more = True
                    break
                ip = str(a.get("ip", ""))
                host = f"[{ip}]" if ":" in ip else ip
                shown.append(ip if port is None else f"{host}:{port.get('port')}")
    cell = ",".join(shown)
    return [str(_meta(e).get("name", "")), f"{cell} + {count - 3} more..." if more else cell, _age(e, now)]


def componentstatus_row(c: Obj, now: float, wide: bool) -> list[str]:
    """``printComponentStatus``: the Healthy condition's status, message and error."""
    status, message, error = "Unknown", "", ""
    for cond in c.get("conditions") or ():
        if cond.get("type") == "Healthy":
            status = "Healthy" if cond.get("status") == "True" else "Unhealthy"
            message, error = str(cond.get("message") or ""), str(cond.get("error") or "")
            break
    return [str(_meta(c).get("name", "")), status, message, error]


def event_target(e: Obj) -> str:
    io = e.get("involvedObject") or e.get("regarding") or {}
    kind = str(io.get("kind", "")).lower()
    return f"{kind}/{io['name']}" if io.get("name") else kind


def event_times(e: Obj, now: float) -> tuple[str, str, int]:
    """(last seen, first seen, count) as ``printEvent`` derives them (``series`` wins over ``count``)."""
    first = since(e.get("firstTimestamp"), now) if e.get("firstTimestamp") else since(e.get("eventTime"), now)
    last = since(e.get("lastTimestamp"), now) if e.get("lastTimestamp") else first
    count = int(e.get("count") or 0)
    series = e.get("series")
    if series:
        last = since(series.get("lastObservedTime"), now)
        count = int(series.get("count") or 0)
    elif count == 0:
        count = 1
    return last, first, count


def _event_source(e: Obj) -> str:
    """``formatEventSource``: "component, host" (reportingController/Instance for new-style events)."""
    src = e.get("source") or {}
    comp, host = src.get("component") or e.get("reportingComponent") or "", src.get("host") or ""
    if not comp:
        comp, host = e.get("reportingController") or "", e.get("reportingInstance") or ""
    return f"{comp}, {host}" if host else str(comp)


def event_row(e: Obj, now: float, wide: bool) -> list[str]:
    last, first, count = event_times(e, now)
    msg = str(e.get("message") or "").strip()
    if wide:
        io = e.get("involvedObject") or {}
        return [last, str(e.get("type", "")), str(e.get("reason", "")), event_target(e),
                str(io.get("fieldPath") or ""), _event_source(e), msg, first, str(count),
                str(_meta(e).get("name", ""))]
    return [last, str(e.get("type", "")), str(e.get("reason", "")), event_target(e), msg]


_MODES = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}


def _access_modes(modes: Sequence[str]) -> str:
    """``GetAccessModesAsString``: in a fixed order, duplicates removed."""
    return ",".join(short for long, short in _MODES.items() if long in modes)


def pvc_row(c: Obj, now: float, wide: bool) -> list[str]:
    spec, st, meta = c.get("spec") or {}, c.get("status") or {}, _meta(c)
    phase = "Terminating" if meta.get("deletionTimestamp") else str(st.get("phase", ""))
    storage = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(st.get("accessModes") or ())
        storage = str((st.get("capacity") or {}).get("storage", ""))
    sc = spec.get("storageClassName") or (meta.get("annotations") or {}).get(
        "volume.beta.kubernetes.io/storage-class", "")
    row = [str(meta.get("name", "")), phase, str(spec.get("volumeName", "")), storage, modes, str(sc),
           str(spec.get("volumeAttributesClassName") or "<unset>"), _age(c, now)]
    if wide:
        row.append(str(spec.get("volumeMode") or "<unset>"))
    return row


def pv_row(v: Obj, now: float, wide: bool) -> list[str]:
    spec, st, meta = v.get("spec") or {}, v.get("status") or {}, _meta(v)
    ref = spec.get("claimRef") or {}
    claim = f"{ref.get('namespace')}/{ref.get('name')}" if ref else ""
    phase = "Terminating" if meta.get("deletionTimestamp") else str(st.get("phase", ""))
    row = [str(meta.get("name", "")), str((spec.get("capacity") or {}).get("storage", "")),
           _access_modes(spec.get("accessModes") or ()), str(spec.get("persistentVolumeReclaimPolicy", "")),
           phase, claim, str(spec.get("storageClassName", "")),
           str(spec.get("volumeAttributesClassName") or "<unset>"), str(st.get("reason", "")), _age(v, now)]
    if wide:
        row.append(str(spec.get("volumeMode") or "<unset>"))
    return row


def configmap_row(c: Obj, now: float, wide: bool) -> list[str]:
    n = len(c.get("data") or {}) + len(c.get("binaryData") or {})
    return [str(_meta(c).get("name", "")), str(n), _age(c, now)]


def secret_row(s: Obj, now: float, wide: bool) -> list[str]:
    n = len(s.get("data") or {}) + len(s.get("stringData") or {})
    return [str(_meta(s).get("name", "")), str(s.get("type") or "Opaque"), str(n), _age(s, now)]


#: resource -> (columns, wide-only columns, row function)
ROWS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Any]] = {
    "pods": (("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
             ("IP", "NODE", "NOMINATED NODE", "READINESS GATES"), pod_row),
    "nodes": (("NAME", "STATUS", "ROLES", "AGE", "VERSION"),
              ("INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"), node_row),
    "namespaces": (("NAME", "STATUS", "AGE"), (), namespace_row),
    "services": (("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"), ("SELECTOR",), service_row),
    "endpointslices": (("NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"), (), endpointslice_row),
    "endpoints": (("NAME", "ENDPOINTS", "AGE"), (), endpoints_row),
    "componentstatuses": (("NAME", "STATUS", "MESSAGE", "ERROR"), (), componentstatus_row),
    "events": (("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"), (), event_row),
    "persistentvolumeclaims": (("NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                                "VOLUMEATTRIBUTESCLASS", "AGE"), ("VOLUMEMODE",), pvc_row),
    "persistentvolumes": (("NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
                           "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"), ("VOLUMEMODE",), pv_row),
    "configmaps": (("NAME", "DATA", "AGE"), (), configmap_row),
    "secrets": (("NAME", "TYPE", "DATA", "AGE"), (), secret_row),
}
#: wide events replace the columns rather than append to them
EVENT_WIDE_COLUMNS = ("LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN",
                      "COUNT", "NAME")
