"""The merge-patch twin: ``apply_merge_patch`` (deep-copies the live object, then merges) against
``apply_merge_patch_shared`` (copies only the dicts on the patched paths; what the patch handler uses for
built-in kinds, whose typed decode copies the result anyway). Issue #13's "one path per behaviour": the twin
stays only with a measured gain.

    python bench/merge_patch.py [--n 20000] [--repeat 5]

Prints, in process CPU time (``time.process_time``, best of ``--repeat``): µs per call of each function on
a Running pod as the kubelet leaves it and the status patch the kubelet sends, and µs per ``/status`` merge
patch through the in-process client with the handler using each function (alternating, same process).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any

import kubelite.apiserver.handlers.patch as patch_handler
from kubelite.apiserver.patch import apply_merge_patch, apply_merge_patch_shared
from kubelite.cluster import Cluster

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False, "metrics_server": False}


def running_pod(i: int) -> dict[str, Any]:
    ts = "2025-01-01T00:00:00Z"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i:06d}", "namespace": "default", "uid": f"uid-{i}", "resourceVersion": "10",
                     "labels": {"app": "web", "pod-template-hash": "5d4f8c"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f8c",
                                          "uid": "rs", "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"nodeName": "node-1", "containers": [{
            "name": "main", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
            "readinessProbe": {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 10},
            "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}]},
        "status": {"phase": "Running", "podIP": "10.244.1.5", "hostIP": "172.16.0.2", "startTime": ts,
                   "conditions": [{"type": t, "status": "True", "lastTransitionTime": ts}
                                  for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                   "containerStatuses": [{"name": "main", "ready": True, "restartCount": 0, "started": True,
                                          "image": "docker.io/library/nginx:1.25", "imageID": "sha256:abc",
                                          "containerID": "containerd://abc",
                                          "state": {"running": {"startedAt": ts}}}]},
    }


STATUS_PATCH = {"status": {"conditions": [{"type": "Ready", "status": "False",
                                           "lastTransitionTime": "2025-01-01T00:01:00Z"}]}}


def micro(fn: Callable[[Any, Any], Any], n: int) -> float:
    live = running_pod(0)
    gc.collect()
    t0 = time.process_time()
    for _ in range(n):
        fn(live, STATUS_PATCH)
    return (time.process_time() - t0) / n * 1e6


async def end_to_end(shared: bool, n: int) -> float:
    saved = patch_handler.apply_merge_patch_shared
    if not shared:
        patch_handler.apply_merge_patch_shared = apply_merge_patch  # the handler's shared path copies again
    try:
        async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
            c = cluster.client
            for i in range(n):
                await c.create({k: v for k, v in running_pod(i).items() if k != "status"})
            gc.collect()
            t0 = time.process_time()
            for i in range(n):
                await c.patch("pods", f"pod-{i:06d}", STATUS_PATCH, subresource="status", patch_type="merge")
            return (time.process_time() - t0) / n * 1e6
    finally:
        patch_handler.apply_merge_patch_shared = saved


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    assert apply_merge_patch(running_pod(0), STATUS_PATCH) == apply_merge_patch_shared(running_pod(0), STATUS_PATCH)
    copying, sharing, e2e_copy, e2e_share = [], [], [], []
    for _ in range(args.repeat):
        copying.append(micro(apply_merge_patch, args.n))
        sharing.append(micro(apply_merge_patch_shared, args.n))
        e2e_copy.append(asyncio.run(end_to_end(False, args.pods)))
        e2e_share.append(asyncio.run(end_to_end(True, args.pods)))
    print(f"apply_merge_patch (copying)        {min(copying):7.2f} us/call")
    print(f"apply_merge_patch_shared           {min(sharing):7.2f} us/call  ({min(copying) / min(sharing):.1f}x)")
    print(f"/status merge patch, copying       {min(e2e_copy):7.1f} us/request")
    print(f"/status merge patch, sharing       {min(e2e_share):7.1f} us/request  "
          f"({(min(e2e_copy) - min(e2e_share)) / min(e2e_copy):+.1%} of the request)")


if __name__ == "__main__":
    main()
