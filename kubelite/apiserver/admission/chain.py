"""The admission chain, in upstream's order: mutating plugins, then (after schema validation)
validating plugins; built-in plugins before user hooks in each phase.

Contract:
- A mutating plugin may change ``request.object`` in place; a validating plugin must not.
- Any plugin rejects by raising an :class:`~kubelite.errors.ApiError` (built-ins raise upstream's
  exact errors) or :class:`AdmissionDenied` (user hooks: the webhook equivalent, reported as
  ``admission webhook "<name>" denied the request: <message>``, code 403 unless the hook says
  otherwise, as ``k8s.io/apiserver/pkg/admission/plugin/webhook/errors.ToStatusErr`` does).
- A rejection anywhere leaves the store untouched: the apiserver writes only after both phases pass.
- User hooks are async callables ``hook(request) -> None``; they are matched by resource
  (``(group, plural)`` or ``"*"``), subresource and operation, and run in registration order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import ApiError, Status, StatusDetails

__all__ = ["AdmissionChain", "AdmissionDenied", "AdmissionHook", "AdmissionPlugin", "ObjectReader"]


class ObjectReader(Protocol):
    """Read access to the stored state for admission plugins (upstream plugins use listers)."""

    def read(self, group: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None: ...

    def read_all(self, group: str, plural: str, namespace: str | None = None) -> list[dict[str, Any]]: ...


class AdmissionPlugin(Protocol):
    """A built-in plugin. ``handles`` filters cheaply before ``admit``/``validate`` is called. A plugin
    may declare ``operations`` (a frozenset of CREATE/UPDATE/DELETE/CONNECT, upstream's
    ``admission.NewHandler(ops...)``): the chain then asks it only about requests of those operations,
    so a heartbeat UPDATE costs nothing in the CREATE-only plugins."""

    name: str

    def handles(self, request: AdmissionRequest) -> bool: ...


class AdmissionDenied(Exception):
    """Raised by a user hook to reject a request with a message (and optionally a code)."""

    def __init__(self, message: str, *, code: int = 403, reason: str = "Forbidden") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason


HookFn = Callable[[AdmissionRequest], Awaitable[None]]


class AdmissionHook:
    """A registered user hook (the in-process equivalent of an admission webhook)."""

    def __init__(
        self, fn: HookFn, *, name: str, mutating: bool, resources: Sequence[tuple[str, str] | str],
        operations: Sequence[str], subresources: Sequence[str] = ("",),
    ) -> None:
        self.fn = fn
        self.name = name
        self.mutating = mutating
        self.resources = {r if isinstance(r, str) else f"{r[0]}/{r[1]}" for r in resources}
        self.operations = {op.upper() for op in operations}
        self.subresources = set(subresources)

    def matches(self, req: AdmissionRequest) -> bool:
        if "*" not in self.operations and req.operation not in self.operations:
            return False
        if "*" not in self.subresources and req.subresource not in self.subresources:
            return False
        return "*" in self.resources or f"{req.group}/{req.resource}" in self.resources

    async def __call__(self, req: AdmissionRequest) -> None:
        try:
            await self.fn(req)
        except AdmissionDenied as e:
            msg = f'admission webhook "{self.name}" denied the request: {e.message}'
            raise ApiError(Status(
                message=msg, reason=e.reason, code=e.code,
                details=StatusDetails(name=req.name or None, group=req.group, kind=req.resource),
            )) from None


class AdmissionChain:
    """Built-in plugins plus user hooks, split into the mutating and validating phases."""

    def __init__(self, mutating: Iterable[Any] = (), validating: Iterable[Any] = ()) -> None:
        # fixed at construction (tuples), so the per-operation lists below never go stale
        self.mutating_plugins: tuple[Any, ...] = tuple(mutating)
        self.validating_plugins: tuple[Any, ...] = tuple(validating)
        self.hooks: list[AdmissionHook] = []
        # (phase, operation) -> the plugins whose ``operations`` include it, in chain order (Handles(op))
        self._by_operation: dict[tuple[bool, str], list[Any]] = {}
        #: a resource registry: set (as a Cluster's apiserver does), hooks accept every resource naming
        self.registry: Any = None

    def _canonical(self, ref: Any) -> tuple[str, str] | str:
        if ref == "*" or self.registry is None:
            return ref  # type: ignore[no-any-return]
        if isinstance(ref, tuple):  # (group, plural), as before
            ref = f"{ref[0]}/{ref[1]}" if ref[0] else ref[1]
        try:
            info = self.registry.lookup(ref)
        except KeyError as e:
            raise ValueError(f"unknown resource {ref!r} for an admission hook: {e.args[0] if e.args else ''}"
                             ) from None
        return (info.group, info.plural)

    def register(
        self, fn: HookFn, *, name: str | None = None, mutating: bool = False,
        resources: Sequence[Any] = ("*",), operations: Sequence[str] = ("CREATE", "UPDATE"),
        subresources: Sequence[str] = ("",),
    ) -> AdmissionHook:
        """Register ``async def fn(request)`` for ``resources`` (a Struct class, ``"pods"``, ``"deploy"``,
        ``"widgets.example.com"``, ``"apps/deployments"``, ``(group, plural)`` or ``"*"``; an unknown name is
        a ``ValueError``), ``operations`` and ``subresources``."""
        resources = [self._canonical(r) for r in resources]
        hook = AdmissionHook(
            fn, name=name or str(getattr(fn, "__name__", "hook")), mutating=mutating, resources=resources,
            operations=operations, subresources=subresources,
        )
        self.hooks.append(hook)
        return hook

    def unregister(self, hook: AdmissionHook) -> None:
        self.hooks.remove(hook)

    def _plugins(self, mutating: bool, operation: str) -> list[Any]:
        hit = self._by_operation.get((mutating, operation))
        if hit is None:
            plugins = self.mutating_plugins if mutating else self.validating_plugins
            hit = [p for p in plugins if operation in getattr(p, "operations", (operation,))]
            self._by_operation[(mutating, operation)] = hit
        return hit

    async def admit(self, req: AdmissionRequest) -> None:
        """Mutating phase."""
        for p in self._plugins(True, req.operation):
            if p.handles(req):
                p.admit(req)
        for h in self.hooks:
            if h.mutating and h.matches(req):
                await h(req)

    async def validate(self, req: AdmissionRequest) -> None:
        """Validating phase."""
        for p in self._plugins(False, req.operation):
            if p.handles(req):
                p.validate(req)
        for h in self.hooks:
            if not h.mutating and h.matches(req):
                await h(req)

    @property
    def has_mutating_hooks(self) -> bool:
        return any(h.mutating for h in self.hooks)
