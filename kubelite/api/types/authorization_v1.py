"""Generated msgspec Structs for authorization/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "FieldSelectorAttributes", "LabelSelectorAttributes", "LocalSubjectAccessReview",
    "NonResourceAttributes", "NonResourceRule", "ResourceAttributes", "ResourceRule",
    "SelfSubjectAccessReview", "SelfSubjectAccessReviewSpec", "SelfSubjectRulesReview",
    "SelfSubjectRulesReviewSpec", "SubjectAccessReview", "SubjectAccessReviewSpec",
    "SubjectAccessReviewStatus", "SubjectRulesReviewStatus"
]


class FieldSelectorAttributes(K8sStruct, kw_only=True):
    """FieldSelectorAttributes indicates a field limited access."""

    raw_selector: str | None = msgspec.field(default=None, name="rawSelector")
    requirements: list[meta_v1.FieldSelectorRequirement] | None = None


class LabelSelectorAttributes(K8sStruct, kw_only=True):
    """LabelSelectorAttributes indicates a label limited access."""

    raw_selector: str | None = msgspec.field(default=None, name="rawSelector")
    requirements: list[meta_v1.LabelSelectorRequirement] | None = None


class LocalSubjectAccessReview(K8sStruct, kw_only=True):
    """LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace."""

    api_version: str = msgspec.field(default_factory=partial(str, "authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "LocalSubjectAccessReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: SubjectAccessReviewSpec | None = None
    status: SubjectAccessReviewStatus | None = None


class NonResourceAttributes(K8sStruct, kw_only=True):
    """NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface"""

    path: str | None = None
    verb: str | None = None


class NonResourceRule(K8sStruct, kw_only=True):
    """NonResourceRule holds information that describes a rule for the non-resource"""

    non_resource_urls: list[str] | None = msgspec.field(default=None, name="nonResourceURLs")
    verbs: list[str] | None = None


class ResourceAttributes(K8sStruct, kw_only=True):
    """ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface"""

    field_selector: FieldSelectorAttributes | None = msgspec.field(default=None, name="fieldSelector")
    group: str | None = None
    label_selector: LabelSelectorAttributes | None = msgspec.field(default=None, name="labelSelector")
    name: str | None = None
    namespace: str | None = None
    resource: str | None = None
    subresource: str | None = None
    verb: str | None = None
    version: str | None = None


class ResourceRule(K8sStruct, kw_only=True):
    """ResourceRule is the list of actions the subject is allowed to perform on resources."""

    api_groups: list[str] | None = msgspec.field(default=None, name="apiGroups")
    resource_names: list[str] | None = msgspec.field(default=None, name="resourceNames")
    resources: list[str] | None = None
    verbs: list[str] | None = None


class SelfSubjectAccessReview(K8sStruct, kw_only=True):
    """SelfSubjectAccessReview checks whether or the current user can perform an action."""

    api_version: str = msgspec.field(default_factory=partial(str, "authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "SelfSubjectAccessReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: SelfSubjectAccessReviewSpec | None = None
    status: SubjectAccessReviewStatus | None = None


class SelfSubjectAccessReviewSpec(K8sStruct, kw_only=True):
    """SelfSubjectAccessReviewSpec is a description of the access request."""

    non_resource_attributes: NonResourceAttributes | None = msgspec.field(default=None, name="nonResourceAttributes")
    resource_attributes: ResourceAttributes | None = msgspec.field(default=None, name="resourceAttributes")


class SelfSubjectRulesReview(K8sStruct, kw_only=True):
    """SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace."""

    api_version: str = msgspec.field(default_factory=partial(str, "authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "SelfSubjectRulesReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: SelfSubjectRulesReviewSpec | None = None
    status: SubjectRulesReviewStatus | None = None


class SelfSubjectRulesReviewSpec(K8sStruct, kw_only=True):
    """SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview."""

    namespace: str | None = None


class SubjectAccessReview(K8sStruct, kw_only=True):
    """SubjectAccessReview checks whether or not a user or group can perform an action."""

    api_version: str = msgspec.field(default_factory=partial(str, "authorization.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "SubjectAccessReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: SubjectAccessReviewSpec | None = None
    status: SubjectAccessReviewStatus | None = None


class SubjectAccessReviewSpec(K8sStruct, kw_only=True):
    """SubjectAccessReviewSpec is a description of the access request."""

    extra: dict[str, list[str]] | None = None
    groups: list[str] | None = None
    non_resource_attributes: NonResourceAttributes | None = msgspec.field(default=None, name="nonResourceAttributes")
    resource_attributes: ResourceAttributes | None = msgspec.field(default=None, name="resourceAttributes")
    uid: str | None = None
    user: str | None = None


class SubjectAccessReviewStatus(K8sStruct, kw_only=True):
    """SubjectAccessReviewStatus"""

    allowed: bool | None = None
    denied: bool | None = None
    evaluation_error: str | None = msgspec.field(default=None, name="evaluationError")
    reason: str | None = None


class SubjectRulesReviewStatus(K8sStruct, kw_only=True):
    """SubjectRulesReviewStatus contains the result of a rules check."""

    evaluation_error: str | None = msgspec.field(default=None, name="evaluationError")
    incomplete: bool | None = None
    non_resource_rules: list[NonResourceRule] | None = msgspec.field(default=None, name="nonResourceRules")
    resource_rules: list[ResourceRule] | None = msgspec.field(default=None, name="resourceRules")
