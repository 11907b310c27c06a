"""The kubelet end to end on virtual time: every symptom of the seed's table for its real cause,
probe timing, backoff, GPUs, graceful termination, node stop and restart, eviction."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry, Kubelet, NodePool
from kubelite.kubelet.status import pod_phase


def pod(name: str, *containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if "annotations" in spec:
        meta["annotations"] = spec.pop("annotations")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": list(containers), **spec}}


def ctr(name: str = "app", image: str = "app:1", **kw: Any) -> dict[str, Any]:
    return {"name": name, "image": image, **kw}


async def start(cluster: Cluster, n: int = 1, **kw: Any) -> NodePool:
    reg = kw.pop("registry", None) or ImageRegistry()
    reg.add("app:1", ImageProfile(size="10Mi"))
    pool = await cluster.add_nodes(n, registry=reg, **kw)
    assert pool is not None
    return pool


async def run_pod(cluster: Cluster, body: dict[str, Any], node: str = "node-0") -> None:
    await cluster.client.create(body)
    await cluster.client.bind("default", body["metadata"]["name"], node)


async def get(cluster: Cluster, name: str) -> dict[str, Any]:
    p: dict[str, Any] = await cluster.client.get("pods", name, namespace="default")
    return p


def cstatus(p: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return p["status"]["containerStatuses"][i]  # type: ignore[no-any-return]


async def reasons(cluster: Cluster, name: str) -> list[str]:
    evs = await cluster.client.list("events", namespace="default")
    return [e["reason"] for e in evs if e["involvedObject"]["name"] == name]


async def test_pod_runs_and_reports_upstream_status(cluster: Cluster) -> None:
    await start(cluster)
    await run_pod(cluster, pod("web", ctr()))
    await cluster.advance(5)
    p = await get(cluster, "web")
    s = p["status"]
    assert s["phase"] == "Running"
    assert s["podIP"].startswith("10.244.0.") and s["hostIP"] == "172.16.0.1"
    assert [c["type"] for c in s["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert all(c["status"] == "True" for c in s["conditions"])
    assert cstatus(p)["state"]["running"]["startedAt"] and cstatus(p)["ready"]
    assert await reasons(cluster, "web") == ["Pulling", "Pulled", "Created", "Started"]
    node = await cluster.client.get("nodes", "node-0")
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]} == {
        "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False", "Ready": "True"}
    assert node["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-a"
    lease = await cluster.client.get("leases", "node-0", namespace="kube-node-lease")
    before = lease["spec"]["renewTime"]
    await cluster.advance(10)
    lease = await cluster.client.get("leases", "node-0", namespace="kube-node-lease")
    assert lease["spec"]["renewTime"] > before


@pytest.mark.parametrize(("first", "ends", "second", "admitted"), [
    ({"cpu": "6"}, None, {"cpu": "6"}, False),
    ({"cpu": "6"}, "completes", {"cpu": "6"}, True),
    ({"cpu": "6"}, "deleted", {"cpu": "6"}, True),
    ({"hostPort": 8080}, None, {"hostPort": 8080}, False),
    ({"hostPort": 8080}, "deleted", {"hostPort": 8080}, True),
    ({"hostPort": 8080}, "completes", {"hostPort": 8081}, True),
], ids=["cpu-taken", "cpu-freed-on-completion", "cpu-freed-on-delete", "port-taken", "port-freed-on-delete",
        "other-port"])
async def test_admission_counts_only_the_active_pods(cluster: Cluster, first: dict[str, Any], ends: str | None,
                                                     second: dict[str, Any], admitted: bool) -> None:
    """Admission sees what the node's active pods (admitted, not terminal, not gone) request and bind, as
    upstream's canAdmitPod over GetActivePods: a completed or deleted pod's CPU and host port are free again."""
    reg = ImageRegistry()
    reg.add("job:1", ImageProfile(exit_after=3))
    await start(cluster, registry=reg)

    def body(name: str, want: dict[str, Any]) -> dict[str, Any]:
        if "hostPort" in want:
            c = ctr(image="job:1" if ends == "completes" else "app:1",
                    ports=[{"containerPort": 80, "hostPort": want["hostPort"]}])
        else:
            c = ctr(image="job:1" if ends == "completes" else "app:1", resources={"requests": want})
        return pod(name, c, restartPolicy="Never")

    await run_pod(cluster, body("first", first))
    await cluster.advance(10)
    if ends == "deleted":
        await cluster.client.delete("pods", "first", namespace="default", grace_period=0)
        await cluster.advance(1)
    await run_pod(cluster, body("second", second))
    await cluster.advance(1)
    s = (await get(cluster, "second"))["status"]
    if admitted:
        assert "reason" not in s and s["phase"] in ("Running", "Succeeded")
    else:
        assert s["phase"] == "Failed" and s["reason"] in ("OutOfcpu", "NodePorts")


@pytest.mark.parametrize(("requests", "reason"), [
    ({"cpu": "100"}, "OutOfcpu"), ({"memory": "1Ti"}, "OutOfmemory"), ({"nvidia.com/gpu": "1"}, "OutOfnvidia.com/gpu"),
], ids=["cpu", "memory", "gpu"])
async def test_admission_failure_ends_failed(cluster: Cluster, requests: dict[str, str], reason: str) -> None:
    await start(cluster)
    await run_pod(cluster, pod("big", ctr(resources={"requests": requests, "limits": requests})))
    await cluster.advance(1)
    s = (await get(cluster, "big"))["status"]
    assert s["phase"] == "Failed" and s["reason"] == reason
    assert s["message"].startswith("Pod was rejected: Node didn't have enough resource: ")


async def test_unknown_image_err_image_pull_then_backoff(cluster: Cluster) -> None:
    reg = ImageRegistry(allow_any=False)
    await start(cluster, registry=reg)
    await run_pod(cluster, pod("bad", ctr(image="nosuch/image:v1")))
    await cluster.advance(1)
    w = cstatus(await get(cluster, "bad"))["state"]["waiting"]
    assert w["reason"] == "ErrImagePull" and "not found" in w["message"]
    # upstream's pull backoff: each failed pull doubles the wait before the next (10, 20, 40, ... 300 s),
    # ErrImagePull for one sync, then ImagePullBackOff until the next pull
    first = cluster.now
    pulls, prev = [first], "ErrImagePull"
    for _ in range(2 * 700):
        await cluster.advance(0.5)
        reason = cstatus(await get(cluster, "bad"))["state"]["waiting"]["reason"]
        if reason == "ErrImagePull" and prev != reason:
            pulls.append(cluster.now)
        prev = reason
    gaps = [b - a for a, b in itertools.pairwise(pulls)]
    # a failed resolve takes 0.5 s on top of the backoff; observed on a 0.5 s grid
    assert len(gaps) == 6 and all(0 <= g - want <= 1 for g, want in zip(gaps, [10, 20, 40, 80, 160, 300])), gaps
    assert (await get(cluster, "bad"))["status"]["phase"] == "Pending"
    assert "BackOff" in await reasons(cluster, "bad")


async def test_cni_not_ready_stays_container_creating(cluster: Cluster) -> None:
    pool = await start(cluster)
    pool["node-0"].break_cni()
    await run_pod(cluster, pod("net", ctr()))
    await cluster.advance(60)
    p = await get(cluster, "net")
    assert cstatus(p)["state"]["waiting"]["reason"] == "ContainerCreating"
    assert "podIP" not in p["status"]
    assert "FailedCreatePodSandBox" in await reasons(cluster, "net")
    pool["node-0"].break_cni(False)
    await cluster.advance(20)
    assert (await get(cluster, "net"))["status"]["phase"] == "Running"


async def test_missing_configmap_failed_mount_until_created(cluster: Cluster) -> None:
    await start(cluster)
    await run_pod(cluster, pod("cfg", ctr(), volumes=[{"name": "c", "configMap": {"name": "settings"}}]))
    await cluster.advance(30)
    assert cstatus(await get(cluster, "cfg"))["state"]["waiting"]["reason"] == "ContainerCreating"
    assert "FailedMount" in await reasons(cluster, "cfg")
    await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "settings", "namespace": "default"}, "data": {"a": "1"}})
    await cluster.advance(130)
    assert (await get(cluster, "cfg"))["status"]["phase"] == "Running"


async def test_env_from_missing_secret_is_create_container_config_error(cluster: Cluster) -> None:
    await start(cluster)
    await run_pod(cluster, pod("env", ctr(envFrom=[{"secretRef": {"name": "creds"}}])))
    await cluster.advance(5)
    w = cstatus(await get(cluster, "env"))["state"]["waiting"]
    assert w == {"reason": "CreateContainerConfigError", "message": 'secret "creds" not found'}


async def test_crashloop_backoff_sequence(cluster: Cluster) -> None:
    reg = ImageRegistry()
    reg.add("crash:1", ImageProfile(crash_after=1, crash_code=2))
    pool = await start(cluster, registry=reg)
    await run_pod(cluster, pod("crash", ctr(image="crash:1")))
    starts: list[float] = []
    last = -1
    for _ in range(1200):
        await cluster.advance(1)
        w = pool["node-0"].worker("default", "crash")
        assert w is not None
        rc = w.containers[0].restart_count
        if rc != last:
            starts.append(cluster.now)
            last = rc
        if len(starts) == 7:
            break
    gaps = [round(b - a) for a, b in itertools.pairwise(starts)]
    # each run lasts 1 s; the restart waits 0, 10, 20, 40, 80, 160 s after the crash
    assert gaps[1:] == [11, 21, 41, 81, 161]
    await cluster.advance(3)
    p = await get(cluster, "crash")
    s = cstatus(p)
    assert s["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert s["lastState"]["terminated"]["exitCode"] == 2 and s["lastState"]["terminated"]["reason"] == "Error"
    assert p["status"]["phase"] == "Running"


async def test_oom_killed_and_restarted(cluster: Cluster) -> None:
    reg = ImageRegistry()
    reg.add("leak:1", ImageProfile(memory="50Mi", memory_growth_per_second="10Mi"))
    await start(cluster, registry=reg)
    await run_pod(cluster, pod("oom", ctr(image="leak:1", resources={"limits": {"memory": "100Mi"}})))
    await cluster.advance(8)
    s = cstatus(await get(cluster, "oom"))
    assert s["restartCount"] == 1
    t = s["lastState"]["terminated"]
    assert (t["reason"], t["exitCode"]) == ("OOMKilled", 137)


@pytest.mark.parametrize(("startup", "killed"), [(True, False), (False, True)], ids=["startup-probe", "no-startup"])
async def test_slow_model_load_and_startup_probe(cluster: Cluster, startup: bool, killed: bool) -> None:
    reg = ImageRegistry()
    reg.add("llm:1", ImageProfile(ready_after=240))
    await start(cluster, registry=reg)
    probe = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 3}
    c = ctr(image="llm:1", livenessProbe=probe, readinessProbe=probe)
    if startup:
        c["startupProbe"] = {**probe, "failureThreshold": 60}
    await run_pod(cluster, pod("llm", c))
    await cluster.advance(120)
    s = cstatus(await get(cluster, "llm"))
    assert s["ready"] is False
    await cluster.advance(200)
    p = await get(cluster, "llm")
    s = cstatus(p)
    ev = await reasons(cluster, "llm")
    if killed:
        assert s["restartCount"] >= 1 and "Killing" in ev and "Unhealthy" in ev
        assert p["status"]["phase"] == "Running" and not s["ready"]
    else:
        assert s["restartCount"] == 0 and s["ready"] and "Killing" not in ev
        assert {c["type"]: c["status"] for c in p["status"]["conditions"]}["Ready"] == "True"


async def test_gpu_allocation_distinct_and_released(cluster: Cluster) -> None:
    pool = await start(cluster, capacity={"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "4"})
    gpu = {"limits": {"nvidia.com/gpu": "2"}}
    await run_pod(cluster, pod("g", ctr("a", resources=gpu), ctr("b", resources=gpu)))
    await cluster.advance(5)
    k = pool["node-0"]
    a = k.container_env("default", "g", "a")["NVIDIA_VISIBLE_DEVICES"].split(",")
    b = k.container_env("default", "g", "b")["NVIDIA_VISIBLE_DEVICES"].split(",")
    assert len(a) == len(b) == 2 and not set(a) & set(b)
    st = cstatus(await get(cluster, "g"))
    assert [r["resourceID"] for r in st["allocatedResourcesStatus"][0]["resources"]] == a
    await run_pod(cluster, pod("g2", ctr(resources={"limits": {"nvidia.com/gpu": "1"}})))
    await cluster.advance(2)
    # the allocate-resources admit handler runs before the predicates (kubelet.go registers the topology
    # manager's handler first), so a node out of free devices rejects with the device manager's error
    st2 = (await get(cluster, "g2"))["status"]
    assert (st2["reason"], st2["message"]) == ("UnexpectedAdmissionError", (
        "Pod was rejected: Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. "
        "Requested: 1, Available: 0, which is unexpected"))
    await cluster.client.delete("pods", "g", namespace="default")
    await cluster.advance(5)
    assert k.devices.in_use("nvidia.com/gpu") == 0


@pytest.mark.parametrize(("profile", "grace", "gone_after"), [
    (ImageProfile(shutdown_seconds=3), 30, 3), (ImageProfile(shutdown_seconds=100), 5, 5),
    (ImageProfile(pre_stop_seconds=2, shutdown_seconds=1), 30, 3),
], ids=["clean-exit", "killed-at-grace", "prestop"])
async def test_graceful_termination_timing(cluster: Cluster, profile: ImageProfile, grace: int,
                                           gone_after: float) -> None:
    reg = ImageRegistry()
    reg.add("svc:1", profile)
    pool = await start(cluster, registry=reg)
    await run_pod(cluster, pod("t", ctr(image="svc:1"), terminationGracePeriodSeconds=grace))
    await cluster.advance(5)
    await cluster.client.delete("pods", "t", namespace="default")
    t0 = cluster.now
    await cluster.advance(gone_after - 0.5)
    assert (await get(cluster, "t"))["metadata"]["deletionTimestamp"]
    await cluster.advance(1)
    assert [p["metadata"]["name"] for p in await cluster.client.list("pods", namespace="default")] == []
    assert cluster.now - t0 >= gone_after
    assert pool["node-0"].runtime.ipam is not None and pool["node-0"].runtime.ipam.in_use() == 0
    assert "Killing" in await reasons(cluster, "t")


async def test_job_succeeds_and_never_restart_fails(cluster: Cluster) -> None:
    reg = ImageRegistry()
    reg.add("job:1", ImageProfile(exit_after=3))
    reg.add("fail:1", ImageProfile(exit_after=3, exit_code=1))
    await start(cluster, registry=reg)
    await run_pod(cluster, pod("ok", ctr(image="job:1"), restartPolicy="Never"))
    await run_pod(cluster, pod("ko", ctr(image="fail:1"), restartPolicy="Never"))
    await run_pod(cluster, pod("init", ctr(), initContainers=[ctr("i1", image="job:1"), ctr("i2", image="job:1")]))
    await cluster.advance(2)
    p = await get(cluster, "init")
    assert p["status"]["initContainerStatuses"][0]["state"].get("running")
    assert cstatus(p)["state"]["waiting"]["reason"] == "PodInitializing"
    await cluster.advance(10)
    assert (await get(cluster, "ok"))["status"]["phase"] == "Succeeded"
    ko = await get(cluster, "ko")
    assert ko["status"]["phase"] == "Failed"
    assert cstatus(ko)["state"]["terminated"]["exitCode"] == 1
    assert (await get(cluster, "init"))["status"]["phase"] == "Running"


async def test_node_stop_leaves_pods_and_restart_resumes(cluster: Cluster) -> None:
    pool = await start(cluster)
    k = pool["node-0"]
    await run_pod(cluster, pod("a", ctr()))
    await cluster.advance(5)
    lease = (await cluster.client.get("leases", "node-0", namespace="kube-node-lease"))["spec"]["renewTime"]
    await k.stop()
    await cluster.client.delete("pods", "a", namespace="default", grace_period=30)
    await cluster.advance(120)
    assert (await get(cluster, "a"))["status"]["phase"] == "Running"  # nobody is there to act
    assert (await cluster.client.get("leases", "node-0", namespace="kube-node-lease"))["spec"]["renewTime"] == lease
    await k.start()
    await cluster.advance(15)
    assert await cluster.client.list("pods", namespace="default") == []
    assert (await cluster.client.get("leases", "node-0", namespace="kube-node-lease"))["spec"]["renewTime"] > lease


async def test_memory_pressure_evicts_best_effort_first(cluster: Cluster) -> None:
    reg = ImageRegistry()
    reg.add("hog:1", ImageProfile(memory="700Mi"))
    pool = await start(cluster, registry=reg, capacity={"cpu": "8", "memory": "2Gi", "pods": "110"})
    await run_pod(cluster, pod("guaranteed", ctr(image="hog:1", resources={
        "limits": {"cpu": "100m", "memory": "800Mi"}})))
    await run_pod(cluster, pod("besteffort", ctr(image="hog:1")))
    await cluster.advance(15)
    await run_pod(cluster, pod("burst", ctr(image="hog:1", resources={"requests": {"memory": "700Mi"}})))
    await cluster.advance(30)
    be = await get(cluster, "besteffort")
    assert be["status"]["phase"] == "Failed" and be["status"]["reason"] == "Evicted"
    assert "The node was low on resource: memory." in be["status"]["message"]
    assert (await get(cluster, "guaranteed"))["status"]["phase"] == "Running"
    assert (await get(cluster, "burst"))["status"]["phase"] == "Running"
    assert "Evicted" in await reasons(cluster, "besteffort")
    w = pool["node-0"].worker("default", "besteffort")
    assert w is not None and pod_phase(w) == "Failed"


async def test_standalone_kubelet(cluster: Cluster) -> None:
    k = Kubelet(cluster.client, node_name="solo", clock=cluster.clock, rng=cluster.rng, pod_cidr="10.244.9.0/24",
                preload=("nginx",))
    cluster.start_soon(k.run)
    await cluster.advance(1)
    await run_pod(cluster, pod("n", ctr(image="nginx", imagePullPolicy="IfNotPresent")), node="solo")
    await cluster.advance(2)
    p = await get(cluster, "n")
    assert p["status"]["phase"] == "Running" and p["status"]["podIP"] == "10.244.9.2"


async def test_kubelets_inform_only_on_what_they_read(cluster: Cluster) -> None:
    """Besides its pods and its Node, a kubelet informs on its volumes' and env's ConfigMaps, Secrets and PVCs
    (shared by the pool); no Services: upstream's serviceLister feeds only service-link env vars, not modelled,
    and DNS answers come from the cluster DNS."""
    pool = await start(cluster, 2)
    assert set(pool.informers.informers) == {"configmaps", "secrets", "persistentvolumeclaims"}
    k = Kubelet(cluster.client, node_name="solo", clock=cluster.clock, rng=cluster.rng, pod_cidr="10.244.9.0/24")
    cluster.start_soon(k.run)
    await cluster.advance(1)
    assert k._own_factory is not None
    assert set(k._own_factory.informers) == {"configmaps", "secrets", "persistentvolumeclaims"}


async def test_host_port_clash_is_rejected_at_admission(cluster: Cluster) -> None:
    # upstream kubelet admission (GeneralPredicates: NodePorts) rejects a pod whose host port is already taken
    # on the node by an admitted pod
    await start(cluster)
    ports = [{"containerPort": 80, "hostPort": 8080}]
    await run_pod(cluster, pod("first", ctr(ports=ports)))
    await cluster.advance(1)
    await run_pod(cluster, pod("second", ctr(ports=ports)))
    await cluster.advance(1)
    assert (await get(cluster, "first"))["status"]["phase"] == "Running"
    s = (await get(cluster, "second"))["status"]
    assert s["phase"] == "Failed" and s["reason"] == "NodePorts"
