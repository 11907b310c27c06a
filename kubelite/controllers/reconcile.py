"""The reconcile contract: the whole user-facing API of a controller, after controller-runtime's
``pkg/reconcile/reconcile.go``.

Reconciliation is **level-based**: a reconciler is told *which* object to look at (a :class:`Request`
names it by namespace and name), never *what happened* to it. It reads the current state (from the
informer cache), compares it with the desired state, and acts. Events may be coalesced, duplicated or
missed; a correct reconciler gives the same outcome whenever it runs.

The outcome of one reconcile maps to queue operations (see :func:`kubelite.controllers.controller`):

=================================  ===========================================================
outcome                            what the controller does with the request
=================================  ===========================================================
returns ``None`` or ``Result()``   ``forget`` (reset its backoff); nothing more until an event
``Result(requeue_after=t)``        ``forget``, then ``add_after(t)``
``Result(requeue=True)``           ``add_rate_limited`` (per-item exponential backoff)
raises an exception                ``add_rate_limited``: retried with backoff
raises :class:`TerminalError`      ``forget``; logged; not retried until the next event
=================================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, Protocol, runtime_checkable

__all__ = ["ReconcileFunc", "Reconciler", "Request", "Result", "TerminalError", "as_reconciler"]


class Request(NamedTuple):
    """Which object to reconcile. Hashable; the workqueue key."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


class Result(NamedTuple):
    """What to do after a successful reconcile (see the table in the module docstring)."""

    requeue_after: float = 0.0
    requeue: bool = False


class TerminalError(Exception):
    """A failure that retrying cannot fix: the request is not requeued (until the next event)."""


@runtime_checkable
class Reconciler(Protocol):
    async def reconcile(self, request: Request) -> Result | None: ...


ReconcileFunc = Callable[[Request], Awaitable[Result | None]]


class _FuncReconciler:
    def __init__(self, fn: ReconcileFunc) -> None:
        self._fn = fn
        self.__name__ = getattr(fn, "__name__", "reconcile")

    async def reconcile(self, request: Request) -> Result | None:
        return await self._fn(request)


def as_reconciler(obj: Reconciler | ReconcileFunc | Any) -> Reconciler:
    """Accept a :class:`Reconciler` or a plain ``async def reconcile(request)`` function."""
    if isinstance(obj, Reconciler):
        return obj
    if callable(obj):
        return _FuncReconciler(obj)
    raise TypeError(f"not a reconciler: {obj!r}")
