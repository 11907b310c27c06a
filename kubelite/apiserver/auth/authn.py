"""Bearer-token authentication: a static token table, like kube-apiserver's ``--token-auth-file``
(``k8s.io/apiserver/plugin/pkg/authenticator/token/tokenfile``) plus service-account tokens.

Contract:
- :meth:`TokenAuthenticator.authenticate` maps a token to the :class:`UserInfo` registered for it.
  It never mutates state and costs one dict lookup.
- Registered identities always carry ``system:authenticated`` (upstream adds it with
  ``group.AuthenticatedGroupAdder`` after any authenticator succeeds; we add it once at
  registration so the hot path stays a lookup).
- No token: the anonymous identity when anonymous requests are allowed (upstream's default,
  ``--anonymous-auth=true``), else 401. An unknown token is always 401 ``Unauthorized``; upstream
  never falls back to anonymous once a credential was presented.
- Only the owner (the cluster) registers or revokes tokens.
- A token not in the table is offered to the service-account token authenticator (``issuer``, upstream's
  ``JWTTokenAuthenticator`` in the same union), which checks it afresh on every request: the bound tokens that
  TokenRequest issues (:mod:`kubelite.apiserver.auth.serviceaccount`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kubelite.apiserver.auth.user import (
    ALL_AUTHENTICATED,
    ANONYMOUS,
    UserInfo,
    service_account_user,
)
from kubelite.errors import Unauthorized

if TYPE_CHECKING:
    from kubelite.apiserver.auth.serviceaccount import TokenIssuer

__all__ = ["TokenAuthenticator"]


class TokenAuthenticator:
    """A token → identity table. ``allow_anonymous`` mirrors ``--anonymous-auth``."""

    def __init__(self, *, allow_anonymous: bool = True) -> None:
        self.allow_anonymous = allow_anonymous
        # invariant: every value's groups contain ALL_AUTHENTICATED.
        self._tokens: dict[str, UserInfo] = {}
        #: the service-account token authenticator (bound JWTs), set by the apiserver
        self.issuer: TokenIssuer | None = None

    def add_token(self, token: str, user: UserInfo) -> None:
        """Register (or replace) ``token`` as authenticating ``user``."""
        if not token:
            raise ValueError("token must not be empty")
        if ALL_AUTHENTICATED not in user.groups:
            user = UserInfo(name=user.name, uid=user.uid, groups=(*user.groups, ALL_AUTHENTICATED), extra=user.extra)
        self._tokens[token] = user

    def add_service_account_token(self, token: str, namespace: str, name: str, uid: str = "") -> None:
        """Register a token for the service account ``namespace/name``."""
        self.add_token(token, service_account_user(namespace, name, uid))

    def remove_token(self, token: str) -> None:
        """Revoke ``token``; unknown tokens are ignored."""
        self._tokens.pop(token, None)

    def authenticate(self, token: str | None) -> UserInfo:
        """The identity for ``token`` (None or "" means no credential was presented)."""
        if not token:
            if self.allow_anonymous:
                return ANONYMOUS
            raise Unauthorized.make("Unauthorized")
        user = self._tokens.get(token)
        if user is None:
            found = self.issuer.authenticate(token) if self.issuer is not None else None
            if found is None:
                raise Unauthorized.make("Unauthorized")
            user = found[0]
        return user

    def authenticate_audiences(self, token: str, audiences: Sequence[str]) -> tuple[UserInfo, list[str]] | None:
        """TokenReview's question: the identity ``token`` stands for and the audiences of ``audiences`` it is
        valid for (``authenticator.Audiences`` on the request context), or None. Static tokens are
        audience-agnostic (``WrapAudienceAgnosticToken``): they are valid for whatever audiences are asked."""
        user = self._tokens.get(token)
        if user is not None:
            return user, list(audiences)
        if self.issuer is None:
            return None
        return self.issuer.authenticate(token, audiences)
