"""Upstream validation of the built-in kinds: create, update and status update.

Contract:
- ``validate_create(group, kind, obj)``, ``validate_update(group, kind, obj, old)`` and
  ``validate_status_update(group, kind, obj, old)`` only *read* their arguments (v1 JSON dicts, already
  defaulted) and return every problem found as :class:`kubelite.errors.FieldError` values, in the order
  upstream reports them; an empty list means valid. The caller turns them into one 422 with
  :func:`kubelite.errors.invalid`.
- Update validation includes the immutability rules (metadata identity, selectors, roleRef, ...) and,
  like upstream, re-validates the new object. Status validation checks the metadata rules plus the
  kind's status fields; the apiserver has already reset everything but ``status`` to the stored object.
- A (group, kind) not listed here is only checked for its ObjectMeta (custom resources are validated
  against their schema elsewhere and never reach this module).

Each kind follows upstream's ``pkg/apis/<group>/validation`` functions, named in the module that holds
it: :mod:`.meta`, :mod:`.pod` and :mod:`.container`, :mod:`.core`, :mod:`.service`, :mod:`.volumes`, :mod:`.apps`, :mod:`.batch`,
:mod:`.other`, :mod:`.networking`, :mod:`.replication`, :mod:`.admissionregistration`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation import (
    admissionregistration,
    apps,
    batch,
    core,
    networking,
    other,
    pod,
    replication,
    service,
    volumes,
)
from kubelite.apiserver.validation.common import as_dict
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = ["validate_create", "validate_status_update", "validate_update"]

_Create = Callable[[Mapping[str, Any]], list[FieldError]]
_Update = Callable[[Mapping[str, Any], Mapping[str, Any]], list[FieldError]]

_RBAC = "rbac.authorization.k8s.io"
_NET = "networking.k8s.io"
_ADMREG = "admissionregistration.k8s.io"


def _meta_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))


_Body = Callable[[Mapping[str, Any], list[FieldError]], None]


def _meta_then(body: _Body) -> _Update:
    """Update rules of kinds whose upstream update is "metadata update rules + the spec rules"."""
    def update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
        errs = _meta_update(obj, old)
        body(obj, errs)
        return errs
    return update


def _role(namespaced: bool) -> _Create:
    return lambda obj: other.validate_role(obj, namespaced=namespaced)


def _role_update(namespaced: bool) -> _Update:
    return lambda obj, old: other.validate_role_update(obj, old, namespaced=namespaced)


def _binding(namespaced: bool) -> _Create:
    return lambda obj: other.validate_binding(obj, namespaced=namespaced)


def _binding_update(namespaced: bool) -> _Update:
    return lambda obj, old: other.validate_binding_update(obj, old, namespaced=namespaced)


# (create, update, status update); None status means "metadata rules only".
_KINDS: dict[tuple[str, str], tuple[_Create, _Update, _Update | None]] = {
    ("", "Pod"): (pod.validate_pod_create, pod.validate_pod_update, pod.validate_pod_status_update),
    ("", "Service"): (service.validate_service, service.validate_service_update, None),
    ("", "ConfigMap"): (core.validate_config_map, core.validate_config_map_update, None),
    ("", "Secret"): (core.validate_secret, core.validate_secret_update, None),
    ("", "Namespace"): (core.validate_namespace, _meta_update, None),
    ("", "Node"): (core.validate_node, core.validate_node_update, None),
    ("", "ServiceAccount"): (core.validate_service_account, _meta_update, None),
    ("", "Event"): (core.validate_event, _meta_then(core.event_fields), None),
    ("", "PersistentVolume"): (volumes.validate_persistent_volume, volumes.validate_persistent_volume_update, None),
    ("", "PersistentVolumeClaim"): (volumes.validate_pvc, volumes.validate_pvc_update, None),
    ("apps", "Deployment"): (apps.validate_deployment, apps.validate_deployment_update,
                             apps.validate_workload_status_update),
    ("apps", "ReplicaSet"): (apps.validate_replica_set, apps.validate_replica_set_update,
                             apps.validate_workload_status_update),
    ("apps", "StatefulSet"): (apps.validate_stateful_set, apps.validate_stateful_set_update,
                              apps.validate_workload_status_update),
    ("apps", "DaemonSet"): (apps.validate_daemon_set, apps.validate_daemon_set_update,
                            apps.validate_workload_status_update),
    ("apps", "ControllerRevision"): (apps.validate_controller_revision, apps.validate_controller_revision_update, None),
    ("batch", "Job"): (batch.validate_job, batch.validate_job_update, batch.validate_job_status_update),
    ("batch", "CronJob"): (batch.validate_cron_job, batch.validate_cron_job_update, None),
    ("discovery.k8s.io", "EndpointSlice"): (other.validate_endpoint_slice, other.validate_endpoint_slice_update, None),
    ("coordination.k8s.io", "Lease"): (other.validate_lease, _meta_then(other.lease_spec), None),
    ("policy", "PodDisruptionBudget"): (other.validate_pdb, _meta_then(other.pdb_spec), None),
    ("scheduling.k8s.io", "PriorityClass"): (other.validate_priority_class, other.validate_priority_class_update, None),
    ("storage.k8s.io", "StorageClass"): (other.validate_storage_class, other.validate_storage_class_update, None),
    (_RBAC, "Role"): (_role(True), _role_update(True), None),
    (_RBAC, "ClusterRole"): (_role(False), _role_update(False), None),
    (_RBAC, "RoleBinding"): (_binding(True), _binding_update(True), None),
    (_RBAC, "ClusterRoleBinding"): (_binding(False), _binding_update(False), None),
    ("autoscaling", "HorizontalPodAutoscaler"): (other.validate_hpa, _meta_then(other.hpa_spec), None),
    ("", "ReplicationController"): (replication.validate_replication_controller,
                                    replication.validate_replication_controller_update,
                                    apps.validate_workload_status_update),
    ("", "LimitRange"): (replication.validate_limit_range, replication.validate_limit_range_update, None),
    ("", "ResourceQuota"): (replication.validate_resource_quota, replication.validate_resource_quota_update,
                            replication.validate_resource_quota_status_update),
    (_NET, "Ingress"): (networking.validate_ingress, networking.validate_ingress_update, None),
    (_NET, "IngressClass"): (networking.validate_ingress_class, networking.validate_ingress_class_update, None),
    (_NET, "NetworkPolicy"): (networking.validate_network_policy, networking.validate_network_policy_update, None),
    (_ADMREG, "ValidatingAdmissionPolicy"): (admissionregistration.validate_policy,
                                             admissionregistration.validate_policy_update, None),
    (_ADMREG, "ValidatingAdmissionPolicyBinding"): (admissionregistration.validate_policy_binding,
                                                    admissionregistration.validate_policy_binding_update, None),
}


def validate_create(group: str, kind: str, obj: dict[str, Any]) -> list[FieldError]:
    """Every problem with a new object (``Validate<Kind>`` upstream)."""
    entry = _KINDS.get((group, kind))
    if entry is not None:
        return entry[0](obj)
    meta = as_dict(obj.get("metadata"))
    return validate_object_meta(meta, namespaced=bool(meta.get("namespace")), name_fn=names.name_is_dns_subdomain)


def validate_update(group: str, kind: str, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Every problem with replacing ``old`` by ``obj`` (``Validate<Kind>Update``), immutability included."""
    entry = _KINDS.get((group, kind))
    if entry is not None:
        return entry[1](obj, old)
    return _meta_update(obj, old)


def validate_status_update(group: str, kind: str, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Every problem with a ``/status`` write (``Validate<Kind>StatusUpdate``)."""
    entry = _KINDS.get((group, kind))
    if entry is not None and entry[2] is not None:
        return entry[2](obj, old)
    return _meta_update(obj, old)
