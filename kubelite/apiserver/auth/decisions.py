"""Authorization decisions remembered between requests, exactly as RBAC would decide them again.

Contract:
- :class:`Decisions` maps a request's authorizer attributes (user name and groups, verb, API group,
  resource, subresource, namespace, name: everything :meth:`RBACAuthorizer.authorize` reads for a
  resource request) to RBAC's ``(allowed, reason)``. A hit is returned only while the RBAC view is at
  the generation the decision was made at; every RBAC write (``upsert``/``remove`` of a Role,
  ClusterRole, RoleBinding or ClusterRoleBinding, including a ClusterRole an aggregated role selects)
  moves the generation, so a revoked binding is honoured on the very next request.
- A cached decision is exactly the full check's: RBAC's decision is a pure function of its view and
  these attributes (``extra`` and ``uid`` are not read by RBAC rules).
- Bounded: at ``limit`` entries the table is cleared (as RBAC's own memo is).

Upstream: kube-apiserver's webhook authorizer keeps a decision cache keyed on the SubjectAccessReview's
attributes (``plugin/pkg/authorizer/webhook``, ``--authorization-webhook-cache-authorized-ttl``, the
structured configuration's ``cacheAuthorizedRequests``); RBAC needs no TTL here since its view knows when
it changes, so entries are dropped by generation instead of by time.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.auth.rbac import RBACAuthorizer

__all__ = ["Decisions"]

_LIMIT = 32768


class Decisions:
    """``(allowed, reason)`` per attribute key, valid for one RBAC generation."""

    __slots__ = ("_generation", "_table", "limit", "rbac")

    def __init__(self, rbac: RBACAuthorizer, *, limit: int = _LIMIT) -> None:
        self.rbac = rbac
        self.limit = limit
        self._table: dict[tuple[Any, ...], tuple[bool, str]] = {}
        self._generation = rbac.generation

    def get(self, key: tuple[Any, ...]) -> tuple[bool, str] | None:
        """The decision made for ``key`` at the current RBAC generation, or None."""
        if self._generation != self.rbac.generation:
            self._table.clear()
            self._generation = self.rbac.generation
            return None
        return self._table.get(key)

    def put(self, key: tuple[Any, ...], decision: tuple[bool, str]) -> None:
        if self._generation != self.rbac.generation:
            self._table.clear()
            self._generation = self.rbac.generation
        if len(self._table) >= self.limit:
            self._table.clear()
        self._table[key] = decision

    def __len__(self) -> int:
        return len(self._table)
