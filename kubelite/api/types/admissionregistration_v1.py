"""Generated msgspec Structs for admissionregistration/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "AuditAnnotation", "ExpressionWarning", "MatchCondition", "MatchResources",
    "NamedRuleWithOperations", "ParamKind", "ParamRef", "TypeChecking", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBindingSpec",
    "ValidatingAdmissionPolicySpec", "ValidatingAdmissionPolicyStatus", "Validation", "Variable"
]


class AuditAnnotation(K8sStruct, kw_only=True):
    """AuditAnnotation describes how to produce an audit annotation for an API request."""

    key: str | None = None
    value_expression: str | None = msgspec.field(default=None, name="valueExpression")


class ExpressionWarning(K8sStruct, kw_only=True):
    """ExpressionWarning is a warning information that targets a specific expression."""

    field_ref: str | None = msgspec.field(default=None, name="fieldRef")
    warning: str | None = None


class MatchCondition(K8sStruct, kw_only=True):
    """MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook."""

    expression: str | None = None
    name: str | None = None


class MatchResources(K8sStruct, kw_only=True):
    """MatchResources decides whether to run the admission control policy on an object based on whether it meets the match criteria."""

    exclude_resource_rules: list[NamedRuleWithOperations] | None = msgspec.field(default=None, name="excludeResourceRules")
    match_policy: str | None = msgspec.field(default=None, name="matchPolicy")
    namespace_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="namespaceSelector")
    object_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="objectSelector")
    resource_rules: list[NamedRuleWithOperations] | None = msgspec.field(default=None, name="resourceRules")


class NamedRuleWithOperations(K8sStruct, kw_only=True):
    """NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames."""

    api_groups: list[str] | None = msgspec.field(default=None, name="apiGroups")
    api_versions: list[str] | None = msgspec.field(default=None, name="apiVersions")
    operations: list[str] | None = None
    resource_names: list[str] | None = msgspec.field(default=None, name="resourceNames")
    resources: list[str] | None = None
    scope: str | None = None


class ParamKind(K8sStruct, kw_only=True):
    """ParamKind is a tuple of Group Kind and Version."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    kind: str | None = None


class ParamRef(K8sStruct, kw_only=True):
    """ParamRef describes how to locate the params to be used as input to expressions of rules applied by a policy binding."""

    name: str | None = None
    namespace: str | None = None
    parameter_not_found_action: str | None = msgspec.field(default=None, name="parameterNotFoundAction")
    selector: meta_v1.LabelSelector | None = None


class TypeChecking(K8sStruct, kw_only=True):
    """TypeChecking contains results of type checking the expressions in the ValidatingAdmissionPolicy"""

    expression_warnings: list[ExpressionWarning] | None = msgspec.field(default=None, name="expressionWarnings")


class ValidatingAdmissionPolicy(K8sStruct, kw_only=True):
    """ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it."""

    api_version: str = msgspec.field(default_factory=partial(str, "admissionregistration.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ValidatingAdmissionPolicy"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ValidatingAdmissionPolicySpec | None = None
    status: ValidatingAdmissionPolicyStatus | None = None


class ValidatingAdmissionPolicyBinding(K8sStruct, kw_only=True):
    """ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources."""

    api_version: str = msgspec.field(default_factory=partial(str, "admissionregistration.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ValidatingAdmissionPolicyBinding"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ValidatingAdmissionPolicyBindingSpec | None = None


class ValidatingAdmissionPolicyBindingSpec(K8sStruct, kw_only=True):
    """ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding."""

    match_resources: MatchResources | None = msgspec.field(default=None, name="matchResources")
    param_ref: ParamRef | None = msgspec.field(default=None, name="paramRef")
    policy_name: str | None = msgspec.field(default=None, name="policyName")
    validation_actions: list[str] | None = msgspec.field(default=None, name="validationActions")


class ValidatingAdmissionPolicySpec(K8sStruct, kw_only=True):
    """ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy."""

    audit_annotations: list[AuditAnnotation] | None = msgspec.field(default=None, name="auditAnnotations")
    failure_policy: str | None = msgspec.field(default=None, name="failurePolicy")
    match_conditions: list[MatchCondition] | None = msgspec.field(default=None, name="matchConditions")
    match_constraints: MatchResources | None = msgspec.field(default=None, name="matchConstraints")
    param_kind: ParamKind | None = msgspec.field(default=None, name="paramKind")
    validations: list[Validation] | None = None
    variables: list[Variable] | None = None


class ValidatingAdmissionPolicyStatus(K8sStruct, kw_only=True):
    """ValidatingAdmissionPolicyStatus represents the status of an admission validation policy."""

    conditions: list[meta_v1.Condition] | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    type_checking: TypeChecking | None = msgspec.field(default=None, name="typeChecking")


class Validation(K8sStruct, kw_only=True):
    """Validation specifies the CEL expression which is used to apply the validation."""

    expression: str | None = None
    message: str | None = None
    message_expression: str | None = msgspec.field(default=None, name="messageExpression")
    reason: str | None = None


class Variable(K8sStruct, kw_only=True):
    """Variable is the definition of a variable that is used for composition."""

    expression: str | None = None
    name: str | None = None
