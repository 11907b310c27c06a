"""``kubectl describe`` for deployments, replicasets, services and jobs.

Follows ``describeDeployment`` (``printReplicaSetsByLabels`` for Old/NewReplicaSet),
``describeReplicaSet`` (``getPodStatusForController``), ``describeService`` (``formatEndpointSlices``)
and ``describeJob`` in ``staging/src/k8s.io/kubectl/pkg/describe/describe.go``. Pure functions of
the objects; see :mod:`kubelite.kubectl.describe` for the contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.kubectl.describe_common import (
    annotations_multiline,
    controller_of,
    describe_events,
    describe_pod_template,
    events_for,
    labels_multiline,
)
from kubelite.kubectl.status import format_labels, format_selector
from kubelite.kubectl.tabwriter import PrefixWriter
from kubelite.kubectl.timefmt import human_duration, rfc1123z, timestamp

__all__ = ["describe_deployment", "describe_job", "describe_replicaset", "describe_service"]

Obj = Mapping[str, Any]
_REVISION = "deployment.kubernetes.io/revision"


def _owned_by(objects: Sequence[Obj], kind: str, owner: Obj) -> list[Obj]:
    uid = (owner.get("metadata") or {}).get("uid")
    out = []
    for o in objects:
        if o.get("kind") != kind:
            continue
        for ref in (o.get("metadata") or {}).get("ownerReferences") or ():
            if ref.get("controller") and ref.get("uid") == uid:
                out.append(o)
    return out


def _conditions(w: PrefixWriter, obj: Obj) -> None:
    conds = (obj.get("status") or {}).get("conditions") or ()
    if conds:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conds:
            w.write(1, f"{c.get('type')} \t{c.get('status')}\t{c.get('reason', '')}\n")


def _rs_list(rss: Sequence[Obj]) -> str:
    """``printReplicaSetsByLabels``."""
    items = [f"{(r.get('metadata') or {}).get('name')} ({(r.get('status') or {}).get('replicas', 0)}/"
             f"{(r.get('spec') or {}).get('replicas', 0)} replicas created)" for r in rss]
    return ", ".join(items) or "<none>"


def describe_deployment(w: PrefixWriter, d: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec, st = d.get("metadata") or {}, d.get("spec") or {}, d.get("status") or {}
    w.write(0, f"Name:\t{meta.get('name')}\n")
    w.write(0, f"Namespace:\t{meta.get('namespace')}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(meta.get('creationTimestamp'))}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(0, f"Selector:\t{format_selector(spec.get('selector'))}\n")
    w.write(0, f"Replicas:\t{spec.get('replicas', 0)} desired | {st.get('updatedReplicas', 0)} updated | "
               f"{st.get('replicas', 0)} total | {st.get('availableReplicas', 0)} available | "
               f"{st.get('unavailableReplicas', 0)} unavailable\n")
    strategy = spec.get("strategy") or {}
    w.write(0, f"StrategyType:\t{strategy.get('type', '')}\n")
    w.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
    ru = strategy.get("rollingUpdate")
    if ru is not None:
        w.write(0, f"RollingUpdateStrategy:\t{ru.get('maxUnavailable', '25%')} max unavailable, "
                   f"{ru.get('maxSurge', '25%')} max surge\n")
    describe_pod_template(w, spec.get("template"))
    _conditions(w, d)
    rss = sorted(_owned_by(objects, "ReplicaSet", d), key=lambda r: str((r.get("metadata") or {}).get("name")))
    revision = (meta.get("annotations") or {}).get(_REVISION)
    new = [r for r in rss if ((r.get("metadata") or {}).get("annotations") or {}).get(_REVISION) == revision]
    old = [r for r in rss if r not in new and (r.get("spec") or {}).get("replicas", 0) > 0]
    if old or new:
        w.write(0, f"OldReplicaSets:\t{_rs_list(old)}\n")
        w.write(0, f"NewReplicaSet:\t{_rs_list(new)}\n")
    describe_events(w, events_for(objects, d), now)


def describe_replicaset(w: PrefixWriter, rs: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec, st = rs.get("metadata") or {}, rs.get("spec") or {}, rs.get("status") or {}
    w.write(0, f"Name:\t{meta.get('name')}\n")
    w.write(0, f"Namespace:\t{meta.get('namespace')}\n")
    w.write(0, f"Selector:\t{format_selector(spec.get('selector'))}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    if controller_of(rs):
        w.write(0, f"Controlled By:\t{controller_of(rs)}\n")
    w.write(0, f"Replicas:\t{st.get('replicas', 0)} current / {spec.get('replicas', 0)} desired\n")
    phases = [(p.get("status") or {}).get("phase") for p in _owned_by(objects, "Pod", rs)]
    w.write(0, f"Pods Status:\t{phases.count('Running')} Running / {phases.count('Pending')} Waiting / "
               f"{phases.count('Succeeded')} Succeeded / {phases.count('Failed')} Failed\n")
    describe_pod_template(w, spec.get("template"))
    _conditions(w, rs)
    describe_events(w, events_for(objects, rs), now)


def _endpoints(slices: Sequence[Obj], port_name: str) -> str:
    """``formatEndpointSlices``: ready endpoints as ip:port, at most three then "+ N more..."."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    count = 0
    for s in slices:
        ports = s.get("ports") or ()
        for ep in s.get("endpoints") or ():
            if (ep.get("conditions") or {}).get("ready") is False or not ep.get("addresses"):
                continue
            if not ports:
                count += 1
                if len(shown) < 3:
                    shown.append(str(ep["addresses"][0]))
            for p in ports:
                if (p.get("name") or "") == port_name:
                    count += 1
                    if len(shown) < 3:
                        shown.append(f"{ep['addresses'][0]}:{p.get('port')}")
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


def describe_service(w: PrefixWriter, svc: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec = svc.get("metadata") or {}, svc.get("spec") or {}
    w.write(0, f"Name:\t{meta.get('name')}\n")
    w.write(0, f"Namespace:\t{meta.get('namespace')}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(0, f"Selector:\t{format_labels(spec.get('selector'))}\n")
    w.write(0, f"Type:\t{spec.get('type', 'ClusterIP')}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    w.write(0, f"IP Families:\t{','.join(spec.get('ipFamilies') or ()) or '<none>'}\n")
    w.write(0, f"IP:\t{spec.get('clusterIP', '')}\n")
    w.write(0, f"IPs:\t{','.join(spec.get('clusterIPs') or ()) or '<none>'}\n")
    if spec.get("externalIPs"):
        w.write(0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("externalName"):
        w.write(0, f"External Name:\t{spec['externalName']}\n")
    name = meta.get("name")
    slices = [s for s in objects if s.get("kind") == "EndpointSlice"
              and (s.get("metadata") or {}).get("namespace") == meta.get("namespace")
              and ((s.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/service-name") == name]
    for p in spec.get("ports") or ():
        proto = p.get("protocol") or "TCP"
        w.write(0, f"Port:\t{p.get('name') or '<unset>'}\t{p.get('port')}/{proto}\n")
        w.write(0, f"TargetPort:\t{p.get('targetPort', p.get('port'))}/{proto}\n")
        if p.get("nodePort"):
            w.write(0, f"NodePort:\t{p.get('name') or '<unset>'}\t{p['nodePort']}/{proto}\n")
        w.write(0, f"Endpoints:\t{_endpoints(slices, p.get('name') or '')}\n")
    w.write(0, f"Session Affinity:\t{spec.get('sessionAffinity', 'None')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy"):
        w.write(0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    describe_events(w, events_for(objects, svc), now)


def describe_job(w: PrefixWriter, job: Obj, objects: Sequence[Obj], now: float) -> None:
    meta, spec, st = job.get("metadata") or {}, job.get("spec") or {}, job.get("status") or {}
    w.write(0, f"Name:\t{meta.get('name')}\n")
    w.write(0, f"Namespace:\t{meta.get('namespace')}\n")
    w.write(0, f"Selector:\t{format_selector(spec.get('selector'))}\n")
    labels_multiline(w, "Labels", meta.get("labels"))
    annotations_multiline(w, "Annotations", meta.get("annotations"))
    if controller_of(job):
        w.write(0, f"Controlled By:\t{controller_of(job)}\n")
    if spec.get("parallelism") is not None:
        w.write(0, f"Parallelism:\t{spec['parallelism']}\n")
    w.write(0, f"Completions:\t{spec['completions'] if spec.get('completions') is not None else '<unset>'}\n")
    if spec.get("completionMode"):
        w.write(0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(0, f"Suspend:\t{'true' if spec['suspend'] else 'false'}\n")
    if spec.get("backoffLimit") is not None:
        w.write(0, f"Backoff Limit:\t{spec['backoffLimit']}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(0, f"TTL Seconds After Finished:\t{spec['ttlSecondsAfterFinished']}\n")
    if st.get("startTime"):
        w.write(0, f"Start Time:\t{rfc1123z(st['startTime'])}\n")
    if st.get("completionTime"):
        w.write(0, f"Completed At:\t{rfc1123z(st['completionTime'])}\n")
    start, end = timestamp(st.get("startTime")), timestamp(st.get("completionTime"))
    if start is not None and end is not None:
        w.write(0, f"Duration:\t{human_duration(end - start)}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(0, f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s\n")
    counts = f"{st.get('active', 0)} Active"
    if st.get("ready") is not None:
        counts += f" ({st['ready']} Ready)"
    w.write(0, f"Pods Statuses:\t{counts} / {st.get('succeeded', 0)} Succeeded / {st.get('failed', 0)} Failed\n")
    if spec.get("completionMode") == "Indexed":
        w.write(0, f"Completed Indexes:\t{st.get('completedIndexes') or '<none>'}\n")
    describe_pod_template(w, spec.get("template"))
    describe_events(w, events_for(objects, job), now)
