"""Generated msgspec Structs for flowcontrol/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "ExemptPriorityLevelConfiguration", "FlowDistinguisherMethod", "FlowSchema",
    "FlowSchemaCondition", "FlowSchemaSpec", "FlowSchemaStatus", "GroupSubject", "LimitResponse",
    "LimitedPriorityLevelConfiguration", "NonResourcePolicyRule", "PolicyRulesWithSubjects",
    "PriorityLevelConfiguration", "PriorityLevelConfigurationCondition",
    "PriorityLevelConfigurationReference", "PriorityLevelConfigurationSpec",
    "PriorityLevelConfigurationStatus", "QueuingConfiguration", "ResourcePolicyRule",
    "ServiceAccountSubject", "Subject", "UserSubject"
]


class ExemptPriorityLevelConfiguration(K8sStruct, kw_only=True):
    """ExemptPriorityLevelConfiguration describes the configurable aspects of the handling of exempt requests."""

    lendable_percent: int | None = msgspec.field(default=None, name="lendablePercent")
    nominal_concurrency_shares: int | None = msgspec.field(default=None, name="nominalConcurrencyShares")


class FlowDistinguisherMethod(K8sStruct, kw_only=True):
    """FlowDistinguisherMethod specifies the method of a flow distinguisher."""

    type: str | None = None


class FlowSchema(K8sStruct, kw_only=True):
    """FlowSchema defines the schema of a group of flows."""

    api_version: str = msgspec.field(default_factory=partial(str, "flowcontrol.apiserver.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "FlowSchema"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: FlowSchemaSpec | None = None
    status: FlowSchemaStatus | None = None


class FlowSchemaCondition(K8sStruct, kw_only=True):
    """FlowSchemaCondition describes conditions for a FlowSchema."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class FlowSchemaSpec(K8sStruct, kw_only=True):
    """FlowSchemaSpec describes how the FlowSchema's specification looks like."""

    distinguisher_method: FlowDistinguisherMethod | None = msgspec.field(default=None, name="distinguisherMethod")
    matching_precedence: int | None = msgspec.field(default=None, name="matchingPrecedence")
    priority_level_configuration: PriorityLevelConfigurationReference | None = msgspec.field(default=None, name="priorityLevelConfiguration")
    rules: list[PolicyRulesWithSubjects] | None = None


class FlowSchemaStatus(K8sStruct, kw_only=True):
    """FlowSchemaStatus represents the current state of a FlowSchema."""

    conditions: list[FlowSchemaCondition] | None = None


class GroupSubject(K8sStruct, kw_only=True):
    """GroupSubject holds detailed information for group-kind subject."""

    name: str | None = None


class LimitResponse(K8sStruct, kw_only=True):
    """LimitResponse defines how to handle requests that can not be executed right now."""

    queuing: QueuingConfiguration | None = None
    type: str | None = None


class LimitedPriorityLevelConfiguration(K8sStruct, kw_only=True):
    """LimitedPriorityLevelConfiguration specifies how to handle requests that are subject to limits."""

    borrowing_limit_percent: int | None = msgspec.field(default=None, name="borrowingLimitPercent")
    lendable_percent: int | None = msgspec.field(default=None, name="lendablePercent")
    limit_response: LimitResponse | None = msgspec.field(default=None, name="limitResponse")
    nominal_concurrency_shares: int | None = msgspec.field(default=None, name="nominalConcurrencyShares")


class NonResourcePolicyRule(K8sStruct, kw_only=True):
    """NonResourcePolicyRule is a predicate that matches non-resource requests according to their verb and the target non-resource URL."""

    non_resource_urls: list[str] | None = msgspec.field(default=None, name="nonResourceURLs")
    verbs: list[str] | None = None


class PolicyRulesWithSubjects(K8sStruct, kw_only=True):
    """PolicyRulesWithSubjects prescribes a test that applies to a request to an apiserver."""

    non_resource_rules: list[NonResourcePolicyRule] | None = msgspec.field(default=None, name="nonResourceRules")
    resource_rules: list[ResourcePolicyRule] | None = msgspec.field(default=None, name="resourceRules")
    subjects: list[Subject] | None = None


class PriorityLevelConfiguration(K8sStruct, kw_only=True):
    """PriorityLevelConfiguration represents the configuration of a priority level."""

    api_version: str = msgspec.field(default_factory=partial(str, "flowcontrol.apiserver.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "PriorityLevelConfiguration"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: PriorityLevelConfigurationSpec | None = None
    status: PriorityLevelConfigurationStatus | None = None


class PriorityLevelConfigurationCondition(K8sStruct, kw_only=True):
    """PriorityLevelConfigurationCondition defines the condition of priority level."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class PriorityLevelConfigurationReference(K8sStruct, kw_only=True):
    """PriorityLevelConfigurationReference contains information that points to the "request-priority" being used."""

    name: str | None = None


class PriorityLevelConfigurationSpec(K8sStruct, kw_only=True):
    """PriorityLevelConfigurationSpec specifies the configuration of a priority level."""

    exempt: ExemptPriorityLevelConfiguration | None = None
    limited: LimitedPriorityLevelConfiguration | None = None
    type: str | None = None


class PriorityLevelConfigurationStatus(K8sStruct, kw_only=True):
    """PriorityLevelConfigurationStatus represents the current state of a "request-priority"."""

    conditions: list[PriorityLevelConfigurationCondition] | None = None


class QueuingConfiguration(K8sStruct, kw_only=True):
    """QueuingConfiguration holds the configuration parameters for queuing"""

    hand_size: int | None = msgspec.field(default=None, name="handSize")
    queue_length_limit: int | None = msgspec.field(default=None, name="queueLengthLimit")
    queues: int | None = None


class ResourcePolicyRule(K8sStruct, kw_only=True):
    """ResourcePolicyRule is a predicate that matches some resource requests, testing the request's verb and the target resource."""

    api_groups: list[str] | None = msgspec.field(default=None, name="apiGroups")
    cluster_scope: bool | None = msgspec.field(default=None, name="clusterScope")
    namespaces: list[str] | None = None
    resources: list[str] | None = None
    verbs: list[str] | None = None


class ServiceAccountSubject(K8sStruct, kw_only=True):
    """ServiceAccountSubject holds detailed information for service-account-kind subject."""

    name: str | None = None
    namespace: str | None = None


class Subject(K8sStruct, kw_only=True):
    """Subject matches the originator of a request, as identified by the request authentication system."""

    group: GroupSubject | None = None
    kind: str | None = None
    service_account: ServiceAccountSubject | None = msgspec.field(default=None, name="serviceAccount")
    user: UserSubject | None = None


class UserSubject(K8sStruct, kw_only=True):
    """UserSubject holds detailed information for user-kind subject."""

    name: str | None = None
