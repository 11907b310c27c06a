"""``kubectl get`` tables: columns, cells and layout as kubectl prints them."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.clock import EPOCH
from kubelite.kubectl import (
    no_resources_message,
    print_table,
    resolve_resource,
    rows_core,
    rows_workloads,
    select,
)

from .objects import meta, pod, running, ts, waiting

NOW = EPOCH + 150  # 2m30s after the epoch of virtual time


def test_pods_wide() -> None:
    pods = [pod("web-1", statuses=[running(restarts=2, last_finished=105)], created=0),
            pod("web-2", phase="Pending", node="", ip="", created=140,
                readinessGates=[{"conditionType": "example.com/ready"}])]
    assert print_table("pods", pods, now=NOW, wide=True) == (
        "NAME      READY     STATUS    RESTARTS      AGE       IP           NODE      NOMINATED NODE   READINESS GATES\n"
        "web-1     1/1       Running   2 (45s ago)   2m30s     10.244.0.5   node-0    <none>           <none>\n"
        "web-2     0/1       Pending   0             10s       <none>       <none>    <none>           0/1\n")


def test_all_namespaces_adds_the_namespace_column() -> None:
    out = print_table("pods", [pod("a", statuses=[waiting("CrashLoopBackOff", restarts=1)])], now=NOW,
                      all_namespaces=True)
    assert out.splitlines() == [
        "NAMESPACE   NAME      READY     STATUS             RESTARTS   AGE",
        "default     a         0/1       CrashLoopBackOff   1          2m30s",
    ]


def deployment(name: str, replicas: int, ready: int) -> dict[str, Any]:
    return {"kind": "Deployment", "metadata": meta(name, created=30),
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"},
                                                          {"name": "log", "image": "fluent-bit"}]}}},
            "status": {"readyReplicas": ready, "updatedReplicas": replicas, "availableReplicas": ready}}


def test_deployments_wide() -> None:
    assert print_table("deployments", [deployment("web", 3, 2)], now=NOW, wide=True) == (
        "NAME      READY     UP-TO-DATE   AVAILABLE   AGE       CONTAINERS   IMAGES                  SELECTOR\n"
        "web       2/3       3            2           2m        nginx,log    nginx:1.25,fluent-bit   app=web\n")


NODE_READY = {"type": "Ready", "status": "True"}

ROWS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("nodes", {"kind": "Node", "metadata": meta("node-0", None), "spec": {"unschedulable": True},
               "status": {"conditions": [NODE_READY], "nodeInfo": {"kubeletVersion": "v1.37.0"}}},
     ["node-0", "Ready,SchedulingDisabled", "<none>", "2m30s", "v1.37.0"]),
    ("replicasets", {"kind": "ReplicaSet", "metadata": meta("web-abc"), "spec": {"replicas": 3},
                     "status": {"replicas": 3, "readyReplicas": 1}}, ["web-abc", "3", "3", "1", "2m30s"]),
    ("statefulsets", {"kind": "StatefulSet", "metadata": meta("db"), "spec": {"replicas": 3},
                      "status": {"readyReplicas": 2}}, ["db", "2/3", "2m30s"]),
    ("daemonsets", {"kind": "DaemonSet", "metadata": meta("agent"),
                    "spec": {"template": {"spec": {"nodeSelector": {"gpu": "true"}}}},
                    "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberReady": 1,
                               "updatedNumberScheduled": 2, "numberAvailable": 1}},
     ["agent", "2", "2", "1", "2", "1", "gpu=true", "2m30s"]),
    ("jobs", {"kind": "Job", "metadata": meta("pi"), "spec": {"completions": 1},
              "status": {"succeeded": 1, "startTime": ts(10), "completionTime": ts(25),
                         "conditions": [{"type": "Complete", "status": "True"}]}},
     ["pi", "Complete", "1/1", "15s", "2m30s"]),
    ("jobs", {"kind": "Job", "metadata": meta("work"), "spec": {"parallelism": 3},
              "status": {"startTime": ts(50)}}, ["work", "Running", "0/1 of 3", "100s", "2m30s"]),
    ("cronjobs", {"kind": "CronJob", "metadata": meta("nightly"), "spec": {"schedule": "0 3 * * *", "suspend": False},
                  "status": {"active": [{}], "lastScheduleTime": ts(90)}},
     ["nightly", "0 3 * * *", "<none>", "False", "1", "60s", "2m30s"]),
    ("services", {"kind": "Service", "metadata": meta("web"),
                  "spec": {"type": "NodePort", "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"],
                           "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"},
                                     {"port": 53, "protocol": "UDP"}]}},
     ["web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "2m30s"]),
    ("services", {"kind": "Service", "metadata": meta("lb"),
                  "spec": {"type": "LoadBalancer", "clusterIPs": ["10.96.0.11"], "ports": []}},
     ["lb", "LoadBalancer", "10.96.0.11", "<pending>", "<none>", "2m30s"]),
    ("endpointslices", {"kind": "EndpointSlice", "metadata": meta("web-x"), "addressType": "IPv4",
                        "ports": [{"port": 80}], "endpoints": [{"addresses": [f"10.0.0.{i}"]} for i in range(5)]},
     ["web-x", "IPv4", "80", "10.0.0.0,10.0.0.1,10.0.0.2 + 2 more...", "2m30s"]),
    ("namespaces", {"kind": "Namespace", "metadata": meta("team", None), "status": {"phase": "Active"}},
     ["team", "Active", "2m30s"]),
    ("persistentvolumeclaims", {"kind": "PersistentVolumeClaim", "metadata": meta("data"),
                                "spec": {"volumeName": "pv-1", "storageClassName": "standard"},
                                "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                                           "capacity": {"storage": "10Gi"}}},
     ["data", "Bound", "pv-1", "10Gi", "RWO", "standard", "<unset>", "2m30s"]),
    ("persistentvolumes", {"kind": "PersistentVolume", "metadata": meta("pv-1", None),
                           "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
                                    "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "standard",
                                    "claimRef": {"namespace": "default", "name": "data"}},
                           "status": {"phase": "Bound"}},
     ["pv-1", "10Gi", "RWO,RWX", "Delete", "Bound", "default/data", "standard", "<unset>", "", "2m30s"]),
    ("configmaps", {"kind": "ConfigMap", "metadata": meta("cfg"), "data": {"a": "1"}, "binaryData": {"b": ""}},
     ["cfg", "2", "2m30s"]),
    ("secrets", {"kind": "Secret", "metadata": meta("tls"), "type": "kubernetes.io/tls",
                 "data": {"tls.crt": "", "tls.key": ""}}, ["tls", "kubernetes.io/tls", "2", "2m30s"]),
    ("horizontalpodautoscalers", {"kind": "HorizontalPodAutoscaler", "metadata": meta("web"),
                                  "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 2,
                                           "maxReplicas": 10, "metrics": [{"type": "Resource", "resource": {
                                               "name": "cpu", "target": {"type": "Utilization",
                                                                         "averageUtilization": 80}}}]},
                                  "status": {"currentReplicas": 3}},
     ["web", "Deployment/web", "cpu: <unknown>/80%", "2", "10", "3", "2m30s"]),
    ("poddisruptionbudgets", {"kind": "PodDisruptionBudget", "metadata": meta("web"), "spec": {"minAvailable": 2},
                              "status": {"disruptionsAllowed": 1}}, ["web", "2", "N/A", "1", "2m30s"]),
    ("events", {"kind": "Event", "metadata": meta("web.1"), "type": "Warning", "reason": "BackOff", "count": 3,
                "firstTimestamp": ts(10), "lastTimestamp": ts(140), "message": " Back-off restarting \n",
                "involvedObject": {"kind": "Pod", "name": "web"}},
     ["10s", "Warning", "BackOff", "pod/web", "Back-off restarting"]),
]


@pytest.mark.parametrize(("resource", "obj", "cells"), ROWS, ids=[f"{r[0]}-{r[2][0]}" for r in ROWS])
def test_rows(resource: str, obj: dict[str, Any], cells: list[str]) -> None:
    columns, _, row = {**rows_core.ROWS, **rows_workloads.ROWS}[resource]
    assert row(obj, NOW, False) == cells
    assert len(cells) == len(columns)
    assert print_table(resource, [obj], now=NOW).splitlines()[0].split() == " ".join(columns).split()


def test_events_sorted_by_creation_and_wide() -> None:
    events = [{"kind": "Event", "metadata": meta("b", created=20), "type": "Normal", "reason": "Pulled",
               "involvedObject": {"kind": "Pod", "name": "web", "fieldPath": "spec.containers{c}"},
               "source": {"component": "kubelet", "host": "node-0"}, "firstTimestamp": ts(20),
               "lastTimestamp": ts(20), "message": "pulled"},
              {"kind": "Event", "metadata": meta("a", created=30), "type": "Normal", "reason": "Started",
               "involvedObject": {"kind": "Pod", "name": "web"}, "reportingComponent": "kubelet",
               "eventTime": "2025-01-01T00:00:30.000000Z", "series": {"count": 4, "lastObservedTime": ts(100)},
               "message": "started"}]
    out = print_table("events", events, now=NOW, sort_by=".metadata.creationTimestamp")
    assert [line.split()[2] for line in out.splitlines()[1:]] == ["Pulled", "Started"]
    assert out.splitlines()[2].startswith("50s ")  # the series' last observation
    wide = print_table("events", events, now=NOW, wide=True).splitlines()
    assert wide[0] == ("LAST SEEN   TYPE      REASON    OBJECT    SUBOBJECT            SOURCE            MESSAGE   "
                       "FIRST SEEN   COUNT     NAME")
    assert wide[1] == ("2m10s       Normal    Pulled    pod/web   spec.containers{c}   kubelet, node-0   pulled    "
                       "2m10s        1         b")
    assert wide[2].split()[-3:] == ["2m", "4", "a"]
    with pytest.raises(ValueError, match="couldn't find any field"):
        print_table("events", events, now=NOW, sort_by=".spec.nope")


@pytest.mark.parametrize(
    ("typed", "resource"),
    [("po", "pods"), ("Pod", "pods"), ("deploy", "deployments"), ("deployments.apps", "deployments"),
     ("rs", "replicasets"), ("sts", "statefulsets"), ("cj", "cronjobs"), ("svc", "services"), ("no", "nodes"),
     ("ev", "events"), ("pvc", "persistentvolumeclaims"), ("hpa", "horizontalpodautoscalers"),
     ("pdb", "poddisruptionbudgets"), ("endpointslice", "endpointslices"), ("cm", "configmaps")],
    ids=lambda v: str(v),
)
def test_resolve_resource(typed: str, resource: str) -> None:
    assert resolve_resource(typed) == resource


def test_unknown_resource_and_empty_lists() -> None:
    with pytest.raises(KeyError):
        resolve_resource("widgets")
    assert print_table("pods", [], now=NOW) == ""
    assert no_resources_message("pods", namespace="default") == "No resources found in default namespace."
    assert no_resources_message("nodes", namespace="default") == "No resources found"


def test_select_filters_kind_and_namespace_and_sorts() -> None:
    a, b = pod("b"), pod("a")
    other = {**pod("c"), "metadata": {**pod("c")["metadata"], "namespace": "kube-system"}}
    objs = [a, other, b, {"kind": "Node", "metadata": meta("node-0", None)}]
    assert [o["metadata"]["name"] for o in select(objs, "pods", namespace="default")] == ["a", "b"]
    assert [o["metadata"]["name"] for o in select(objs, "pods", namespace=None)] == ["a", "b", "c"]
    assert len(select(objs, "nodes", namespace="default")) == 1


def test_no_headers_and_determinism() -> None:
    pods = [pod(f"p{i}", statuses=[running()]) for i in range(3)]
    assert print_table("pods", pods, now=NOW) == print_table("pods", list(pods), now=NOW)
    assert print_table("pods", pods, now=NOW, no_headers=True).splitlines()[0].startswith("p0 ")
