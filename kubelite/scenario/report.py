"""The HTML report of a scenario run: one self-contained file a person would rather look at than read.

Contract:
- :func:`render_html` is a pure function of a :class:`~kubelite.scenario.result.RunResult`: the same
  result gives the same bytes (no wall time, no randomness, mappings in sorted order).
- The page is self-contained: inline CSS and inline SVG charts drawn here, no scripts, no fonts, no
  images and no links to anything outside the file, so it opens offline and can be attached to a
  ticket or a CI run. Every text taken from the run is HTML-escaped.
- Sections, top to bottom: a summary header with the verdict and headline metrics; the expectations
  with PASS/FAIL and their diagnoses; ready and available replicas over time per workload; pod states
  per node as a timeline; traffic success rate over time; the steps; the events; every metric.
- Charts are step charts: a series point holds until the next one (the runner records a value when it
  changes). Long traffic series are reduced to at most :data:`MAX_POINTS` buckets keeping each
  bucket's *worst* success rate, so a one-second outage stays visible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from kubelite.kubectl.timefmt import human_duration
from kubelite.scenario.result import PodInterval, RunResult, Series

__all__ = ["MAX_POINTS", "render_html"]

MAX_POINTS = 300
_W, _H = 900, 230  # chart size (px, SVG user units)
_ML, _MR, _MT, _MB = 56, 16, 14, 30  # margins: left (y labels), right, top, bottom (x labels)
_PALETTE = ("#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4b5563", "#db2777")

#: pod timeline colours by state (prefix match for "Init:..." and friends)
_STATE_COLORS: tuple[tuple[str, str], ...] = (
    ("Ready", "#16a34a"), ("Running", "#86efac"), ("NotReady", "#86efac"), ("Pending", "#cbd5e1"),
    ("SchedulingGated", "#cbd5e1"), ("ContainerCreating", "#60a5fa"), ("PodInitializing", "#93c5fd"),
    ("Init:", "#93c5fd"), ("Terminating", "#f59e0b"), ("Completed", "#14b8a6"), ("Succeeded", "#14b8a6"),
    ("CrashLoopBackOff", "#dc2626"), ("Error", "#ef4444"), ("ExitCode:", "#ef4444"), ("OOMKilled", "#7f1d1d"),
    ("ErrImagePull", "#a855f7"), ("ImagePullBackOff", "#9333ea"), ("InvalidImageName", "#9333ea"),
    ("CreateContainerConfigError", "#c026d3"), ("Evicted", "#92400e"), ("Failed", "#b91c1c"),
    ("Unknown", "#475569"),
)

_CSS = """
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#0f172a;background:#f1f5f9}main{max-width:1000px;margin:0 auto;padding:24px 20px 48px}
header.top{border-radius:14px;padding:22px 26px;color:#fff;margin-bottom:20px}
header.pass{background:linear-gradient(135deg,#15803d,#16a34a)}header.fail{background:linear-gradient(135deg,#b91c1c,#dc2626)}
header.top h1{margin:0 0 4px;font-size:24px}header.top p{margin:2px 0;opacity:.92}
.verdict{float:right;font-size:30px;font-weight:800;letter-spacing:.04em;text-align:right}
.verdict small{display:block;font-size:13px;font-weight:500;letter-spacing:0}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:0 0 20px}
.tile{background:#fff;border-radius:12px;padding:12px 16px;box-shadow:0 1px 2px #0f172a14}
.tile b{display:block;font-size:22px}.tile span{color:#64748b;font-size:12px;text-transform:uppercase;letter-spacing:.05em}
section{background:#fff;border-radius:14px;padding:18px 22px;margin:0 0 18px;box-shadow:0 1px 2px #0f172a14}
section h2{margin:0 0 12px;font-size:17px}section h3{margin:14px 0 4px;font-size:14px;color:#334155}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:5px 8px;vertical-align:top}
th{color:#64748b;font-weight:600;border-bottom:1px solid #e2e8f0;font-size:12px;text-transform:uppercase}
tr+tr td{border-top:1px solid #f1f5f9}tr.warn td{background:#fff7ed}
.pill{display:inline-block;border-radius:999px;padding:1px 9px;font-size:12px;font-weight:700;color:#fff}
.pill.pass{background:#16a34a}.pill.fail{background:#dc2626}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f8fafc;border:1px solid #e2e8f0;border-radius:8px;padding:8px 10px;margin:6px 0 2px;white-space:pre-wrap}
.muted{color:#64748b}.legend{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:12px;margin:4px 0 8px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:3px;margin-right:5px;vertical-align:-1px}
svg{display:block;width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#475569}
.scroll{max-height:520px;overflow:auto}
"""


def _fmt_t(t: float) -> str:
    return human_duration(t) if t >= 120 else f"{t:g}s"


def _nice_step(span: float, target: int) -> float:
    """A round tick interval giving about ``target`` ticks over ``span``."""
    raw = max(span / max(target, 1), 1e-9)
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400):
        if step >= raw:
            return float(step)
    return float(int(raw / 86400 + 1) * 86400)


def _x(t: float, until: float) -> float:
    return _ML + (_W - _ML - _MR) * (t / until if until > 0 else 0.0)


def _x_axis(until: float, height: int) -> list[str]:
    out = []
    step = _nice_step(until, 8)
    t = 0.0
    while t <= until + 1e-9:
        x = _x(t, until)
        out.append(f'<line x1="{x:.1f}" y1="{_MT}" x2="{x:.1f}" y2="{height - _MB}" stroke="#eef2f7"/>'
                   f'<text x="{x:.1f}" y="{height - _MB + 16}" text-anchor="middle">{escape(_fmt_t(t))}</text>')
        t += step
    return out


def _step_path(points: Sequence[tuple[float, float]], until: float, y: Any) -> str:
    parts = []
    for i, (t, v) in enumerate(points):
        x, yy = _x(min(t, until), until), y(v)
        parts.append(f"{'M' if i == 0 else 'H'}{x:.1f}" + (f" {yy:.1f}" if i == 0 else f" V{yy:.1f}"))
    if points:
        parts.append(f"H{_x(until, until):.1f}")
    return " ".join(parts)


def _line_chart(lines: Sequence[tuple[str, str, Sequence[tuple[float, float]]]], *, until: float,
                y_max: float, percent: bool = False, marks: Sequence[tuple[float, str]] = ()) -> str:
    """An SVG step chart of ``(label, colour, points)`` lines over [0, until], with step markers."""
    top = y_max if y_max > 0 else 1.0
    head = 1.08 if percent else 1.12  # headroom so a line at the maximum is not drawn on the frame
    plot_h = _H - _MT - _MB

    def y(v: float) -> float:
        return _MT + plot_h * (1 - v / (top * head))

    out = [f'<svg viewBox="0 0 {_W} {_H}" role="img">', *_x_axis(until, _H)]
    ticks = [i / 4 * top for i in range(5)] if percent else \
        [float(v) for v in range(0, int(top) + 1, max(1, int(_nice_step(top, 5))))]
    for v in ticks:
        label = f"{v * 100:.0f}%" if percent else f"{v:g}"
        out.append(f'<line x1="{_ML}" y1="{y(v):.1f}" x2="{_W - _MR}" y2="{y(v):.1f}" stroke="#e2e8f0"/>'
                   f'<text x="{_ML - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{label}</text>')
    for t, text in marks:
        x = _x(t, until)
        out.append(f'<line x1="{x:.1f}" y1="{_MT}" x2="{x:.1f}" y2="{_H - _MB}" stroke="#94a3b8" '
                   f'stroke-dasharray="4 3"><title>{escape(_fmt_t(t))}: {escape(text)}</title></line>')
    for i, (label, color, points) in enumerate(lines):
        # later lines dashed: equal series (ready == available) stay distinguishable
        dash = ' stroke-dasharray="7 4"' if i % 2 else ""
        out.append(f'<path d="{_step_path(points, until, y)}" fill="none" stroke="{color}" stroke-width="2.2" '
                   f'stroke-linejoin="round"{dash}><title>{escape(label)}</title></path>')
    out.append(f'<line x1="{_ML}" y1="{_H - _MB}" x2="{_W - _MR}" y2="{_H - _MB}" stroke="#94a3b8"/></svg>')
    legend = "".join(f'<span><i style="background:{c}"></i>{escape(lbl)}</span>' for lbl, c, _ in lines)
    return f'<div class="legend">{legend}</div>' + "".join(out)


def _reduce_worst(points: Sequence[tuple[float, float]], until: float) -> list[tuple[float, float]]:
    """At most :data:`MAX_POINTS` points: each bucket keeps its lowest value (see module docstring)."""
    if len(points) <= MAX_POINTS:
        return list(points)
    width = until / MAX_POINTS if until > 0 else 1.0
    buckets: dict[int, tuple[float, float]] = {}
    for t, v in points:
        b = int(t / width)
        if b not in buckets or v < buckets[b][1]:
            buckets[b] = (b * width, v)
    return [buckets[b] for b in sorted(buckets)]


def _state_color(state: str) -> str:
    for prefix, color in _STATE_COLORS:
        if state == prefix or (prefix.endswith(":") and state.startswith(prefix)):
            return color
    return "#64748b"


def _replica_charts(result: RunResult, marks: Sequence[tuple[float, str]]) -> str:
    workloads: dict[str, dict[str, Series]] = {}
    for s in result.series:
        if s.name.startswith("traffic "):
            continue
        workload, _, what = s.name.rpartition(" ")
        workloads.setdefault(workload, {})[what] = s
    if not workloads:
        return '<p class="muted">No Deployments or StatefulSets in this run.</p>'
    out = []
    for workload in sorted(workloads):
        parts = workloads[workload]
        lines = [(f"{what}", _PALETTE[i % len(_PALETTE)], parts[what].points)
                 for i, what in enumerate(w for w in ("ready", "available") if w in parts)]
        y_max = max((v for _, _, pts in lines for _, v in pts), default=1.0)
        out.append(f"<h3>{escape(workload)}</h3>" + _line_chart(lines, until=result.until, y_max=max(1.0, y_max),
                                                                 marks=marks))
    return "".join(out)


def _traffic_chart(result: RunResult, marks: Sequence[tuple[float, str]]) -> str:
    lines = [(s.name.removeprefix("traffic ").removesuffix(" success_rate"), _PALETTE[i % len(_PALETTE)],
              _reduce_worst(s.points, result.until))
             for i, s in enumerate(s for s in result.series if s.name.startswith("traffic "))]
    if not lines:
        return '<p class="muted">No traffic was sent in this run.</p>'
    return _line_chart(lines, until=result.until, y_max=1.0, percent=True, marks=marks)


def _pod_timeline(result: RunResult) -> str:
    """One row per pod, grouped by the node it ran on (unscheduled time in its own group)."""
    if not result.pod_intervals:
        return '<p class="muted">No pods in this run.</p>'
    by_node: dict[str, dict[str, list[PodInterval]]] = {}
    for iv in result.pod_intervals:
        if iv.end <= iv.start and iv.end < result.until:
            continue  # an instant state (seen and left in the same moment)
        by_node.setdefault(iv.node or "(not scheduled)", {}).setdefault(iv.pod, []).append(iv)
    row_h, label_w = 18, 190
    rows: list[str] = []
    y = _MT
    states: set[str] = set()
    for node in sorted(by_node, key=lambda n: (n == "(not scheduled)", n)):
        pods = by_node[node]
        rows.append(f'<text x="4" y="{y + 12}" style="font-weight:700;fill:#0f172a">{escape(node)}</text>')
        y += row_h
        for pod in sorted(pods, key=lambda p: (min(iv.start for iv in pods[p]), p)):
            name = pod.rpartition("/")[2]
            short = name if len(name) <= 28 else name[:12] + "…" + name[-14:]
            rows.append(f'<text x="14" y="{y + 12}"><title>{escape(pod)}</title>{escape(short)}</text>')
            for iv in pods[pod]:
                states.add(iv.state)
                x0 = label_w + (_W - label_w - _MR) * iv.start / result.until if result.until else label_w
                x1 = label_w + (_W - label_w - _MR) * min(iv.end, result.until) / result.until if result.until \
                    else label_w
                rows.append(f'<rect x="{x0:.1f}" y="{y + 2}" width="{max(x1 - x0, 1.5):.1f}" height="{row_h - 5}" '
                            f'rx="3" fill="{_state_color(iv.state)}"><title>{escape(pod)} on {escape(node)}: '
                            f'{escape(iv.state)} from {_fmt_t(iv.start)} to {_fmt_t(iv.end)}</title></rect>')
            y += row_h
        y += 4
    height = y + _MB
    axis = []
    step = _nice_step(result.until, 8)
    t = 0.0
    while t <= result.until + 1e-9:
        x = label_w + (_W - label_w - _MR) * (t / result.until if result.until else 0)
        axis.append(f'<line x1="{x:.1f}" y1="{_MT}" x2="{x:.1f}" y2="{y}" stroke="#eef2f7"/>'
                    f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle">{escape(_fmt_t(t))}</text>')
        t += step
    legend = "".join(f'<span><i style="background:{_state_color(s)}"></i>{escape(s)}</span>' for s in sorted(states))
    return (f'<div class="legend">{legend}</div><div class="scroll"><svg viewBox="0 0 {_W} {height}" role="img">'
            + "".join(axis) + "".join(rows) + "</svg></div>")


def _expectations(result: RunResult) -> str:
    if not result.expectations:
        return '<p class="muted">This scenario states no expectations.</p>'
    rows = []
    for e in result.expectations:
        verdict = "pass" if e.passed else "fail"
        when = "" if e.at is None else _fmt_t(e.at)
        diag = f"<pre>{escape(e.diagnosis)}</pre>" if e.diagnosis else ""
        expr = f"<br><code>{escape(e.expression)}</code>" if e.expression and e.expression != e.name else ""
        rows.append(f'<tr><td><span class="pill {verdict}">{verdict.upper()}</span></td>'
                    f"<td>{escape(e.name)}{expr}{diag}</td><td>{escape(e.kind.replace('_', ' '))}</td>"
                    f"<td>{escape(when)}</td></tr>")
    return ("<table><tr><th>Verdict</th><th>Expectation</th><th>Kind</th><th>At</th></tr>"
            + "".join(rows) + "</table>")


def _events(result: RunResult) -> str:
    if not result.events:
        return '<p class="muted">No events.</p>'
    rows = []
    for e in result.events:
        count = f" <span class=\"muted\">(x{e.count})</span>" if e.count > 1 else ""
        rows.append(f'<tr{" class=warn" if e.type == "Warning" else ""}><td>{escape(_fmt_t(e.time))}</td>'
                    f"<td>{escape(e.type)}</td><td>{escape(e.reason)}{count}</td><td>{escape(e.object)}</td>"
                    f"<td>{escape(e.source)}</td><td>{escape(e.message)}</td></tr>")
    return ('<div class="scroll"><table><tr><th>Time</th><th>Type</th><th>Reason</th><th>Object</th><th>From</th>'
            "<th>Message</th></tr>" + "".join(rows) + "</table></div>")


def _flatten(prefix: str, v: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(v, Mapping):
        if not v:
            out.append((prefix, "—"))
        for k in sorted(v):
            _flatten(f"{prefix}.{k}" if prefix else str(k), v[k], out)
    elif isinstance(v, float):
        out.append((prefix, f"{v:.6g}"))
    else:
        out.append((prefix, "—" if v is None else str(v)))


def _get(metrics: Mapping[str, Any], *path: str) -> Any:
    cur: Any = metrics
    for p in path:
        if not isinstance(cur, Mapping) or p not in cur:
            return None
        cur = cur[p]
    return cur


def _tiles(result: RunResult) -> str:
    m = result.metrics
    tiles: list[tuple[str, str]] = []
    p50, p99 = _get(m, "pod_startup", "ready", "p50"), _get(m, "pod_startup", "ready", "p99")
    if isinstance(p50, int | float) and isinstance(p99, int | float):
        tiles.append((f"{p50:.3g}s / {p99:.3g}s", "pod ready p50 / p99"))
    rate = _get(m, "scheduling", "success_rate")
    if isinstance(rate, int | float):
        tiles.append((f"{rate * 100:.1f}%", "scheduling success"))
    sent, trate = _get(m, "traffic", "sent"), _get(m, "traffic", "success_rate")
    if sent and isinstance(trate, int | float):
        tiles.append((f"{trate * 100:.2f}%", f"traffic success ({sent} requests)"))
    conv = _get(m, "convergence")
    if isinstance(conv, Mapping) and conv:
        worst = max((c.get("max") or 0.0) for c in conv.values() if isinstance(c, Mapping))
        tiles.append((f"{_fmt_t(float(worst))}", "slowest convergence"))
    tiles.append((str(len(result.events)), "events"))
    return '<div class="tiles">' + "".join(f"<div class=tile><b>{escape(v)}</b><span>{escape(k)}</span></div>"
                                           for v, k in tiles) + "</div>"


def render_html(result: RunResult) -> str:
    """The whole report as one HTML document (see the module docstring)."""
    failed = sum(1 for e in result.expectations if not e.passed)
    total = len(result.expectations)
    verdict = "pass" if result.passed else "fail"
    marks = [(t, text) for t, text in result.steps]
    flat: list[tuple[str, str]] = []
    _flatten("", result.metrics, flat)
    steps = "".join(f"<tr><td>{escape(_fmt_t(t))}</td><td>{escape(text)}</td></tr>" for t, text in result.steps)
    title = escape(result.scenario)
    parts = [
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title} · kubelite</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head><body><main>',
        f'<header class="top {verdict}"><div class="verdict">{verdict.upper()}'
        f"<small>{total - failed} of {total} expectations hold</small></div>"
        f"<h1>{title}</h1><p>{escape(result.description)}</p>"
        f"<p>seed {result.seed} · {escape(_fmt_t(result.until))} of cluster time</p></header>",
        _tiles(result),
        f'<section id="expectations"><h2>Expectations</h2>{_expectations(result)}</section>',
        f'<section id="replicas"><h2>Ready and available replicas</h2>{_replica_charts(result, marks)}</section>',
        f'<section id="pods"><h2>Pod states per node</h2>{_pod_timeline(result)}</section>',
        f'<section id="traffic"><h2>Traffic success rate</h2>{_traffic_chart(result, marks)}</section>',
    ]
    if steps:
        parts.append(f'<section id="steps"><h2>Steps</h2><table><tr><th>At</th><th>Step</th></tr>{steps}'
                     "</table></section>")
    parts.append(f'<section id="events"><h2>Events</h2>{_events(result)}</section>')
    parts.append('<section id="metrics"><h2>Metrics</h2><table><tr><th>Metric</th><th>Value</th></tr>'
                 + "".join(f"<tr><td><code>{escape(k)}</code></td><td>{escape(v)}</td></tr>" for k, v in flat)
                 + "</table></section>")
    parts.append('<p class="muted">Generated by kubelite from a deterministic run on virtual time: the same '
                 "scenario and seed give this same page.</p></main></body></html>\n")
    return "".join(parts)
