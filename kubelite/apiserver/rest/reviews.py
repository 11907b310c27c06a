"""The review resources: create-only questions to the authenticator and the authorizer, answered, never stored.

Upstream's REST objects, each a ``rest.Creater`` with no storage behind it:
- ``authentication.k8s.io/v1`` ``tokenreviews`` (``pkg/registry/authentication/tokenreview``): is this bearer
  token valid, and for whom? ``spec.token`` is required; an unknown token is ``authenticated: false``.
- ``authentication.k8s.io/v1`` ``selfsubjectreviews`` (``.../selfsubjectreview``, ``kubectl auth whoami``):
  the requester's own user info.
- ``authorization.k8s.io/v1`` ``subjectaccessreviews`` (any subject; ``spec.user`` or ``spec.groups``),
  ``selfsubjectaccessreviews`` (the requester; ``kubectl auth can-i``), ``localsubjectaccessreviews``
  (namespaced; ``spec.resourceAttributes.namespace`` must be the request's) and ``selfsubjectrulesreviews``
  (``kubectl auth can-i --list``: the rules that apply to the requester in ``spec.namespace``).

Contract:
- Every review passes the one pipeline like any create: authentication, authorization of ``create`` on the
  review resource (RBAC: ``system:basic-user`` may create the self reviews, ``system:auth-delegator`` the
  others), decoding as the kind (400 on a wrong type), mutating and validating admission, then upstream's
  validation (422 ``Invalid``). The answer is the request object with ``status`` set, code 201, and nothing
  is written to the store.
- Decisions are the apiserver's own: the same :class:`~kubelite.apiserver.auth.authn.TokenAuthenticator`
  and the same authorizer (``system:masters`` allowed, then RBAC), so a review never disagrees with what the
  reviewed request would get. RBAC never denies (``denied`` stays false; a refusal is "no opinion").
- ``LocalSubjectAccessReview`` is exempt from NamespaceLifecycle (upstream's ``accessReviewResources``), so
  asking about a namespace never reveals whether it exists.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.fields import parse_field_selector
from kubelite.api.labels import parse_selector
from kubelite.api.resources import CREATE_ONLY, ResourceInfo
from kubelite.apiserver.auth.authn import TokenAuthenticator
from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer
from kubelite.apiserver.auth.user import SYSTEM_PRIVILEGED_GROUP, UserInfo, user_fields
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.rest import RESOURCE_REVIEWS
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, FieldError, invalid

__all__ = ["API_AUDIENCES", "RESOURCE_REVIEWS", "ReviewREST"]

_encode = msgspec.json.Encoder().encode

#: kube-apiserver's ``--api-audiences`` default: the service-account issuer
API_AUDIENCES = ("https://kubernetes.default.svc.cluster.local",)
#: upstream's privileged-groups authorizer as a RuleResolver: everything, for members of system:masters
_ALL_RESOURCES = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
_ALL_URLS = {"verbs": ["*"], "nonResourceURLs": ["*"]}
_LABEL_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


class ReviewREST:
    """One REST object for the six review resources (dispatching on the plural)."""

    def __init__(self, scope: Scope, *, authenticator: TokenAuthenticator, rbac: RBACAuthorizer) -> None:
        self.scope = scope
        self.authenticator = authenticator
        self.rbac = rbac

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        warnings: list[str] = []
        review = self.scope.decoder.decode(info, req.body, req.options.field_validation, warnings)
        meta = review["metadata"]
        if info.namespaced:
            if meta.get("namespace") and meta["namespace"] != req.namespace:
                raise BadRequest.make("the namespace of the provided object does not match the namespace sent on "
                                      "the request")
            meta["namespace"] = req.namespace
        # the create handler's mutating admission, then the REST object's validation and createValidation
        # (validating admission, on the request object), then the answer
        store = self.scope.store
        w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=req.options.dry_run, warnings=warnings)
        areq = store.admission_request("CREATE", w, "", meta.get("name", ""), review, None)
        await store.admission.admit(areq)
        answer = getattr(self, "_" + info.plural)
        status = answer(info, req, review)
        await store.admission.validate(areq)
        review["metadata"].setdefault("creationTimestamp", None)  # Go's zero metav1.Time encodes as null
        review["status"] = status
        return Response(data=_encode(review), warnings=list(dict.fromkeys(warnings)))

    # --- authentication.k8s.io ---
    def _tokenreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]) -> dict[str, Any]:
        """tokenreview/storage.go: the token as a bearer credential, through the request authenticator."""
        spec = review.get("spec") or {}
        token = spec.get("token") or ""
        if not token:
            raise BadRequest.make("token is required for TokenReview in authentication")
        audiences = list(spec.get("audiences") or API_AUDIENCES)
        # static tokens are audience-agnostic (authenticator.WrapAudienceAgnosticToken): they carry the
        # audiences asked for; a service-account JWT answers the ones it was issued for
        found = self.authenticator.authenticate_audiences(token, audiences)
        if found is None:
            return {"authenticated": False}
        user, accepted = found
        return {"authenticated": True, "user": user_fields(user), "audiences": accepted}

    def _selfsubjectreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]) -> dict[str, Any]:
        """selfsubjectreview/rest.go: the requester as the authenticator (and impersonation) saw it."""
        review["metadata"] = {"creationTimestamp": self.scope.clock.timestamp()}
        return {"userInfo": user_fields(req.user)}

    # --- authorization.k8s.io ---
    def _subjectaccessreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]) -> dict[str, Any]:
        spec = review.get("spec") or {}
        _validate(info, review, _spec_errors(spec, subject=True) + _meta_errors(review, allow_namespace=False))
        return self._decide(_subject(spec), spec)

    def _localsubjectaccessreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]
                                   ) -> dict[str, Any]:
        spec = review.get("spec") or {}
        errs = _spec_errors(spec, subject=True) + _meta_errors(review, allow_namespace=True)
        ra = spec.get("resourceAttributes")
        if ra is not None and (ra.get("namespace") or "") != req.namespace:
            errs.append(FieldError.invalid("spec.resourceAttributes.namespace", ra.get("namespace") or "",
                                           "must match metadata.namespace"))
        if spec.get("nonResourceAttributes") is not None:
            errs.append(FieldError.invalid("spec.nonResourceAttributes", spec["nonResourceAttributes"],
                                           "disallowed on this kind of request"))
        _validate(info, review, errs)
        return self._decide(_subject(spec), spec)

    def _selfsubjectaccessreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]
                                  ) -> dict[str, Any]:
        spec = review.get("spec") or {}
        _validate(info, review, _spec_errors(spec, subject=False) + _meta_errors(review, allow_namespace=False))
        return self._decide(req.user, spec)

    def _selfsubjectrulesreviews(self, info: ResourceInfo, req: Request, review: dict[str, Any]
                                 ) -> dict[str, Any]:
        """selfsubjectrulesreview/rest.go: the union rule resolver's RulesFor(user, spec.namespace)."""
        namespace = (review.get("spec") or {}).get("namespace") or ""
        if not namespace:
            raise BadRequest.make("no namespace on request")
        resource_rules: list[dict[str, Any]] = []
        url_rules: list[dict[str, Any]] = []
        if SYSTEM_PRIVILEGED_GROUP in req.user.groups:
            resource_rules.append(dict(_ALL_RESOURCES))
            url_rules.append(dict(_ALL_URLS))
        rules, errors = self.rbac.rules_review(req.user, namespace)
        for rule in rules:
            # RBAC's RulesFor: a rule with resources is a ResourceRule, one with URLs a NonResourceRule
            if rule.get("resources"):
                resource_rules.append({k: rule[k] for k in ("verbs", "apiGroups", "resources", "resourceNames")
                                       if rule.get(k)})
            if rule.get("nonResourceURLs"):
                url_rules.append({"verbs": rule.get("verbs") or [], "nonResourceURLs": rule["nonResourceURLs"]})
        review["metadata"], review["spec"] = {}, {}  # upstream answers with a new object: only the status
        status: dict[str, Any] = {"resourceRules": resource_rules, "nonResourceRules": url_rules,
                                  "incomplete": bool(errors)}
        if errors:
            status["evaluationError"] = errors
        return status

    def _decide(self, user: UserInfo, spec: dict[str, Any]) -> dict[str, Any]:
        """authorizer.Authorize on the attributes the spec names (``authorizationutil.ResourceAttributesFrom``
        / ``NonResourceAttributesFrom``), as SubjectAccessReviewStatus."""
        ra = spec.get("resourceAttributes")
        evaluation: list[str] = []
        if ra is not None:
            attrs = Attributes(
                user=user, verb=ra.get("verb") or "", namespace=ra.get("namespace") or "",
                api_group=ra.get("group") or "", resource=ra.get("resource") or "",
                subresource=ra.get("subresource") or "", name=ra.get("name") or "",
            )
            evaluation = _selector_errors(ra)
        else:
            nra = spec.get("nonResourceAttributes") or {}
            attrs = Attributes(user=user, verb=nra.get("verb") or "", namespace="", api_group="", resource="",
                               subresource="", name="", resource_request=False, path=nra.get("path") or "")
        allowed, reason = self.rbac.authorize(attrs)
        status: dict[str, Any] = {"allowed": allowed}
        if reason:
            status["reason"] = reason
        if evaluation:
            status["evaluationError"] = "; ".join(evaluation)
        return status


def _validate(info: ResourceInfo, review: dict[str, Any], errs: list[FieldError]) -> None:
    if errs:
        raise invalid(info.kind, "", errs, group=info.group)


def _spec_errors(spec: dict[str, Any], *, subject: bool) -> list[FieldError]:
    """ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec."""
    errs: list[FieldError] = []
    ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if ra is not None and nra is not None:
        errs.append(FieldError.invalid("spec.nonResourceAttributes", nra,
                                       "cannot be specified in combination with resourceAttributes"))
    if ra is None and nra is None:
        errs.append(FieldError.invalid("spec.resourceAttributes", "null",  # Go prints a nil pointer so
                                       "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if subject and not spec.get("user") and not spec.get("groups"):
        errs.append(FieldError.invalid("spec.user", spec.get("user") or "",
                                       "at least one of user or group must be specified"))
    return errs


def _meta_errors(review: dict[str, Any], *, allow_namespace: bool) -> list[FieldError]:
    """The review's metadata must be empty (managedFields aside; a local review's namespace aside)."""
    meta = {k: v for k, v in review["metadata"].items() if k != "managedFields" and v not in (None, "", {}, [])}
    if allow_namespace:
        meta.pop("namespace", None)
    if not meta:
        return []
    return [FieldError.invalid("metadata", meta, "must be empty except for namespace" if allow_namespace
                               else "must be empty")]


def _subject(spec: dict[str, Any]) -> UserInfo:
    """``AuthorizationAttributesFrom``: the user the spec names, exactly (no group is added)."""
    extra = spec.get("extra") or {}
    return UserInfo(name=spec.get("user") or "", uid=spec.get("uid") or "", groups=tuple(spec.get("groups") or ()),
                    extra=tuple(sorted((k, tuple(v or ())) for k, v in extra.items())))


def _selector_errors(ra: dict[str, Any]) -> list[str]:
    """``BuildEvaluationError``'s selector part: selectors that do not parse are ignored (or partly ignored)
    by authorization, and the status says so."""
    out: list[str] = []
    for key, parse_raw, check in (("fieldSelector", _field_raw_ok, _field_requirement_ok),
                                  ("labelSelector", _label_raw_ok, _label_requirement_ok)):
        sel = ra.get(key)
        if not sel:
            continue
        reqs = sel.get("requirements") or []
        if reqs:
            good = [r for r in reqs if check(r)]
            if len(good) < len(reqs):
                out.append(f"spec.resourceAttributes.{key} {'partially ' if good else ''}ignored due to parse error")
        elif sel.get("rawSelector") and not parse_raw(sel["rawSelector"]):
            out.append(f"spec.resourceAttributes.{key} ignored due to parse error")
    return out


def _label_raw_ok(raw: str) -> bool:
    try:
        parse_selector(raw)
    except ValueError:
        return False
    return True


def _field_raw_ok(raw: str) -> bool:
    try:
        parse_field_selector(raw)
    except ValueError:
        return False
    return True


def _label_requirement_ok(r: dict[str, Any]) -> bool:
    op = _LABEL_OPS.get(r.get("operator") or "")
    if op is None or not r.get("key"):
        return False
    values = r.get("values") or []
    return bool(values) if op in ("in", "notin") else not values


def _field_requirement_ok(r: dict[str, Any]) -> bool:
    # fieldSelectorAsSelector: only In / NotIn with exactly one value
    return r.get("operator") in ("In", "NotIn") and len(r.get("values") or []) == 1 and bool(r.get("key"))
