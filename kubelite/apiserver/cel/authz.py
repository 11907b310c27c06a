"""The ``authorizer`` variable of admission policies (upstream ``k8s.io/apiserver/pkg/cel/library/authz.go``).

``authorizer.group(g).resource(r).subresource(s).namespace(n).name(x).check(verb)`` and
``authorizer.path(p).check(verb)`` ask the apiserver's authorizer (RBAC) about the requesting user;
``authorizer.serviceAccount(ns, name)`` asks about a service account instead. A decision has
``allowed()``, ``reason()``, ``errored()`` and ``error()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy import celtypes

from kubelite.apiserver.auth.rbac import Attributes
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.cel.environment import register

__all__ = ["authorizer_value"]

Authorize = Callable[[Attributes], tuple[bool, str]]


class _Authorizer:
    __slots__ = ("authorize", "user")

    def __init__(self, user: UserInfo, authorize: Authorize) -> None:
        self.user = user
        self.authorize = authorize


class _Check:
    __slots__ = ("authz", "fields", "kind")

    def __init__(self, authz: _Authorizer, kind: str, fields: dict[str, str]) -> None:
        self.authz = authz
        self.kind = kind  # "path" or "resource"
        self.fields = fields

    def with_(self, key: str, value: Any) -> _Check:
        if not isinstance(value, str):
            raise TypeError("no such overload")
        return _Check(self.authz, self.kind, {**self.fields, key: str(value)})


class _Decision:
    __slots__ = ("allowed", "reason")

    def __init__(self, allowed: bool, reason: str) -> None:
        self.allowed = allowed
        self.reason = reason


def authorizer_value(user: UserInfo, authorize: Authorize) -> _Authorizer:
    return _Authorizer(user, authorize)


def _authz(v: Any) -> _Authorizer:
    if not isinstance(v, _Authorizer):
        raise TypeError("no such overload")
    return v


def _check(c: Any, verb: Any) -> _Decision:
    if not isinstance(c, _Check) or not isinstance(verb, str):
        raise TypeError("no such overload")
    f = c.fields
    if c.kind == "path":
        attrs = Attributes(user=c.authz.user, verb=str(verb), namespace="", api_group="", resource="", subresource="",
                           name="", resource_request=False, path=f.get("path", ""))
    else:
        attrs = Attributes(user=c.authz.user, verb=str(verb), namespace=f.get("namespace", ""),
                           api_group=f.get("group", ""), resource=f.get("resource", ""),
                           subresource=f.get("subresource", ""), name=f.get("name", ""))
    allowed, reason = c.authz.authorize(attrs)
    return _Decision(allowed, reason)


def _step(key: str) -> Callable[[Any, Any], _Check]:
    def step(target: Any, value: Any) -> _Check:
        if isinstance(target, _Authorizer) and key in ("group", "path"):
            return _Check(target, "path" if key == "path" else "resource", {}).with_(key, value)
        if not isinstance(target, _Check):
            raise TypeError("no such overload")
        return target.with_(key, value)
    return step


def _service_account(a: Any, namespace: Any, name: Any) -> _Authorizer:
    authz = _authz(a)
    sa = UserInfo(name=f"system:serviceaccount:{namespace}:{name}",
                  groups=("system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"))
    return _Authorizer(sa, authz.authorize)


def _decision(v: Any) -> _Decision:
    if not isinstance(v, _Decision):
        raise TypeError("no such overload")
    return v


for _key in ("path", "group", "resource", "subresource", "namespace", "name"):
    register(_key, _step(_key), cost=False)
register("check", _check, cost=False)
register("serviceAccount", _service_account, cost=False)
register("allowed", lambda d: celtypes.BoolType(_decision(d).allowed), cost=False)
register("reason", lambda d: celtypes.StringType(_decision(d).reason), cost=False)
register("errored", lambda d: celtypes.BoolType(False) if isinstance(_decision(d), _Decision) else None, cost=False)
register("error", lambda d: celtypes.StringType("") if isinstance(_decision(d), _Decision) else None, cost=False)
