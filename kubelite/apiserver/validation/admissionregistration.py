"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation (upstream
``pkg/apis/admissionregistration/validation/validation.go``: ``ValidateValidatingAdmissionPolicy``,
``ValidateValidatingAdmissionPolicyBinding`` and their update twins).

Every CEL expression (validations, messageExpressions, matchConditions, variables, auditAnnotations) is
compiled at create and update in the policy environment (:data:`POLICY_VARIABLES`), so an expression that
does not parse, names an undeclared variable or calls an unknown function is a 422 ``compilation failed:
ERROR: <input>:L:C: ...``, as upstream's checker reports it. Field names are not type-checked (celpy is
dynamically typed; upstream's type checks against the matched kinds' schemas surface later, as
``status.typeChecking`` warnings).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import as_dict, as_list, label_selector, qualified_name, too_many
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "POLICY_VARIABLES",
    "validate_policy",
    "validate_policy_binding",
    "validate_policy_binding_update",
    "validate_policy_update",
]

#: the variables a policy's expressions may use (k8s.io/apiserver/pkg/admission/plugin/cel)
POLICY_VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES = ("*", "Cluster", "Namespaced")
_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized")
_ACTIONS = ("Audit", "Deny", "Warn")
_CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_CEL_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                           "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
                           "void", "while"})
_MAX_MATCH_CONDITIONS = 64


def _expression(value: Any, path: str, errs: list[FieldError], *, detail: str = "") -> None:
    if not isinstance(value, str) or not value.strip():
        errs.append(FieldError.required(path, detail))
        return
    from kubelite.apiserver.cel import CompileError, compile_expression  # CEL loads with the first policy

    try:
        compile_expression(value, POLICY_VARIABLES)
    except CompileError as e:
        errs.append(FieldError.invalid(path, value, f"compilation failed: {e}"))


def _rule(rule: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateRuleWithOperations`` + ``validateRule`` (allowSubResource, namespaced scope allowed)."""
    ops = as_list(rule.get("operations"))
    if not ops:
        errs.append(FieldError.required(f"{path}.operations"))
    elif "*" in ops and len(ops) > 1:
        errs.append(FieldError.invalid(f"{path}.operations", ops, "if '*' is present, must not specify other operations"))
    for i, op in enumerate(ops):
        if op not in _OPERATIONS:
            errs.append(FieldError.not_supported(f"{path}.operations[{i}]", op, _OPERATIONS))
    for key in ("apiGroups", "apiVersions"):
        values = as_list(rule.get(key))
        if not values:
            errs.append(FieldError.required(f"{path}.{key}"))
        elif "*" in values and len(values) > 1:
            errs.append(FieldError.invalid(f"{path}.{key}", values, "if '*' is present, must not specify other "
                                                                   f"{'API groups' if key == 'apiGroups' else 'API versions'}"))
        if key == "apiVersions":
            for i, v in enumerate(values):
                if v == "":
                    errs.append(FieldError.required(f"{path}.apiVersions[{i}]"))
    resources = as_list(rule.get("resources"))
    if not resources:
        errs.append(FieldError.required(f"{path}.resources"))
    seen: set[str] = set()
    for i, res in enumerate(resources):
        if not isinstance(res, str) or not res:
            errs.append(FieldError.required(f"{path}.resources[{i}]"))
            continue
        if res in seen:
            errs.append(FieldError.duplicate(f"{path}.resources[{i}]", res))
        seen.add(res)
        if res.count("/") > 1:
            errs.append(FieldError.invalid(f"{path}.resources[{i}]", res, "must contain at most one '/'"))
    if "*" in resources and len(resources) > 1 and not all("/" in r for r in resources if r != "*"):
        errs.append(FieldError.invalid(f"{path}.resources", resources, "if '*' is present, must not specify other "
                                                                       "resources without subresources"))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errs.append(FieldError.not_supported(f"{path}.scope", scope, _SCOPES))
    for i, name in enumerate(as_list(rule.get("resourceNames"))):
        for msg in names.is_dns1123_subdomain(name) if isinstance(name, str) else ("must be a string",):
            errs.append(FieldError.invalid(f"{path}.resourceNames[{i}]", name, msg))


def _match_resources(mr: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateMatchResources``."""
    policy = mr.get("matchPolicy")
    if policy is None:
        errs.append(FieldError.required(f"{path}.matchPolicy"))
    elif policy not in ("Equivalent", "Exact"):
        errs.append(FieldError.not_supported(f"{path}.matchPolicy", policy, ("Equivalent", "Exact")))
    for key in ("namespaceSelector", "objectSelector"):
        if mr.get(key) is None:
            errs.append(FieldError.required(f"{path}.{key}"))
        else:
            label_selector(mr.get(key), f"{path}.{key}", errs)
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(as_list(mr.get(key))):
            _rule(as_dict(rule), f"{path}.{key}[{i}]", errs)


def _param_kind(pk: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    api_version = pk.get("apiVersion")
    if not api_version:
        errs.append(FieldError.required(f"{path}.apiVersion"))
    else:
        group, _, version = str(api_version).rpartition("/")
        if str(api_version).count("/") > 1 or not version:
            errs.append(FieldError.invalid(f"{path}.apiVersion", api_version,
                                           f'unexpected GroupVersion string: {api_version}'))
        else:
            for msg in names.is_dns1123_subdomain(group) if group else ():
                errs.append(FieldError.invalid(f"{path}.apiVersion", api_version, msg))
            for msg in names.is_dns1035_label(version):
                errs.append(FieldError.invalid(f"{path}.apiVersion", api_version, msg))
    kind = pk.get("kind")
    if not kind:
        errs.append(FieldError.required(f"{path}.kind"))
    else:
        for msg in names.is_dns1035_label(str(kind).lower()):
            errs.append(FieldError.invalid(f"{path}.kind", kind, msg))


def _match_conditions(conditions: list[Any], path: str, errs: list[FieldError]) -> None:
    if len(conditions) > _MAX_MATCH_CONDITIONS:
        errs.append(too_many(path, len(conditions), _MAX_MATCH_CONDITIONS))
    seen: set[str] = set()
    for i, cond in enumerate(conditions):
        cond = as_dict(cond)
        p = f"{path}[{i}]"
        name = cond.get("name")
        if not name:
            errs.append(FieldError.required(f"{p}.name"))
        else:
            qualified_name(str(name), f"{p}.name", errs)
            if name in seen:
                errs.append(FieldError.duplicate(f"{p}.name", name))
            seen.add(str(name))
        _expression(cond.get("expression"), f"{p}.expression", errs)


def _validations(validations: list[Any], path: str, errs: list[FieldError]) -> None:
    for i, v in enumerate(validations):
        v = as_dict(v)
        p = f"{path}[{i}]"
        _expression(v.get("expression"), f"{p}.expression", errs, detail="expression is not specified")
        message = v.get("message")
        if isinstance(message, str) and message:
            if not message.strip():
                errs.append(FieldError.invalid(f"{p}.message", message, "message must be non-empty if specified"))
            elif "\n" in message:
                errs.append(FieldError.invalid(f"{p}.message", message, "message must not contain line breaks"))
        if v.get("messageExpression"):
            _expression(v.get("messageExpression"), f"{p}.messageExpression", errs)
        reason = v.get("reason")
        if reason is not None and reason not in _REASONS:
            errs.append(FieldError.not_supported(f"{p}.reason", reason, _REASONS))


def _variables(variables: list[Any], path: str, errs: list[FieldError]) -> None:
    for i, v in enumerate(variables):
        v = as_dict(v)
        p = f"{path}[{i}]"
        name = v.get("name")
        if not name:
            errs.append(FieldError.required(f"{p}.name"))
        elif not _CEL_IDENTIFIER.match(str(name)) or name in _CEL_RESERVED:
            errs.append(FieldError.invalid(f"{p}.name", name, "name is not a valid CEL identifier"))
        _expression(v.get("expression"), f"{p}.expression", errs)


def _audit_annotations(annotations: list[Any], policy_name: str, path: str, errs: list[FieldError]) -> None:
    seen: set[str] = set()
    for i, a in enumerate(annotations):
        a = as_dict(a)
        p = f"{path}[{i}]"
        key = a.get("key")
        if not key:
            errs.append(FieldError.required(f"{p}.key"))
        else:
            full = f"{policy_name}/{key}"
            for msg in names.is_qualified_name(full):
                errs.append(FieldError.invalid(f"{p}.key", key, msg))
            if key in seen:
                errs.append(FieldError.duplicate(f"{p}.key", key))
            seen.add(str(key))
        _expression(a.get("valueExpression"), f"{p}.valueExpression", errs)


def _policy_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    spec = as_dict(obj.get("spec"))
    name = str(as_dict(obj.get("metadata")).get("name") or "")
    fp = spec.get("failurePolicy")
    if fp is None:
        errs.append(FieldError.required("spec.failurePolicy"))
    elif fp not in ("Fail", "Ignore"):
        errs.append(FieldError.not_supported("spec.failurePolicy", fp, ("Fail", "Ignore")))
    if spec.get("paramKind") is not None:
        _param_kind(as_dict(spec.get("paramKind")), "spec.paramKind", errs)
    mc = spec.get("matchConstraints")
    if mc is None:
        errs.append(FieldError.required("spec.matchConstraints"))
    else:
        _match_resources(as_dict(mc), "spec.matchConstraints", errs)
        if not as_list(as_dict(mc).get("resourceRules")):
            errs.append(FieldError.required("spec.matchConstraints.resourceRules"))
    _match_conditions(list(as_list(spec.get("matchConditions"))), "spec.matchConditions", errs)
    _variables(list(as_list(spec.get("variables"))), "spec.variables", errs)
    validations = list(as_list(spec.get("validations")))
    annotations = list(as_list(spec.get("auditAnnotations")))
    if not validations and not annotations:
        errs.append(FieldError.required("spec.validations", "validations or auditAnnotations must contain at least one item"))
    _validations(validations, "spec.validations", errs)
    _audit_annotations(annotations, name, "spec.auditAnnotations", errs)


def validate_policy(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=names.name_is_dns_subdomain)
    _policy_spec(obj, errs)
    return errs


def validate_policy_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    _policy_spec(obj, errs)
    return errs


def _param_ref(ref: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    name, selector = ref.get("name"), ref.get("selector")
    if name and selector is not None:
        errs.append(FieldError.forbidden(f"{path}.name", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errs.append(FieldError.required(path, "one of name or selector must be specified"))
    if name:
        for msg in names.name_is_dns_subdomain(str(name), False):
            errs.append(FieldError.invalid(f"{path}.name", name, msg))
    if selector is not None:
        label_selector(selector, f"{path}.selector", errs)
    ns = ref.get("namespace")
    if ns:
        for msg in names.is_dns1123_label(str(ns)):
            errs.append(FieldError.invalid(f"{path}.namespace", ns, msg))
    action = ref.get("parameterNotFoundAction")
    if action is None:
        errs.append(FieldError.required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Allow", "Deny"):
        errs.append(FieldError.not_supported(f"{path}.parameterNotFoundAction", action, ("Allow", "Deny")))


def _binding_spec(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    spec = as_dict(obj.get("spec"))
    policy = spec.get("policyName")
    if not policy:
        errs.append(FieldError.required("spec.policyName"))
    else:
        for msg in names.is_dns1123_subdomain(str(policy)):
            errs.append(FieldError.invalid("spec.policyName", policy, msg))
    if spec.get("paramRef") is not None:
        _param_ref(as_dict(spec.get("paramRef")), "spec.paramRef", errs)
    if spec.get("matchResources") is not None:
        _match_resources(as_dict(spec.get("matchResources")), "spec.matchResources", errs)
    actions = list(as_list(spec.get("validationActions")))
    if not actions:
        errs.append(FieldError.required("spec.validationActions", "at least one validation action is required"))
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action in seen:
            errs.append(FieldError.duplicate(f"spec.validationActions[{i}]", action))
        elif action not in _ACTIONS:
            errs.append(FieldError.not_supported(f"spec.validationActions[{i}]", action, _ACTIONS))
        seen.add(str(action))
    if "Deny" in seen and "Warn" in seen:
        errs.append(FieldError.invalid("spec.validationActions", actions,
                                       "must not contain both Deny and Warn (repeating the same validation failure "
                                       "information in the API response and headers serves no purpose)"))


def validate_policy_binding(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=names.name_is_dns_subdomain)
    _binding_spec(obj, errs)
    return errs


def validate_policy_binding_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    _binding_spec(obj, errs)
    return errs
