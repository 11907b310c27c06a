"""Who is making a request: upstream's ``k8s.io/apiserver/pkg/authentication/user.Info``.

Contract:
- A :class:`UserInfo` is immutable and hashable; authenticators build it once (when a token is
  registered) and hand the same object to every request, so the authorizer can key caches on it.
- Every authenticated identity carries the group ``system:authenticated``; the anonymous identity
  carries ``system:unauthenticated`` instead (upstream's ``AuthenticatedGroupAdder`` and anonymous
  authenticator).
- Service-account identities follow ``k8s.io/apiserver/pkg/authentication/serviceaccount``:
  user name ``system:serviceaccount:<namespace>:<name>``, groups ``system:serviceaccounts`` and
  ``system:serviceaccounts:<namespace>``.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "ADMIN",
    "ALL_AUTHENTICATED",
    "ALL_SERVICE_ACCOUNTS",
    "ALL_UNAUTHENTICATED",
    "ANONYMOUS",
    "ANONYMOUS_USER",
    "LOOPBACK",
    "KUBE_CONTROLLER_MANAGER",
    "KUBE_PROXY",
    "KUBE_SCHEDULER",
    "NODES_GROUP",
    "SERVICE_ACCOUNT_PREFIX",
    "SYSTEM_PRIVILEGED_GROUP",
    "UserInfo",
    "node_user",
    "parse_service_account_username",
    "service_account_user",
    "service_account_username",
    "user_fields",
]

# Well-known names from k8s.io/apiserver/pkg/authentication/user/user.go.
SYSTEM_PRIVILEGED_GROUP = "system:masters"
NODES_GROUP = "system:nodes"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ALL_AUTHENTICATED = "system:authenticated"
ANONYMOUS_USER = "system:anonymous"
KUBE_PROXY = "system:kube-proxy"
KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager"
KUBE_SCHEDULER = "system:kube-scheduler"

# From k8s.io/apiserver/pkg/authentication/serviceaccount/util.go.
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
ALL_SERVICE_ACCOUNTS = "system:serviceaccounts"
_SA_GROUP_PREFIX = "system:serviceaccounts:"


class UserInfo(msgspec.Struct, frozen=True, kw_only=True):
    """An authenticated (or anonymous) identity.

    ``extra`` is upstream's ``map[string][]string`` as sorted ``(key, values)`` pairs so the value
    stays hashable.
    """

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()


ADMIN = UserInfo(name="kubelite-admin", groups=(SYSTEM_PRIVILEGED_GROUP, ALL_AUTHENTICATED))
ANONYMOUS = UserInfo(name=ANONYMOUS_USER, groups=(ALL_UNAUTHENTICATED,))
#: the apiserver's own loopback client (``system:apiserver`` in ``system:masters``): its writes from inside a
#: request, such as ResourceQuota admission's status charges
LOOPBACK = UserInfo(name="system:apiserver", groups=(SYSTEM_PRIVILEGED_GROUP, ALL_AUTHENTICATED))


def service_account_username(namespace: str, name: str) -> str:
    """``serviceaccount.MakeUsername``."""
    return f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def parse_service_account_username(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: ``(namespace, name)``, or None if not a service account."""
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_PREFIX):].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def service_account_user(namespace: str, name: str, uid: str = "") -> UserInfo:
    """The identity a service-account token authenticates as (``serviceaccount.UserInfo``),
    including ``system:authenticated``."""
    return UserInfo(
        name=service_account_username(namespace, name),
        uid=uid,
        groups=(ALL_SERVICE_ACCOUNTS, _SA_GROUP_PREFIX + namespace, ALL_AUTHENTICATED),
    )


def node_user(node_name: str) -> UserInfo:
    """A kubelet's identity: ``system:node:<name>`` in ``system:nodes`` (the Node authorizer's
    convention, see ``pkg/auth/nodeidentifier``)."""
    return UserInfo(name=f"system:node:{node_name}", groups=(NODES_GROUP, ALL_AUTHENTICATED))


def user_fields(user: UserInfo) -> dict[str, Any]:
    """The user as API objects carry it (``username``, ``uid``, ``groups``, ``extra``; Go's omitempty leaves the
    empty ones out): authentication/v1 ``UserInfo`` in reviews, a CSR's requester in its spec."""
    out: dict[str, Any] = {"username": user.name}
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra}
    return out
