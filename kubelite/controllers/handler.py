"""Event handlers: how informer events turn into reconcile requests (controller-runtime ``pkg/handler``).

- :class:`EnqueueRequestForObject`: the object itself.
- :class:`EnqueueRequestForOwner`: the owner named by the object's ownerReferences (by default only the
  managing controller, ``controller: true``), matched by the owner's apiVersion group and kind.
- :class:`EnqueueRequestsFromMapFunc`: whatever requests a function returns for the object.
Handlers see the informer cache's objects and must not mutate them. ``DeletedFinalStateUnknown``
tombstones are unwrapped to the last known object.

:class:`EnqueueRequestForObject` runs once per event of every primary watch: it reads the two metadata
fields it needs directly (Struct or dict) and builds the :class:`Request` without the NamedTuple's
Python-level ``__new__``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

import msgspec

from kubelite.controllers.reconcile import Request
from kubelite.informer import DeletedFinalStateUnknown, meta_of

__all__ = [
    "EnqueueRequestForObject",
    "EnqueueRequestForOwner",
    "EnqueueRequestsFromMapFunc",
    "EventHandler",
    "owner_references",
    "request_for",
    "unwrap",
]

Enqueue = Callable[[Request], None]

_tuple_new = tuple.__new__
_EMPTY: dict[str, Any] = {}


def request_for(obj: Any) -> Request:
    """The request naming ``obj`` (a Struct, a dict or a tombstone): its namespace ("" if none) and name."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    if isinstance(obj, dict):
        m = obj.get("metadata") or _EMPTY
        ns, name = m.get("namespace") or "", m.get("name") or ""
    else:
        meta = obj.metadata
        if meta is None:
            ns = name = ""
        else:
            ns, name = meta.namespace or "", meta.name or ""
    # what Request(ns, name) does, minus namedtuple's generated __new__ frame
    return _tuple_new(Request, (ns, name))


def unwrap(obj: Any) -> Any:
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


def owner_references(obj: Any) -> list[dict[str, Any]]:
    """The object's ownerReferences as dicts, for Structs and dicts alike."""
    obj = unwrap(obj)
    if isinstance(obj, msgspec.Struct):
        meta = getattr(obj, "metadata", None)
        refs = getattr(meta, "owner_references", None) if meta is not None else None
        return [msgspec.to_builtins(r) for r in refs or ()]
    return list(((obj.get("metadata") or {}).get("ownerReferences")) or ())


class EventHandler(Protocol):
    """Maps an informer event to requests (controller-runtime ``handler.EventHandler``). Handlers run in the
    informer's delivery task: keep them cheap and never mutate the (shared) objects."""
    def create(self, obj: Any, enqueue: Enqueue) -> None:
        """An object appeared (or was listed): enqueue requests."""

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        """An object changed from ``old`` to ``new``: enqueue requests."""

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        """An object was deleted (possibly a tombstone): enqueue requests."""


class EnqueueRequestForObject:
    """Enqueue the object's own namespace/name (controller-runtime ``handler.EnqueueRequestForObject``)."""
    def create(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue the created object."""
        enqueue(request_for(obj))

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        """Enqueue the updated object."""
        enqueue(request_for(new))

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue the deleted object."""
        enqueue(request_for(obj))


class EnqueueRequestForOwner:
    """Map an owned object to its owner's request (``handler.EnqueueRequestForOwner``)."""

    def __init__(self, owner_api_version: str, owner_kind: str, *, only_controller: bool = True) -> None:
        self.group = owner_api_version.rpartition("/")[0] if "/" in owner_api_version else ""
        self.kind = owner_kind
        self.only_controller = only_controller

    def _requests(self, obj: Any) -> Iterable[Request]:
        obj = unwrap(obj)
        ns = meta_of(obj).namespace or ""
        for ref in owner_references(obj):
            api_version = ref.get("apiVersion", "")
            group = api_version.rpartition("/")[0] if "/" in api_version else ""
            if ref.get("kind") != self.kind or group != self.group:
                continue
            if self.only_controller and not ref.get("controller"):
                continue
            yield Request(ns, ref.get("name", ""))

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue the created object's owner(s) of the configured kind."""
        for r in self._requests(obj):
            enqueue(r)

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        # both: an object whose owner changed must wake the old owner too
        """Enqueue the owners of both the old and the new object (an owner change notifies both)."""
        seen = set()
        for r in [*self._requests(old), *self._requests(new)]:
            if r not in seen:
                seen.add(r)
                enqueue(r)

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue the deleted object's owner(s) of the configured kind."""
        for r in self._requests(obj):
            enqueue(r)


class EnqueueRequestsFromMapFunc:
    """Enqueue what a map function returns for the object (controller-runtime
    ``handler.EnqueueRequestsFromMapFunc``)."""
    def __init__(self, fn: Callable[[Any], Iterable[Request]]) -> None:
        self.fn = fn

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue ``fn(obj)``."""
        for r in self.fn(unwrap(obj)):
            enqueue(r)

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        """Enqueue ``fn(old)`` and ``fn(new)`` (each request once)."""
        seen = set()
        for r in [*self.fn(unwrap(old)), *self.fn(unwrap(new))]:
            if r not in seen:
                seen.add(r)
                enqueue(r)

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        """Enqueue ``fn(obj)``."""
        for r in self.fn(unwrap(obj)):
            enqueue(r)
