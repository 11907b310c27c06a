"""managedFields micro-benchmark: FieldManager.update / .apply on a realistic pod and deployment.

    python bench/ssa.py [--number 1000] [--repeat 9] [--reference]

Each figure is the best of ``--repeat`` runs of ``--number`` calls, in µs of CPU time per call
(process time, so other processes on a loaded machine do not count), printed beside floors taken
in the same rounds on the same object: ``msgspec.json.encode`` of it and a msgspec round-trip copy
(the cheapest deep copy). The ratios are what to compare across machines. ``--reference`` also
times ``ssa_reference.ReferenceFieldManager`` (tests/apiserver/ssa) (the unspecialised implementation) on every case.
- pod create (template): ``update(None, pod)`` as the apiserver calls it after defaulting (status
  ignored), for a pod whose spec an earlier pod already had (a ReplicaSet's pods);
- pod create (unseen spec): the same, every pod's spec differing (its image);
- pod status update: the kubelet flips the Ready conditions and container readiness (subresource);
- pod label update: a merge patch adding one label on the main resource;
- deployment create, deployment apply (create) and re-apply with a changed image.
"""

from __future__ import annotations

import argparse
import copy
import functools
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from kubelite.api.schema import builtin_schemas
from kubelite.apiserver.ssa import FieldManager

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "apiserver" / "ssa"))
from ssa_reference import ReferenceFieldManager

_encode = msgspec.json.encode
_decode = msgspec.json.decode
T0, T1, T2 = "2025-01-01T00:00:00Z", "2025-01-01T00:00:05Z", "2025-01-01T00:00:09Z"
MAIN_RESET: dict[str, Any] = {"f:status": {}}
STATUS_RESET: dict[str, Any] = {"f:spec": {}, "f:metadata": {"f:labels": {}, "f:annotations": {}}}


def _container(name: str, image: str, port: int) -> dict[str, Any]:
    return {
        "name": name, "image": image, "imagePullPolicy": "IfNotPresent",
        "args": ["--port", str(port), "--verbose"],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"},
                  {"name": "metrics", "containerPort": port + 1000, "protocol": "TCP"}],
        "env": [{"name": "MODE", "value": "production"}, {"name": "LOG_LEVEL", "value": "info"},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": port, "scheme": "HTTP"}, "initialDelaySeconds": 5,
                          "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
        "readinessProbe": {"httpGet": {"path": "/ready", "port": port, "scheme": "HTTP"}, "timeoutSeconds": 1,
                           "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True},
                         {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                          "readOnly": True}],
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    }


def pod_spec() -> dict[str, Any]:
    return {
        "containers": [_container("app", "registry.example/app:1.4.2", 8080),
                       _container("sidecar", "registry.example/proxy:2.0", 9090)],
        "volumes": [
            {"name": "config", "configMap": {"name": "app-config", "defaultMode": 420}},
            {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            ]}},
        ],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default", "serviceAccount": "default", "securityContext": {},
        "schedulerName": "default-scheduler", "enableServiceLinks": True, "priority": 0,
        "preemptionPolicy": "PreemptLowerPriority",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        ],
    }


def pod() -> dict[str, Any]:
    """A pod as the apiserver holds it right before managedFields tracking on create."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "web-7d9f8b6c5-x2x4z", "generateName": "web-7d9f8b6c5-", "namespace": "default",
            "uid": "0b6f1c1e-8f5a-4a57-9a3e-2f1d7c1a9b10", "creationTimestamp": T0,
            "labels": {"app": "web", "pod-template-hash": "7d9f8b6c5", "tier": "frontend"},
            "annotations": {"prometheus.io/scrape": "true"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8b6c5",
                                 "uid": "5c1e2d3f-0a1b-4c2d-8e3f-4a5b6c7d8e9f", "controller": True,
                                 "blockOwnerDeletion": True}],
        },
        "spec": pod_spec(),
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    }


def _container_status(name: str, image: str, ready: bool) -> dict[str, Any]:
    return {"name": name, "image": image, "imageID": f"docker-pullable://{image}@sha256:abc", "ready": ready,
            "restartCount": 0, "started": True, "containerID": f"containerd://{name}0123456789",
            "state": {"running": {"startedAt": T1}}, "lastState": {}}


def running_status(ready: bool) -> dict[str, Any]:
    flag = "True" if ready else "False"
    return {
        "phase": "Running", "qosClass": "Burstable", "hostIP": "10.0.0.7", "hostIPs": [{"ip": "10.0.0.7"}],
        "podIP": "10.244.1.23", "podIPs": [{"ip": "10.244.1.23"}], "startTime": T1,
        "conditions": [
            {"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": None, "lastTransitionTime": T1},
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": T1},
            {"type": "Ready", "status": flag, "lastProbeTime": None, "lastTransitionTime": T2 if ready else T1},
            {"type": "ContainersReady", "status": flag, "lastProbeTime": None, "lastTransitionTime": T2 if ready else T1},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": T0},
        ],
        "containerStatuses": [_container_status("app", "registry.example/app:1.4.2", ready),
                              _container_status("sidecar", "registry.example/proxy:2.0", ready)],
    }


def deployment(image: str = "registry.example/app:1.4.2") -> dict[str, Any]:
    spec = pod_spec()
    spec["containers"][0]["image"] = image
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": {"app": "web", "tier": "frontend"}}, "spec": spec},
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
        },
    }


def _copy(obj: Any) -> Any:
    return _decode(_encode(obj))


def best(fns: list[Callable[[], object]], number: int, repeat: int) -> list[float]:
    """Best µs of CPU time per call of each function, the functions taking turns in every round."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, ts in zip(fns, times, strict=True):
            t0 = time.process_time()
            for _ in range(number):
                fn()
            ts.append(time.process_time() - t0)
    return [min(ts) / number * 1e6 for ts in times]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--reference", action="store_true", help="also time the unspecialised implementation")
    args = ap.parse_args()
    n, r = args.number, args.repeat
    schemas = builtin_schemas()
    pod_schema = schemas.get("io.k8s.api.core.v1.Pod")
    deploy_schema = schemas.get("io.k8s.api.apps.v1.Deployment")
    fm = FieldManager()
    ref = ReferenceFieldManager()

    new_pod = pod()
    created = fm.update(None, new_pod, manager="kube-controller-manager", schema=pod_schema, api_version="v1",
                        now=T0, ignored_fields=MAIN_RESET)
    # The kubelet reports the pod running (not ready), then ready: the second write is the one timed.
    running = copy.deepcopy(created)
    running["status"] = running_status(False)
    running = fm.update(created, running, manager="kubelet", schema=pod_schema, api_version="v1", now=T1,
                        subresource="status", ignored_fields=STATUS_RESET)
    ready = _decode(_encode(running))
    ready["status"] = running_status(True)
    labelled = _decode(_encode(running))
    labelled["metadata"]["labels"]["rev"] = "2"
    # pods whose specs were never seen before (the image differs), cycled through
    unseen = []
    for i in range(4096):
        p = pod()
        p["spec"]["containers"][0]["image"] = f"registry.example/app:{i}"
        unseen.append(p)
    unseen_pods = itertools.cycle(unseen)

    new_deploy = deployment()
    applied = fm.apply(None, deployment(), manager="kubectl", schema=deploy_schema, api_version="apps/v1", now=T0,
                       kind="Deployment", ignored_fields=MAIN_RESET)
    reapply = deployment("registry.example/app:1.5.0")

    Case = Callable[[Any], object]
    cases: list[tuple[str, Case, object]] = [
        ("pod create (template)", lambda m: m.update(
            None, new_pod, manager="kube-controller-manager", schema=pod_schema, api_version="v1", now=T0,
            ignored_fields=MAIN_RESET), new_pod),
        ("pod create (unseen spec)", lambda m: m.update(
            None, next(unseen_pods), manager="kube-controller-manager", schema=pod_schema, api_version="v1", now=T0,
            ignored_fields=MAIN_RESET), new_pod),
        ("pod status update", lambda m: m.update(
            running, ready, manager="kubelet", schema=pod_schema, api_version="v1", now=T2, subresource="status",
            ignored_fields=STATUS_RESET), ready),
        ("pod label update", lambda m: m.update(
            running, labelled, manager="kubectl-label", schema=pod_schema, api_version="v1", now=T2,
            ignored_fields=MAIN_RESET), labelled),
        ("deployment create (repeat)", lambda m: m.update(
            None, new_deploy, manager="kubectl-create", schema=deploy_schema, api_version="apps/v1", now=T0,
            ignored_fields=MAIN_RESET), new_deploy),
        ("deployment apply (create)", lambda m: m.apply(
            None, new_deploy, manager="kubectl", schema=deploy_schema, api_version="apps/v1", now=T0,
            kind="Deployment", ignored_fields=MAIN_RESET), new_deploy),
        ("deployment re-apply (image)", lambda m: m.apply(
            applied, reapply, manager="kubectl", schema=deploy_schema, api_version="apps/v1", now=T1,
            kind="Deployment", ignored_fields=MAIN_RESET), applied),
    ]
    head = f"{'case':<30}{'us/call':>9}{'encode':>9}{'x':>6}{'copy':>9}{'x':>6}"
    print(head + (f"{'reference':>11}{'speedup':>9}" if args.reference else "") + "   (object bytes)")
    for name, case, subject in cases:
        fns: list[Callable[[], object]] = [
            functools.partial(case, fm), functools.partial(_encode, subject), functools.partial(_copy, subject),
        ]
        if args.reference:
            fns.append(functools.partial(case, ref))
        us, enc, cp, *rest = best(fns, n, r)
        line = f"{name:<30}{us:>9.1f}{enc:>9.2f}{us / enc:>6.1f}{cp:>9.2f}{us / cp:>6.1f}"
        if rest:
            line += f"{rest[0]:>11.1f}{rest[0] / us:>8.1f}x"
        print(line + f"   ({len(_encode(subject))})")


if __name__ == "__main__":
    main()
