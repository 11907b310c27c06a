"""The HTML report: its sections, self-containment, escaping and determinism."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubelite.scenario import load_scenario, run_scenario
from kubelite.scenario.report import MAX_POINTS, render_html
from kubelite.scenario.result import EventRecord, ExpectationResult, PodInterval, RunResult, Series

SECTIONS = ("expectations", "replicas", "pods", "traffic", "steps", "events", "metrics")


def result(passed: bool = False) -> RunResult:
    return RunResult(
        scenario="rolling <update>", seed=7, until=600.0, passed=passed, description="web & api under load",
        expectations=[
            ExpectationResult(name="replicas converge", kind="eventually", expression="ready == 3", passed=True,
                              at=42.0),
            ExpectationResult(name="no errors", kind="always", expression='traffic("web") > 0.99', passed=passed,
                              at=300.0, diagnosis="pod web-1 is Pending:\n  0/3 nodes are available: 3 Insufficient cpu."),
        ],
        events=[EventRecord(time=1.0, type="Normal", reason="Scheduled", object="Pod/default/web-1",
                            source="default-scheduler", message="Successfully assigned default/web-1 to node-0"),
                EventRecord(time=90.0, type="Warning", reason="BackOff", object="Pod/default/web-2",
                            source="kubelet, node-1", message="<script>alert(1)</script>", count=4, last_seen=120.0)],
        series=[Series(name="deployment/web ready", points=[(0.0, 0.0), (30.0, 3.0), (600.0, 3.0)]),
                Series(name="deployment/web available", points=[(0.0, 0.0), (40.0, 3.0), (600.0, 3.0)]),
                Series(name="traffic default/web success_rate",
                       points=[(float(t), 0.5 if t == 333 else 1.0) for t in range(60, 600)])],
        pod_intervals=[PodInterval(pod="default/web-1", node="", state="Pending", start=0.0, end=2.0),
                       PodInterval(pod="default/web-1", node="node-0", state="ContainerCreating", start=2.0, end=5.0),
                       PodInterval(pod="default/web-1", node="node-0", state="Ready", start=5.0, end=600.0),
                       PodInterval(pod="default/web-2", node="node-1", state="CrashLoopBackOff", start=9.0, end=600.0)],
        metrics={"pod_startup": {"ready": {"p50": 1.5, "p99": 4.0}}, "scheduling": {"success_rate": 0.75},
                 "traffic": {"sent": 1000, "success_rate": 0.999}, "convergence": {}},
        steps=[(60.0, "startTraffic default/web: 10 requests/s"), (300.0, "patch deployment/web")],
    )


def test_report_has_every_section_and_the_verdict() -> None:
    html = render_html(result())
    assert html.startswith("<!DOCTYPE html>")
    for section in SECTIONS:
        assert f'<section id="{section}">' in html
    assert '<header class="top fail">' in html
    assert "1 of 2 expectations hold" in html
    assert html.count('class="pill pass"') == 1
    assert html.count('class="pill fail"') == 1
    assert "0/3 nodes are available: 3 Insufficient cpu." in html
    assert "<h3>deployment/web</h3>" in html
    assert html.count("<svg") == 3  # replicas, pod timeline, traffic
    assert "CrashLoopBackOff" in html and "#dc2626" in html  # the crash loop gets its colour
    assert "99.90%" in html  # the traffic tile


def test_report_is_self_contained_and_escaped() -> None:
    html = render_html(result())
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html
    assert "@import" not in html and "url(" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "rolling &lt;update&gt;" in html


def test_long_traffic_series_are_reduced_keeping_the_worst_second() -> None:
    html = render_html(result())
    traffic = html[html.index('<section id="traffic">'):html.index('<section id="steps">')]
    path = re.search(r'<path d="([^"]+)"', traffic)
    assert path is not None
    assert path.group(1).count("V") <= MAX_POINTS
    # the 50% second survives the reduction: some point is drawn below the 100% line
    ys = {float(m) for m in re.findall(r"V([\d.]+)", path.group(1))}
    assert len(ys) == 2


def test_passing_run_and_determinism() -> None:
    ok = render_html(result(passed=True))
    assert '<header class="top pass">' in ok and "2 of 2 expectations hold" in ok
    assert render_html(result(passed=True)) == ok


def test_empty_run_still_renders() -> None:
    html = render_html(RunResult(scenario="empty", seed=1, until=10.0, passed=True))
    assert "No Deployments or StatefulSets in this run." in html
    assert "No traffic was sent in this run." in html
    assert "This scenario states no expectations." in html


@pytest.mark.parametrize("name", ["crashloopbackoff"], ids=str)
def test_report_of_a_shipped_scenario(name: str) -> None:
    sc = load_scenario(Path(__file__).resolve().parents[2] / "scenarios" / f"{name}.yaml")
    html = render_html(run_scenario(sc))
    assert '<header class="top pass">' in html
    assert "BackOff" in html
    assert "orders" in html
