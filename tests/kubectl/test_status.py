"""kubectl's client-side STATUS / READY / RESTARTS for pods and STATUS for nodes (printPod, printNode)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.kubectl.status import format_selector, node_roles, node_status, pod_summary

from .objects import pod, running, terminated, waiting

SIDE = {"name": "proxy", "image": "envoy", "restartPolicy": "Always"}
INIT = {"name": "migrate", "image": "migrate"}

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("pending-unscheduled", pod(phase="Pending", node="", ip=""), "0/1", "Pending"),
    ("container-creating", pod(phase="Pending", statuses=[waiting("ContainerCreating")]), "0/1", "ContainerCreating"),
    ("running-ready", pod(statuses=[running()]), "1/1", "Running"),
    ("running-not-ready", pod(statuses=[running(ready=False)]), "0/1", "Running"),
    ("crash-loop", pod(statuses=[waiting("CrashLoopBackOff", restarts=4)]), "0/1", "CrashLoopBackOff"),
    ("err-image-pull", pod(phase="Pending", statuses=[waiting("ErrImagePull")]), "0/1", "ErrImagePull"),
    ("image-pull-backoff", pod(phase="Pending", statuses=[waiting("ImagePullBackOff")]), "0/1", "ImagePullBackOff"),
    ("oom-killed", pod(statuses=[terminated("OOMKilled", 137)]), "0/1", "OOMKilled"),
    ("completed", pod(phase="Succeeded", statuses=[terminated("Completed", 0)]), "0/1", "Completed"),
    ("error", pod(phase="Failed", statuses=[terminated("Error", 1)]), "0/1", "Error"),
    ("exit-code", pod(phase="Failed", statuses=[terminated(None, 3)]), "0/1", "ExitCode:3"),
    ("signal", pod(phase="Failed", statuses=[terminated(None, 137, signal=9)]), "0/1", "Signal:9"),
    ("evicted", pod(phase="Failed", reason="Evicted", statuses=[]), "0/1", "Evicted"),
    ("terminating", pod(deleted=True, statuses=[running()]), "1/1", "Terminating"),
    ("terminated-phase-not-terminating", pod(phase="Succeeded", deleted=True,
                                             statuses=[terminated("Completed", 0)]), "0/1", "Completed"),
    ("node-lost", pod(deleted=True, reason="NodeLost", statuses=[running()]), "1/1", "Unknown"),
    ("init-waiting", pod(phase="Pending", init=[INIT], init_statuses=[
        {"name": "migrate", "state": {"waiting": {"reason": "PodInitializing"}}}]), "0/1", "Init:0/1"),
    ("init-crash", pod(phase="Pending", init=[INIT], init_statuses=[waiting("CrashLoopBackOff", "migrate")]),
     "0/1", "Init:CrashLoopBackOff"),
    ("init-error", pod(phase="Pending", init=[INIT], init_statuses=[terminated("Error", 1, "migrate")]),
     "0/1", "Init:Error"),
    ("init-done", pod(init=[INIT], init_statuses=[terminated("Completed", 0, "migrate")], statuses=[running()],
                      conditions={"Initialized": "True", "Ready": "True"}), "1/1", "Running"),
    ("sidecar-counts", pod(init=[SIDE], init_statuses=[{**running("proxy"), "started": True}],
                           statuses=[running()], conditions={"Initialized": "True"}), "2/2", "Running"),
    ("completed-but-one-running", pod(containers=2, statuses=[running("c0"), terminated("Completed", 0, "c1")],
                                      conditions={"Ready": "False"}), "1/2", "NotReady"),
    ("scheduling-gated", {**pod(phase="Pending", node="", ip=""), "status": {
        "phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                            "reason": "SchedulingGated"}]}}, "0/1", "SchedulingGated"),
]


@pytest.mark.parametrize(("obj", "ready", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_summary(obj: dict[str, Any], ready: str, status: str) -> None:
    s = pod_summary(obj)
    assert (f"{s.ready}/{s.total}", s.reason) == (ready, status)


def test_restarts_and_last_restart() -> None:
    p = pod(containers=2, statuses=[running("c0", restarts=2, last_finished=30),
                                    running("c1", restarts=1, last_finished=50)])
    s = pod_summary(p)
    assert (s.restarts, s.last_restart) == (3, "2025-01-01T00:00:50Z")


@pytest.mark.parametrize(
    ("conditions", "unschedulable", "want"),
    [([{"type": "Ready", "status": "True"}], False, "Ready"),
     ([{"type": "Ready", "status": "False"}], False, "NotReady"),
     ([{"type": "Ready", "status": "Unknown"}], True, "NotReady,SchedulingDisabled"),
     ([{"type": "Ready", "status": "True"}], True, "Ready,SchedulingDisabled"),
     ([], False, "Unknown")],
    ids=["ready", "not-ready", "unknown-cordoned", "cordoned", "no-condition"],
)
def test_node_status(conditions: list[dict[str, str]], unschedulable: bool, want: str) -> None:
    node = {"spec": {"unschedulable": unschedulable}, "status": {"conditions": conditions}}
    assert node_status(node) == want


def test_node_roles_and_selectors() -> None:
    node = {"metadata": {"labels": {"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "gpu",
                                    "node-role.kubernetes.io/": "x"}}}
    assert node_roles(node) == "control-plane,gpu"
    assert node_roles({"metadata": {}}) == "<none>"
    sel = {"matchLabels": {"b": "2", "a": "1"},
           "matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "api"]},
                                {"key": "canary", "operator": "DoesNotExist"}]}
    assert format_selector(sel) == "a=1,b=2,!canary,tier in (api,web)"
