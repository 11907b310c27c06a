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
- Every built-in plugin states its place in the per-template create memo
  (:mod:`kubelite.apiserver.registry.templates`) as ``template_tables``: ``None`` for a plugin that runs
  on every create and never changes the object's template field (its spec), or the tables whose
  contents, with the spec, decide all the plugin does to a create (the memo keys on their revisions and
  skips the plugin on a hit). A plugin that states nothing, or a user hook on the resource, turns the
  memo off for it.
- A caching plugin that gives the object a name of its own (upstream's ServiceAccount plugin names the
  projected token volume ``kube-api-access-<5 random chars>``) draws it with :func:`generate_name`, which
  records it on the request: the memo then replays the draw on a hit, at the same step of the RNG's
  sequence, and puts the new name wherever the recorded one stood (``templates.Template.for_object``).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import ApiError, Status, StatusDetails
from kubelite.rand import random_suffix

__all__ = ["AdmissionChain", "AdmissionDenied", "AdmissionHook", "AdmissionPlugin", "ObjectReader", "generate_name"]


def generate_name(req: AdmissionRequest, rng: random.Random, base: str) -> str:
    """``base`` and 5 random characters, as upstream's ``names.SimpleNameGenerator.GenerateName`` makes
    them (the ServiceAccount plugin's ``kube-api-access-`` volume), drawn from the cluster's ``rng`` and
    recorded on ``req`` (``req.generated``), so a per-template create memo hit draws the same."""
    name = base + random_suffix(rng)
    req.generated.append((base, name))
    return name


class ObjectReader(Protocol):
    """Read access to the stored state for admission plugins (upstream plugins use listers)."""

    def read(self, group: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None: ...

    def read_all(self, group: str, plural: str, namespace: str | None = None) -> list[dict[str, Any]]: ...


class AdmissionPlugin(Protocol):
    """A built-in plugin. ``handles`` filters cheaply before ``admit``/``validate`` is called. A plugin
    may declare ``operations`` (a frozenset of CREATE/UPDATE/DELETE/CONNECT, upstream's
    ``admission.NewHandler(ops...)``): the chain then asks it only about requests of those operations,
    so a heartbeat UPDATE costs nothing in the CREATE-only plugins. It may also declare ``resources`` (a
    frozenset of ``(group, resource)``, the kinds its ``handles`` can be true for): the chain then asks
    it only about those, so an Event create meets one mutating plugin instead of seven
    (``tests/apiserver/admission/test_chain_resources.py`` holds every declaration to its ``handles``)."""

    name: str

    def handles(self, request: AdmissionRequest) -> bool: ...


_UNSTATED: Any = object()


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
        # template_tables per (group, plural), valid while _hooks_version is unchanged (the plugin lists
        # are fixed once the chain is built)
        self._template_tables: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}
        self._hooks_version = 0
        # (phase, operation, templated, group, resource) -> the plugins whose ``operations`` include the operation
        # and whose ``resources`` the resource, in chain order (Handles(op); fixed with the plugin lists)
        self._by_operation: dict[tuple[bool, str, bool, str, str], list[Any]] = {}
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
        self._hooks_version += 1
        return hook

    def unregister(self, hook: AdmissionHook) -> None:
        self.hooks.remove(hook)
        self._hooks_version += 1

    def _plugins(self, mutating: bool, operation: str, templated: bool, group: str, resource: str) -> list[Any]:
        """The plugins of a phase asked about ``operation`` on ``group/resource``; ``templated``: less those
        whose effect the per-template create memo holds (``template_tables`` not None)."""
        key = (mutating, operation, templated, group, resource)
        hit = self._by_operation.get(key)
        if hit is None:
            plugins = self.mutating_plugins if mutating else self.validating_plugins
            hit = [p for p in plugins if operation in getattr(p, "operations", (operation,))
                   and (group, resource) in getattr(p, "resources", ((group, resource),))
                   and not (templated and p.template_tables is not None)]
            self._by_operation[key] = hit
        return hit

    def sees(self, req: AdmissionRequest) -> bool:
        """Whether either phase would do anything with ``req``: a plugin of its operation handles it or a
        user hook matches it (False: :meth:`admit` and :meth:`validate` are no-ops that never await)."""
        for h in self.hooks:
            if h.matches(req):
                return True
        op, group, resource = req.operation, req.group, req.resource
        for mutating in (True, False):
            for p in self._plugins(mutating, op, False, group, resource):
                if p.handles(req):
                    return True
        return False

    async def admit(self, req: AdmissionRequest, *, templated: bool = False) -> None:
        """Mutating phase. ``templated``: the object's template share comes from the create memo, so the
        plugins whose effect it holds are skipped."""
        for p in self._plugins(True, req.operation, templated, req.group, req.resource):
            if p.handles(req):
                p.admit(req)
        for h in self.hooks:
            if h.mutating and h.matches(req):
                await h(req)

    async def validate(self, req: AdmissionRequest, *, templated: bool = False) -> None:
        """Validating phase (``templated`` as for :meth:`admit`)."""
        for p in self._plugins(False, req.operation, templated, req.group, req.resource):
            if p.handles(req):
                pending = p.validate(req)
                if pending is not None:  # a plugin that writes (ResourceQuota's charge) hands back its await
                    await pending
        for h in self.hooks:
            if not h.mutating and h.matches(req):
                await h(req)

    def template_tables(self, group: str, plural: str) -> tuple[tuple[str, str], ...] | None:
        """The tables a create of ``group/plural`` through the template memo must key on (every caching
        plugin's, in plugin order, without repeats); None when the memo may not serve such a create: a
        plugin states no ``template_tables`` or a user hook may see the create."""
        cached = self._template_tables.get((group, plural), _UNSTATED)
        version = (self._hooks_version, len(self.hooks))
        if cached is not _UNSTATED and cached[0] == version:
            return cached[1]  # type: ignore[no-any-return]
        out = self._compute_template_tables(group, plural)
        self._template_tables[(group, plural)] = (version, out)
        return out

    def _compute_template_tables(self, group: str, plural: str) -> tuple[tuple[str, str], ...] | None:
        res = f"{group}/{plural}"
        for h in self.hooks:
            if ("*" in h.operations or "CREATE" in h.operations) and ("*" in h.subresources or "" in h.subresources) \
                    and ("*" in h.resources or res in h.resources):
                return None
        out: dict[tuple[str, str], None] = {}
        for p in (*self.mutating_plugins, *self.validating_plugins):
            tables = getattr(p, "template_tables", _UNSTATED)
            if tables is _UNSTATED:
                return None
            if tables is not None:
                out.update(dict.fromkeys(tables))
        return tuple(out)

    @property
    def has_mutating_hooks(self) -> bool:
        return any(h.mutating for h in self.hooks)
