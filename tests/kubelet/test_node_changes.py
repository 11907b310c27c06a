"""Node changes through the API reach the kubelet, kubelets survive API faults, images behave as a real
registry's, and the events upstream records on pods of a lost node."""

from __future__ import annotations

import base64
import json
from typing import Any

from kubelite.cluster import Cluster
from kubelite.kubectl.status import pod_summary
from kubelite.kubelet import ImageRegistry


def pod(name: str, image: str = "nginx:1.25", **spec: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "app", "image": image}
    c.update(spec.pop("container", {}))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [c], **spec}}


async def get(c: Cluster, name: str) -> dict[str, Any]:
    p: dict[str, Any] = await c.client.get("pods", name, namespace="default")
    return p


async def reasons(c: Cluster, name: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in await c.client.list("events", namespace="default"):
        if e["involvedObject"]["name"] == name:
            out[e["reason"]] = out.get(e["reason"], 0) + int(e.get("count") or 1)
    return out


async def test_label_added_through_the_api_reaches_kubelet_admission() -> None:
    async with Cluster(seed=3, nodes=1, scheduler=False) as c:
        await c.client.patch("nodes", "node-0", {"metadata": {"labels": {"disktype": "ssd"}}}, patch_type="merge")
        await c.advance(1)
        await c.client.create(pod("ssd", nodeName="node-0", nodeSelector={"disktype": "ssd"}))
        await c.advance(5)
        p = await get(c, "ssd")
        assert p["status"]["phase"] == "Running", p["status"]


async def test_noexecute_taint_added_through_the_api_rejects_untolerating_pods() -> None:
    async with Cluster(seed=3, nodes=1, scheduler=False, controllers=False) as c:
        await c.client.patch("nodes", "node-0", {"spec": {"taints": [
            {"key": "maintenance", "value": "true", "effect": "NoExecute"}]}}, patch_type="merge")
        await c.advance(1)
        await c.client.create(pod("plain", nodeName="node-0"))
        await c.client.create(pod("tolerant", nodeName="node-0", tolerations=[
            {"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}]))
        await c.advance(5)
        assert (await get(c, "plain"))["status"]["reason"] == "TaintToleration"
        assert (await get(c, "tolerant"))["status"]["phase"] == "Running"


async def test_pool_capacity_without_pods_keeps_110_pod_slots() -> None:
    async with Cluster(seed=1, nodes=[{"count": 1, "prefix": "gpu", "capacity": {"nvidia.com/gpu": 2}}]) as c:
        node = await c.client.get("nodes", "gpu-0")
        assert node["status"]["capacity"]["pods"] == "110"
        assert node["status"]["capacity"]["nvidia.com/gpu"] == "2"
        await c.client.create(pod("p"))
        await c.advance(5)
        assert (await get(c, "p"))["status"]["phase"] == "Running"


async def test_three_transient_503s_on_status_patches_do_not_leave_the_pod_pending() -> None:
    async with Cluster(seed=1, nodes=1) as c:
        c.faults.inject(503, verb="patch", resource="pods", name="flaky", times=3)
        await c.client.create(pod("flaky"))
        await c.advance(60)
        p = await get(c, "flaky")
        assert p["status"]["phase"] == "Running" and p["status"]["containerStatuses"][0]["ready"]


async def test_kubelet_start_retries_a_faulted_registration() -> None:
    async with Cluster(seed=1, nodes=0) as c:
        c.faults.inject(503, verb="create", resource="nodes", times=2)
        await c.add_nodes(1, prefix="late")
        await c.advance(5)
        node = await c.client.get("nodes", "late-0")
        assert {x["type"]: x["status"] for x in node["status"]["conditions"]}["Ready"] == "True"


async def test_pods_of_a_lost_node_get_a_node_not_ready_event() -> None:
    async with Cluster(seed=1, nodes=1) as c:
        await c.client.create(pod("web"))
        await c.advance(5)
        await c.kubelet("node-0").stop()
        await c.advance(60)
        assert "NodeNotReady" in await reasons(c, "web")


async def test_second_pod_of_an_image_does_not_pull_it_again(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    big = "example.com/team/model-server:2.1"
    for name in ("a", "b"):
        await cluster.client.create(pod(name, big, container={"imagePullPolicy": "IfNotPresent"}))
    await cluster.advance(120)
    assert (await get(cluster, "a"))["status"]["phase"] == "Running"
    assert (await get(cluster, "b"))["status"]["phase"] == "Running"
    evs = [e for e in await cluster.client.list("events", namespace="default") if e["reason"] == "Pulled"]
    msgs = sorted(e["message"] for e in evs)
    # one pod fetched the layers; the other (queued behind it) only resolved the manifest
    sizes = [m for m in msgs if "Successfully pulled" in m]
    assert len(sizes) == 2 and any(" in 200ms " in m for m in sizes)
    await cluster.client.create(pod("c", big, container={"imagePullPolicy": "IfNotPresent"}))
    await cluster.advance(5)
    evs = [e for e in await cluster.client.list("events", namespace="default")
           if e["involvedObject"]["name"] == "c" and e["reason"] == "Pulled"]
    assert evs and "already present on machine" in evs[0]["message"]


async def test_image_references_normalise_and_bogus_tags_fail(cluster: Cluster) -> None:
    await cluster.add_nodes(1, prefix="w")
    for name, image in (("hub", "docker.io/nginx:1.25"), ("lib", "docker.io/library/nginx:1.25"),
                        ("bare", "nginx:1.25"), ("debian", "debian:bookworm"),
                        ("slim", "registry.k8s.io/nginx-slim:0.8"), ("quay", "quay.io/prometheus/prometheus:v2.53.0"),
                        ("gone", "nginx:does-not-exist"), ("upper", "Nginx:1.25")):
        await cluster.client.create(pod(name, image, container={"command": ["sleep", "3600"]}))
    await cluster.advance(30)
    for name in ("hub", "lib", "bare", "debian", "slim", "quay"):
        assert (await get(cluster, name))["status"]["phase"] == "Running", name
    gone = await get(cluster, "gone")
    assert pod_summary(gone).reason in ("ImagePullBackOff", "ErrImagePull")
    assert "docker.io/library/nginx:does-not-exist: not found" in await reasons_messages(cluster, "gone")
    assert pod_summary(await get(cluster, "upper")).reason == "InvalidImageName"


def _pull_secret(name: str, host: str) -> dict[str, Any]:
    cfg = base64.b64encode(json.dumps({"auths": {host: {"auth": "dXNlcjpwYXNz"}}}).encode()).decode()
    return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
            "metadata": {"name": name, "namespace": "default"}, "data": {".dockerconfigjson": cfg}}


async def test_private_registry_needs_image_pull_secrets() -> None:
    reg = ImageRegistry()
    reg.require_pull_secret("registry.example.com")
    async with Cluster(seed=1, nodes=1, image_registry=reg) as c:
        await c.client.create(_pull_secret("regcred", "https://registry.example.com"))
        await c.client.create(pod("denied", "registry.example.com/shop/api:1.0"))
        await c.advance(30)
        denied = await get(c, "denied")
        assert pod_summary(denied).reason in ("ImagePullBackOff", "ErrImagePull")
        assert "pull access denied" in (await reasons_messages(c, "denied"))
        await c.client.create(pod("allowed", "registry.example.com/shop/api:1.0", imagePullSecrets=[{"name": "regcred"}]))
        await c.advance(30)
        assert (await get(c, "allowed"))["status"]["phase"] == "Running"


async def reasons_messages(c: Cluster, name: str) -> str:
    return "\n".join(e["message"] for e in await c.client.list("events", namespace="default")
                     if e["involvedObject"]["name"] == name)


async def test_job_with_echo_completes_and_cronjob_does_not_pile_up(cluster: Cluster) -> None:
    await cluster.add_nodes(2, prefix="w")
    await cluster.client.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "hi", "namespace": "default"},
                                 "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                                     {"name": "c", "image": "busybox:1.36", "command": ["echo", "hi"]}]}}}})
    await cluster.client.create({"apiVersion": "batch/v1", "kind": "CronJob",
                                 "metadata": {"name": "tick", "namespace": "default"},
                                 "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                                     "restartPolicy": "OnFailure", "containers": [
                                         {"name": "c", "image": "busybox:1.28",
                                          "command": ["/bin/sh", "-c", "date; echo Hello"]}]}}}}}})
    await cluster.advance(400)
    job = await cluster.client.get("jobs", "hi", namespace="default")
    assert job["status"]["succeeded"] == 1
    cron = await cluster.client.get("cronjobs", "tick", namespace="default")
    assert not cron["status"].get("active")
    jobs = [j for j in await cluster.client.list("jobs", namespace="default") if j["metadata"]["name"] != "hi"]
    assert len(jobs) == 3 and all(j["status"].get("succeeded") == 1 for j in jobs)


async def test_a_node_write_reaches_only_that_nodes_kubelet_watch() -> None:
    # #17 item 4: nothing in a kubelet costs per event in proportion to the cluster. Each kubelet watches its
    # own Node (fieldSelector metadata.name) and its node's pods (spec.nodeName); both are pinned to that
    # value, as upstream's storage TriggerFuncs (node.NameTriggerFunc, pod.NodeNameTriggerFunc), so a write is
    # offered to one node's watchers instead of being filtered by every node's.
    async with Cluster(seed=1, nodes=20, scheduler=False, controllers=False, network=False) as c:
        for plural in ("nodes", "pods"):
            table = c.store.table("", plural)
            assert sorted(table.pinned) == sorted(f"node-{i}" for i in range(20)), plural
            assert all(len(ws) == 1 for ws in table.pinned.values()), plural
            assert len(table.watchers) <= 2, plural  # unfiltered watchers do not grow with the nodes
