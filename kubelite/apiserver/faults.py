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
    def __init__(self, *, rng: random.Random) -> None:
        self.rng = rng
        self.rules: list[FaultRule] = []

    def inject(
        self, error: str | int, *, verb: str | None = None, resource: str | None = None,
        namespace: str | None = None, name: str | None = None, times: int | None = 1,
        probability: float = 1.0, user: str | None = None, subresource: str | None = None,
    ) -> FaultRule:
        if error not in FAULT_KINDS:
            raise ValueError(f"unknown fault {error!r}; choose one of {sorted(map(str, FAULT_KINDS))}")
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
