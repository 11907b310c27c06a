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

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import as_dict
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = ["validate_create", "validate_status_update", "validate_update"]

_Create = Callable[[Mapping[str, Any]], list[FieldError]]
_Update = Callable[[Mapping[str, Any], Mapping[str, Any]], list[FieldError]]
_Entry = tuple[_Create, _Update, _Update | None]

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


def _rbac(kind: str, namespaced: bool) -> Callable[[ModuleType], _Entry]:
    def entry(m: ModuleType) -> _Entry:
        create, update = (m.validate_role, m.validate_role_update) if kind == "role" else (
            m.validate_binding, m.validate_binding_update)
        return (lambda obj: create(obj, namespaced=namespaced),
                lambda obj, old: update(obj, old, namespaced=namespaced), None)
    return entry


#: (group, kind) -> (the module under ``kubelite.apiserver.validation`` holding its rules, and what makes its
#: (create, update, status update) from that module; a None status means "metadata rules only"). A kind's
#: module is imported with the kind's first validation, not with the apiserver (issue #17, cold start: a
#: cluster that never writes a Deployment, Job, Ingress or ResourceQuota does not load their rules).
_KINDS: dict[tuple[str, str], tuple[str, Callable[[ModuleType], _Entry]]] = {
    ("", "Pod"): ("pod", lambda m: (m.validate_pod_create, m.validate_pod_update, m.validate_pod_status_update)),
    ("", "Service"): ("service", lambda m: (m.validate_service, m.validate_service_update, None)),
    ("", "ConfigMap"): ("core", lambda m: (m.validate_config_map, m.validate_config_map_update, None)),
    ("", "Secret"): ("core", lambda m: (m.validate_secret, m.validate_secret_update, None)),
    ("", "Namespace"): ("core", lambda m: (m.validate_namespace, _meta_update, None)),
    ("", "Node"): ("core", lambda m: (m.validate_node, m.validate_node_update, None)),
    ("", "ServiceAccount"): ("core", lambda m: (m.validate_service_account, _meta_update, None)),
    ("", "Event"): ("core", lambda m: (m.validate_event, _meta_then(m.event_fields), None)),
    ("", "PersistentVolume"): ("volumes", lambda m: (m.validate_persistent_volume,
                                                     m.validate_persistent_volume_update, None)),
    ("", "PersistentVolumeClaim"): ("volumes", lambda m: (m.validate_pvc, m.validate_pvc_update, None)),
    ("apps", "Deployment"): ("apps", lambda m: (m.validate_deployment, m.validate_deployment_update,
                                                m.validate_workload_status_update)),
    ("apps", "ReplicaSet"): ("apps", lambda m: (m.validate_replica_set, m.validate_replica_set_update,
                                                m.validate_workload_status_update)),
    ("apps", "StatefulSet"): ("apps", lambda m: (m.validate_stateful_set, m.validate_stateful_set_update,
                                                 m.validate_workload_status_update)),
    ("apps", "DaemonSet"): ("apps", lambda m: (m.validate_daemon_set, m.validate_daemon_set_update,
                                               m.validate_workload_status_update)),
    ("apps", "ControllerRevision"): ("apps", lambda m: (m.validate_controller_revision,
                                                        m.validate_controller_revision_update, None)),
    ("batch", "Job"): ("batch", lambda m: (m.validate_job, m.validate_job_update, m.validate_job_status_update)),
    ("batch", "CronJob"): ("batch", lambda m: (m.validate_cron_job, m.validate_cron_job_update, None)),
    ("discovery.k8s.io", "EndpointSlice"): ("other", lambda m: (m.validate_endpoint_slice,
                                                                m.validate_endpoint_slice_update, None)),
    ("coordination.k8s.io", "Lease"): ("other", lambda m: (m.validate_lease, _meta_then(m.lease_spec), None)),
    ("policy", "PodDisruptionBudget"): ("other", lambda m: (m.validate_pdb, _meta_then(m.pdb_spec), None)),
    ("scheduling.k8s.io", "PriorityClass"): ("other", lambda m: (m.validate_priority_class,
                                                                 m.validate_priority_class_update, None)),
    ("storage.k8s.io", "StorageClass"): ("other", lambda m: (m.validate_storage_class,
                                                             m.validate_storage_class_update, None)),
    (_RBAC, "Role"): ("other", _rbac("role", True)),
    (_RBAC, "ClusterRole"): ("other", _rbac("role", False)),
    (_RBAC, "RoleBinding"): ("other", _rbac("binding", True)),
    (_RBAC, "ClusterRoleBinding"): ("other", _rbac("binding", False)),
    ("autoscaling", "HorizontalPodAutoscaler"): ("other", lambda m: (m.validate_hpa, _meta_then(m.hpa_spec), None)),
    # the workload status rules are apps' (upstream's ValidateReplicationControllerStatusUpdate is the same)
    ("", "ReplicationController"): ("replication", lambda m: (
        m.validate_replication_controller, m.validate_replication_controller_update,
        importlib.import_module("kubelite.apiserver.validation.apps").validate_workload_status_update)),
    ("", "LimitRange"): ("replication", lambda m: (m.validate_limit_range, m.validate_limit_range_update, None)),
    ("", "ResourceQuota"): ("replication", lambda m: (m.validate_resource_quota, m.validate_resource_quota_update,
                                                      m.validate_resource_quota_status_update)),
    (_NET, "Ingress"): ("networking", lambda m: (m.validate_ingress, m.validate_ingress_update, None)),
    (_NET, "IngressClass"): ("networking", lambda m: (m.validate_ingress_class, m.validate_ingress_class_update,
                                                      None)),
    (_NET, "NetworkPolicy"): ("networking", lambda m: (m.validate_network_policy, m.validate_network_policy_update,
                                                       None)),
    (_ADMREG, "ValidatingAdmissionPolicy"): ("admissionregistration", lambda m: (
        m.validate_policy, m.validate_policy_update, None)),
    (_ADMREG, "ValidatingAdmissionPolicyBinding"): ("admissionregistration", lambda m: (
        m.validate_policy_binding, m.validate_policy_binding_update, None)),
}

#: the resolved entries of :data:`_KINDS` (at most one per entry), filled with each kind's first validation
_RESOLVED: dict[tuple[str, str], _Entry] = {}


def _entry(group: str, kind: str) -> _Entry | None:
    """The (create, update, status update) rules of a kind, importing its module the first time; None for a
    kind without an entry (metadata rules only)."""
    key = (group, kind)
    entry = _RESOLVED.get(key)
    if entry is None:
        spec = _KINDS.get(key)
        if spec is None:
            return None
        entry = _RESOLVED[key] = spec[1](importlib.import_module(f"{__name__}.{spec[0]}"))
    return entry


def validate_create(group: str, kind: str, obj: dict[str, Any]) -> list[FieldError]:
    """Every problem with a new object (``Validate<Kind>`` upstream)."""
    entry = _entry(group, kind)
    if entry is not None:
        return entry[0](obj)
    meta = as_dict(obj.get("metadata"))
    return validate_object_meta(meta, namespaced=bool(meta.get("namespace")), name_fn=names.name_is_dns_subdomain)


def validate_update(group: str, kind: str, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Every problem with replacing ``old`` by ``obj`` (``Validate<Kind>Update``), immutability included."""
    entry = _entry(group, kind)
    if entry is not None:
        return entry[1](obj, old)
    return _meta_update(obj, old)


def validate_status_update(group: str, kind: str, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Every problem with a ``/status`` write (``Validate<Kind>StatusUpdate``)."""
    entry = _entry(group, kind)
    if entry is not None and entry[2] is not None:
        return entry[2](obj, old)
    return _meta_update(obj, old)
