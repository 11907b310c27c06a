"""``kubectl describe KIND/NAME``: pods, nodes, deployments, replicasets, services and jobs.

Contract: :func:`describe` is a pure function of the objects (everything the API returned: the target,
its related objects and the Events) and a virtual ``now``; it prints what ``kubectl describe`` prints
for the same objects, laid out by one Go-style tabwriter exactly as upstream's ``tabbedString`` (the
Events section is flushed separately, as ``DescribeEvents`` does). It follows
``staging/src/k8s.io/kubectl/pkg/describe/describe.go``: ``describePod``, ``describeNode``
(``describeNodeResource``), and, in :mod:`kubelite.kubectl.describe_workloads`, ``describeDeployment``,
``describeReplicaSet``, ``describeService`` and ``describeJob``. A missing object raises
:class:`~kubelite.errors.NotFound` with the apiserver's message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubelite.api.quantity import Quantity
from kubelite.errors import NotFound
from kubelite.kubectl import describe_workloads as wl
from kubelite.kubectl.describe_common import (
    annotations_multiline,
    controller_of,
    describe_containers,
    describe_events,
    describe_volumes,
    events_for,
    labels_multiline,
    tolerations_multiline,
)
from kubelite.kubectl.printers import CLUSTER_SCOPED, KINDS
from kubelite.kubectl.status import node_roles
from kubelite.kubectl.tabwriter import PrefixWriter
from kubelite.kubectl.timefmt import human_duration, rfc1123z, since, timestamp

__all__ = ["DESCRIBABLE", "describe"]

Obj = Mapping[str, Any]


def describe_pod(w: PrefixWriter, pod: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec, st = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    w.write(0, f"Name:\t{meta.get('name')}\n")
    w.write(0, f"Namespace:\t{meta.get('namespace')}\n")
    if spec.get("priority") is not None:
        w.write(0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    if spec.get("runtimeClassName"):
        w.write(0, f"Runtime Class Name:\t{spec['runtimeClassName']}\n")
    if spec.get("serviceAccountName"):
        w.write(0, f"Service Account:\t{spec['serviceAccountName']}\n")
    node = spec.get("nodeName")
    w.write(0, f"Node:\t{node}/{st.get('hostIP', '')}\n" if node else "Node:\t<none>\n")
    if st.get("startTime"):
        w.write(0, f"Start Time:\t{rfc1123z(st['startTime'])}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    if meta.get("deletionTimestamp") and st.get("phase") not in ("Failed", "Succeeded"):
        left = (timestamp(meta["deletionTimestamp"]) or now) - now
        w.write(0, f"Status:\tTerminating (lasts {human_duration(left)})\n")
        w.write(0, f"Termination Grace Period:\t{meta.get('deletionGracePeriodSeconds', 0)}s\n")
    else:
        w.write(0, f"Status:\t{st.get('phase', '')}\n")
    if st.get("reason"):
        w.write(0, f"Reason:\t{st['reason']}\n")
    if st.get("message"):
        w.write(0, f"Message:\t{st['message']}\n")
    w.write(0, f"IP:\t{st.get('podIP', '')}\n")
    ips = st.get("podIPs") or ()
    if not ips:
        w.write(0, "IPs:\t<none>\n")
    else:
        w.write(0, "IPs:\n")
        for ip in ips:
            w.write(1, f"IP:\t{ip.get('ip')}\n")
    if controller_of(pod):
        w.write(0, f"Controlled By:\t{controller_of(pod)}\n")
    if st.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{st['nominatedNodeName']}\n")
    if spec.get("initContainers"):
        describe_containers(w, "Init Containers", spec["initContainers"], st.get("initContainerStatuses") or ())
    describe_containers(w, "Containers", spec.get("containers") or (), st.get("containerStatuses") or ())
    conds = st.get("conditions") or ()
    if spec.get("readinessGates"):
        w.write(0, "Readiness Gates:\n  Type\tStatus\n")
        for g in spec["readinessGates"]:
            status = next((c.get("status") for c in conds if c.get("type") == g.get("conditionType")), "<none>")
            w.write(1, f"{g.get('conditionType')} \t{status} \n")
    if conds:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conds:
            w.write(1, f"{c.get('type')} \t{c.get('status')} \n")
    describe_volumes(w, spec.get("volumes"))
    w.write(0, f"QoS Class:\t{st.get('qosClass', '')}\n")
    labels_multiline(w, "Node-Selectors", spec.get("nodeSelector"))
    tolerations_multiline(w, "Tolerations", spec.get("tolerations"))
    describe_events(w, events_for(objects, pod), now)


def _q(v: Any) -> Quantity:
    return Quantity.parse(v) if v is not None else Quantity.parse("0")


def pod_requests_limits(pod: Obj) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """``resourcehelper.PodRequestsAndLimits``: the sum over containers, at least the largest init
    container, plus the pod overhead."""
    spec = pod.get("spec") or {}
    out: tuple[dict[str, Quantity], dict[str, Quantity]] = ({}, {})
    for i, key in enumerate(("requests", "limits")):
        total = out[i]
        for c in spec.get("containers") or ():
            for name, v in ((c.get("resources") or {}).get(key) or {}).items():
                total[name] = total.get(name, _q(0)) + _q(v)
        for c in spec.get("initContainers") or ():
            for name, v in ((c.get("resources") or {}).get(key) or {}).items():
                if _q(v) > total.get(name, _q(0)):
                    total[name] = _q(v)
        for name, v in (spec.get("overhead") or {}).items():
            if name in total:
                total[name] = total[name] + _q(v)
    return out


def _pct(q: Quantity, alloc: Quantity | None) -> int:
    if alloc is None or alloc.is_zero():
        return 0
    return int(q.milli_value() / alloc.milli_value() * 100)


def describe_node(w: PrefixWriter, node: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec, st = node.get("metadata") or {}, node.get("spec") or {}, node.get("status") or {}
    name = meta.get("name")
    w.write(0, f"Name:\t{name}\n")
    w.write(0, f"Roles:\t{node_roles(node)}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(0, f"CreationTimestamp:\t{rfc1123z(meta.get('creationTimestamp'))}\n")
    taints = spec.get("taints") or ()
    if not taints:
        w.write(0, "Taints:\t<none>\n")
    for i, t in enumerate(taints):
        text = f"{t.get('key')}={t['value']}:{t.get('effect')}" if t.get("value") else f"{t.get('key')}:{t.get('effect')}"
        w.write(0, f"Taints:\t{text}\n" if i == 0 else f"\t{text}\n")
    w.write(0, f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}\n")
    lease = next((o for o in objects if o.get("kind") == "Lease" and (o.get("metadata") or {}).get("name") == name
                  and (o.get("metadata") or {}).get("namespace") == "kube-node-lease"), None)
    if lease is not None:
        ls = lease.get("spec") or {}
        w.write(0, "Lease:\n")
        w.write(1, f"HolderIdentity:\t{ls.get('holderIdentity') or '<unset>'}\n")
        w.write(1, f"AcquireTime:\t{rfc1123z(ls['acquireTime']) if ls.get('acquireTime') else '<unset>'}\n")
        w.write(1, f"RenewTime:\t{rfc1123z(ls['renewTime']) if ls.get('renewTime') else '<unset>'}\n")
    conds = st.get("conditions") or ()
    if conds:
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conds:
            w.write(1, f"{c.get('type')} \t{c.get('status')} \t{rfc1123z(c.get('lastHeartbeatTime'))} \t"
                       f"{rfc1123z(c.get('lastTransitionTime'))} \t{c.get('reason', '')} \t{c.get('message', '')}\n")
    if st.get("addresses"):
        w.write(0, "Addresses:\n")
        for a in st["addresses"]:
            w.write(1, f"{a.get('type')}:\t{a.get('address')}\n")
    for title, res in (("Capacity", st.get("capacity")), ("Allocatable", st.get("allocatable"))):
        if res:
            w.write(0, f"{title}:\n")
            for k in sorted(res):
                w.write(1, f"{k}:\t{res[k]}\n")
    info = st.get("nodeInfo") or {}
    w.write(0, "System Info:\n")
    for label, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"), ("Boot ID", "bootID"),
                       ("Kernel Version", "kernelVersion"), ("OS Image", "osImage"),
                       ("Operating System", "operatingSystem"), ("Architecture", "architecture"),
                       ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion"), ("Kube-Proxy Version", "kubeProxyVersion")):
        w.write(1, f"{label}:\t{info.get(key, '')}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{spec['podCIDR']}\n")
    if spec.get("podCIDRs"):
        w.write(0, f"PodCIDRs:\t{','.join(spec['podCIDRs'])}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{spec['providerID']}\n")
    pods = [p for p in objects if p.get("kind") == "Pod" and (p.get("spec") or {}).get("nodeName") == name
            and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    alloc = {k: _q(v) for k, v in (st.get("allocatable") or {}).items()}
    w.write(0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
    reqs: dict[str, Quantity] = {}
    lims: dict[str, Quantity] = {}
    for p in pods:
        req, lim = pod_requests_limits(p)
        for src, dst in ((req, reqs), (lim, lims)):
            for k, v in src.items():
                dst[k] = dst.get(k, _q(0)) + v
        cells = []
        for q in (req.get("cpu", _q(0)), lim.get("cpu", _q(0))):
            cells.append(f"{q} ({_pct(q, alloc.get('cpu'))}%)")
        for q in (req.get("memory", _q(0)), lim.get("memory", _q(0))):
            cells.append(f"{q} ({_pct(q, alloc.get('memory'))}%)")
        pm = p.get("metadata") or {}
        w.write(1, f"{pm.get('namespace')}\t{pm.get('name')}\t\t{chr(9).join(cells)}\t"
                   f"{since(pm.get('creationTimestamp'), now)}\n")
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
    w.write(1, "Resource\tRequests\tLimits\n")
    w.write(1, "--------\t--------\t------\n")
    for res in ("cpu", "memory", "ephemeral-storage"):
        r, lm = reqs.get(res, _q(0)), lims.get(res, _q(0))
        w.write(1, f"{res}\t{r} ({_pct(r, alloc.get(res))}%)\t{lm} ({_pct(lm, alloc.get(res))}%)\n")
    for res in sorted(alloc):
        if res.startswith("hugepages-") or ("/" in res and not res.startswith("kubernetes.io/")):
            w.write(1, f"{res}\t{reqs.get(res, _q(0))}\t{lims.get(res, _q(0))}\n")
    describe_events(w, events_for(objects, node), now)


_DESCRIBERS: dict[str, Callable[[PrefixWriter, Obj, Sequence[Obj], float], None]] = {
    "pods": describe_pod, "nodes": describe_node, "deployments": wl.describe_deployment,
    "replicasets": wl.describe_replicaset, "services": wl.describe_service, "jobs": wl.describe_job,
}
#: the resources :func:`describe` can describe
DESCRIBABLE: tuple[str, ...] = tuple(_DESCRIBERS)


def describe(resource: str, name: str, objects: Sequence[Obj], *, now: float, namespace: str = "default") -> str:
    """``kubectl describe RESOURCE NAME [-n NAMESPACE]`` over ``objects``."""
    if resource not in _DESCRIBERS:
        raise ValueError(f"kubelite describe supports {', '.join(DESCRIBABLE)}, not {resource}")
    kind = KINDS[resource]
    for o in objects:
        meta = o.get("metadata") or {}
        if o.get("kind") == kind and meta.get("name") == name and (
                resource in CLUSTER_SCOPED or meta.get("namespace") == namespace):
            w = PrefixWriter()
            _DESCRIBERS[resource](w, o, objects, now)
            return w.text()
    group = {"deployments": "apps", "replicasets": "apps", "jobs": "batch"}.get(resource, "")
    raise NotFound.for_object(group, resource, name)
