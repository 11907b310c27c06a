"""Minimal kubectl-style printers for a run's text output (to be replaced by ``kubelite.kubectl``).

Follows ``pkg/printers/internalversion/printers.go`` (``printPod``, ``printDeployment``,
``printEvent``), ``k8s.io/apimachinery/pkg/util/duration.HumanDuration`` for ages, and kubectl's
tabwriter settings (``printers.GetNewTabWriter``: min width 10, padding 3). Pure functions of their
inputs: the same objects and end time always print the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.clock import EPOCH, parse_time
from kubelite.scenario.result import EventRecord

__all__ = ["human_duration", "pod_ready_count", "pod_status", "print_deployments", "print_events", "print_pods",
           "render_text",
           "table"]


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        sec = s % 60
        return f"{minutes}m" if sec == 0 else f"{minutes}m{sec}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns as kubectl's tabwriter lays them out (the last column is not padded)."""
    if not rows:
        return ""
    cols = len(header)
    widths = [max(10, max(len(r[i]) for r in [header, *rows]) + 3) for i in range(cols - 1)]
    lines = []
    for r in [header, *rows]:
        cells = [r[i].ljust(widths[i]) for i in range(cols - 1)] + [r[cols - 1]]
        lines.append("".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def _since(ts: str | None, end: float) -> float:
    return end - (parse_time(ts) - EPOCH) if ts else 0.0


def pod_status(pod: Mapping[str, Any]) -> str:
    """The STATUS column of ``kubectl get pods`` (``printPod``)."""
    st = pod.get("status") or {}
    spec = pod.get("spec") or {}
    reason = st.get("reason") or st.get("phase") or ""
    for c in st.get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    initializing = False
    inits = st.get("initContainerStatuses") or ()
    for i, cs in enumerate(inits):
        state = cs.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if term is not None and term.get("exitCode") == 0:
            continue
        if term is not None:
            if not term.get("reason"):
                reason = f"Init:Signal:{term['signal']}" if term.get("signal") else f"Init:ExitCode:{term.get('exitCode')}"
            else:
                reason = "Init:" + term["reason"]
        elif wait is not None and wait.get("reason") and wait.get("reason") != "PodInitializing":
            reason = "Init:" + wait["reason"]
        else:
            reason = f"Init:{i}/{len(spec.get('initContainers') or ())}"
        initializing = True
        break
    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True" for c in st.get("conditions") or ())
    if not initializing or initialized:
        has_running = False
        for cs in reversed(st.get("containerStatuses") or ()):
            state = cs.get("state") or {}
            term, wait = state.get("terminated"), state.get("waiting")
            if wait is not None and wait.get("reason"):
                reason = wait["reason"]
            elif term is not None and term.get("reason"):
                reason = term["reason"]
            elif term is not None:
                reason = f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode')}"
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
        if reason == "Completed" and has_running:
            ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in st.get("conditions") or ())
            reason = "Running" if ready else "NotReady"
    meta = pod.get("metadata") or {}
    if meta.get("deletionTimestamp") and st.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and st.get("phase") not in ("Succeeded", "Failed"):
        reason = "Terminating"
    return str(reason)


def pod_ready_count(pod: Mapping[str, Any]) -> tuple[int, int]:
    st = pod.get("status") or {}
    total = len((pod.get("spec") or {}).get("containers") or ())
    ready = sum(1 for cs in st.get("containerStatuses") or () if cs.get("ready"))
    return ready, total


def _restarts(pod: Mapping[str, Any], end: float) -> str:
    n = 0
    last: str | None = None
    for cs in (pod.get("status") or {}).get("containerStatuses") or ():
        n += int(cs.get("restartCount") or 0)
        fin = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        if fin and (last is None or fin > last):
            last = fin
    if n and last:
        return f"{n} ({human_duration(_since(last, end))} ago)"
    return str(n)


def _key(obj: Mapping[str, Any]) -> tuple[str, str]:
    m = obj.get("metadata") or {}
    return str(m.get("namespace") or ""), str(m.get("name") or "")


def print_pods(pods: Sequence[Mapping[str, Any]], end: float) -> str:
    """``kubectl get pods -A -o wide``."""
    rows = []
    for p in sorted(pods, key=_key):
        meta, st, spec = p.get("metadata") or {}, p.get("status") or {}, p.get("spec") or {}
        ready, total = pod_ready_count(p)
        gates = spec.get("readinessGates") or ()
        gates_ready = sum(1 for g in gates for c in st.get("conditions") or ()
                          if c.get("type") == g.get("conditionType") and c.get("status") == "True")
        rows.append([meta.get("namespace", ""), meta.get("name", ""), f"{ready}/{total}", pod_status(p),
                     _restarts(p, end), human_duration(_since(meta.get("creationTimestamp"), end)),
                     st.get("podIP") or "<none>", spec.get("nodeName") or "<none>",
                     st.get("nominatedNodeName") or "<none>", f"{gates_ready}/{len(gates)}" if gates else "<none>"])
    return table(["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                  "READINESS GATES"], rows)


def print_deployments(deployments: Sequence[Mapping[str, Any]], end: float) -> str:
    """``kubectl get deployments -A``."""
    rows = []
    for d in sorted(deployments, key=_key):
        meta, st = d.get("metadata") or {}, d.get("status") or {}
        want = (d.get("spec") or {}).get("replicas", 1)
        rows.append([meta.get("namespace", ""), meta.get("name", ""), f"{st.get('readyReplicas', 0)}/{want}",
                     str(st.get("updatedReplicas", 0)), str(st.get("availableReplicas", 0)),
                     human_duration(_since(meta.get("creationTimestamp"), end))])
    return table(["NAMESPACE", "NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], rows)


def _object(e: EventRecord) -> str:
    kind, _, rest = e.object.partition("/")
    name = rest.rpartition("/")[2]
    return f"{kind.lower()}/{name}"


def print_events(events: Sequence[EventRecord], end: float) -> str:
    """``kubectl get events -A --sort-by=.metadata.creationTimestamp`` (``events`` already in that order)."""
    rows = [[e.namespace or "default", human_duration(end - e.last_seen), e.type, e.reason, _object(e),
             e.message] for e in events]
    return table(["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], rows)


def _num(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _flatten(prefix: str, v: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(v, Mapping):
        if not v:
            out.append((prefix, "{}"))
        for k in v:
            _flatten(f"{prefix}.{k}" if prefix else str(k), v[k], out)
    else:
        out.append((prefix, "-" if v is None else _num(v)))


def render_text(result: Any) -> str:
    """The whole text report of a run: steps, events, final pods and deployments, verdicts, metrics."""
    end = result.until
    parts = [f"scenario {result.scenario} (seed {result.seed}, {human_duration(end)} of cluster time)\n"]
    if result.steps:
        parts.append("\nSTEPS\n" + "".join(f"  [t={t:8.1f}s] {text}\n" for t, text in result.steps))
    parts.append("\nEVENTS (kubectl get events -A --sort-by=.metadata.creationTimestamp)\n")
    parts.append(print_events(result.events, end) or "No resources found\n")
    pods = [o for o in result.objects if o.get("kind") == "Pod"]
    deps = [o for o in result.objects if o.get("kind") == "Deployment"]
    parts.append("\nPODS (kubectl get pods -A -o wide)\n" + (print_pods(pods, end) or "No resources found\n"))
    if deps:
        parts.append("\nDEPLOYMENTS (kubectl get deployments -A)\n" + print_deployments(deps, end))
    parts.append("\nEXPECTATIONS\n")
    for e in result.expectations:
        when = "" if e.at is None else f" (t={e.at:g}s)"
        parts.append(f"  {'PASS' if e.passed else 'FAIL'}  {e.name}{when}\n")
        if e.diagnosis:
            parts.append("".join(f"        {line}\n" for line in e.diagnosis.splitlines()))
    parts.append("\nMETRICS\n")
    flat: list[tuple[str, str]] = []
    _flatten("", result.metrics, flat)
    parts.append("".join(f"  {k} = {v}\n" for k, v in flat))
    verdict = "PASS" if result.passed else "FAIL"
    failed = sum(1 for e in result.expectations if not e.passed)
    parts.append(f"\n{verdict}: {len(result.expectations) - failed}/{len(result.expectations)} expectations hold\n")
    return "".join(parts)
