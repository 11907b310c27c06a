"""``kubectl get`` rows of the networking, policy, RBAC, storage, coordination and scheduling kinds, as
``pkg/printers/internalversion/printers.go`` prints them (the server prints wide: every cell is there)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.clock import EPOCH
from kubelite.kubectl import rows_other

from .objects import meta

NOW = EPOCH + 150


def rule(host: str = "") -> dict[str, Any]:
    return {"host": host} if host else {}


ROWS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("ingresses", {"metadata": meta("web"), "spec": {"ingressClassName": "nginx", "rules": [rule("a.example.com")]},
                   "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}, {"hostname": "lb.example.com"}]}}},
     ["web", "nginx", "a.example.com", "192.0.2.1,lb.example.com", "80", "2m30s"]),
    ("ingresses", {"metadata": meta("any"), "spec": {"rules": [rule()], "tls": [{"hosts": ["x"]}]}},
     ["any", "<none>", "*", "", "80, 443", "2m30s"]),
    ("ingresses", {"metadata": meta("many"), "spec": {"rules": [rule(f"h{i}") for i in range(5)]}},
     ["many", "<none>", "h0,h1,h2 + 2 more...", "", "80", "2m30s"]),
    ("ingressclasses", {"metadata": meta("nginx", None), "spec": {
        "controller": "k8s.io/ingress-nginx", "parameters": {"apiGroup": "k8s.example.com", "kind": "Params",
                                                             "name": "p"}}},
     ["nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/p", "2m30s"]),
    ("networkpolicies", {"metadata": meta("deny"), "spec": {"podSelector": {}}}, ["deny", "<none>", "2m30s"]),
    ("networkpolicies", {"metadata": meta("web"), "spec": {"podSelector": {"matchLabels": {"app": "web"}}}},
     ["web", "app=web", "2m30s"]),
    ("resourcequotas", {"metadata": meta("compute"), "status": {
        "hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi", "limits.cpu": "8"},
        "used": {"pods": "3", "requests.cpu": "300m", "limits.cpu": "600m"}}},
     ["compute", "pods: 3/10, requests.cpu: 300m/4", "limits.cpu: 600m/8, limits.memory: 0/8Gi", "2m30s"]),
    ("resourcequotas", {"metadata": meta("unsynced"), "spec": {"hard": {"pods": "1"}}}, ["unsynced", "", "", "2m30s"]),
    ("serviceaccounts", {"metadata": meta("builder"), "secrets": [{"name": "a"}, {"name": "b"}]},
     ["builder", "2", "2m30s"]),
    ("serviceaccounts", {"metadata": meta("default")}, ["default", "0", "2m30s"]),
    ("rolebindings", {"metadata": meta("readers"), "roleRef": {"kind": "Role", "name": "pod-reader"}},
     ["readers", "Role/pod-reader", "2m30s"]),
    ("clusterrolebindings", {"metadata": meta("admins", None), "roleRef": {"kind": "ClusterRole", "name": "admin"}},
     ["admins", "ClusterRole/admin", "2m30s"]),
    ("storageclasses", {"metadata": meta("standard", None, annotations={
        "storageclass.kubernetes.io/is-default-class": "true"}), "provisioner": "kubelite.io/hostpath",
        "volumeBindingMode": "WaitForFirstConsumer"},
     ["standard (default)", "kubelite.io/hostpath", "Delete", "WaitForFirstConsumer", "false", "2m30s"]),
    ("storageclasses", {"metadata": meta("fast", None), "provisioner": "p", "reclaimPolicy": "Retain",
                        "allowVolumeExpansion": True},
     ["fast", "p", "Retain", "Immediate", "true", "2m30s"]),
    ("leases", {"metadata": meta("node-0", "kube-node-lease"), "spec": {"holderIdentity": "node-0"}},
     ["node-0", "node-0", "2m30s"]),
    ("leases", {"metadata": meta("free"), "spec": {}}, ["free", "", "2m30s"]),
    ("priorityclasses", {"metadata": meta("high", None), "value": 1000, "globalDefault": True},
     ["high", "1000", "true", "2m30s", ""]),
    ("priorityclasses", {"metadata": meta("low", None), "value": -5, "preemptionPolicy": "Never"},
     ["low", "-5", "false", "2m30s", "Never"]),
    ("controllerrevisions", {"metadata": meta("agent-6d4", ownerReferences=[
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": True}]), "revision": 2},
     ["agent-6d4", "daemonset.apps/agent", "2", "2m30s"]),
    ("controllerrevisions", {"metadata": meta("orphan"), "revision": 1}, ["orphan", "<none>", "1", "2m30s"]),
]


@pytest.mark.parametrize(("resource", "obj", "cells"), ROWS, ids=[f"{r[0]}-{r[2][0]}" for r in ROWS])
def test_rows(resource: str, obj: dict[str, Any], cells: list[str]) -> None:
    columns, _, row = rows_other.ROWS[resource]
    assert row(obj, NOW, False) == cells
    assert len(cells) == len(columns)


@pytest.mark.parametrize(("resource", "obj", "wide"), [
    ("rolebindings", {"metadata": meta("mixed"), "roleRef": {"kind": "ClusterRole", "name": "view"}, "subjects": [
        {"kind": "User", "name": "jane"}, {"kind": "Group", "name": "devs"}, {"kind": "User", "name": "joe"},
        {"kind": "ServiceAccount", "name": "builder", "namespace": "shop"}]},
     ["jane, joe", "devs", "shop/builder"]),
], ids=["rolebinding-subjects"])
def test_wide_cells(resource: str, obj: dict[str, Any], wide: list[str]) -> None:
    columns, wide_columns, row = rows_other.ROWS[resource]
    cells = row(obj, NOW, True)
    assert cells[len(columns):] == wide
    assert len(cells) == len(columns) + len(wide_columns)
