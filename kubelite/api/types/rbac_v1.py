"""Generated msgspec Structs for rbac/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "AggregationRule", "ClusterRole", "ClusterRoleBinding", "PolicyRule", "Role", "RoleBinding",
    "RoleRef", "Subject"
]


class AggregationRule(K8sStruct, kw_only=True):
    """AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole"""

    cluster_role_selectors: list[meta_v1.LabelSelector] | None = msgspec.field(default=None, name="clusterRoleSelectors")


class ClusterRole(K8sStruct, kw_only=True):
    """ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding."""

    api_version: str = msgspec.field(default_factory=partial(str, "rbac.authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ClusterRole"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    aggregation_rule: AggregationRule | None = msgspec.field(default=None, name="aggregationRule")
    rules: list[PolicyRule] | None = None


class ClusterRoleBinding(K8sStruct, kw_only=True):
    """ClusterRoleBinding references a ClusterRole, but not contain it."""

    api_version: str = msgspec.field(default_factory=partial(str, "rbac.authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ClusterRoleBinding"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    role_ref: RoleRef | None = msgspec.field(default=None, name="roleRef")
    subjects: list[Subject] | None = None


class PolicyRule(K8sStruct, kw_only=True):
    """PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to."""

    api_groups: list[str] | None = msgspec.field(default=None, name="apiGroups")
    non_resource_urls: list[str] | None = msgspec.field(default=None, name="nonResourceURLs")
    resource_names: list[str] | None = msgspec.field(default=None, name="resourceNames")
    resources: list[str] | None = None
    verbs: list[str] | None = None


class Role(K8sStruct, kw_only=True):
    """Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding."""

    api_version: str = msgspec.field(default_factory=partial(str, "rbac.authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Role"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    rules: list[PolicyRule] | None = None


class RoleBinding(K8sStruct, kw_only=True):
    """RoleBinding references a role, but does not contain it."""

    api_version: str = msgspec.field(default_factory=partial(str, "rbac.authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "RoleBinding"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    role_ref: RoleRef | None = msgspec.field(default=None, name="roleRef")
    subjects: list[Subject] | None = None


class RoleRef(K8sStruct, kw_only=True):
    """RoleRef contains information that points to the role being used"""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    kind: str | None = None
    name: str | None = None


class Subject(K8sStruct, kw_only=True):
    """Subject contains a reference to the object or user identities a role binding applies to."""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
