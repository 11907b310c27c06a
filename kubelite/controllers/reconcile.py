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
raises an exception                ``add_rate_limited``: retried with backoff; logged at ERROR with
                                   the request (and, unless it is an ``ApiError``, its traceback,
                                   recorded as an unexpected component error); a 409 ``Conflict``
                                   (optimistic concurrency) is counted and logged at INFO
raises :class:`TerminalError`      ``forget``; logged at ERROR; not retried until the next event
raises :class:`TransientError`     like an ``ApiError``: retried, logged (at its ``log_level``), not
                                   unexpected
returns anything else (``True``)   a ``TypeError``, handled as a raised exception
=================================  ===========================================================

``Result(requeue=True)`` is deprecated, as controller-runtime deprecated ``Result.Requeue`` (v0.21):
raise an error for a rate-limited retry, or return ``Result(requeue_after=seconds)``. It still works
(a rate-limited requeue) and warns with ``DeprecationWarning``.

A reconciler is a coroutine: ``async def reconcile(request)`` or an object with one. A plain ``def``
is rejected when the controller is built, with a ``TypeError`` saying so.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, runtime_checkable

__all__ = ["ReconcileFunc", "Reconciler", "Request", "Result", "TerminalError", "TransientError", "as_reconciler",
           "check_reconciler"]


class Request(NamedTuple):
    """Which object to reconcile. Hashable; the workqueue key."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class Result:
    """What to do after a successful reconcile (controller-runtime ``reconcile.Result``):
    ``Result(requeue_after=30)`` reconciles the request again in 30 s; ``Result()`` (or ``None``) not
    until the next event. ``requeue=True`` is deprecated (see the module docstring)."""

    requeue_after: float = 0.0
    requeue: bool = False

    def __post_init__(self) -> None:
        if self.requeue:
            warnings.warn("Result(requeue=True) is deprecated (as controller-runtime's Result.Requeue): raise "
                          "an exception for a rate-limited retry or return Result(requeue_after=seconds)",
                          DeprecationWarning, stacklevel=3)
        if self.requeue_after < 0:
            raise ValueError(f"requeue_after must be >= 0, got {self.requeue_after}")


class TerminalError(Exception):
    """A failure that retrying cannot fix: the request is not requeued (until the next event);
    controller-runtime ``reconcile.TerminalError``."""


class TransientError(Exception):
    """An expected failure that a later retry fixes (the cache lags behind a write, a dependency is not
    ready yet): retried with backoff and logged like any error, but, like an ``ApiError``, not recorded
    as an unexpected component error (so the pytest plugin does not fail the test for it).

    ``log_level`` is the level the retry is logged at: ``"error"`` here; a subclass for a retry that is part
    of normal operation sets ``"info"`` (the EndpointSlice controller's stale-cache retry, which upstream's
    ``handleErr`` logs at Info), as a 409 ``Conflict`` is logged."""

    log_level: ClassVar[Literal["error", "info"]] = "error"


@runtime_checkable
class Reconciler(Protocol):
    """Anything with ``async def reconcile(self, request) -> Result | None`` (controller-runtime
    ``reconcile.Reconciler``)."""

    async def reconcile(self, request: Request) -> Result | None:
        """Reconcile the object ``request`` names (see the module docstring for what the outcome means)."""


ReconcileFunc = Callable[[Request], Awaitable[Result | None]]


class _FuncReconciler:
    def __init__(self, fn: ReconcileFunc) -> None:
        self._fn = fn
        self.__name__ = getattr(fn, "__name__", "reconcile")

    async def reconcile(self, request: Request) -> Result | None:
        return await self._fn(request)


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


def check_reconciler(obj: Any) -> None:
    """Raise ``TypeError`` naming the fix unless ``obj`` is a coroutine reconciler."""
    method = getattr(obj, "reconcile", None)
    if method is not None and not isinstance(obj, type):
        if not _is_async(method):
            raise TypeError(f"{type(obj).__name__}.reconcile must be a coroutine: write "
                            f"`async def reconcile(self, request)`")
        return
    if callable(obj) and not _is_async(obj):
        name = getattr(obj, "__name__", repr(obj))
        raise TypeError(f"reconciler {name!r} is a plain function: write `async def {name}(request)` "
                        f"(a reconciler is awaited)")


def as_reconciler(obj: Reconciler | ReconcileFunc | Any) -> Reconciler:
    """Accept a :class:`Reconciler` or an ``async def reconcile(request)`` function; ``TypeError`` for a
    plain ``def`` (naming the fix) or anything else."""
    if callable(obj) or hasattr(obj, "reconcile"):
        check_reconciler(obj)
    if isinstance(obj, Reconciler):
        return obj
    if callable(obj):
        return _FuncReconciler(obj)
    raise TypeError(f"not a reconciler: {obj!r}")
