"""Impersonation: acting as another identity is itself an authorized verb.

Follows ``k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`` (``WithImpersonation`` and
``buildImpersonationRequests``). :func:`impersonate` is the one entry point: the in-process client's
``as_user()`` calls it, and so will the HTTP layer for ``Impersonate-User``/``-Group``/``-Uid``/
``-Extra-*`` headers.

Contract:
- The requester needs the verb ``impersonate`` on every part of the target identity, checked in
  upstream's order: the user (``users`` in group ``""``, or ``serviceaccounts`` in the account's
  namespace for ``system:serviceaccount:<ns>:<name>``), then each group (``groups``), each extra value
  (``userextras/<key>`` in ``authentication.k8s.io``) and the uid (``uids`` in
  ``authentication.k8s.io``). The first denial is upstream's 403 (``users "bob" is forbidden: User
  "alice" cannot impersonate resource "users" in API group "" at the cluster scope``).
- Groups or extras without a user are 400 BadRequest, as upstream.
- The resulting identity: a service account with no groups given gets its fixed groups
  (``system:serviceaccounts``, ``system:serviceaccounts:<ns>``); a non-anonymous user gets
  ``system:authenticated`` unless ``system:authenticated`` or ``system:unauthenticated`` is among its
  groups; ``system:anonymous`` gets ``system:unauthenticated`` likewise.
- Nothing is cached: every call consults the RBAC view as it is now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer, forbidden
from kubelite.apiserver.auth.user import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS_USER,
    UserInfo,
    parse_service_account_username,
)
from kubelite.errors import BadRequest

__all__ = ["impersonate"]

_AUTHN_GROUP = "authentication.k8s.io"


def impersonate(
    rbac: RBACAuthorizer, requester: UserInfo, name: str, groups: Sequence[str] = (), *, uid: str = "",
    extra: Mapping[str, Sequence[str]] | None = None,
) -> UserInfo:
    """The identity ``requester`` may act as, or the 403/400 upstream's impersonation filter returns."""
    extra = dict(extra or {})
    if not name:
        if groups or extra or uid:
            raise BadRequest.make(
                "requested " + ", ".join([*(f"group {g}" for g in groups), *(f"extra {k}" for k in extra),
                                          *([f"uid {uid}"] if uid else [])]) + " without impersonating a user")
        raise BadRequest.make("impersonating a user requires a user name")
    checks: list[Attributes] = []
    sa = parse_service_account_username(name)
    if sa is not None:
        checks.append(Attributes(requester, "impersonate", sa[0], "", "serviceaccounts", "", sa[1]))
    else:
        checks.append(Attributes(requester, "impersonate", "", "", "users", "", name))
    checks.extend(Attributes(requester, "impersonate", "", "", "groups", "", g) for g in groups)
    for key in sorted(extra):
        checks.extend(Attributes(requester, "impersonate", "", _AUTHN_GROUP, "userextras", key, v)
                      for v in extra[key])
    if uid:
        checks.append(Attributes(requester, "impersonate", "", _AUTHN_GROUP, "uids", "", uid))
    for attrs in checks:
        allowed, reason = rbac.authorize(attrs)
        if not allowed:
            raise forbidden(attrs, reason)
    out_groups = list(groups)
    if sa is not None and not groups:
        out_groups = ["system:serviceaccounts", f"system:serviceaccounts:{sa[0]}"]
    if name != ANONYMOUS_USER:
        if ALL_AUTHENTICATED not in out_groups and ALL_UNAUTHENTICATED not in out_groups:
            out_groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in out_groups:
        out_groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(name=name, uid=uid, groups=tuple(out_groups),
                    extra=tuple((k, tuple(extra[k])) for k in sorted(extra)))
