"""ValidatingAdmissionPolicy through the client: cases ported from upstream's
``k8s.io/apiserver/pkg/admission/plugin/policy/validating/admission_test.go`` and the Kubernetes docs
("Validating Admission Policy": the replicas limit, params, validationActions, matchConditions,
auditAnnotations, messageExpression), with upstream's messages."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.apiserver.request import AdmissionRequest
from kubelite.client import ignore_not_found
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Forbidden, Invalid

GROUP = "admissionregistration.k8s.io/v1"


def policy(name: str = "demo-policy.example.com", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]},
        "validations": [{"expression": "object.spec.replicas <= 5"}],
    }
    body.update(spec)
    return {"apiVersion": GROUP, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": body}


def binding(name: str = "demo-binding-test.example.com", policy_name: str = "demo-policy.example.com",
            **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"policyName": policy_name, "validationActions": ["Deny"]}
    body.update(spec)
    return {"apiVersion": GROUP, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": body}


def deployment(name: str = "nginx", ns: str = "default", replicas: int = 6, labels: dict[str, str] | None = None
               ) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}}}


def config_map(name: str, ns: str = "default", labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "data": data}


DENIED = ("deployments.apps \"nginx\" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding "
          "'demo-binding-test.example.com' denied request: ")


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, nodes=0, controllers=False) as c:
        await c.client.create({"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": "test", "labels": {"environment": "test"}}})
        yield c


async def deny_message(cluster: Cluster, obj: dict[str, Any]) -> ApiError:
    with pytest.raises(ApiError) as info:
        await cluster.client.create(obj)
    # a rejected request changes nothing
    assert await ignore_not_found(cluster.client.get(obj["kind"], obj["metadata"]["name"],
                                                     namespace=obj["metadata"].get("namespace"))) is None
    return info.value


async def test_docs_replicas_limit_with_namespace_selector(cluster: Cluster) -> None:
    """The docs' first example: the binding scopes the policy to namespaces labelled environment=test."""
    await cluster.client.create(policy())
    await cluster.client.create(binding(matchResources={"namespaceSelector": {"matchLabels": {"environment": "test"}}}))
    err = await deny_message(cluster, deployment(ns="test"))
    assert isinstance(err, Invalid)
    assert str(err.status.message) == DENIED + "failed expression: object.spec.replicas <= 5"
    assert err.status.code == 422 and err.status.reason == "Invalid"
    assert err.status.details is not None and err.status.details.causes is not None
    assert err.status.details.causes[-1].message.startswith("ValidatingAdmissionPolicy 'demo-policy.example.com'")
    await cluster.client.create(deployment(ns="default"))  # not selected by the binding
    await cluster.client.create(deployment(name="small", ns="test", replicas=3))


async def test_policy_without_binding_does_nothing(cluster: Cluster) -> None:
    await cluster.client.create(policy())
    await cluster.client.create(binding(policy_name="some-other-policy"))
    await cluster.client.create(deployment())


async def test_docs_params_replica_limit_from_configmap(cluster: Cluster) -> None:
    """paramKind/paramRef: the limit comes from a ConfigMap in the request's namespace; with no param and
    parameterNotFoundAction Deny every request is denied, with Allow it is admitted."""
    await cluster.client.create(policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.maxReplicas)",
                      "messageExpression": "'object.spec.replicas must be no greater than ' + params.data.maxReplicas",
                      "reason": "Invalid"}]))
    await cluster.client.create(binding(paramRef={"name": "replica-limit", "parameterNotFoundAction": "Deny"}))
    err = await deny_message(cluster, deployment(replicas=2))
    assert str(err.status.message) == (DENIED + "failed to configure binding: no params found for policy binding "
                                                "with `Deny` parameterNotFoundAction")
    await cluster.client.create(config_map("replica-limit", maxReplicas="3"))
    await cluster.client.create(deployment(name="two", replicas=2))
    err = await deny_message(cluster, deployment(replicas=6))
    assert str(err.status.message) == DENIED + "object.spec.replicas must be no greater than 3"
    # another namespace has no param: Allow admits
    b = await cluster.client.get("ValidatingAdmissionPolicyBinding", "demo-binding-test.example.com")
    b["spec"]["paramRef"]["parameterNotFoundAction"] = "Allow"
    await cluster.client.replace(b)
    await cluster.client.create(deployment(ns="test", replicas=9))


async def test_param_selector_evaluates_every_matching_param(cluster: Cluster) -> None:
    """A paramRef selector: the policy is evaluated once per matching param; any violation denies."""
    await cluster.client.create(policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)",
                      "messageExpression": "'limit ' + params.metadata.name"}]))
    await cluster.client.create(binding(paramRef={"selector": {"matchLabels": {"limits": "replicas"}},
                                                  "parameterNotFoundAction": "Allow"}))
    await cluster.client.create(config_map("loose", labels={"limits": "replicas"}, max="10"))
    await cluster.client.create(config_map("tight", labels={"limits": "replicas"}, max="4"))
    await cluster.client.create(config_map("unrelated", max="1"))
    err = await deny_message(cluster, deployment(replicas=6))
    assert str(err.status.message) == DENIED + "limit tight"
    await cluster.client.create(deployment(name="four", replicas=4))


async def test_unknown_param_kind_follows_failure_policy(cluster: Cluster) -> None:
    await cluster.client.create(policy(paramKind={"apiVersion": "example.com/v1", "kind": "Limits"}))
    await cluster.client.create(binding(paramRef={"name": "x", "parameterNotFoundAction": "Allow"}))
    err = await deny_message(cluster, deployment(replicas=1))
    assert str(err.status.message) == (DENIED + "failed to configure binding: paramKind kind "
                                                "`&ParamKind{APIVersion:example.com/v1,Kind:Limits,}` not known")
    p = await cluster.client.get("ValidatingAdmissionPolicy", "demo-policy.example.com")
    p["spec"]["failurePolicy"] = "Ignore"
    await cluster.client.replace(p)
    await cluster.client.create(deployment(replicas=1))


async def test_warn_action_sends_a_warning_and_admits(cluster: Cluster) -> None:
    await cluster.client.create(policy())
    await cluster.client.create(binding(validationActions=["Warn"]))
    cluster.client.warnings.clear()
    await cluster.client.create(deployment())
    assert cluster.client.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding "
        "'demo-binding-test.example.com': failed expression: object.spec.replicas <= 5"]


async def test_audit_action_and_audit_annotations(cluster: Cluster) -> None:
    """Audit: the validation_failure annotation (JSON as upstream's ValidationFailureValue); auditAnnotations:
    ``<policy>/<key>`` from valueExpression (null omits)."""
    await cluster.client.create(policy(auditAnnotations=[
        {"key": "high-replica-count", "valueExpression": "'Deployment spec.replicas set to ' + string(object.spec.replicas)"},
        {"key": "never", "valueExpression": "null"}]))
    await cluster.client.create(binding(validationActions=["Audit", "Warn"]))
    seen: list[dict[str, str]] = []

    async def audit(req: AdmissionRequest) -> None:
        seen.append(dict(req.audit_annotations))

    cluster.apiserver.admission.register(audit, name="audit", resources=["deployments"], operations=["CREATE"])
    await cluster.client.create(deployment())
    assert seen[0]["demo-policy.example.com/high-replica-count"] == "Deployment spec.replicas set to 6"
    assert "demo-policy.example.com/never" not in seen[0]
    assert json.loads(seen[0]["validation.policy.admission.k8s.io/validation_failure"]) == [{
        "message": "failed expression: object.spec.replicas <= 5", "policy": "demo-policy.example.com",
        "binding": "demo-binding-test.example.com", "expressionIndex": 0, "validationActions": ["Audit", "Warn"]}]


async def test_reason_picks_the_status_code(cluster: Cluster) -> None:
    await cluster.client.create(policy(validations=[
        {"expression": "object.spec.replicas <= 5", "reason": "Forbidden", "message": "too many replicas"}]))
    await cluster.client.create(binding())
    err = await deny_message(cluster, deployment())
    assert isinstance(err, Forbidden)
    assert err.status.code == 403 and str(err.status.message) == DENIED + "too many replicas"


@pytest.mark.parametrize(("validation", "want"), [
    ({"expression": "false", "message": "plain", "messageExpression": "'from expression ' + object.metadata.name"},
     "from expression nginx"),
    ({"expression": "false", "message": "plain", "messageExpression": "object.missing"}, "plain"),
    ({"expression": "false", "message": "plain", "messageExpression": "'  '"}, "plain"),
    ({"expression": "false", "message": "plain", "messageExpression": "'two\\nlines'"}, "plain"),
    ({"expression": " false "}, "failed expression: false"),
], ids=["messageExpression", "error-falls-back", "blank-falls-back", "multiline-falls-back", "default"])
async def test_message_precedence(cluster: Cluster, validation: dict[str, Any], want: str) -> None:
    """validator.go: messageExpression (trimmed, single line, non-empty) over message over the expression."""
    await cluster.client.create(policy(validations=[validation]))
    await cluster.client.create(binding())
    err = await deny_message(cluster, deployment())
    assert str(err.status.message) == DENIED + want


async def test_runtime_error_follows_failure_policy(cluster: Cluster) -> None:
    await cluster.client.create(policy(validations=[{"expression": "object.spec.paused == false"}]))
    await cluster.client.create(binding())
    err = await deny_message(cluster, deployment())
    assert str(err.status.message) == (DENIED + "expression 'object.spec.paused == false' resulted in error: "
                                                "no such key: paused")
    p = await cluster.client.get("ValidatingAdmissionPolicy", "demo-policy.example.com")
    p["spec"]["failurePolicy"] = "Ignore"
    await cluster.client.replace(p)
    await cluster.client.create(deployment())


async def test_match_conditions(cluster: Cluster) -> None:
    """A false matchCondition skips the policy; an erroring one applies failurePolicy."""
    await cluster.client.create(policy(matchConditions=[
        {"name": "exclude-leases", "expression": "!(has(object.metadata.labels) && 'exempt' in object.metadata.labels)"},
    ]))
    await cluster.client.create(binding())
    await cluster.client.create(deployment(name="skipped", labels={"exempt": "yes"}))
    await deny_message(cluster, deployment())
    p = await cluster.client.get("ValidatingAdmissionPolicy", "demo-policy.example.com")
    p["spec"]["matchConditions"] = [{"name": "broken", "expression": "object.metadata.nolabels == 'x'"}]
    await cluster.client.replace(p)
    err = await deny_message(cluster, deployment(replicas=1))
    assert str(err.status.message) == (DENIED + "expression 'object.metadata.nolabels == 'x'' resulted in error: "
                                                "no such key: nolabels")


async def test_variables_compose(cluster: Cluster) -> None:
    await cluster.client.create(policy(
        variables=[{"name": "containers", "expression": "object.spec.template.spec.containers"},
                   {"name": "unpinned", "expression": "variables.containers.filter(c, !c.image.contains(':'))"}],
        validations=[{"expression": "size(variables.unpinned) == 0",
                      "messageExpression": "'images must be pinned: ' + variables.unpinned.map(c, c.name).join(', ')"}]))
    await cluster.client.create(binding())
    err = await deny_message(cluster, deployment(replicas=1))
    assert str(err.status.message) == DENIED + "images must be pinned: nginx"
    pinned = deployment(name="pinned", replicas=1)
    pinned["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    await cluster.client.create(pinned)


async def test_request_namespace_object_and_old_object(cluster: Cluster) -> None:
    """``request``, ``namespaceObject`` and ``oldObject`` (null on create) as upstream binds them."""
    await cluster.client.create(policy(validations=[
        {"expression": "request.operation != 'UPDATE' || object.spec.replicas >= oldObject.spec.replicas",
         "message": "no scaling down"},
        {"expression": "oldObject == null || request.operation == 'UPDATE'"},
        {"expression": "namespaceObject.metadata.labels.exists(k, k == 'environment')"
                       " && namespaceObject.metadata.labels.environment == 'test'", "message": "test namespaces only"},
        {"expression": "request.userInfo.username == 'kubelite-admin' && 'system:masters' in request.userInfo.groups && request.namespace == 'test'"
                       " && request.kind.kind == 'Deployment' && request.resource.resource == 'deployments'"},
    ]))
    await cluster.client.create(binding())
    err = await deny_message(cluster, deployment(ns="default", replicas=1))
    assert str(err.status.message).endswith("denied request: test namespaces only")
    d = await cluster.client.create(deployment(ns="test", replicas=3))
    d["spec"]["replicas"] = 2
    with pytest.raises(Invalid) as info:
        await cluster.client.replace(d)
    assert str(info.value).endswith("denied request: no scaling down")


async def test_delete_sees_old_object_only(cluster: Cluster) -> None:
    await cluster.client.create(deployment(name="protected", replicas=1, labels={"protected": "true"}))
    await cluster.client.create(policy(
        matchConstraints={"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["DELETE"],
                                             "resources": ["deployments"]}],
                          "objectSelector": {"matchLabels": {"protected": "true"}}},
        validations=[{"expression": "object == null && oldObject.metadata.labels.protected != 'true'",
                      "message": "protected"}]))
    await cluster.client.create(binding())
    await cluster.client.create(deployment(name="free", replicas=1))
    await cluster.client.delete("Deployment", "free", namespace="default")
    with pytest.raises(Invalid) as info:
        await cluster.client.delete("Deployment", "protected", namespace="default")
    assert str(info.value) == ("deployments.apps \"protected\" is forbidden: ValidatingAdmissionPolicy "
                               "'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: "
                               "protected")
    assert await ignore_not_found(cluster.client.get("Deployment", "protected", namespace="default")) is not None


@pytest.mark.parametrize(("constraints", "applies"), [
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]},
     True),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"], "resourceNames": ["other"]}]}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"], "resourceNames": ["nginx"]}]}, True),
    ({"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["*"]}],
      "excludeResourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"],
                                "resources": ["deployments"]}]}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["UPDATE"],
                         "resources": ["deployments"]}]}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"], "scope": "Cluster"}]}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"], "scope": "Namespaced"}]}, True),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1beta1"], "operations": ["CREATE"],
                         "resources": ["deployments"]}], "matchPolicy": "Equivalent"}, True),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1beta1"], "operations": ["CREATE"],
                         "resources": ["deployments"]}], "matchPolicy": "Exact"}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments/status"]}]}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"]}], "objectSelector": {"matchLabels": {"tier": "web"}}}, False),
    ({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["deployments"]}],
      "namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In",
                                                  "values": ["default"]}]}}, True),
], ids=["wildcards", "other-name", "named", "excluded", "other-operation", "cluster-scope", "namespaced-scope",
        "equivalent-version", "exact-version", "subresource-only", "object-selector", "namespace-selector"])
async def test_match_constraints(cluster: Cluster, constraints: dict[str, Any], applies: bool) -> None:
    """rules.go / matching.go: resourceRules, excludeResourceRules, scope, resourceNames, selectors, matchPolicy."""
    await cluster.client.create(policy(matchConstraints=constraints))
    await cluster.client.create(binding())
    if applies:
        await deny_message(cluster, deployment())
    else:
        await cluster.client.create(deployment())


async def test_authorizer_variable(cluster: Cluster) -> None:
    """authz.go: ``authorizer.group(..).resource(..).namespace(..).check(verb).allowed()`` asks RBAC about the
    requesting user."""
    await cluster.client.create(policy(validations=[{
        "expression": "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace)"
                      ".check('delete').allowed()",
        "message": "only users who may delete deployments may create them"}]))
    await cluster.client.create(binding())
    await cluster.client.create(deployment(name="by-admin"))
    await cluster.client.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                                 "metadata": {"name": "creator", "namespace": "default"},
                                 "rules": [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create"]}]})
    await cluster.client.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                                 "metadata": {"name": "alice", "namespace": "default"},
                                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "creator"},
                                 "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
    with pytest.raises(Invalid) as info:
        await cluster.client.as_user("alice").create(deployment())
    assert str(info.value).endswith("denied request: only users who may delete deployments may create them")


async def test_policies_do_not_apply_to_admission_configuration(cluster: Cluster) -> None:
    """IsExemptAdmissionConfigurationResource: a policy cannot lock its own kinds."""
    await cluster.client.create(policy(matchConstraints={"resourceRules": [
        {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]},
        validations=[{"expression": "false"}]))
    await cluster.client.create(binding())
    await cluster.client.create(binding(name="second"))
    await cluster.client.delete("ValidatingAdmissionPolicyBinding", "second")
    await deny_message(cluster, config_map("cm"))


async def test_defaults(cluster: Cluster) -> None:
    """pkg/apis/admissionregistration/v1/defaults.go."""
    p = await cluster.client.create(policy())
    assert p["spec"]["failurePolicy"] == "Fail"
    mc = p["spec"]["matchConstraints"]
    assert mc["matchPolicy"] == "Equivalent" and mc["namespaceSelector"] == {} and mc["objectSelector"] == {}
    assert mc["resourceRules"][0]["scope"] == "*"
    b = await cluster.client.create(binding(matchResources={"resourceRules": [
        {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]}))
    assert b["spec"]["matchResources"]["matchPolicy"] == "Equivalent"
    assert b["spec"]["matchResources"]["resourceRules"][0]["scope"] == "*"
    assert p["metadata"]["generation"] == 1


INVALID_POLICIES: list[tuple[str, dict[str, Any], str]] = [
    ("no-validations", {"validations": []},
     "spec.validations: Required value: validations or auditAnnotations must contain at least one item"),
    ("empty-expression", {"validations": [{"expression": ""}]},
     "spec.validations[0].expression: Required value: expression is not specified"),
    ("syntax", {"validations": [{"expression": "object.spec.replicas <"}]},
     'spec.validations[0].expression: Invalid value: "object.spec.replicas <": compilation failed: ERROR: <input>:1:'),
    ("undeclared", {"validations": [{"expression": "self.x > 1"}]},
     "spec.validations[0].expression: Invalid value: \"self.x > 1\": compilation failed: ERROR: <input>:1:1: "
     "undeclared reference to 'self' (in container '')"),
    ("message-newline", {"validations": [{"expression": "true", "message": "a\nb"}]},
     "spec.validations[0].message: Invalid value: \"a\\nb\": message must not contain line breaks"),
    ("reason", {"validations": [{"expression": "true", "reason": "Teapot"}]},
     'spec.validations[0].reason: Unsupported value: "Teapot": supported values: '),
    ("failure-policy", {"failurePolicy": "Maybe"}, 'spec.failurePolicy: Unsupported value: "Maybe"'),
    ("no-match-constraints", {"matchConstraints": None}, "spec.matchConstraints: Required value"),
    ("no-resource-rules", {"matchConstraints": {"namespaceSelector": {}}},
     "spec.matchConstraints.resourceRules: Required value"),
    ("rule-operations", {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                                 "resources": ["deployments"]}]}},
     "spec.matchConstraints.resourceRules[0].operations: Required value"),
    ("rule-operation", {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                                "operations": ["PATCH"], "resources": ["deployments"]}]}},
     'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH"'),
    ("param-kind", {"paramKind": {"kind": "ConfigMap"}}, "spec.paramKind.apiVersion: Required value"),
    ("variable-name", {"variables": [{"name": "not-an-identifier", "expression": "1"}]},
     'spec.variables[0].name: Invalid value: "not-an-identifier": name is not a valid CEL identifier'),
    ("match-condition-name", {"matchConditions": [{"name": "", "expression": "true"}]},
     "spec.matchConditions[0].name: Required value"),
    ("match-condition-duplicate", {"matchConditions": [{"name": "a", "expression": "true"},
                                                       {"name": "a", "expression": "true"}]},
     'spec.matchConditions[1].name: Duplicate value: "a"'),
    ("audit-annotation-key", {"auditAnnotations": [{"key": "", "valueExpression": "'x'"}]},
     "spec.auditAnnotations[0].key: Required value"),
    ("unknown-function", {"validations": [{"expression": "object.spec.replicas.frob()"}]},
     "undeclared reference to 'frob'"),
]


@pytest.mark.parametrize(("spec", "want"), [(s, w) for _, s, w in INVALID_POLICIES], ids=[i for i, _, _ in INVALID_POLICIES])
async def test_invalid_policy(cluster: Cluster, spec: dict[str, Any], want: str) -> None:
    """ValidateValidatingAdmissionPolicy: each bad spec is a 422 naming the field, as upstream."""
    body = policy()
    for k, v in spec.items():
        if v is None:
            body["spec"].pop(k)
        else:
            body["spec"][k] = copy.deepcopy(v)
    with pytest.raises(Invalid) as info:
        await cluster.client.create(body)
    assert want in str(info.value)


INVALID_BINDINGS: list[tuple[str, dict[str, Any], str]] = [
    ("no-policy", {"policyName": ""}, "spec.policyName: Required value"),
    ("no-actions", {"validationActions": []},
     "spec.validationActions: Required value: at least one validation action is required"),
    ("bad-action", {"validationActions": ["Block"]}, 'spec.validationActions[0]: Unsupported value: "Block"'),
    ("duplicate-action", {"validationActions": ["Audit", "Audit"]},
     'spec.validationActions[1]: Duplicate value: "Audit"'),
    ("deny-and-warn", {"validationActions": ["Deny", "Warn"]},
     "must not contain both Deny and Warn (repeating the same validation failure information in the API response "
     "and headers serves no purpose)"),
    ("param-ref-action", {"paramRef": {"name": "x"}}, "spec.paramRef.parameterNotFoundAction: Required value"),
    ("param-ref-both", {"paramRef": {"name": "x", "selector": {}, "parameterNotFoundAction": "Deny"}},
     "spec.paramRef.name: Forbidden: name and selector are mutually exclusive"),
    ("param-ref-neither", {"paramRef": {"parameterNotFoundAction": "Deny"}},
     "spec.paramRef: Required value: one of name or selector must be specified"),
]


@pytest.mark.parametrize(("spec", "want"), [(s, w) for _, s, w in INVALID_BINDINGS], ids=[i for i, _, _ in INVALID_BINDINGS])
async def test_invalid_binding(cluster: Cluster, spec: dict[str, Any], want: str) -> None:
    """ValidateValidatingAdmissionPolicyBinding."""
    with pytest.raises(Invalid) as info:
        await cluster.client.create(binding(**spec))
    assert want in str(info.value)


async def test_cost_limit_exceeded_is_an_error_under_the_failure_policy(cluster: Cluster) -> None:
    """PerCallLimit: an expression that runs past 1,000,000 units fails with cel-go's cancellation, handled by
    failurePolicy (Fail denies, Ignore admits)."""
    await cluster.client.create(policy(
        matchConstraints={"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                             "resources": ["configmaps"]}]},
        validations=[{"expression": "[1, 2, 3].all(i, object.data.blob.indexOf('z') < 0)"},
                     {"expression": "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]"
                                    ".all(i, object.data.blob.indexOf('z') < 0)"}]))
    await cluster.client.create(binding())
    blob = "a" * 900_000  # one scan: 90,000 units; twenty scans pass the limit
    with pytest.raises(Invalid) as info:
        await cluster.client.create(config_map("big", blob=blob))
    assert str(info.value).endswith(
        "denied request: expression '[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20].all(i, "
        "object.data.blob.indexOf('z') < 0)' resulted in error: operation cancelled: actual cost limit exceeded")
    p = await cluster.client.get("ValidatingAdmissionPolicy", "demo-policy.example.com")
    p["spec"]["failurePolicy"] = "Ignore"
    await cluster.client.replace(p)
    await cluster.client.create(config_map("big", blob=blob))


async def test_status_type_checking_warnings(cluster: Cluster) -> None:
    """typechecking.go: fields the matched kind does not declare are reported in status.typeChecking, with
    cel-go's issue text (the docs' ``object.replicas`` example); wildcard rules are not checked."""
    p = await cluster.client.create(policy(validations=[
        {"expression": "object.replicas > 1"},
        {"expression": "object.spec.replicas > 1 && object.metadata.labels.app != ''"},
        {"expression": "true", "messageExpression": "'x' + object.spec.template.spec.nodeSelectr.zone"},
    ]))
    assert p["status"] == {"observedGeneration": 1, "typeChecking": {"expressionWarnings": [
        {"fieldRef": "spec.validations[0].expression",
         "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n"
                    " | object.replicas > 1\n | ......^\n"},
        {"fieldRef": "spec.validations[2].messageExpression",
         "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:32: undefined field 'nodeSelectr'\n"
                    " | 'x' + object.spec.template.spec.nodeSelectr.zone\n"
                    " | ...............................^\n"},
    ]}}
    p["spec"]["validations"] = [{"expression": "object.spec.replicas > 1"}]
    p = await cluster.client.replace(p)
    assert p["status"] == {"observedGeneration": 2, "typeChecking": {}}
    wild = await cluster.client.create(policy(name="wild", matchConstraints={"resourceRules": [
        {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]},
        validations=[{"expression": "object.nonExisting"}]))
    assert wild["status"]["typeChecking"] == {}
