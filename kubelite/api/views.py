"""Shared views: one decoded object per stored object version, shared by every informer that asks.

client-go's shared informers hand every cache and every handler the same object per event; that sharing
is what makes many informers over one resource cheap. kubelite does the same across informers:

- The store keeps each version's JSON as :class:`StoredBytes` (a ``bytes`` able to carry attributes).
- :func:`shared_view` decodes a version once per target type (a Struct class, or None for a dict) and
  returns that same object to every later caller: a watch fan-out to N informers costs one decode and
  N references. The view is the control-plane view: managedFields are dropped, as
  kube-controller-manager's informer transform drops them (``trim`` in ``CreateControllerContext``).
- A version's views are kept while it is the current version and dropped when the store supersedes it
  (:func:`release_views`): the history window keeps bytes only, and an informer still behind by a whole
  version decodes that version privately (correct, just not shared). :data:`STATS` counts decodes and
  hits.

The isolation contract: **a shared view is read-only.** Only clients built with sharing on (the
cluster's own components, see ``Client.sharing_decodes``) receive views, and only through informers; a
user's client, its watches, lists and gets, and the operator framework's cache reader always get
private copies, so nothing a user does to an object can reach the control plane's caches or the store.
The components' side of the contract is checked: :func:`verify_views` compares every view with a fresh
decode and raises :class:`SharedViewMutated` (the cluster runs it over the store on exit).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.memo import memoize

__all__ = ["STATS", "SharedViewMutated", "StoredBytes", "ViewStats", "release_views", "shared_view", "verify_views"]

_untyped_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder()


class ViewStats:
    """Process-wide counters (plain ints): views decoded, views handed out again, fresh decodes of bytes
    that carry no views (re-encoded or superseded versions)."""

    __slots__ = ("decoded", "fresh", "hits")

    def __init__(self) -> None:
        self.decoded = 0
        self.hits = 0
        self.fresh = 0


STATS = ViewStats()
_RELEASED: dict[Any, Any] = {}  # the views of a superseded version (never filled)


# bound: one decoder per Struct type viewed (the generated API types)
@memoize("api.views.decoder", maxsize=1024)
def _decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(tp)


class StoredBytes(bytes):
    """The JSON bytes of one stored object version, able to carry that version's shared views.

    A plain ``bytes`` everywhere else (it compares, hashes, slices and joins as bytes). Its instance
    ``__dict__`` exists only once a view was asked for; the views live exactly as long as the bytes, so
    a version's views go when the store, its history and every watcher queue have let the version go.
    """

    views: dict[Any, Any]


class SharedViewMutated(RuntimeError):
    """A shared view no longer equals its stored bytes: someone mutated what an informer handed them."""


def _strip_managed_fields(obj: Any) -> Any:
    """kube-controller-manager's informer transform (``CreateControllerContext``'s ``trim``:
    ``accessor.SetManagedFields(nil)``): the control plane's caches do not keep managedFields."""
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if isinstance(meta, dict) and "managedFields" in meta:
            del meta["managedFields"]
        return obj
    meta = getattr(obj, "metadata", None)
    if meta is not None and getattr(meta, "managed_fields", None) is not None:
        meta.managed_fields = None
    return obj


def _fresh_view(data: bytes, tp: Any) -> Any:
    decoded = _untyped_decoder.decode(data) if tp is None else _decoder(tp).decode(data)
    return _strip_managed_fields(decoded)


def shared_view(data: bytes, tp: Any = None) -> Any:
    """The shared read-only view of one stored version as ``tp`` (a Struct class; None: a dict), without
    managedFields: decoded on the first call for ``(data, tp)``, the same object on every later one.
    Bytes that are not :class:`StoredBytes` (a re-encoded DELETED, a bookmark) get a fresh view."""
    if type(data) is not StoredBytes:
        STATS.fresh += 1
        return _fresh_view(data, tp)
    views = getattr(data, "views", None)
    if views is None:
        views = data.views = {}
    elif views is _RELEASED:  # superseded: no longer shared
        STATS.fresh += 1
        return _fresh_view(data, tp)
    else:
        view = views.get(tp)
        if view is not None:
            STATS.hits += 1
            return view
    STATS.decoded += 1
    view = views[tp] = _fresh_view(data, tp)
    return view


def release_views(data: bytes) -> None:
    """The store superseded this version: drop its views (their holders keep them) and share no more."""
    if getattr(data, "views", None) is not None:  # never viewed: nothing to drop (no __dict__ is made)
        data.views = _RELEASED  # type: ignore[attr-defined]


def verify_views(data: bytes, where: str = "") -> None:
    """Raise :class:`SharedViewMutated` if a shared view of ``data`` differs from a fresh decode."""
    if type(data) is not StoredBytes:
        return
    views = getattr(data, "views", None)
    if not views:
        return
    for tp, view in views.items():
        if view != _fresh_view(data, tp):
            name = "dict" if tp is None else getattr(tp, "__name__", str(tp))
            raise SharedViewMutated(
                f"a shared {name} view of {where or 'a stored object'} was mutated by its reader: informer "
                "objects are shared by every cache and handler and must not be changed (copy them first)"
            )
