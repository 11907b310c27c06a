"""Capacity from device plugins: what a plugin reports reaches the Node through the kubelet's status sync,
the scheduler and kubelet admission use the live value, and pods on lost devices behave as upstream's.

Upstream behaviour followed (``pkg/kubelet/cm/devicemanager/manager.go``, ``nodestatus.MachineInfo``,
``lifecycle/predicate.go``, the kubelet's admit-handler order in ``kubelet.go``):
- an unhealthy device stays in capacity and leaves allocatable; a plugin's shorter ListAndWatch list
  lowers both; a disconnected plugin's allocatable is 0 at once and its capacity 0 after the 5-minute
  endpointStopGracePeriod; the change is written at the next node status sync (10 s);
- running pods keep their devices and keep running; their ``allocatedResourcesStatus`` shows the health;
- a new pod is rejected by the device manager's Allocate (``UnexpectedAdmissionError``, which runs before
  the predicates) while the plugin's resource is known, else by the predicates (``OutOf<resource>``);
- the scheduler stops placing pods once the Node's allocatable drops, and places them again when it rises.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster

GPU = "nvidia.com/gpu"


def gpu_pod(name: str, n: int = 1, *, node: str | None = None, init: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "cuda", "image": "nvidia/cuda:12.4.0-base-ubuntu22.04",
                                            "command": ["sleep", "infinity"],
                                            "resources": {"limits": {GPU: str(n)}}}]}
    if init:
        spec["initContainers"] = [{"name": "warmup", "image": "nvidia/cuda:12.4.0-base-ubuntu22.04",
                                   "command": ["sh", "-c", "echo warm"], "resources": {"limits": {GPU: str(init)}}}]
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def gpu_cluster(count: int = 8, **kw: Any) -> Cluster:
    return Cluster(seed=7, nodes=[{"count": 1, "prefix": "gpu", "capacity": {GPU: count}}], **kw)


async def node_gpus(c: Cluster, node: str = "gpu-0") -> tuple[str | None, str | None]:
    st = (await c.client.get("nodes", node))["status"]
    return st["capacity"].get(GPU), st["allocatable"].get(GPU)


async def pod(c: Cluster, name: str) -> dict[str, Any]:
    p: dict[str, Any] = await c.client.get("pods", name, namespace="default")
    return p


def devices_of(p: dict[str, Any]) -> dict[str, str]:
    """device id -> health, from the pod's allocatedResourcesStatus."""
    out: dict[str, str] = {}
    for cs in p["status"].get("containerStatuses") or ():
        for rs in cs.get("allocatedResourcesStatus") or ():
            for r in rs["resources"]:
                out[r["resourceID"]] = r["health"]
    return out


async def scheduling_message(c: Cluster, name: str) -> str:
    msgs = [e["message"] for e in await c.client.list("events", namespace="default")
            if e["involvedObject"]["name"] == name and e["reason"] == "FailedScheduling"]
    return msgs[-1] if msgs else ""


async def test_failed_devices_lower_allocatable_keep_running_pods_and_block_new_ones() -> None:
    async with gpu_cluster() as c:
        for i in range(8):
            await c.client.create(gpu_pod(f"train-{i}"))
        await c.advance(30)
        pods = {f"train-{i}": await pod(c, f"train-{i}") for i in range(8)}
        assert {p["status"]["phase"] for p in pods.values()} == {"Running"}
        held = {name: next(iter(devices_of(p))) for name, p in pods.items()}
        assert len(set(held.values())) == 8
        assert await node_gpus(c) == ("8", "8")

        kubelet = c.kubelet("gpu-0")
        lost = [held["train-0"], held["train-1"]]
        for d in lost:
            kubelet.set_device_health(d, False)
        await c.advance(11)  # the next node status sync (nodeStatusUpdateFrequency 10 s)
        assert await node_gpus(c) == ("8", "6")

        # the kubelet kills nothing: the pods on the failed GPUs keep running; their status shows the health
        for name in ("train-0", "train-1", "train-2"):
            p = await pod(c, name)
            cs = p["status"]["containerStatuses"][0]
            assert p["status"]["phase"] == "Running" and cs["restartCount"] == 0 and cs["ready"]
            want = "Unhealthy" if held[name] in lost else "Healthy"
            assert devices_of(p) == {held[name]: want}

        # the scheduler uses the live allocatable: 8 requested against 6 allocatable
        await c.client.create(gpu_pod("new"))
        # a pod bound past the scheduler meets the device manager's Allocate first
        await c.client.create(gpu_pod("bound", node="gpu-0"))
        await c.advance(10)
        assert (await pod(c, "new"))["status"]["phase"] == "Pending"
        assert "Insufficient nvidia.com/gpu" in await scheduling_message(c, "new")
        st = (await pod(c, "bound"))["status"]
        assert (st["phase"], st["reason"]) == ("Failed", "UnexpectedAdmissionError")
        assert st["message"] == ("Pod was rejected: Allocate failed due to requested number of devices unavailable "
                                 "for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected")

        # the scheduler counts requests against allocatable, not devices: with train-0 (a failed GPU) and
        # train-5 (a healthy one) gone, six pods still request the six allocatable GPUs, although one healthy
        # device is free; once train-1 (the other failed GPU) goes too, the pending pod gets train-5's device
        for name in ("train-0", "train-5"):
            await c.client.delete("pods", name, namespace="default")
        await c.advance(60)
        assert (await pod(c, "new"))["status"]["phase"] == "Pending"
        await c.client.delete("pods", "train-1", namespace="default")
        await c.advance(60)
        p = await pod(c, "new")
        assert p["status"]["phase"] == "Running"
        assert devices_of(p) == {held["train-5"]: "Healthy"}


async def test_a_recovered_device_returns_to_allocatable_and_the_pending_pod_schedules() -> None:
    async with gpu_cluster(2) as c:
        await c.client.create(gpu_pod("a"))
        await c.advance(10)
        (dev,) = devices_of(await pod(c, "a"))
        spare = next(d for d in ("GPU-gpu-0-0", "GPU-gpu-0-1") if d != dev)
        c.kubelet("gpu-0").set_device_health(spare, False)
        await c.advance(11)
        assert await node_gpus(c) == ("2", "1")
        await c.client.create(gpu_pod("b"))
        await c.advance(30)
        assert (await pod(c, "b"))["status"]["phase"] == "Pending"
        c.kubelet("gpu-0").set_device_health(spare, True)
        await c.advance(11)
        assert await node_gpus(c) == ("2", "2")
        await c.advance(30)
        p = await pod(c, "b")
        assert p["status"]["phase"] == "Running" and devices_of(p) == {spare: "Healthy"}


async def test_a_plugin_listing_fewer_devices_lowers_capacity_too() -> None:
    async with gpu_cluster(8) as c:
        c.kubelet("gpu-0").set_devices(GPU, healthy=6)
        await c.advance(11)
        assert await node_gpus(c) == ("6", "6")
        c.kubelet("gpu-0").set_devices(GPU, healthy=6, unhealthy=2)
        await c.advance(11)
        assert await node_gpus(c) == ("8", "6")


async def test_a_plugin_registering_late_brings_the_resource_and_the_pending_pod_runs() -> None:
    async with Cluster(seed=7, nodes=[{"count": 1, "prefix": "gpu"}]) as c:
        assert await node_gpus(c) == (None, None)
        await c.client.create(gpu_pod("job"))
        await c.advance(30)
        assert (await pod(c, "job"))["status"]["phase"] == "Pending"
        c.kubelet("gpu-0").register_device_plugin(GPU, 4)
        await c.advance(11)
        assert await node_gpus(c) == ("4", "4")
        await c.advance(30)
        assert (await pod(c, "job"))["status"]["phase"] == "Running"


async def test_a_stopped_plugin_zeroes_allocatable_then_capacity_after_the_grace_period() -> None:
    async with gpu_cluster(4, scheduler=False) as c:
        await c.client.create(gpu_pod("held", node="gpu-0"))
        await c.advance(10)
        k = c.kubelet("gpu-0")
        k.stop_device_plugin(GPU)
        await c.advance(11)
        assert await node_gpus(c) == ("4", "0")
        await c.client.create(gpu_pod("during-grace", node="gpu-0"))
        await c.advance(5)
        st = (await pod(c, "during-grace"))["status"]
        assert (st["reason"], st["message"]) == ("UnexpectedAdmissionError", (
            "Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate unhealthy "
            "devices nvidia.com/gpu, which is unexpected"))
        await c.advance(300)  # endpointStopGracePeriod: the resource is deleted, capacity written as 0
        assert await node_gpus(c) == ("0", "0")
        assert (await pod(c, "held"))["status"]["phase"] == "Running"
        # the device manager still knows the resource from the running pod's allocation
        await c.client.create(gpu_pod("after-grace", node="gpu-0"))
        await c.advance(5)
        st = (await pod(c, "after-grace"))["status"]
        assert st["message"] == ("Pod was rejected: Allocate failed due to cannot allocate unregistered device "
                                 "nvidia.com/gpu, which is unexpected")
        # with nothing allocated any more the resource is unknown to it: the predicates reject
        await c.client.delete("pods", "held", namespace="default")
        await c.advance(40)
        await c.client.create(gpu_pod("unknown", node="gpu-0"))
        await c.advance(5)
        st = (await pod(c, "unknown"))["status"]
        assert (st["reason"], st["message"]) == ("OutOfnvidia.com/gpu", (
            "Pod was rejected: Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0, "
            "capacity: 0"))
        # the plugin comes back with its devices
        k.register_device_plugin(GPU, 4)
        await c.advance(11)
        assert await node_gpus(c) == ("4", "4")
        await c.client.create(gpu_pod("back", node="gpu-0"))
        await c.advance(5)
        assert (await pod(c, "back"))["status"]["phase"] == "Running"


@pytest.mark.parametrize(("init", "app", "phase"), [(1, 1, "Running"), (2, 1, "Failed"), (1, 2, "Failed")],
                         ids=["init-device-reused", "init-wants-more", "app-wants-more"])
async def test_init_container_devices_pass_to_the_app_containers(init: int, app: int, phase: str) -> None:
    async with gpu_cluster(1, scheduler=False) as c:
        await c.client.create(gpu_pod("p", app, node="gpu-0", init=init))
        await c.advance(20)
        p = await pod(c, "p")
        assert p["status"]["phase"] == phase, p["status"]
        if phase == "Running":
            assert devices_of(p) == {"GPU-gpu-0-0": "Healthy"}
        else:
            assert p["status"]["reason"] == "UnexpectedAdmissionError"


async def test_an_extended_resource_advertised_through_the_api_becomes_allocatable() -> None:
    # the docs' "Advertise Extended Resources for a Node": PATCH status.capacity; the kubelet's next sync
    # reports it in allocatable, and pods requesting it schedule and pass admission
    async with Cluster(seed=7, nodes=1) as c:
        await c.client.patch_status("nodes", "node-0", {"status": {"capacity": {"example.com/dongle": "4"}}},
                                    patch_type="merge")
        await c.advance(11)
        st = (await c.client.get("nodes", "node-0"))["status"]
        assert st["capacity"]["example.com/dongle"] == "4" and st["allocatable"]["example.com/dongle"] == "4"
        for name, n in (("two", 2), ("three", 3)):
            await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                   "spec": {"containers": [{"name": "c", "image": "nginx:1.25", "resources": {
                                       "requests": {"example.com/dongle": str(n)},
                                       "limits": {"example.com/dongle": str(n)}}}]}})
        await c.advance(20)
        assert (await pod(c, "two"))["status"]["phase"] == "Running"
        assert (await pod(c, "three"))["status"]["phase"] == "Pending"
        assert "Insufficient example.com/dongle" in await scheduling_message(c, "three")
