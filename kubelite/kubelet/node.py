"""The Node object a kubelet registers and keeps current, and its Lease.

Follows ``pkg/kubelet/kubelet_node_status.go`` (``initialNode``, ``registerWithAPIServer``) and
``pkg/kubelet/nodestatus/setters.go`` (``MachineInfo``: capacity and allocatable; ``ReadyCondition``,
``MemoryPressureCondition``, ``DiskPressureCondition``, ``PIDPressureCondition`` with upstream reasons
and messages), and ``pkg/kubelet/nodelease`` (a Lease in ``kube-node-lease`` renewed every 10 s,
``leaseDurationSeconds: 40``). Pure builders; the kubelet writes them through the client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.podresources import quantity_units

__all__ = ["LEASE_DURATION", "LEASE_NAMESPACE", "RENEW_INTERVAL", "allocatable", "initial_node", "lease_body",
           "node_conditions"]

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION = 40
RENEW_INTERVAL = 10.0
KUBELET_VERSION = "v1.37.0-kubelite"

_COND = {
    # type: (ok status, ok reason, ok message, bad reason, bad message)
    "MemoryPressure": ("False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
                       "KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
    "DiskPressure": ("False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
                     "KubeletHasDiskPressure", "kubelet has disk pressure"),
    "PIDPressure": ("False", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
                    "KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
    "Ready": ("True", "KubeletReady", "kubelet is posting ready status", "KubeletNotReady", ""),
}


def allocatable(capacity: Mapping[str, Any], reserved: Mapping[str, Any]) -> dict[str, str]:
    """capacity - (kube-reserved + system-reserved + hard eviction threshold), as quantity strings."""
    out: dict[str, str] = {}
    for name, q in capacity.items():
        cap = quantity_units(name, q)
        res = quantity_units(name, reserved[name]) if name in reserved else 0
        left = max(0, cap - res)
        out[name] = f"{left}m" if name == "cpu" and left % 1000 else (str(left // 1000) if name == "cpu" else str(left))
    return out


def node_conditions(now: str, previous: Mapping[str, Mapping[str, Any]], *, memory_pressure: bool = False,
                    disk_pressure: bool = False, pid_pressure: bool = False, not_ready: str = ""
                    ) -> list[dict[str, Any]]:
    bad = {"MemoryPressure": memory_pressure, "DiskPressure": disk_pressure, "PIDPressure": pid_pressure,
           "Ready": bool(not_ready)}
    out = []
    for t, (ok, ok_reason, ok_msg, bad_reason, bad_msg) in _COND.items():
        is_bad = bad[t]
        status = ("False" if ok == "True" else "True") if is_bad else ok
        prev = previous.get(t)
        ltt = prev.get("lastTransitionTime") if prev and prev.get("status") == status else None
        out.append({"type": t, "status": status, "lastHeartbeatTime": now, "lastTransitionTime": ltt or now,
                    "reason": bad_reason if is_bad else ok_reason,
                    "message": (not_ready if t == "Ready" else bad_msg) if is_bad else ok_msg})
    return out


def initial_node(name: str, *, capacity: Mapping[str, str], allocatable: Mapping[str, str],
                 labels: Mapping[str, str], taints: list[dict[str, Any]], host_ip: str, pod_cidr: str | None,
                 now: str) -> dict[str, Any]:
    node: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64", **labels},
            "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                            "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {},
        "status": {
            "capacity": dict(capacity), "allocatable": dict(allocatable),
            "conditions": node_conditions(now, {}),
            "addresses": [{"type": "InternalIP", "address": host_ip}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": name, "systemUUID": name, "bootID": name, "kernelVersion": "6.8.0",
                         "osImage": "kubelite", "containerRuntimeVersion": "containerd://1.7.0",
                         "kubeletVersion": KUBELET_VERSION, "kubeProxyVersion": "", "operatingSystem": "linux",
                         "architecture": "amd64"},
        },
    }
    if taints:
        node["spec"]["taints"] = list(taints)
    if pod_cidr:
        node["spec"]["podCIDR"] = pod_cidr
        node["spec"]["podCIDRs"] = [pod_cidr]
    return node


def lease_body(node_name: str, node_uid: str, now_micro: str) -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": node_name, "namespace": LEASE_NAMESPACE,
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node_name,
                                              "uid": node_uid}]},
            "spec": {"holderIdentity": node_name, "leaseDurationSeconds": LEASE_DURATION,
                     "renewTime": now_micro}}
