"""What the kubelet's status manager writes: one merge patch per pod per change, holding only the
top-level status fields that changed; nothing while a pod is unchanged."""

from __future__ import annotations

from typing import Any, cast

import pytest

from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry, Kubelet


class RecordingClient:
    """The cluster's client, recording the pod status patches that pass through it."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self.status_patches: list[tuple[str, dict[str, Any]]] = []
        self.kubelet: Kubelet  # (set by _kubelet)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def patch_status(self, res: Any, name: str, patch: Any, **kw: Any) -> Any:
        if res == "pods":
            self.status_patches.append((name, patch["status"]))
        return await self._client.patch_status(res, name, patch, **kw)

    async def patch_status_unread(self, res: Any, name: str, patch: Any, **kw: Any) -> None:
        # the status manager's writes (it never reads their answers)
        if res == "pods":
            self.status_patches.append((name, patch["status"]))
        await self._client.patch_status_unread(res, name, patch, **kw)


def _pod(name: str, image: str, **container: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": "solo", "containers": [{"name": "app", "image": image, **container}]}}


async def _kubelet(cluster: Cluster) -> RecordingClient:
    rec = RecordingClient(cluster.client)
    reg = ImageRegistry()
    reg.add("ready:1", ImageProfile())
    reg.add("slow:1", ImageProfile(pull_seconds=3, ready_after=5))
    k = Kubelet(cast(Client, rec), node_name="solo", clock=cluster.clock, rng=cluster.rng, registry=reg,
                pod_cidr="10.244.9.0/24", preload=("ready:1",))
    rec.kubelet = k
    cluster.start_soon(k.run)
    await cluster.advance(1)
    return rec


@pytest.fixture
async def bare() -> Any:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c


async def test_pod_running_in_one_instant_is_written_once(bare: Cluster) -> None:
    rec = await _kubelet(bare)
    await bare.client.create(_pod("fast", "ready:1", imagePullPolicy="IfNotPresent"))
    await bare.advance(60)
    assert [n for n, _ in rec.status_patches] == ["fast"]  # no ContainerCreating write before Running
    patch = rec.status_patches[0][1]
    assert patch["phase"] == "Running"
    assert "qosClass" not in patch  # the apiserver set it already: unchanged fields are not sent
    assert all("lastProbeTime" not in c for c in patch["conditions"])
    p = await bare.client.get("pods", "fast", namespace="default")
    assert p["status"]["qosClass"] == "BestEffort" and p["status"]["containerStatuses"][0]["ready"]


async def test_later_writes_carry_only_what_changed(bare: Cluster) -> None:
    rec = await _kubelet(bare)
    await bare.client.create(_pod("slow", "slow:1", readinessProbe={"httpGet": {"port": 8080},
                                                                    "periodSeconds": 10}))
    await bare.advance(60)
    patches = [s for n, s in rec.status_patches if n == "slow"]
    waiting = patches[0]["containerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] == "ContainerCreating" and "phase" not in patches[0]  # still Pending
    # pulled and started (Running, conditions unchanged: still not ready), then ready at the probe after
    # readyAfter
    assert [sorted(s) for s in patches[1:]] == [["containerStatuses", "phase"], ["conditions", "containerStatuses"]]
    p = await bare.client.get("pods", "slow", namespace="default")
    assert p["status"]["phase"] == "Running" and p["status"]["podIP"] == "10.244.9.2"
    assert {c["type"]: c["status"] for c in p["status"]["conditions"]}["Ready"] == "True"


async def test_the_status_last_written_is_kept_frozen_and_still_diffs_the_next_write(bare: Cluster) -> None:
    """The status manager keeps the last status it wrote (upstream's ``podStatuses``) read-only with its strings
    interned (issue #17, memory per pod): it equals what the API stores, refuses mutation, and the next change
    is still a patch of only what changed."""
    from kubelite.api.views import SharedViewMutated, is_frozen

    rec = await _kubelet(bare)
    await bare.client.create(_pod("slow", "slow:1", readinessProbe={"httpGet": {"port": 8080},
                                                                    "periodSeconds": 10}))
    await bare.advance(60)
    kubelet = rec.kubelet
    w = kubelet.worker("default", "slow")
    assert w is not None
    sent = kubelet._sent[w.uid]
    assert is_frozen(sent) and is_frozen(sent["conditions"][0]) and w.pending_status is sent
    live = (await bare.client.get("pods", "slow", namespace="default"))["status"]
    assert {key: live[key] for key in sent} == sent
    with pytest.raises(SharedViewMutated):
        sent["conditions"][0]["status"] = "False"
    assert len([n for n, _ in rec.status_patches if n == "slow"]) == 3  # Pending, Running, then ready


@pytest.mark.parametrize(("status", "error"), [
    ({"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}, None),
    ({"podIPs": [{"ip": "not-an-ip"}]}, "Invalid"),
    ({"phase": "Running", "bogus": 1}, None),  # an unknown field: a warning
], ids=["valid", "invalid", "unknown-field"])
async def test_an_unread_status_patch_writes_and_fails_as_a_read_one(status: dict[str, Any], error: str | None) -> None:
    """``Client.patch_status_unread`` (client-go's ``Do(ctx).Error()``) stores the same bytes, raises the
    same error and notes the same warnings as ``patch_status``, and decodes nothing."""
    from kubelite.errors import ApiError

    async def run(unread: bool) -> tuple[Any, ...]:
        async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
            await c.client.create(_pod("p", "ready:1"))
            kubelet = c.client.with_field_manager("kubelet")
            call = kubelet.patch_status_unread if unread else kubelet.patch_status
            try:
                got = await call("pods", "p", {"status": status}, namespace="default", patch_type="merge")
            except ApiError as e:
                got = ("error", e.status.reason)
            stored = await c.client.get("pods", "p", namespace="default")
            return got, stored, tuple(kubelet.warnings)

    unread, read = await run(True), await run(False)
    assert unread[1:] == read[1:]
    if error is None:
        assert unread[0] is None and read[0] == read[1]
    else:
        assert unread[0] == read[0] == ("error", error)
    assert bool(read[2]) == ("bogus" in status)


#: the probes of the hour bench (bench/kubelet.py): liveness and readiness every 10 s
_PROBE = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}


@pytest.mark.parametrize(("image", "profile", "window", "writes"), [
    # the process exits 1 at 600 s: the first restart is immediate (no backoff yet, as upstream's kubelet), so
    # the terminated lastState and the restarted container go out in one write; readiness follows at the next
    # probe after readyAfter
    ("flaky:1", ImageProfile(ready_after=5, crash_after=600), (590, 700),
     [["conditions", "containerStatuses"], ["conditions", "containerStatuses"]]),
    # the process hangs at 1,200 s: readiness fails first (not ready), liveness kills it after
    # failureThreshold (3) failures and it restarts (the restart's write keeps the conditions: still not
    # ready), then ready again
    ("hangs:1", ImageProfile(ready_after=5, hang_after=1200), (1190, 1300),
     [["conditions", "containerStatuses"], ["containerStatuses"], ["conditions", "containerStatuses"]]),
], ids=["crash-restart", "liveness-kill"])
async def test_a_restart_writes_once_per_change_as_upstreams_status_manager(
        bare: Cluster, image: str, profile: ImageProfile, window: tuple[float, float], writes: list[list[str]]) -> None:
    """upstream's status manager (``status_manager.go`` ``updateStatusInternal`` + ``syncBatch``) writes a pod
    whenever its status changed since the last write, all of one sync's changes together: a restart is the
    restart's write and the ready write, nothing while the pod runs unchanged (its probes succeed silently)."""
    rec = RecordingClient(bare.client)
    reg = ImageRegistry()
    reg.add(image, profile)
    k = Kubelet(cast(Client, rec), node_name="solo", clock=bare.clock, rng=bare.rng, registry=reg,
                pod_cidr="10.244.9.0/24", preload=(image,))
    bare.start_soon(k.run)
    await bare.advance(1)
    await bare.client.create(_pod("p", image, livenessProbe=_PROBE, readinessProbe=_PROBE))
    await bare.advance(window[0])
    assert [sorted(s) for _, s in rec.status_patches] == [
        ["conditions", "containerStatuses", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime"],
        ["conditions", "containerStatuses"]]  # Running, then ready; nothing more while it runs unchanged
    rec.status_patches.clear()
    await bare.advance(window[1] - window[0])
    assert [sorted(s) for _, s in rec.status_patches] == writes
    p = await bare.client.get("pods", "p", namespace="default")
    cs = p["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 1 and cs["ready"] and "terminated" in cs["lastState"]
