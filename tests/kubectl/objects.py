"""Small builders of API objects (dicts as the API returns them) for the printer tests."""

from __future__ import annotations

from typing import Any

from kubelite.clock import EPOCH, format_time

T0 = "2025-01-01T00:00:00Z"


def ts(seconds: float) -> str:
    """The timestamp ``seconds`` after the epoch of virtual time."""
    return format_time(EPOCH + seconds)


def meta(name: str, namespace: str | None = "default", created: float = 0.0, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "creationTimestamp": ts(created), "uid": f"uid-{name}", **extra}
    if namespace is not None:
        m["namespace"] = namespace
    return m


def pod(name: str = "web", *, phase: str = "Running", containers: int = 1, statuses: list[dict[str, Any]] | None = None,
        init: list[dict[str, Any]] | None = None, init_statuses: list[dict[str, Any]] | None = None,
        conditions: dict[str, str] | None = None, node: str = "node-0", ip: str = "10.244.0.5",
        reason: str | None = None, deleted: bool = False, created: float = 0.0, **spec: Any) -> dict[str, Any]:
    m = meta(name, created=created)
    if deleted:
        m["deletionTimestamp"] = ts(300)
        m["deletionGracePeriodSeconds"] = 30
    status: dict[str, Any] = {"phase": phase, "hostIP": "172.16.0.1"}
    if ip:
        status["podIP"] = ip
        status["podIPs"] = [{"ip": ip}]
    if reason:
        status["reason"] = reason
    if statuses is not None:
        status["containerStatuses"] = statuses
    if init_statuses is not None:
        status["initContainerStatuses"] = init_statuses
    if conditions:
        status["conditions"] = [{"type": k, "status": v} for k, v in conditions.items()]
    body: dict[str, Any] = {"containers": [{"name": f"c{i}", "image": "nginx:1.25"} for i in range(containers)],
                            **spec}
    if node:
        body["nodeName"] = node
    if init is not None:
        body["initContainers"] = init
    return {"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": body, "status": status}


def running(name: str = "c0", *, ready: bool = True, restarts: int = 0, last_finished: float | None = None) -> dict[str, Any]:
    st: dict[str, Any] = {"name": name, "ready": ready, "restartCount": restarts, "state": {"running": {"startedAt": T0}}}
    if last_finished is not None:
        st["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ts(last_finished)}}
    return st


def waiting(reason: str, name: str = "c0", restarts: int = 0) -> dict[str, Any]:
    return {"name": name, "ready": False, "restartCount": restarts, "state": {"waiting": {"reason": reason}}}


def terminated(reason: str | None, code: int, name: str = "c0", signal: int | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"exitCode": code, "startedAt": T0, "finishedAt": ts(10)}
    if reason:
        t["reason"] = reason
    if signal:
        t["signal"] = signal
    return {"name": name, "ready": False, "restartCount": 0, "state": {"terminated": t}}
