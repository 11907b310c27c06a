"""Container status as the kubelet writes it through every transition (kubelet_pods.go
convertToAPIContainerStatuses, status_manager mergePodStatus), and kubectl's STATUS column from it."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster
from kubelite.kubectl.status import pod_summary


def pod(name: str, containers: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if "annotations" in spec:
        meta["annotations"] = spec.pop("annotations")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": containers, **spec}}


async def watch_status(c: Cluster, name: str, seconds: float, step: float = 0.5) -> list[tuple[float, str, int]]:
    """(time since start, kubectl STATUS, RESTARTS) at every change, sampled every ``step``."""
    t0 = c.now
    out: list[tuple[float, str, int]] = []
    for _ in range(int(seconds / step)):
        await c.advance(step)
        p = await c.client.get("pods", name, namespace="default")
        s = pod_summary(p)
        if not out or out[-1][1:] != (s.reason, s.restarts):
            out.append((round(c.now - t0, 1), s.reason, s.restarts))
    return out


async def test_crash_loop_shows_error_then_crashloopbackoff_with_the_run_that_just_ended(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("crash", [{"name": "app", "image": "busybox:1.36",
                                                "command": ["sh", "-c", "sleep 2; exit 1"]}]))
    seen = await watch_status(cluster, "crash", 120)
    statuses = [s for _, s, _ in seen]
    # every crash after the first is reported as Error before the backoff shows (kubectl get -w)
    assert statuses.count("Error") >= 3 and statuses.count("CrashLoopBackOff") >= 3
    for i, (_, s, _) in enumerate(seen):
        if s == "CrashLoopBackOff" and i and seen[i - 1][1] != "CrashLoopBackOff":
            assert seen[i - 1][1] == "Error"
    p = await cluster.client.get("pods", "crash", namespace="default")
    cs = p["status"]["containerStatuses"][0]
    assert cs["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    last = cs["lastState"]["terminated"]
    assert last["exitCode"] == 1 and last["reason"] == "Error"
    # lastState is the run that just ended: it finished within the current backoff, not one crash earlier
    restarts = cs["restartCount"]
    assert restarts >= 3
    delay = min(10 * 2 ** (restarts - 1), 300)
    finished = _t(last["finishedAt"])
    assert cluster.now - finished < delay
    assert f"back-off {delay}s" in cs["state"]["waiting"]["message"]


def _t(s: str) -> float:
    from kubelite.clock import parse_time
    return parse_time(s)


async def test_oom_killed_is_reported_with_137_before_the_backoff(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("oom", [{"name": "app", "image": "nginx:1.25",
                                              "resources": {"limits": {"memory": "64Mi"}}}],
                                     annotations={"kubelite.io/profile": '{"memorySteps": [[3, "200Mi"]]}'}))
    seen = await watch_status(cluster, "oom", 60)
    assert "OOMKilled" in [s for _, s, _ in seen]
    i = [s for _, s, _ in seen].index("CrashLoopBackOff")
    assert seen[i - 1][1] == "OOMKilled"
    cs = (await cluster.client.get("pods", "oom", namespace="default"))["status"]["containerStatuses"][0]
    assert cs["lastState"]["terminated"]["reason"] == "OOMKilled"
    assert cs["lastState"]["terminated"]["exitCode"] == 137


async def test_crash_backoff_delays_are_upstreams(cluster: Cluster) -> None:
    """Restarts after 0 (the first), then 10, 20, 40, 80, 160, 300 s measured from each finishedAt."""
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("crash", [{"name": "app", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
                                                "command": ["sh", "-c", "exit 2"]}]))
    starts: list[float] = []
    finishes: list[float] = []
    for _ in range(2 * 950):
        await cluster.advance(0.5)
        cs = ((await cluster.client.get("pods", "crash", namespace="default"))["status"]
              .get("containerStatuses") or [{}])[0]
        term = (cs.get("lastState") or {}).get("terminated")
        if term and (not finishes or _t(term["finishedAt"]) != finishes[-1]):
            finishes.append(_t(term["finishedAt"]))
        if cs.get("restartCount", 0) > len(starts):
            starts.append(cluster.now)
    gaps = [round(s - f) for s, f in zip(starts[1:], finishes[:-1], strict=False)]
    assert gaps[:7] == [10, 20, 40, 80, 160, 300, 300], gaps


async def test_init_containers_running_is_not_ready_and_waiting_ones_show_pod_initializing(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("init", [{"name": "app", "image": "nginx:1.25"}], initContainers=[
        {"name": "first", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 20"]},
        {"name": "second", "image": "busybox:1.36", "command": ["sh", "-c", "echo done"]}]))
    await cluster.advance(8)
    p = await cluster.client.get("pods", "init", namespace="default")
    first, second = p["status"]["initContainerStatuses"]
    assert "running" in first["state"] and first["ready"] is False and first["started"] is True
    assert second["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert p["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert pod_summary(p).reason == "Init:0/2"
    await cluster.advance(20)
    p = await cluster.client.get("pods", "init", namespace="default")
    first, second = p["status"]["initContainerStatuses"]
    assert first["state"]["terminated"]["reason"] == "Completed" and first["ready"] is True
    assert second["state"]["terminated"]["exitCode"] == 0
    assert pod_summary(p).reason == "Running" and p["status"]["phase"] == "Running"


async def test_disruption_target_from_preemption_survives_kubelet_status_writes(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("victim", [{"name": "app", "image": "nginx:1.25",
                                                 "readinessProbe": {"httpGet": {"port": 80}, "periodSeconds": 5}}],
                                     terminationGracePeriodSeconds=30))
    await cluster.advance(3)
    # what the scheduler's preemption writes before deleting a victim
    await cluster.client.patch_status("pods", "victim", {"status": {"conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
         "message": "default-scheduler: preempting to accommodate a higher priority pod",
         "lastTransitionTime": cluster.clock.timestamp()}]}}, namespace="default", patch_type="strategic")
    await cluster.advance(30)  # the readiness probe flips Ready: the kubelet writes its conditions again
    p = await cluster.client.get("pods", "victim", namespace="default")
    conds = {c["type"]: c for c in p["status"]["conditions"]}
    assert conds["Ready"]["status"] == "True"
    assert conds["DisruptionTarget"]["reason"] == "PreemptionByScheduler"


async def test_eviction_api_sets_disruption_target(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("ev", [{"name": "app", "image": "nginx:1.25"}], terminationGracePeriodSeconds=20))
    await cluster.advance(3)
    await cluster.client.evict("default", "ev")
    await cluster.advance(1)
    p = await cluster.client.get("pods", "ev", namespace="default")
    conds = {c["type"]: c for c in p["status"]["conditions"]}
    assert p["metadata"]["deletionTimestamp"]
    assert conds["DisruptionTarget"]["reason"] == "EvictionByEvictionAPI"


async def test_docs_liveness_exec_example_restarts_after_the_file_is_removed(cluster: Cluster) -> None:
    """kubernetes.io's exec-liveness.yaml: the file goes at 30 s; three failed probes (period 5) later the
    kubelet kills the container; ``sh`` as PID 1 ignores SIGTERM, so it dies at the 30 s grace period and
    restarts (the docs: "wait another 30 seconds, and verify that the container has been restarted")."""
    await cluster.add_nodes(1, prefix="w")
    await cluster.client.create(pod("liveness-exec", [{
        "name": "liveness", "image": "registry.k8s.io/busybox",
        "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
        "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5,
                          "periodSeconds": 5}}]))
    await cluster.advance(30)
    p = await cluster.client.get("pods", "liveness-exec", namespace="default")
    assert p["status"]["containerStatuses"][0]["restartCount"] == 0
    await cluster.advance(40)  # t=70: killed at 45 + 30 s grace
    p = await cluster.client.get("pods", "liveness-exec", namespace="default")
    cs = p["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 0 and "running" in cs["state"]
    await cluster.advance(10)
    p = await cluster.client.get("pods", "liveness-exec", namespace="default")
    cs = p["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 1 and "running" in cs["state"]
    assert cs["lastState"]["terminated"]["exitCode"] == 137
    evs = [e for e in await cluster.client.list("events", namespace="default")
           if e["involvedObject"]["name"] == "liveness-exec"]
    unhealthy = [e for e in evs if e["reason"] == "Unhealthy"]
    assert unhealthy and unhealthy[0]["message"].startswith("Liveness probe failed")
    assert any(e["reason"] == "Killing" and "failed liveness probe" in e["message"] for e in evs)
