"""Minimal kubectl-style printers for a run's text output (to be replaced by ``kubelite.kubectl``).

Follows ``pkg/printers/internalversion/printers.go`` (``printPod``, ``printDeployment``,
``printEvent``), ``k8s.io/apimachinery/pkg/util/duration.HumanDuration`` for ages, and kubectl's
tabwriter settings (``printers.GetNewTabWriter``: min width 10, padding 3). Pure functions of their
inputs: the same objects and end time always print the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.clock import EPOCH
from kubelite.kubectl import human_duration, pod_summary, print_table
from kubelite.scenario.result import EventRecord

__all__ = ["pod_status", "print_events", "render_text", "table"]


def pod_status(pod: Mapping[str, Any]) -> str:
    """The STATUS column ``kubectl get pods`` shows (``printPod``)."""
    return pod_summary(pod).reason


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
    now = EPOCH + end
    pods = [o for o in result.objects if o.get("kind") == "Pod"]
    deps = [o for o in result.objects if o.get("kind") == "Deployment"]
    parts.append("\nPODS (kubectl get pods -A -o wide)\n"
                 + (print_table("pods", pods, now=now, wide=True, all_namespaces=True) or "No resources found\n"))
    if deps:
        parts.append("\nDEPLOYMENTS (kubectl get deployments -A)\n"
                     + print_table("deployments", deps, now=now, all_namespaces=True))
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
