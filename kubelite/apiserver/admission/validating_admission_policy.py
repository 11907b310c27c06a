"""ValidatingAdmissionPolicy admission (upstream ``k8s.io/apiserver/pkg/admission/plugin/policy/validating``:
``dispatcher.go``, ``validator.go``; matching in ``policy/matching`` and ``policy/generic``).

Contract, as upstream's dispatcher decides:
- For every policy with at least one binding (``spec.policyName``), in name order: the policy's
  ``matchConstraints`` must match the request (:mod:`.policy_matching`), then each binding's
  ``matchResources`` (when set). Requests for the admission-configuration kinds themselves are exempt.
- Params: with ``spec.paramKind`` and a binding ``paramRef``, the params are the named object (in
  ``paramRef.namespace``, else the request's namespace for a namespaced kind) or every object the
  selector matches; none found and ``parameterNotFoundAction: Deny`` is ``no params found for policy
  binding with `Deny` parameterNotFoundAction``. Each param is evaluated separately.
- Per (binding, param): ``variables`` (each sees the earlier ones as ``variables.<name>``; one that fails
  is an error only where it is used), then ``matchConditions`` (any false: the policy does not apply;
  errors without a false: ``failurePolicy``), then every validation, then ``auditAnnotations``. The
  variables are ``object``, ``oldObject`` (null on create; ``object`` is null on delete), ``request``
  (an ``admission.k8s.io/v1`` AdmissionRequest), ``params``, ``namespaceObject`` (null for cluster-scoped
  requests) and ``authorizer`` (RBAC checks for the requesting user).
- A validation that is false is a violation with the message from ``messageExpression`` (a non-empty
  single-line string), else ``message``, else ``failed expression: <expression>``, and ``reason``
  (default Invalid). It is enforced by the binding's ``validationActions``: Deny → the request fails with
  ``<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request:
  <message>`` whose code follows the reason (Invalid 422, Forbidden 403, Unauthorized 401,
  RequestEntityTooLarge 413); Warn → a ``Validation failed for ValidatingAdmissionPolicy '<p>' with binding
  '<b>': <message>`` warning; Audit → the ``validation.policy.admission.k8s.io/validation_failure``
  annotation. The first denial wins; warnings and annotations of all of them are kept.
- Errors (an expression that fails at runtime, ``expression '<e>' resulted in error: <err>``; a binding
  that cannot be configured, ``failed to configure binding: ...``; a spent cost budget) follow the
  policy's ``failurePolicy``: Fail denies through the binding's actions (or outright for a policy-level
  error), Ignore admits.
- Cost: every binding evaluation has upstream's ``RuntimeCELCostBudget`` (10,000,000) and each expression
  ``PerCallLimit``; units are those of :mod:`kubelite.apiserver.cel.environment`.
- Audit annotations (the ``<policy>/<key>`` values and validation failures) are set on
  ``AdmissionRequest.audit_annotations`` (kubelite has no audit log; later admission hooks see them).

Compiled policies are cached by (uid, resourceVersion).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kubelite.api.labels import label_selector_matches
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.admission.policy_matching import matches
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Status, StatusCause, StatusDetails, error_from_status
from kubelite.logs import get_logger

if TYPE_CHECKING:
    from celpy import celtypes
    from celpy.evaluation import CELEvalError

    from kubelite.apiserver.cel import (
        PER_CALL_LIMIT,
        RUNTIME_BUDGET,
        CompileError,
        EvalError,
        OutOfBudget,
        Program,
        compile_expression,
        is_true,
        to_cel,
    )
    from kubelite.apiserver.cel.authz import authorizer_value
    from kubelite.apiserver.validation.admissionregistration import POLICY_VARIABLES


def _load_cel() -> None:
    """Import CEL (cel-python and Kubernetes' library) on the first request a binding applies to, not with the
    apiserver: a cluster with no policy never pays for it (issue #17, cold start). Binds the names the
    ``TYPE_CHECKING`` block above declares."""
    if "compile_expression" in globals():
        return
    from celpy import celtypes
    from celpy.evaluation import CELEvalError

    import kubelite.apiserver.cel as cel
    from kubelite.apiserver.cel.authz import authorizer_value

    # the policy kinds' validation module (its variable names) comes with CEL, not with every apiserver
    from kubelite.apiserver.validation.admissionregistration import POLICY_VARIABLES

    names = ("PER_CALL_LIMIT", "RUNTIME_BUDGET", "CompileError", "EvalError", "OutOfBudget", "Program",
             "compile_expression", "is_true", "to_cel")
    globals().update({n: getattr(cel, n) for n in names}, celtypes=celtypes, CELEvalError=CELEvalError,
                     authorizer_value=authorizer_value, POLICY_VARIABLES=POLICY_VARIABLES)


__all__ = ["ValidatingAdmissionPolicyPlugin"]

log = get_logger("kubelite.admission.validating_admission_policy")

_GROUP = "admissionregistration.k8s.io"
_EXEMPT_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                           "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                           "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})
_CODES = {"Unauthorized": 401, "Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413}
_OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
_MAX_MESSAGE = 5 * 1024  # MaxEvaluatedMessageExpressionSizeBytes
_MAX_ANNOTATION = 10 * 1024
#: resolves a paramKind (apiVersion, kind) to (group, plural, namespaced), or None if the kind is unknown
KindResolver = Callable[[str, str], tuple[str, str, bool] | None]


class _Expr:
    """One compiled expression, or why it does not compile."""

    __slots__ = ("error", "program", "text")

    def __init__(self, text: Any) -> None:
        self.text = str(text or "")
        self.program: Program | None = None
        self.error: str | None = None
        try:
            self.program = compile_expression(self.text, POLICY_VARIABLES)
        except CompileError as e:
            self.error = f"compilation error: {e}"


class _Policy:
    __slots__ = ("annotations", "conditions", "failure", "name", "param_kind", "spec", "validations", "variables")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        spec = obj.get("spec") or {}
        self.name = str(obj["metadata"]["name"])
        self.spec = spec
        self.failure = spec.get("failurePolicy") or "Fail"
        self.param_kind = spec.get("paramKind")
        self.variables = [(str(v.get("name")), _Expr(v.get("expression"))) for v in spec.get("variables") or ()]
        self.conditions = [_Expr(c.get("expression")) for c in spec.get("matchConditions") or ()]
        self.validations = [(v, _Expr(v.get("expression")),
                             _Expr(v["messageExpression"]) if v.get("messageExpression") else None)
                            for v in spec.get("validations") or ()]
        self.annotations = [(str(a.get("key")), _Expr(a.get("valueExpression")))
                            for a in spec.get("auditAnnotations") or ()]


class _Denied(Exception):
    def __init__(self, message: str, reason: str = "Invalid") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


class _Run:
    """One binding's evaluation: a shared cost budget, errors routed through the failure policy."""

    def __init__(self, policy: _Policy, activation: dict[str, Any]) -> None:
        self.policy = policy
        self.activation = activation
        self.remaining = RUNTIME_BUDGET

    def eval(self, expr: _Expr) -> Any:
        """The value, or raise EvalError with upstream's detail."""
        if expr.program is None:
            raise EvalError(expr.error or "compilation error")
        if self.remaining <= 0:
            raise OutOfBudget
        try:
            value, cost = expr.program.evaluate(self.activation, limit=min(PER_CALL_LIMIT, self.remaining))
        except OutOfBudget as e:
            if self.remaining > PER_CALL_LIMIT:  # the expression's own limit, not the binding's budget
                raise EvalError(f"expression '{expr.text}' resulted in error: {e}") from None
            raise
        except EvalError as e:
            raise EvalError(f"expression '{expr.text}' resulted in error: {e}") from None
        self.remaining -= cost
        return value


class ValidatingAdmissionPolicyPlugin:
    name = "ValidatingAdmissionPolicy"
    # the per-template create memo (admission/chain.py): reads the whole object (metadata too) on every create, changes nothing
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: ObjectReader, *, resolve_kind: KindResolver,
                 authorize: Callable[..., tuple[bool, str]] | None = None) -> None:
        self.reader = reader
        self.resolve_kind = resolve_kind
        self.authorize = authorize
        self._compiled: dict[str, tuple[tuple[str, str], _Policy]] = {}

    def handles(self, req: AdmissionRequest) -> bool:
        if req.group == _GROUP and req.kind in _EXEMPT_KINDS:
            return False
        return bool(self.reader.read_all(_GROUP, "validatingadmissionpolicybindings"))

    def _policy(self, obj: Mapping[str, Any]) -> _Policy:
        meta = obj["metadata"]
        key = (str(meta.get("uid")), str(meta.get("resourceVersion")))
        hit = self._compiled.get(meta["name"])
        if hit is None or hit[0] != key:
            hit = (key, _Policy(obj))
            self._compiled[meta["name"]] = hit
        return hit[1]

    def validate(self, req: AdmissionRequest) -> None:
        _load_cel()
        bindings: dict[str, list[Mapping[str, Any]]] = {}
        for b in self.reader.read_all(_GROUP, "validatingadmissionpolicybindings"):
            bindings.setdefault(str((b.get("spec") or {}).get("policyName") or ""), []).append(b)
        denied: list[tuple[str, str | None, str, str]] = []  # (policy, binding, message, reason)
        failures: list[dict[str, Any]] = []
        shared: dict[str, Any] | None = None
        policies = self.reader.read_all(_GROUP, "validatingadmissionpolicies")
        if len(self._compiled) > len(policies):  # forget deleted policies
            live = {o["metadata"]["name"] for o in policies}
            self._compiled = {k: v for k, v in self._compiled.items() if k in live}
        for obj in sorted(policies, key=lambda o: o["metadata"]["name"]):
            name = obj["metadata"]["name"]
            if name not in bindings:
                continue
            if not matches(obj.get("spec", {}).get("matchConstraints") or {}, req, self.reader):
                continue
            policy = self._policy(obj)
            annotations: dict[str, list[str]] = {}
            for binding in sorted(bindings[name], key=lambda b: b["metadata"]["name"]):
                bspec = binding.get("spec") or {}
                bname = binding["metadata"]["name"]
                actions = list(bspec.get("validationActions") or ())
                if bspec.get("matchResources") and not matches(bspec["matchResources"], req, self.reader):
                    continue
                try:
                    params = self._params(policy, bspec.get("paramRef"), req.namespace)
                except _Denied as e:
                    if policy.failure == "Fail":
                        denied.append((name, bname, f"failed to configure binding: {e.message}", "Invalid"))
                    continue
                if shared is None:
                    shared = self._shared(req)
                for param in params:
                    self._evaluate(policy, bname, actions, req, param, shared, denied, failures, annotations)
            for key, values in annotations.items():
                req.audit_annotations[f"{name}/{key}"] = ", ".join(values)
        if failures:
            req.audit_annotations["validation.policy.admission.k8s.io/validation_failure"] = json.dumps(
                failures[:50], separators=(",", ":"))
        if req.audit_annotations:
            log.debug("admission_audit_annotations", resource=req.resource, name=req.name,
                      annotations=dict(req.audit_annotations))
        if denied:
            policy_name, binding_name, message, reason = denied[0]
            text = (f"ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}' denied request: {message}"
                    if binding_name is not None else f"ValidatingAdmissionPolicy '{policy_name}' denied request: {message}")
            qualified = f"{req.resource}.{req.group}" if req.group else req.resource
            prefix = f'{qualified} "{req.name}" is forbidden' if req.name else f"{qualified} is forbidden"
            raise error_from_status(Status(
                message=f"{prefix}: {text}", reason=reason, code=_CODES.get(reason, 422),
                details=StatusDetails(name=req.name or None, group=req.group, kind=req.resource,
                                      causes=[StatusCause(message=text)]),
            ))

    # --- params and variables ---
    def _params(self, policy: _Policy, ref: Mapping[str, Any] | None, namespace: str) -> list[Any]:
        """``CollectParams``: [None] without params, else the param objects (maybe none)."""
        pk = policy.param_kind
        if not pk or ref is None:
            return [None]
        resolved = self.resolve_kind(str(pk.get("apiVersion") or ""), str(pk.get("kind") or ""))
        if resolved is None:
            raise _Denied(f"paramKind kind `&ParamKind{{APIVersion:{pk.get('apiVersion')},Kind:{pk.get('kind')},}}` "
                          "not known")
        group, plural, namespaced = resolved
        ns = ""
        if namespaced:
            ns = str(ref.get("namespace") or namespace)
            if not ns:
                raise _Denied("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
        elif ref.get("namespace"):
            raise _Denied("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        if ref.get("name"):
            found = self.reader.read(group, plural, ns, str(ref["name"]))
            params = [found] if found is not None else []
        else:
            selector = ref.get("selector") or {}
            params = [o for o in self.reader.read_all(group, plural, ns if namespaced else None)
                      if label_selector_matches(selector, (o.get("metadata") or {}).get("labels") or {})]
            params.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
        if not params and ref.get("parameterNotFoundAction") == "Deny":
            raise _Denied("no params found for policy binding with `Deny` parameterNotFoundAction")
        return params

    def _namespace_object(self, req: AdmissionRequest) -> Any:
        """``CreateNamespaceObject``: the request's Namespace with metadata trimmed (null when cluster-scoped;
        a Namespace request is cluster-scoped)."""
        if not req.namespace or (req.group == "" and req.resource == "namespaces"):
            return None
        ns = self.reader.read("", "namespaces", "", req.namespace)
        if ns is None:
            return None
        meta = ns.get("metadata") or {}
        keep = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers")
        return {"metadata": {k: meta[k] for k in keep if k in meta}, "spec": ns.get("spec") or {},
                "status": ns.get("status") or {}}

    def _shared(self, req: AdmissionRequest) -> dict[str, Any]:
        """The variables every policy and binding of one request shares, converted to CEL once."""
        act: dict[str, Any] = {
            "object": to_cel(req.object) if req.object is not None else None,
            "oldObject": to_cel(req.old_object) if req.old_object is not None else None,
            "request": to_cel(_request(req)),
        }
        namespace_obj = self._namespace_object(req)
        act["namespaceObject"] = to_cel(namespace_obj) if namespace_obj is not None else None
        if self.authorize is not None:
            act["authorizer"] = authorizer_value(req.user, self.authorize)
        return act

    def _evaluate(self, policy: _Policy, binding: str, actions: Sequence[str], req: AdmissionRequest, param: Any,
                  shared: dict[str, Any], denied: list[tuple[str, str | None, str, str]],
                  failures: list[dict[str, Any]], annotations: dict[str, list[str]]) -> None:
        run = _Run(policy, {**shared, "params": to_cel(param) if param is not None else None,
                            "variables": celtypes.MapType({})})

        def violate(index: int, message: str, reason: str) -> None:
            for action in actions:
                if action == "Deny":
                    denied.append((policy.name, binding, message, reason))
                elif action == "Warn":
                    req.warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with "
                                        f"binding '{binding}': {message}")
                elif action == "Audit":
                    failures.append({"message": message, "policy": policy.name, "binding": binding,
                                     "expressionIndex": index, "validationActions": list(actions)})

        def fail(index: int, message: str) -> None:
            if policy.failure == "Fail":
                violate(index, message, "Invalid")

        variables: dict[Any, Any] = {}
        for name, expr in policy.variables:
            try:
                variables[celtypes.StringType(name)] = run.eval(expr)
            except OutOfBudget:
                fail(0, _OUT_OF_BUDGET)
                return
            except EvalError as e:
                variables[celtypes.StringType(name)] = CELEvalError(
                    f"composited variable \"{name}\" fails to evaluate: {e}")
            run.activation["variables"] = celtypes.MapType(variables)
        errors: list[str] = []
        for expr in policy.conditions:
            try:
                if not is_true(run.eval(expr)):
                    return  # a false match condition: the policy does not apply
            except OutOfBudget:
                fail(0, _OUT_OF_BUDGET)
                return
            except EvalError as e:
                errors.append(str(e))
        if errors:
            fail(0, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
            return
        for i, (raw, expr, message_expr) in enumerate(policy.validations):
            try:
                ok = is_true(run.eval(expr))
            except OutOfBudget:
                fail(i, _OUT_OF_BUDGET)
                return
            except EvalError as e:
                fail(i, str(e))
                continue
            if not ok:
                violate(i, self._message(run, raw, message_expr), str(raw.get("reason") or "Invalid"))
        for key, expr in policy.annotations:
            try:
                value = run.eval(expr)
            except OutOfBudget:
                fail(0, _OUT_OF_BUDGET)
                return
            except EvalError as e:
                fail(0, str(e))
                continue
            if value is None:
                continue
            if not isinstance(value, str):
                fail(0, f"valueExpression '{expr.text}' resulted in unsupported return type: "
                        f"{_type_name(value)}. Return type must be either string or null.")
                continue
            text = value.strip()[:_MAX_ANNOTATION]
            if text and text not in annotations.setdefault(key, []):
                annotations[key].append(text)

    @staticmethod
    def _message(run: _Run, raw: Mapping[str, Any], message_expr: _Expr | None) -> str:
        message = ""
        if message_expr is not None:
            try:
                value = run.eval(message_expr)
            except EvalError:  # upstream logs it and falls back (a spent budget included)
                value = None
            if isinstance(value, str):
                message = value.strip()
                if len(message) > _MAX_MESSAGE or "\n" in message:
                    message = ""
        if not message and raw.get("message"):
            message = str(raw["message"]).strip()
        return message or f"failed expression: {str(raw.get('expression') or '').strip()}"


def _type_name(value: Any) -> str:
    if isinstance(value, celtypes.BoolType):
        return "bool"
    if isinstance(value, celtypes.IntType):
        return "int"
    if isinstance(value, celtypes.DoubleType):
        return "double"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def _request(req: AdmissionRequest) -> dict[str, Any]:
    """The ``admission.k8s.io/v1`` AdmissionRequest CEL sees as ``request`` (omitempty fields omitted)."""
    kind = {"group": req.group, "version": req.version, "kind": req.kind}
    resource = {"group": req.group, "version": req.version, "resource": req.resource}
    user: dict[str, Any] = {"username": req.user.name}
    if req.user.uid:
        user["uid"] = req.user.uid
    if req.user.groups:
        user["groups"] = list(req.user.groups)
    if req.user.extra:
        user["extra"] = {k: list(v) for k, v in req.user.extra}
    out: dict[str, Any] = {"uid": "", "kind": kind, "resource": resource, "requestKind": dict(kind),
                           "requestResource": dict(resource), "operation": req.operation, "userInfo": user,
                           "dryRun": req.dry_run}
    if req.subresource:
        out["subResource"] = out["requestSubResource"] = req.subresource
    if req.name:
        out["name"] = req.name
    if req.namespace:
        out["namespace"] = req.namespace
    if req.options:
        out["options"] = req.options
    return out
