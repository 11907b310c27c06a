"""``kubectl describe`` output for pods, nodes, deployments, replicasets, services and jobs."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.clock import EPOCH
from kubelite.errors import NotFound
from kubelite.kubectl import describe

from .objects import meta, pod, running, ts

NOW = EPOCH + 150


def event(name: str, involved: dict[str, Any], reason: str, message: str, *, first: float, last: float | None = None,
          count: int = 1, type_: str = "Normal", source: str = "kubelet") -> dict[str, Any]:
    return {"kind": "Event", "metadata": meta(name, created=first), "involvedObject": involved, "reason": reason,
            "message": message, "type": type_, "count": count, "firstTimestamp": ts(first),
            "lastTimestamp": ts(first if last is None else last), "source": {"component": source}}


def web_pod() -> dict[str, Any]:
    p = pod("web", statuses=[{**running(restarts=3, last_finished=100), "containerID": "containerd://abc",
                              "imageID": "docker.io/library/nginx@sha256:1"}],
            conditions={"Initialized": "True", "Ready": "True", "PodScheduled": "True"},
            tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                          "tolerationSeconds": 300}, {"operator": "Exists"}],
            priority=0, serviceAccountName="default")
    p["metadata"]["labels"] = {"app": "web", "tier": "frontend"}
    p["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-abc", "controller": True, "uid": "rs"}]
    p["status"]["startTime"] = ts(0)
    p["status"]["qosClass"] = "Burstable"
    c = p["spec"]["containers"][0]
    c["ports"] = [{"containerPort": 80, "protocol": "TCP"}]
    c["resources"] = {"requests": {"cpu": "100m", "memory": "64Mi"}}
    c["readinessProbe"] = {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP"}, "periodSeconds": 5}
    c["env"] = [{"name": "MODE", "value": "prod"}]
    return p


POD_EVENTS = [
    event("web.1", {"kind": "Pod", "name": "web", "namespace": "default", "uid": "uid-web"}, "Scheduled",
          "Successfully assigned default/web to node-0", first=0, source="default-scheduler"),
    event("web.2", {"kind": "Pod", "name": "web", "namespace": "default"}, "BackOff", "Back-off restarting failed",
          first=30, last=120, count=3, type_="Warning"),
    event("other.1", {"kind": "Pod", "name": "other", "namespace": "default"}, "Scheduled", "x", first=0),
]


def test_describe_pod() -> None:
    out = describe("pods", "web", [web_pod(), *POD_EVENTS], now=NOW)
    # "{_}" marks the trailing space upstream's "%v \t%v \n" leaves after a condition's status
    assert out == """\
Name:             web
Namespace:        default
Priority:         0
Service Account:  default
Node:             node-0/172.16.0.1
Start Time:       Wed, 01 Jan 2025 00:00:00 +0000
Labels:           app=web
                  tier=frontend
Annotations:      <none>
Status:           Running
IP:               10.244.0.5
IPs:
  IP:           10.244.0.5
Controlled By:  ReplicaSet/web-abc
Containers:
  c0:
    Container ID:   containerd://abc
    Image:          nginx:1.25
    Image ID:       docker.io/library/nginx@sha256:1
    Port:           80/TCP
    Host Port:      0/TCP
    State:          Running
      Started:      Wed, 01 Jan 2025 00:00:00 +0000
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      <unknown>
      Finished:     Wed, 01 Jan 2025 00:01:40 +0000
    Ready:          True
    Restart Count:  3
    Requests:
      cpu:      100m
      memory:   64Mi
    Readiness:  http-get http://:80/healthz delay=0s timeout=1s period=5s #success=1 #failure=3
    Environment:
      MODE:  prod
    Mounts:  <none>
Conditions:
  Type           Status
  Initialized    True{_}
  Ready          True{_}
  PodScheduled   True{_}
Volumes:         <none>
QoS Class:       Burstable
Node-Selectors:  <none>
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                 op=Exists
Events:
  Type     Reason     Age               From               Message
  ----     ------     ----              ----               -------
  Normal   Scheduled  2m30s             default-scheduler  Successfully assigned default/web to node-0
  Warning  BackOff    30s (x3 over 2m)  kubelet            Back-off restarting failed
""".replace("{_}", " ")


def test_describe_pod_without_events_and_terminating() -> None:
    p = pod("gone", deleted=True, statuses=[running()])
    out = describe("pods", "gone", [p], now=NOW)
    assert "Status:                    Terminating (lasts 2m30s)\n" in out
    assert "Termination Grace Period:  30s\n" in out
    assert out.endswith("Events:             <none>\n")


def node() -> dict[str, Any]:
    return {"kind": "Node", "metadata": {**meta("node-0", None), "labels": {"kubernetes.io/hostname": "node-0"}},
            "spec": {"unschedulable": True, "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                     "podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"]},
            "status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": ts(140),
                                       "lastTransitionTime": ts(0), "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}],
                       "addresses": [{"type": "InternalIP", "address": "172.16.0.1"}],
                       "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "2"},
                       "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "2"},
                       "nodeInfo": {"kubeletVersion": "v1.37.0", "operatingSystem": "linux"}}}


def test_describe_node() -> None:
    p = web_pod()
    p["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "1", "nvidia.com/gpu": "1"}
    p["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    done = pod("finished", phase="Succeeded")
    evs = [event("n.1", {"kind": "Node", "name": "node-0", "uid": "node-0"}, "Starting", "Starting kubelet.",
                 first=0),
           event("n.2", {"kind": "Node", "name": "node-0", "uid": "uid-node-0"}, "RegisteredNode", "Registered",
                 first=1, source="node-controller")]
    out = describe("nodes", "node-0", [node(), p, done, *evs], now=NOW)
    assert "Taints:             gpu=true:NoSchedule\nUnschedulable:      true\n" in out
    assert "  Ready   True    Wed, 01 Jan 2025 00:02:20 +0000   Wed, 01 Jan 2025 00:00:00 +0000   KubeletReady " in out
    assert "Non-terminated Pods:          (1 in total)\n" in out
    assert "  default                     web     100m (2%)     1 (25%)     64Mi (0%)        0 (0%)         2m30s\n" in out
    assert "  cpu                100m (2%)  1 (25%)\n" in out
    assert "  nvidia.com/gpu     1          1\n" in out
    # kubelet events (uid = node name) and controller events (the node's uid) both belong to the node
    assert out.endswith("  Normal  Starting        2m30s  kubelet          Starting kubelet.\n"
                        "  Normal  RegisteredNode  2m29s  node-controller  Registered\n")


def workload_objects() -> list[dict[str, Any]]:
    template = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}}
    dep = {"kind": "Deployment", "metadata": {**meta("web"), "annotations": {"deployment.kubernetes.io/revision": "2"}},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template,
                    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}}},
           "status": {"replicas": 4, "updatedReplicas": 2, "availableReplicas": 3, "unavailableReplicas": 1,
                      "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}}
    owner = [{"kind": "Deployment", "name": "web", "uid": "uid-web", "controller": True}]

    def rs(name: str, revision: str, replicas: int) -> dict[str, Any]:
        return {"kind": "ReplicaSet", "metadata": {**meta(name), "ownerReferences": owner,
                                                   "annotations": {"deployment.kubernetes.io/revision": revision}},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template},
                "status": {"replicas": replicas}}

    new, old = rs("web-new", "2", 2), rs("web-old", "1", 2)
    pods = []
    for i, phase in enumerate(("Running", "Running", "Pending")):
        p = pod(f"web-new-{i}", phase=phase)
        p["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-new", "uid": "uid-web-new",
                                             "controller": True}]
        pods.append(p)
    ev = event("web.1", {"kind": "Deployment", "name": "web", "namespace": "default"}, "ScalingReplicaSet",
               "Scaled up replica set web-new from 1 to 2", first=100, source="deployment-controller")
    return [dep, new, old, rs("web-ancient", "0", 0), *pods, ev]


def test_describe_deployment() -> None:
    out = describe("deployments", "web", workload_objects(), now=NOW)
    assert "Replicas:               3 desired | 2 updated | 4 total | 3 available | 1 unavailable\n" in out
    assert "RollingUpdateStrategy:  25% max unavailable, 1 max surge\n" in out
    assert "Pod Template:\n  Labels:  app=web\n  Containers:\n   nginx:\n    Image:" in out
    assert "  Type           Status  Reason\n  ----           ------  ------\n" \
           "  Available      True    MinimumReplicasAvailable\n" in out
    assert "OldReplicaSets:  web-old (2/2 replicas created)\nNewReplicaSet:   web-new (2/2 replicas created)\n" in out
    assert "  Normal  ScalingReplicaSet  50s   deployment-controller  Scaled up replica set web-new from 1 to 2\n" in out


def test_describe_replicaset() -> None:
    out = describe("replicasets", "web-new", workload_objects(), now=NOW)
    assert "Controlled By:  Deployment/web\n" in out
    assert "Replicas:       2 current / 2 desired\n" in out
    assert "Pods Status:    2 Running / 1 Waiting / 0 Succeeded / 0 Failed\n" in out
    assert out.endswith("Events:            <none>\n")


def test_describe_service_lists_ready_endpoints() -> None:
    svc = {"kind": "Service", "metadata": meta("web"),
           "spec": {"type": "ClusterIP", "selector": {"app": "web"}, "clusterIP": "10.96.0.10",
                    "clusterIPs": ["10.96.0.10"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                    "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
                    "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"}}
    eps = [{"addresses": [f"10.244.0.{i}"], "conditions": {"ready": i != 1}} for i in range(6)]
    slice_ = {"kind": "EndpointSlice", "metadata": {**meta("web-x"), "labels": {"kubernetes.io/service-name": "web"}},
              "ports": [{"name": "http", "port": 8080}], "endpoints": eps}
    out = describe("services", "web", [svc, slice_], now=NOW)
    assert "Port:                     http  80/TCP\nTargetPort:               8080/TCP\n" in out
    assert "Endpoints:                10.244.0.0:8080,10.244.0.2:8080,10.244.0.3:8080 + 2 more...\n" in out
    assert "Internal Traffic Policy:  Cluster\n" in out


def test_describe_job() -> None:
    job = {"kind": "Job", "metadata": meta("pi"),
           "spec": {"parallelism": 1, "completions": 1, "completionMode": "NonIndexed", "suspend": False,
                    "backoffLimit": 6, "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
                    "template": {"spec": {"containers": [{"name": "pi", "image": "perl", "command": ["perl", "-e"]}]}}},
           "status": {"startTime": ts(10), "completionTime": ts(40), "succeeded": 1, "ready": 0}}
    out = describe("jobs", "pi", [job], now=NOW)
    for line in ("Completions:      1\n", "Completion Mode:  NonIndexed\n", "Suspend:          false\n",
                 "Duration:         30s\n", "Pods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed\n",
                 "    Command:\n      perl\n      -e\n"):
        assert line in out


def test_describe_missing_and_unsupported() -> None:
    with pytest.raises(NotFound, match='pods "nope" not found'):
        describe("pods", "nope", [web_pod()], now=NOW)
    with pytest.raises(NotFound, match=r'deployments\.apps "web" not found'):
        describe("deployments", "web", [], now=NOW, namespace="other")
    with pytest.raises(ValueError, match="supports"):
        describe("configmaps", "x", [], now=NOW)


def test_describe_is_deterministic() -> None:
    objs = [web_pod(), *POD_EVENTS]
    assert describe("pods", "web", objs, now=NOW) == describe("pods", "web", list(reversed(objs)), now=NOW)
