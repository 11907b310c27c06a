"""Diagnoses: why a pod is not where an expectation wanted it, as ``kubectl describe`` would tell you.

Contract: pure reads (the run's :class:`~kubelite.scenario.view.ClusterView` and the scheduler's
explanation of its last attempt); text only, deterministic. What is said follows the seed's symptom
table (Pending → the scheduler's per-node reasons and the FailedScheduling message; ContainerCreating
→ the sandbox/volume events; ImagePullBackOff → the pull error; CrashLoopBackOff and OOMKilled → the
container's last state, restart count and events).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubelite.scenario.expr_values import show
from kubelite.scenario.expressions import Expression, Unknown, Verdict
from kubelite.scenario.printing import pod_status

__all__ = ["diagnose_expectation", "diagnose_pod"]

MAX_PODS = 3
MAX_EVENTS = 6


def _pod_events(view: Any, ns: str, name: str) -> list[Any]:
    return [e for e in view.event_records() if e.object == f"Pod/{ns}/{name}"]


def _fmt_events(events: Sequence[Any]) -> list[str]:
    out = [f"  {e.type} {e.reason}: {e.message}" + (f" (x{e.count})" if e.count > 1 else "")
           for e in events[-MAX_EVENTS:]]
    if len(events) > MAX_EVENTS:
        out.insert(0, f"  ({len(events) - MAX_EVENTS} earlier events)")
    return out


def diagnose_pod(view: Any, namespace: str, name: str) -> str:
    """A few lines on ``namespace/name``: its status and what holds it there."""
    pod = view.get("pods", f"{namespace}/{name}")
    if pod is None:
        return f"pod {namespace}/{name} does not exist"
    status = pod_status(pod)
    spec, st = pod.get("spec") or {}, pod.get("status") or {}
    lines = [f"pod {namespace}/{name} is {status}" + (f" on {spec['nodeName']}" if spec.get("nodeName") else "")]
    events = _pod_events(view, namespace, name)
    if not spec.get("nodeName"):
        sched = getattr(view.cluster, "scheduler", None)
        exp = sched.explain(namespace, name) if sched is not None else None
        failed = [e for e in events if e.reason == "FailedScheduling"]
        if failed:
            lines.append(f"  FailedScheduling: {failed[-1].message}")
        if exp is not None and exp.rejections:
            lines.append("  per-node reasons (scheduler):")
            for node in sorted(exp.rejections):
                r = exp.rejections[node]
                lines.append(f"    {node}: {r.plugin}: {'; '.join(r.reasons)}")
        if exp is not None and exp.nominated_node:
            lines.append(f"  nominated node: {exp.nominated_node}")
        if exp is None and not failed:
            lines.append("  no scheduling attempt recorded yet")
        return "\n".join(lines)
    for cs in st.get("containerStatuses") or ():
        state, last = cs.get("state") or {}, cs.get("lastState") or {}
        wait = state.get("waiting")
        if wait is not None:
            lines.append(f"  container {cs['name']}: waiting: {wait.get('reason', '')}"
                         + (f": {wait['message']}" if wait.get("message") else ""))
        term = last.get("terminated") or state.get("terminated")
        if term is not None:
            which = "last state" if last.get("terminated") else "state"
            lines.append(f"  container {cs['name']}: {which}: Terminated: reason {term.get('reason', '')}, "
                         f"exit code {term.get('exitCode')}, started {term.get('startedAt', '?')}, "
                         f"finished {term.get('finishedAt', '?')}; restarts {cs.get('restartCount', 0)}")
    if events:
        lines.append("  events:")
        lines.extend(_fmt_events(events))
    return "\n".join(lines)


def _suspects(view: Any, expr: Expression) -> list[tuple[str, str]]:
    """Pods the expression names, else pods behind the workloads it names, else every pod not Ready."""
    named: list[tuple[str, str]] = []
    selectors: list[tuple[str, str]] = []
    for fn, args in expr.calls():
        ref = args[0] if args and isinstance(args[0], str) else None
        if fn in ("pod", "diagnosis", "status") and ref:
            ns, _, name = ref.rpartition("/")
            named.append((ns or "default", name))
        elif fn in ("deployment", "statefulset", "daemonset", "job", "replicaset") and ref:
            from kubelite.scenario.view import KIND_RESOURCES

            obj = view.get(KIND_RESOURCES[fn], ref)
            sel = ((obj or {}).get("spec") or {}).get("selector") or {}
            labels = sel.get("matchLabels") or {}
            if labels:
                ns = ref.rpartition("/")[0] or "default"
                selectors.append((ns, ",".join(f"{k}={v}" for k, v in sorted(labels.items()))))
    if named:
        return list(dict.fromkeys(named))
    pods = []
    for ns, sel in selectors:
        pods.extend(view.pods_matching(namespace=ns, label=sel))
    if not selectors:
        pods = view.pods_matching()
    bad = [p for p in pods if pod_status(p) not in ("Running", "Completed")
           or not any(c.get("type") == "Ready" and c.get("status") == "True"
                      for c in (p.get("status") or {}).get("conditions") or ())]
    bad = [p for p in bad if pod_status(p) != "Completed"]
    return [(p["metadata"].get("namespace", "default"), p["metadata"]["name"]) for p in bad]


_WORKLOADS = ("deployment", "statefulset", "daemonset", "replicaset", "job")


def _workloads(view: Any, expr: Expression) -> list[str]:
    """One line per workload the expression names: its desired and observed replica counts."""
    from kubelite.scenario.view import KIND_RESOURCES

    out = []
    for fn, args in dict.fromkeys((fn, tuple(a for a in args if isinstance(a, str))) for fn, args in expr.calls()):
        if fn not in _WORKLOADS or not args:
            continue
        ref = args[0]
        obj = view.get(KIND_RESOURCES[fn], ref)
        ns, _, name = ref.rpartition("/")
        what = f"{fn} {ns or 'default'}/{name}"
        if obj is None:
            out.append(f"{what} does not exist")
            continue
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        if fn == "job":
            out.append(f"{what}: active {st.get('active', 0)}, succeeded {st.get('succeeded', 0)}, "
                       f"failed {st.get('failed', 0)} (completions {spec.get('completions')})")
            continue
        fields = [f"{k} {st.get(k, 0)}" for k in ("replicas", "readyReplicas", "updatedReplicas", "availableReplicas",
                                                   "currentNumberScheduled", "numberReady") if k in st]
        want = spec.get("replicas", st.get("desiredNumberScheduled"))
        out.append(f"{what}: want {want}; " + (", ".join(fields) or "no status yet"))
    return out


def diagnose_expectation(view: Any, expr: Expression, verdict: Any) -> str:
    """What to say when ``expr`` did not hold: its value (or why it is unknown), each comparison that did
    not hold with the values it compared, and the suspicious pods' diagnoses."""
    if isinstance(verdict, Verdict):
        value = verdict.value
        if isinstance(value, Unknown):
            lines = [f"unknown: {value.reason}"]
        else:
            lines = [f"the expression was {show(value)}"]
        lines.extend(f"  {x}" for x in verdict.explain())
    else:
        lines = [f"the expression was {show(verdict)}"]
    lines.extend(_workloads(view, expr))
    suspects = _suspects(view, expr)
    for ns, name in suspects[:MAX_PODS]:
        lines.append(diagnose_pod(view, ns, name))
    if len(suspects) > MAX_PODS:
        lines.append(f"... and {len(suspects) - MAX_PODS} more pods not Ready")
    return "\n".join(lines)
