"""Building blocks of ``kubectl describe`` shared by every kind.

Each helper follows the same-named function of ``staging/src/k8s.io/kubectl/pkg/describe/describe.go``
(``printLabelsMultiline``, ``printAnnotationsMultiline``, ``printTolerationsMultiline``,
``describeContainers`` and its parts, ``describeVolumes``, ``DescribePodTemplate``, ``DescribeEvents``,
``printController``). They write into a :class:`~kubelite.kubectl.tabwriter.PrefixWriter`; none mutates
the objects it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubelite.kubectl.tabwriter import PrefixWriter
from kubelite.kubectl.timefmt import rfc1123z, since, timestamp

__all__ = ["describe_containers", "describe_events", "describe_pod_template", "describe_volumes", "events_for",
           "labels_multiline", "controller_of", "annotations_multiline", "tolerations_multiline"]

Obj = Mapping[str, Any]
_SKIP_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


def labels_multiline(w: PrefixWriter, title: str, labels: Mapping[str, Any] | None) -> None:
    if not labels:
        w.write(0, f"{title}:\t<none>\n")
        return
    for i, k in enumerate(sorted(labels)):
        w.write(0, f"{title}:\t{k}={labels[k]}\n" if i == 0 else f"\t{k}={labels[k]}\n")


def annotations_multiline(w: PrefixWriter, title: str, annotations: Mapping[str, Any] | None) -> None:
    keys = sorted(k for k in annotations or {} if k not in _SKIP_ANNOTATIONS)
    if not keys:
        w.write(0, f"{title}:\t<none>\n")
        return
    assert annotations is not None
    for i, k in enumerate(keys):
        w.write(0, f"{title}:\t{k}: {annotations[k]}\n" if i == 0 else f"\t{k}: {annotations[k]}\n")


def _toleration(t: Obj) -> str:
    out = str(t.get("key") or "")
    if t.get("value"):
        out += f"={t['value']}"
    if t.get("effect"):
        out += f":{t['effect']}"
    if t.get("operator") == "Exists" and not t.get("value"):
        out += " op=Exists" if t.get("key") or t.get("effect") else "op=Exists"
    if t.get("tolerationSeconds") is not None:
        out += f" for {t['tolerationSeconds']}s"
    return out


def tolerations_multiline(w: PrefixWriter, title: str, tolerations: Sequence[Obj] | None) -> None:
    if not tolerations:
        w.write(0, f"{title}:\t<none>\n")
        return
    for i, t in enumerate(tolerations):
        w.write(0, f"{title}:\t{_toleration(t)}\n" if i == 0 else f"\t{_toleration(t)}\n")


def controller_of(obj: Obj) -> str:
    """``printController``: "Kind/name" of the controller owner, or ""."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return f"{ref.get('kind')}/{ref.get('name')}"
    return ""


def _ports(ports: Sequence[Obj], key: str) -> str:
    return ", ".join(f"{p.get(key, 0)}/{p.get('protocol') or 'TCP'}" for p in ports)


def _probe(p: Obj) -> str:
    """``DescribeProbe``."""
    attrs = (f"delay={p.get('initialDelaySeconds', 0)}s timeout={p.get('timeoutSeconds', 1)}s "
             f"period={p.get('periodSeconds', 10)}s #success={p.get('successThreshold', 1)} "
             f"#failure={p.get('failureThreshold', 3)}")
    if p.get("exec") is not None:
        return f"exec [{' '.join(p['exec'].get('command') or ())}] {attrs}"
    if p.get("httpGet") is not None:
        h = p["httpGet"]
        scheme = str(h.get("scheme") or "HTTP").lower()
        return f"http-get {scheme}://{h.get('host', '')}:{h.get('port', '')}{h.get('path', '')} {attrs}"
    if p.get("tcpSocket") is not None:
        return f"tcp-socket {p['tcpSocket'].get('host', '')}:{p['tcpSocket'].get('port', '')} {attrs}"
    if p.get("grpc") is not None:
        return f"grpc <pod>:{p['grpc'].get('port')} {p['grpc'].get('service', '')} {attrs}"
    return f"unknown {attrs}"


def _state(w: PrefixWriter, name: str, state: Obj) -> None:
    """``describeStatus``."""
    if state.get("running") is not None:
        w.write(2, f"{name}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z(state['running'].get('startedAt'))}\n")
    elif state.get("waiting") is not None:
        w.write(2, f"{name}:\tWaiting\n")
        if state["waiting"].get("reason"):
            w.write(3, f"Reason:\t{state['waiting']['reason']}\n")
    elif state.get("terminated") is not None:
        t = state["terminated"]
        w.write(2, f"{name}:\tTerminated\n")
        if t.get("reason"):
            w.write(3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(3, f"Message:\t{t['message']}\n")
        w.write(3, f"Exit Code:\t{t.get('exitCode', 0)}\n")
        if t.get("signal"):
            w.write(3, f"Signal:\t{t['signal']}\n")
        w.write(3, f"Started:\t{rfc1123z(t.get('startedAt'))}\n")
        w.write(3, f"Finished:\t{rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(2, f"{name}:\tWaiting\n")


def describe_containers(w: PrefixWriter, label: str, containers: Sequence[Obj],
                        statuses: Sequence[Obj] | None, space: str = "") -> None:
    """``describeContainers`` (statuses None: a pod template)."""
    by_name = {s.get("name"): s for s in statuses or ()}
    w.write(0, f"{space}{label}:\n")
    for c in containers:
        st = by_name.get(c.get("name")) if statuses is not None else None
        w.write(1, f"{' ' if space else ''}{c.get('name')}:\n")
        if st is not None:
            w.write(2, f"Container ID:\t{st.get('containerID', '')}\n")
        w.write(2, f"Image:\t{c.get('image', '')}\n")
        if st is not None:
            w.write(2, f"Image ID:\t{st.get('imageID', '')}\n")
        ports, host_ports = _ports(c.get("ports") or (), "containerPort"), _ports(c.get("ports") or (), "hostPort")
        w.write(2, f"{'Ports' if ',' in ports else 'Port'}:\t{ports or '<none>'}\n")
        w.write(2, f"{'Host Ports' if ',' in host_ports else 'Host Port'}:\t{host_ports or '<none>'}\n")
        for key, title in (("command", "Command"), ("args", "Args")):
            if c.get(key):
                w.write(2, f"{title}:\n")
                for arg in c[key]:
                    w.write(3, f"{arg}\n")
        if st is not None:
            _state(w, "State", st.get("state") or {})
            if ((st.get("lastState") or {}).get("terminated")) is not None:
                _state(w, "Last State", st["lastState"])
            w.write(2, f"Ready:\t{'True' if st.get('ready') else 'False'}\n")
            w.write(2, f"Restart Count:\t{st.get('restartCount', 0)}\n")
        for key, title in (("limits", "Limits"), ("requests", "Requests")):
            res = (c.get("resources") or {}).get(key) or {}
            if res:
                w.write(2, f"{title}:\n")
                for name in sorted(res):
                    w.write(3, f"{name}:\t{res[name]}\n")
        for key, title in (("livenessProbe", "Liveness"), ("readinessProbe", "Readiness"),
                           ("startupProbe", "Startup")):
            if c.get(key):
                w.write(2, f"{title}:\t{_probe(c[key])}\n")
        env = c.get("env") or ()
        if not env:
            w.write(2, "Environment:\t<none>\n")
        else:
            w.write(2, "Environment:\n")
            for e in env:
                value = e.get("value", "") if "valueFrom" not in e else "<set from valueFrom>"
                w.write(3, f"{e.get('name')}:\t{value}\n")
        mounts = c.get("volumeMounts") or ()
        if not mounts:
            w.write(2, "Mounts:\t<none>\n")
        else:
            w.write(2, "Mounts:\n")
            for m in sorted(mounts, key=lambda m: str(m.get("mountPath", ""))):
                w.write(3, f"{m.get('mountPath')} from {m.get('name')} ({'ro' if m.get('readOnly') else 'rw'})\n")


_VOLUME_TYPES = (("emptyDir", "EmptyDir (a temporary directory that shares a pod's lifetime)"),
                 ("configMap", "ConfigMap (a volume populated by a ConfigMap)"),
                 ("secret", "Secret (a volume populated by a Secret)"),
                 ("persistentVolumeClaim", "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the "
                                           "same namespace)"),
                 ("hostPath", "HostPath (bare host directory volume)"),
                 ("projected", "Projected (a volume that contains injected data from multiple sources)"))


def describe_volumes(w: PrefixWriter, volumes: Sequence[Obj] | None, space: str = "") -> None:
    """``describeVolumes`` (the type line and the main reference of the common volume types)."""
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for v in volumes:
        w.write(1, f"{space}{v.get('name')}:\n")
        for key, text in _VOLUME_TYPES:
            if key in v:
                w.write(2, f"{space}Type:\t{text}\n")
                src = v[key] or {}
                ref = src.get("name") or src.get("secretName") or src.get("claimName") or src.get("path")
                if ref:
                    label = {"configMap": "Name", "secret": "SecretName", "persistentVolumeClaim": "ClaimName",
                             "hostPath": "Path"}.get(key, "Name")
                    w.write(2, f"{space}{label}:\t{ref}\n")
                break


def describe_pod_template(w: PrefixWriter, template: Obj | None) -> None:
    """``DescribePodTemplate``."""
    w.write(0, "Pod Template:\n")
    if not template:
        w.write(1, "<unset>")
        return
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    labels_multiline(w, "  Labels", meta.get("labels"))
    if meta.get("annotations"):
        annotations_multiline(w, "  Annotations", meta["annotations"])
    if spec.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{spec['serviceAccountName']}\n")
    if spec.get("initContainers"):
        describe_containers(w, "Init Containers", spec["initContainers"], None, "  ")
    describe_containers(w, "Containers", spec.get("containers") or (), None, "  ")
    describe_volumes(w, spec.get("volumes"), "  ")
    if spec.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    labels_multiline(w, "  Node-Selectors", spec.get("nodeSelector"))
    tolerations_multiline(w, "  Tolerations", spec.get("tolerations"))


def events_for(objects: Iterable[Obj], target: Obj) -> list[Obj]:
    """The Events whose involvedObject is ``target`` (kind, name, namespace; uid when both carry one).
    A Node's events match its uid or its name: the kubelet reports with the node name as uid, the
    controllers with the real one, and ``describeNode`` searches for both."""
    meta = target.get("metadata") or {}
    kind, name, ns = target.get("kind"), meta.get("name"), meta.get("namespace") or ""
    uids = {meta.get("uid"), name} if kind == "Node" else {meta.get("uid")}
    uid = meta.get("uid")
    out = []
    for e in objects:
        if e.get("kind") != "Event":
            continue
        io = e.get("involvedObject") or {}
        if io.get("kind") != kind or io.get("name") != name or (io.get("namespace") or "") != ns:
            continue
        if uid and io.get("uid") and io["uid"] not in uids:
            continue
        out.append(e)
    return out


def describe_events(w: PrefixWriter, events: Sequence[Obj], now: float) -> None:
    """``DescribeEvents``: sorted by last timestamp, "(x3 over 2m)" for repeated events. Upstream flushes
    the tabwriter first, so the table is aligned on its own."""
    if not events:
        w.write(0, "Events:\t<none>\n")
        return
    w.flush()

    def last(e: Obj) -> float:
        series = e.get("series") or {}
        t = timestamp(series.get("lastObservedTime") or e.get("lastTimestamp") or e.get("eventTime")
                      or e.get("firstTimestamp"))
        return t if t is not None else 0.0

    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for e in sorted(events, key=last):
        first = since(e.get("eventTime"), now) if e.get("eventTime") else since(e.get("firstTimestamp"), now)
        series = e.get("series")
        if series:
            age = f"{since(series.get('lastObservedTime'), now)} (x{series.get('count')} over {first})"
        elif int(e.get("count") or 0) > 1:
            age = f"{since(e.get('lastTimestamp'), now)} (x{e['count']} over {first})"
        else:
            age = first
        source = (e.get("source") or {}).get("component") or e.get("reportingComponent") or ""
        w.write(1, f"{e.get('type', '')}\t{e.get('reason', '')}\t{age}\t{source}\t"
                   f"{str(e.get('message') or '').strip()}\n")
