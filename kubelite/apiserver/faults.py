"""Fault switches: make chosen requests fail the way a real apiserver can fail.

A :class:`FaultRule` matches requests by user, verb, resource, subresource, namespace and name (``None``
matches any; ``subresource=""`` matches only requests to the main resource)
and fails them with 409 Conflict, 429 TooManyRequests, 500 InternalError, 503 or a 504 timeout. It
fires for the next ``times`` matches (``None``: until removed), each with ``probability`` drawn from
the cluster's seeded RNG, so a fault schedule replays exactly with the same seed.

Faults are checked first, before authentication, so an injected failure never changes the store.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.errors import (
    ApiError,
    Conflict,
    InternalError,
    ServerTimeout,
    ServiceUnavailable,
    TooManyRequests,
)

__all__ = ["FAULT_KINDS", "FaultInjector", "FaultRule"]


def _conflict(resource: str, name: str) -> ApiError:
    group, _, plural = resource.rpartition("/")
    return Conflict.for_object(
        group, plural, name or "",
        "the object has been modified; please apply your changes to the latest version and try again",
    )


def _throttle(resource: str, name: str) -> ApiError:
    return TooManyRequests.make(
        "the server has received too many requests and has asked us to try again later", retry_after_seconds=1
    )


def _internal(resource: str, name: str) -> ApiError:
    return InternalError.make("Internal error occurred: injected fault")


def _unavailable(resource: str, name: str) -> ApiError:
    return ServiceUnavailable.make("the server is currently unable to handle the request")


def _timeout(resource: str, name: str) -> ApiError:
    return ServerTimeout.make(
        "the server was unable to return a response in the time allotted, but may still be processing the "
        "request", retry_after_seconds=1,
    )


FAULT_KINDS: dict[str | int, Callable[[str, str], ApiError]] = {
    409: _conflict, "conflict": _conflict,
    429: _throttle, "throttle": _throttle,
    500: _internal, "internal": _internal,
    503: _unavailable, "unavailable": _unavailable,
    504: _timeout, "timeout": _timeout,
}


class FaultRule(msgspec.Struct, kw_only=True):
    """One injected fault (see :meth:`FaultInjector.inject`)."""

    error: str | int
    verb: str | None = None
    resource: str | None = None  # "pods" or "apps/deployments"
    namespace: str | None = None
    name: str | None = None
    user: str | None = None  # the authenticated user's name, so a fault hits one client only
    subresource: str | None = None  # "status", "scale", "binding", ...; "" the main resource only
    times: int | None = 1
    probability: float = 1.0
    fired: int = 0

    def matches(self, verb: str, resource: str, namespace: str, name: str, user: str = "",
                subresource: str = "") -> bool:
        return (
            (self.verb is None or self.verb == verb)
            and (self.user is None or self.user == user)
            and (self.subresource is None or self.subresource == subresource)
            and (self.resource is None or self.resource == resource)
            and (self.namespace is None or self.namespace == namespace)
            and (self.name is None or self.name == name)
        )


class FaultInjector:
    """Fault rules checked on every request. ``resource`` takes every naming the client takes (a Struct
    class, ``"pods"``, ``"deploy"``, ``"widgets.example.com"``, ``"apps/deployments"``) once a resource
    registry is attached (``registry``, as the apiserver of a Cluster does); a name that matches nothing
    is a ``ValueError``, never a rule that silently never fires."""

    def __init__(self, *, rng: random.Random, registry: Any = None) -> None:
        self.rng = rng
        self.rules: list[FaultRule] = []
        self.registry = registry

    def _canonical(self, resource: Any) -> str:
        """``plural`` (core) or ``group/plural``, as :meth:`check` compares them."""
        if self.registry is None:
            if not isinstance(resource, str):
                raise TypeError(f"resource must be a string here, got {resource!r}")
            return resource
        try:
            info = self.registry.lookup(resource)
        except KeyError as e:
            raise ValueError(f"unknown resource {resource!r} for fault injection: {e.args[0] if e.args else ''}"
                             ) from None
        return f"{info.group}/{info.plural}" if info.group else str(info.plural)

    def inject(
        self, error: str | int, *, verb: str | None = None, resource: Any = None,
        namespace: str | None = None, name: str | None = None, times: int | None = 1,
        probability: float = 1.0, user: str | None = None, subresource: str | None = None,
    ) -> FaultRule:
        """Fail the next ``times`` requests matching ``verb``, ``resource``, ``namespace`` and ``name`` (None
        matches any) with ``error`` (409, 429, 500, 503 or ``"timeout"``), each with ``probability``."""
        if error not in FAULT_KINDS:
            raise ValueError(f"unknown fault {error!r}; choose one of {sorted(map(str, FAULT_KINDS))}")
        if resource is not None:
            resource = self._canonical(resource)
        rule = FaultRule(
            error=error, verb=verb, resource=resource, namespace=namespace, name=name, times=times,
            probability=probability, user=user, subresource=subresource,
        )
        self.rules.append(rule)
        return rule

    def clear(self) -> None:
        self.rules.clear()

    def check(self, verb: str, group: str, plural: str, namespace: str, name: str, *, user: str = "",
              subresource: str = "") -> None:
        if not self.rules:
            return
        resource = f"{group}/{plural}" if group else plural
        for rule in self.rules:
            if not rule.matches(verb, resource, namespace, name, user, subresource):
                continue
            if rule.probability < 1.0 and self.rng.random() >= rule.probability:
                continue
            rule.fired += 1
            if rule.times is not None and rule.fired >= rule.times:
                self.rules.remove(rule)
            raise FAULT_KINDS[rule.error](resource, name)
