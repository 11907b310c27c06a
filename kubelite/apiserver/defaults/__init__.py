"""Upstream defaulting for the built-in kinds: ``apply_defaults(group, kind, obj)``.

Contract:
- :func:`apply_defaults` mutates ``obj`` (the v1 JSON form, camelCase keys) *in place*. The apiserver
  owns ``obj``: it is the private copy made from the request body, so defaulting never copies it.
- Defaulting only fills fields the client left unset (absent, null, or the zero value where upstream
  treats zero as unset); it never rejects anything. Malformed shapes are left for validation.
- It is idempotent, so the apiserver may default again after mutating admission.
- A (group, kind) without upstream defaults, or unknown here (custom resources have their own
  structural-schema defaulting), is a no-op.

Each per-kind function follows upstream's ``pkg/apis/<group>/<version>/defaults.go`` plus the nested
walk of ``zz_generated.defaults.go`` (pod templates inside workloads get the full PodSpec defaults).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubelite.apiserver.defaults import admissionregistration, apps, batch, core, networking, other

__all__ = ["apply_defaults"]

_Defaulter = Callable[[dict[str, Any]], None]

_DEFAULTERS: dict[tuple[str, str], _Defaulter] = {
    ("", "Pod"): core.default_pod,
    ("", "Service"): core.default_service,
    ("", "Secret"): core.default_secret,
    ("", "ConfigMap"): core.default_config_map,
    ("", "Namespace"): core.default_namespace,
    ("", "Node"): core.default_node,
    ("", "PersistentVolume"): core.default_persistent_volume,
    ("", "PersistentVolumeClaim"): core.default_persistent_volume_claim,
    ("", "Endpoints"): core.default_endpoints,
    ("apps", "Deployment"): apps.default_deployment,
    ("apps", "ReplicaSet"): apps.default_replica_set,
    ("apps", "StatefulSet"): apps.default_stateful_set,
    ("apps", "DaemonSet"): apps.default_daemon_set,
    ("batch", "Job"): batch.default_job,
    ("batch", "CronJob"): batch.default_cron_job,
    ("discovery.k8s.io", "EndpointSlice"): other.default_endpoint_slice,
    ("scheduling.k8s.io", "PriorityClass"): other.default_priority_class,
    ("storage.k8s.io", "StorageClass"): other.default_storage_class,
    ("rbac.authorization.k8s.io", "RoleBinding"): other.default_role_binding,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): other.default_cluster_role_binding,
    ("autoscaling", "HorizontalPodAutoscaler"): other.default_horizontal_pod_autoscaler,
    ("", "ReplicationController"): networking.default_replication_controller,
    ("", "LimitRange"): networking.default_limit_range,
    ("networking.k8s.io", "NetworkPolicy"): networking.default_network_policy,
    ("networking.k8s.io", "IngressClass"): networking.default_ingress_class,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"):
        admissionregistration.default_validating_admission_policy,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"):
        admissionregistration.default_validating_admission_policy_binding,
}


def apply_defaults(group: str, kind: str, obj: dict[str, Any]) -> None:
    """Fill upstream's defaults into ``obj`` in place (ServiceAccount, Event, ControllerRevision, Lease,
    PodDisruptionBudget, Role and ClusterRole have none)."""
    defaulter = _DEFAULTERS.get((group, kind))
    if defaulter is not None:
        defaulter(obj)
