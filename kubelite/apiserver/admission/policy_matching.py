"""Whether a request matches a policy's ``matchConstraints`` or a binding's ``matchResources`` (upstream
``k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`` with the webhook predicates
``namespace/matcher.go``, ``object/matcher.go`` and ``rules/rules.go``).

- namespaceSelector: a cluster-scoped request (other than for a Namespace) always matches; a Namespace
  create/update is matched on the object's own labels, anything else on its namespace's labels.
- objectSelector: matches if the object's or the old object's labels match (an empty selector always).
- excludeResourceRules first (a match excludes), then resourceRules (none listed: every resource), each
  by operation, apiGroup, apiVersion, ``resource[/subresource]`` (``*`` wildcards) and scope, and
  ``resourceNames`` when given. With ``matchPolicy: Equivalent`` a rule naming another version of the same
  group and resource matches too (kubelite's equivalent resources are the versions a resource is served in).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.labels import label_selector_matches
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest

__all__ = ["matches", "rule_matches"]


def _any(items: Any, value: str) -> bool:
    return any(i == "*" or i == value for i in items or ())


def _scope(rule: Mapping[str, Any], req: AdmissionRequest) -> bool:
    scope = rule.get("scope") or "*"
    is_namespace = req.group == "" and req.resource == "namespaces"
    if scope == "Namespaced":
        return not is_namespace and bool(req.namespace)
    if scope == "Cluster":
        return is_namespace or not req.namespace
    return scope == "*"


def _resource(rule: Mapping[str, Any], req: AdmissionRequest) -> bool:
    for res in rule.get("resources") or ():
        name, _, sub = str(res).partition("/")
        if (name == "*" or name == req.resource) and (sub == "*" or sub == req.subresource):
            return True
    return False


def rule_matches(rule: Mapping[str, Any], req: AdmissionRequest, *, any_version: bool = False) -> bool:
    """``rules.Matcher.Matches`` plus ``resourceNames``."""
    if not (_scope(rule, req) and _any(rule.get("operations"), req.operation) and _any(rule.get("apiGroups"), req.group)
            and (any_version or _any(rule.get("apiVersions"), req.version)) and _resource(rule, req)):
        return False
    names = rule.get("resourceNames") or ()
    return not names or req.name in names


def _rules_match(rules: Any, policy: str | None, req: AdmissionRequest) -> bool:
    rules = list(rules or ())
    if any(rule_matches(r, req) for r in rules):
        return True
    return policy == "Equivalent" and any(rule_matches(r, req, any_version=True) for r in rules)


def _labels(obj: Any) -> Mapping[str, str] | None:
    if not isinstance(obj, Mapping):
        return None
    return (obj.get("metadata") or {}).get("labels") or {}


def _namespace_labels(req: AdmissionRequest, reader: ObjectReader) -> Mapping[str, str]:
    if req.group == "" and req.resource == "namespaces" and not req.subresource and req.operation in ("CREATE",
                                                                                                     "UPDATE"):
        return _labels(req.object) or {}
    ns = reader.read("", "namespaces", "", req.namespace or req.name)
    return _labels(ns) or {}


def matches(criteria: Mapping[str, Any], req: AdmissionRequest, reader: ObjectReader) -> bool:
    """``Matcher.Matches`` for ``criteria`` (a MatchResources, defaulted)."""
    ns_selector = criteria.get("namespaceSelector") or {}
    is_namespace = req.group == "" and req.resource == "namespaces"
    if (req.namespace or is_namespace) and ns_selector and not label_selector_matches(
            ns_selector, _namespace_labels(req, reader)):
        return False
    obj_selector = criteria.get("objectSelector") or {}
    if obj_selector:
        labels = [x for x in (_labels(req.object), _labels(req.old_object)) if x is not None]
        if not any(label_selector_matches(obj_selector, lb) for lb in labels):
            return False
    policy = criteria.get("matchPolicy")
    if _rules_match(criteria.get("excludeResourceRules"), policy, req):
        return False
    rules = criteria.get("resourceRules")
    return not rules or _rules_match(rules, policy, req)
