"""Defaults for ``apps/v1``: Deployment, ReplicaSet, StatefulSet, DaemonSet (ControllerRevision has none).

Contract: as :mod:`kubelite.apiserver.defaults.core` (in place, idempotent, never overwrites a set
field). Mirrors ``pkg/apis/apps/v1/defaults.go``; the pod template of every workload gets the full
PodSpec defaults (``zz_generated.defaults.go``) but not ``SetDefaults_Pod``, and a StatefulSet's
``volumeClaimTemplates`` get the PersistentVolumeClaim defaults.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.defaults.core import default_persistent_volume_claim, default_pod_template_spec

__all__ = ["default_daemon_set", "default_deployment", "default_replica_set", "default_stateful_set"]

Obj = dict[str, Any]


def _spec(obj: Obj) -> Obj:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def _sub(parent: Obj, key: str) -> Obj:
    v = parent.get(key)
    if not isinstance(v, dict):
        v = parent[key] = {}
    return v


def _template(spec: Obj) -> None:
    template = spec.get("template")
    if isinstance(template, dict):
        default_pod_template_spec(template)


def default_deployment(obj: Obj) -> None:
    """``SetDefaults_Deployment``: replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
    progressDeadlineSeconds 600."""
    spec = _spec(obj)
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = _sub(spec, "strategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = _sub(strategy, "rollingUpdate")
        if rolling.get("maxUnavailable") is None:
            rolling["maxUnavailable"] = "25%"
        if rolling.get("maxSurge") is None:
            rolling["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    _template(spec)


def default_replica_set(obj: Obj) -> None:
    """``SetDefaults_ReplicaSet``: replicas 1."""
    spec = _spec(obj)
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    _template(spec)


def default_stateful_set(obj: Obj) -> None:
    """``SetDefaults_StatefulSet``: OrderedReady, RollingUpdate with partition 0, PVC retention Retain,
    replicas 1, revisionHistoryLimit 10."""
    spec = _spec(obj)
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = _sub(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        if strategy.get("rollingUpdate") is None:
            strategy["rollingUpdate"] = {}
    rolling = strategy.get("rollingUpdate")
    if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict) and rolling.get("partition") is None:
        rolling["partition"] = 0
    retention = _sub(spec, "persistentVolumeClaimRetentionPolicy")
    if not retention.get("whenDeleted"):
        retention["whenDeleted"] = "Retain"
    if not retention.get("whenScaled"):
        retention["whenScaled"] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    _template(spec)
    claims = spec.get("volumeClaimTemplates")
    for claim in claims if isinstance(claims, list) else []:
        if isinstance(claim, dict):
            default_persistent_volume_claim(claim)


def default_daemon_set(obj: Obj) -> None:
    """``SetDefaults_DaemonSet``: RollingUpdate with maxUnavailable 1 / maxSurge 0, revisionHistoryLimit 10."""
    spec = _spec(obj)
    strategy = _sub(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = _sub(strategy, "rollingUpdate")
        if rolling.get("maxUnavailable") is None:
            rolling["maxUnavailable"] = 1
        if rolling.get("maxSurge") is None:
            rolling["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    _template(spec)
