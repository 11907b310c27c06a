"""``serviceaccounts/token`` (``pkg/registry/core/serviceaccount/storage/token.go``): TokenRequest, a bound
service-account token for the account in the URL, answered and never stored.

Contract, in upstream's order:
- ``create serviceaccounts/token`` is the permission it needs (``kubectl create token``). The body is an
  ``authentication.k8s.io/v1`` TokenRequest; a name or namespace in it must match the URL's (422).
- The service account must exist (404). Unset ``spec.audiences`` become the apiserver's (``--api-audiences``),
  unset ``spec.expirationSeconds`` 3600 (``SetDefaults_TokenRequestSpec``); ``creationTimestamp`` is now.
- ``ValidateTokenRequest``: ``expirationSeconds`` at least 600 ("may not specify a duration less than 10
  minutes") and at most 2^32; then validating admission sees the request.
- ``spec.boundObjectRef`` (``v1`` Pod, Secret or Node) must exist (404); a Pod must run as this service account
  (400), a ``uid`` given must be the object's (409: "The object might have been deleted and then recreated");
  another kind is 400. A token bound to a Pod also records the Pod's Node.
- ``status.token`` is the signed JWT (:mod:`kubelite.apiserver.auth.serviceaccount`), ``status.expirationTimestamp``
  now + ``expirationSeconds``, on the cluster clock. Upstream's extended expiration (a 3607 s request from a
  kubelet's projected volume) is not modelled: no kubelet here projects token volumes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.resources import CREATE_ONLY, ResourceInfo
from kubelite.apiserver.auth.serviceaccount import TokenIssuer
from kubelite.apiserver.registry.store import Write
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.clock import format_time
from kubelite.errors import BadRequest, Conflict, FieldError, NotFound, invalid

__all__ = ["DEFAULT_EXPIRATION_SECONDS", "MAX_EXPIRATION_SECONDS", "MIN_EXPIRATION_SECONDS", "TokenREST"]

_encode = msgspec.json.Encoder().encode

#: pkg/apis/authentication/v1 defaults: an hour
DEFAULT_EXPIRATION_SECONDS = 3600
#: pkg/apis/authentication/validation: MinTokenAgeSec, MaxTokenAgeSec
MIN_EXPIRATION_SECONDS = 10 * 60
MAX_EXPIRATION_SECONDS = 1 << 32
# kind -> (plural, claim name, namespaced)
_BINDABLE = {"Pod": ("pods", "pod", True), "Secret": ("secrets", "secret", True), "Node": ("nodes", "node", False)}


class TokenREST:
    def __init__(self, scope: Scope, issuer: TokenIssuer) -> None:
        self.scope = scope
        self.issuer = issuer

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return CREATE_ONLY

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        scope, namespace, name = self.scope, req.namespace, req.name
        warnings: list[str] = []
        sub = scope.tables.registry.subresource(info, "token")
        tr = scope.decoder.decode_subresource(sub, req.body, warnings)
        meta = tr["metadata"]
        if meta.get("name") and meta["name"] != name:
            raise invalid(sub.kind, name, [FieldError.invalid("metadata.name", meta["name"],
                                                              "must match the service account name if specified")],
                          group=sub.group)
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise invalid(sub.kind, name, [FieldError.invalid(
                "metadata.namespace", meta["namespace"], "must match the service account namespace if specified")],
                group=sub.group)
        sa = scope.tables.read("", "serviceaccounts", namespace, name)
        if sa is None:
            raise NotFound.for_object("", "serviceaccounts", name)
        spec = tr.setdefault("spec", {})
        if not spec.get("audiences"):
            spec["audiences"] = list(self.issuer.api_audiences)
        if spec.get("expirationSeconds") is None:
            spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS
        meta.setdefault("name", name)
        meta.setdefault("namespace", namespace)
        now = scope.clock.now()
        meta["creationTimestamp"] = format_time(now)
        tr.pop("status", None)
        errs = validate_token_request(tr)
        if errs:
            raise invalid(sub.kind, "", errs, group=sub.group)
        w = Write(user=req.user, info=info, namespace=namespace, dry_run=req.options.dry_run, warnings=warnings)
        areq = scope.store.admission_request("CREATE", w, "token", name, tr, None)
        await scope.store.admission.validate(areq)
        bound, node = self._bound(spec.get("boundObjectRef"), name, namespace)
        expiration = int(spec["expirationSeconds"])
        token = self.issuer.issue(service_account=sa, audiences=spec["audiences"], expiration_seconds=expiration,
                                  now=now, bound=bound, node=node)
        tr["status"] = {"token": token, "expirationTimestamp": format_time(now + expiration)}
        return Response(data=_encode(tr), warnings=list(dict.fromkeys(warnings)))

    def _bound(self, ref: dict[str, Any] | None, sa_name: str, namespace: str,
               ) -> tuple[tuple[str, dict[str, Any]] | None, dict[str, Any] | None]:
        if not ref:
            return None, None
        api_version, kind, ref_name = ref.get("apiVersion") or "", ref.get("kind") or "", ref.get("name") or ""
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        if group != "" or kind not in _BINDABLE:
            gvk = f"{group}/{api_version.rpartition('/')[2]}, Kind={kind}" if group else f"/{api_version}, Kind={kind}"
            raise BadRequest.make(f"cannot bind token to object of type {gvk}")
        plural, claim, namespaced = _BINDABLE[kind]
        obj = self.scope.tables.read("", plural, namespace if namespaced else "", ref_name)
        if obj is None:
            raise NotFound.for_object("", plural, ref_name)
        node = None
        if kind == "Pod":
            if (obj.get("spec") or {}).get("serviceAccountName") != sa_name:
                raise BadRequest.make(f'cannot bind token for serviceaccount "{sa_name}" to pod running with '
                                      "different serviceaccount name.")
            node_name = (obj.get("spec") or {}).get("nodeName")
            if node_name:
                node = self.scope.tables.read("", "nodes", "", node_name)
        uid = obj["metadata"].get("uid", "")
        if ref.get("uid") and ref["uid"] != uid:
            raise Conflict.for_object("", kind, ref_name, f"the UID in the bound object reference ({ref['uid']}) "
                                      "does not match the UID in record. The object might have been deleted and "
                                      "then recreated")
        return (claim, obj), node


def validate_token_request(tr: dict[str, Any]) -> list[FieldError]:
    """``ValidateTokenRequest`` (pkg/apis/authentication/validation)."""
    errs: list[FieldError] = []
    seconds = (tr.get("spec") or {}).get("expirationSeconds")
    if isinstance(seconds, int):
        if seconds < MIN_EXPIRATION_SECONDS:
            errs.append(FieldError.invalid("spec.expirationSeconds", seconds,
                                           "may not specify a duration less than 10 minutes"))
        if seconds > MAX_EXPIRATION_SECONDS:
            errs.append(FieldError.invalid("spec.expirationSeconds", seconds,
                                           "may not specify a duration larger than 2^32 seconds"))
    return errs
