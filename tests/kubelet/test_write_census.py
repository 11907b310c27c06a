"""Every write a kubelet makes in a steady half hour, by kind, against the cadence upstream's kubelet writes at.

Upstream's kubelet, with a probed steady pod and a pod that crashes every 10 minutes, writes: its Lease every
10 s (component-helpers ``lease/controller.go``, a PUT), its Node status every 5 min when nothing changed
(``kubelet_node_status.go``: ``nodeStatusReportFrequency``, a strategic merge patch), the pod status on each
change (the status manager), and the Events of each restart (an Event, or the correlator's count patch of it).
Nothing else: no write per probe tick, no Node status per Lease renewal. The liveness probe ticks on the
pod's phase (``prober/worker.go``), so a restarted container is not probed at its start instant; the crash
restart waits out ``IsInBackOffSince``'s delay, staleness judged at the container's finishedAt.
"""

from __future__ import annotations

import json
from typing import Any

from kubelite.apiserver.request import Request
from kubelite.cluster import Cluster
from kubelite.kubelet import ImageProfile, ImageRegistry

PROBE = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}
START = 60.0
WINDOW = 1800.0


def _pod(name: str, image: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": image, "livenessProbe": PROBE,
                                                           "readinessProbe": PROBE}]}}


async def test_a_kubelets_writes_in_a_steady_half_hour_are_upstreams() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        reg = ImageRegistry()
        reg.add("app:1", ImageProfile(ready_after=5))
        reg.add("flaky:1", ImageProfile(ready_after=5, crash_after=600))
        await cluster.add_nodes(1, registry=reg, preload=("app:1", "flaky:1"))
        # added more than a probe period after the kubelet's start: the probes tick on the pod's own phase,
        # with no start-up jitter (a pod added within a period of the start sleeps a random part of it first)
        await cluster.advance(30)
        await cluster.client.create(_pod("app", "app:1"))
        await cluster.client.create(_pod("flaky", "flaky:1"))
        await cluster.advance(START)
        t0 = cluster.now
        writes: dict[tuple[str, str, str, str, str], int] = {}
        events: list[tuple[float, str]] = []
        handle = cluster.apiserver.handle

        async def counted(req: Request) -> Any:
            if req.verb not in ("get", "list", "watch"):
                key = (req.user.name, req.verb, req.resource, req.subresource, req.options.patch_type or "")
                writes[key] = writes.get(key, 0) + 1
                if req.resource == "events":
                    body = json.loads(req.body) if isinstance(req.body, bytes) else req.body
                    events.append((cluster.now - t0 + START + 30, body.get("message", "")))
            return await handle(req)

        cluster.apiserver.handle = counted  # type: ignore[method-assign]
        await cluster.advance(WINDOW)
        cluster.apiserver.handle = handle  # type: ignore[method-assign]
        node = "system:node:node-0"
        assert set(writes) == {(node, "update", "leases", "", ""), (node, "patch", "nodes", "status", "strategic"),
                               (node, "patch", "pods", "status", "merge"), (node, "create", "events", "", ""),
                               (node, "patch", "events", "", "strategic")}
        assert writes[(node, "update", "leases", "", "")] == WINDOW / 10
        assert writes[(node, "patch", "nodes", "status", "strategic")] == WINDOW / 300
        # the steady pod writes nothing; the flaky one (added at 30) per change: at 630 restarted at once (not
        # ready, then ready at the next readiness tick), at 1230 and 1840 terminated, CrashLoopBackOff one sync
        # later, running after the 10 s and 20 s delays (1240, 1860), ready at the next readiness tick
        assert writes[(node, "patch", "pods", "status", "merge")] == 2 + 4 + 4
        # no liveness failure: the app listens 5 s after its start, and no liveness tick (30 + 10k) falls in
        # those 5 s; readiness is probed at each start (the manual trigger) and fails once
        assert [m for _, m in events if m.startswith("Liveness")] == []
        assert [t for t, m in events if m.startswith("Readiness")] == [630.0, 1240.0, 1860.0]
        assert [t for t, m in events if m.startswith("Started")] == [630.0, 1240.0, 1860.0]
        flaky = await cluster.client.get("pods", "flaky", namespace="default")
        (status,) = flaky["status"]["containerStatuses"]
        assert status["restartCount"] == 3 and status["state"]["running"]["startedAt"] == "2025-01-01T00:31:00Z"


async def test_probes_of_a_pod_added_right_after_the_kubelet_start_tick_on_a_jittered_phase() -> None:
    # prober/worker.go run: "if kubelet restarted the probes could be started in rapid succession", so a worker
    # made within one probe period of the prober manager's start first sleeps a random part of the period
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        pool = await cluster.add_nodes(1, events=False)
        assert pool is not None
        kubelet = pool["node-0"]
        await cluster.client.create(_pod("early", "nginx:1.25"))
        await cluster.advance(30)
        await cluster.client.create(_pod("late", "nginx:1.25"))
        await cluster.advance(1)
        early, late = kubelet.worker("default", "early"), kubelet.worker("default", "late")
        assert early is not None and late is not None
        offset = early.probe_origin - early.start_time
        assert 0 < offset < 10 and abs(offset - round(offset, 3)) < 1e-6  # whole milliseconds
        assert late.probe_origin == late.start_time
