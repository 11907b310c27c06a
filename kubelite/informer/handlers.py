"""Event handlers: client-go ``ResourceEventHandler`` and friends (``tools/cache/controller.go``).

Contract:
- A handler receives notifications, not a diff log: ``on_add(obj, is_in_initial_list)``,
  ``on_update(old, new)`` and ``on_delete(obj)``. ``on_update`` also fires on periodic resyncs and
  relists, with ``old`` and ``new`` carrying the same resourceVersion; ``on_delete`` may receive a
  :class:`~kubelite.informer.store.DeletedFinalStateUnknown` whose ``obj`` is the last (possibly
  stale) state the cache knew, when the deletion was only discovered by relisting.
- The objects are the informer cache's own objects, shared with every other handler and lister.
  **Handlers must not mutate them**; copy first (``copy.deepcopy`` or :func:`kubelite.api.views.thaw` for a
  mutable deep copy; ``copy.copy`` for a mutable top level over shared children). The control plane's
  informers hand out frozen shared views (:mod:`kubelite.api.views`), so a mutation raises
  ``SharedViewMutated`` at once; a user's informer gets private objects.
- A method may be a plain function or a coroutine function. Each handler runs in its own task and
  gets its notifications in order, one at a time: an ``await`` inside a handler delays only that
  handler (its notifications are buffered without bound), never the informer or other handlers.
- An exception raised by a handler is logged and the next notification is delivered a second later
  (upstream's HandleCrash plus sleep-after-crash); the handler is not removed.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

__all__ = [
    "FilteringResourceEventHandler",
    "ResourceEventHandler",
    "ResourceEventHandlerFuncs",
]

#: What a handler method returns: None, or an awaitable the listener awaits before the next notification.
HandlerResult = Awaitable[None] | None


class ResourceEventHandler(Protocol):
    """Anything with these three methods can be registered with ``add_event_handler``."""

    def on_add(self, obj: Any, is_in_initial_list: bool) -> HandlerResult:
        """An object was added (``is_in_initial_list``: part of the first list)."""

    def on_update(self, old: Any, new: Any) -> HandlerResult:
        """An object changed (``old is new``-ish equal resourceVersions: a resync)."""

    def on_delete(self, obj: Any) -> HandlerResult:
        """An object was deleted (possibly a ``DeletedFinalStateUnknown`` tombstone)."""


def _ignore_add(obj: Any, is_in_initial_list: bool) -> None:
    return None


def _ignore_update(old: Any, new: Any) -> None:
    return None


def _ignore_delete(obj: Any) -> None:
    return None


class ResourceEventHandlerFuncs:
    """Adapts up to three callables (sync or async) to a :class:`ResourceEventHandler`; a missing one
    ignores its notifications. ``on_add`` may take ``(obj)`` or ``(obj, is_in_initial_list)``.

    ``on_add``/``on_update``/``on_delete`` are attributes bound once at construction, to the given
    function itself whenever its signature allows: the listener then calls the user's function with
    no adapter frame in between (this sits on every event's path)."""

    __slots__ = ("on_add", "on_delete", "on_update")

    on_add: Callable[[Any, bool], HandlerResult]
    on_update: Callable[[Any, Any], HandlerResult]
    on_delete: Callable[[Any], HandlerResult]

    def __init__(
        self,
        on_add: Callable[..., HandlerResult] | None = None,
        on_update: Callable[[Any, Any], HandlerResult] | None = None,
        on_delete: Callable[[Any], HandlerResult] | None = None,
    ) -> None:
        if on_add is None:
            self.on_add = _ignore_add
        elif _accepts_two_args(on_add):
            self.on_add = on_add
        else:
            add_one = on_add

            def add_without_initial(obj: Any, is_in_initial_list: bool) -> HandlerResult:
                return add_one(obj)

            self.on_add = add_without_initial
        self.on_update = on_update if on_update is not None else _ignore_update
        self.on_delete = on_delete if on_delete is not None else _ignore_delete

    def __repr__(self) -> str:
        # names, never addresses: this appears in log lines, which must replay byte for byte
        fns = (self.on_add, self.on_update, self.on_delete)
        return f"ResourceEventHandlerFuncs({', '.join(getattr(f, '__qualname__', type(f).__qualname__) for f in fns)})"


def describe_handler(handler: Any) -> str:
    """A handler's name for logs: its own ``repr`` if it defines one, else its type's qualified name (the
    default ``repr`` holds a memory address, which differs between runs)."""
    if type(handler).__repr__ is object.__repr__:  # type: ignore[comparison-overlap]
        return type(handler).__qualname__
    return repr(handler)


def _accepts_two_args(fn: Callable[..., Any]) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: assume the full form
        return True
    try:
        sig.bind(None, None)
    except TypeError:
        return False
    return True


class FilteringResourceEventHandler:
    """Applies ``filter_func`` to every notification and forwards to ``handler`` (upstream
    ``FilteringResourceEventHandler``): an update whose old object passed and new one does not becomes
    ``on_delete(old)``; the reverse becomes ``on_add(new, False)``."""

    __slots__ = ("filter_func", "handler")

    def __init__(self, filter_func: Callable[[Any], bool], handler: ResourceEventHandler) -> None:
        self.filter_func = filter_func
        self.handler = handler

    def on_add(self, obj: Any, is_in_initial_list: bool) -> HandlerResult:
        """``on_add`` of the wrapped handler if the object passes the filter."""
        if not self.filter_func(obj):
            return None
        return self.handler.on_add(obj, is_in_initial_list)

    def on_update(self, old: Any, new: Any) -> HandlerResult:
        """Upstream's filtering: both pass -> update; only the new -> add; only the old -> delete."""
        was, now = self.filter_func(old), self.filter_func(new)
        if was and now:
            return self.handler.on_update(old, new)
        if now:
            return self.handler.on_add(new, False)
        if was:
            return self.handler.on_delete(old)
        return None

    def on_delete(self, obj: Any) -> HandlerResult:
        """``on_delete`` of the wrapped handler if the object passes the filter."""
        if not self.filter_func(obj):
            return None
        return self.handler.on_delete(obj)
