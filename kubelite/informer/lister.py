"""Listers: typed, read-only views over an informer's cache; client-go ``tools/cache/listers.go``
(``ListAll``, ``ListAllByNamespace``) and the generated ``listers/<group>/<version>`` types.

Contract:
- A lister only reads the cache: no API request, no copy. What it returns are the cache's shared
  objects; callers must not mutate them (copy first).
- ``list(selector)`` returns the objects whose labels match (``None`` or an empty selector: all of
  them), in cache order. ``namespace(ns).list(...)`` uses the namespace index when there is one.
- ``get(name)`` raises :class:`kubelite.errors.NotFound` (``pods "x" not found``) for a missing
  object, exactly as the generated listers return ``errors.NewNotFound(resource, name)``.
"""

from __future__ import annotations

import functools
from typing import Any, Generic, TypeVar

from kubelite.api.labels import Selector, parse_selector
from kubelite.api.resources import Registry
from kubelite.errors import NotFound
from kubelite.informer.index import NAMESPACE_INDEX
from kubelite.informer.meta import labels_of, namespace_of
from kubelite.informer.store import Indexer

__all__ = ["Lister", "NamespaceLister", "group_resource_of"]

T = TypeVar("T")

SelectorLike = str | Selector | None


@functools.cache
def _builtin_registry() -> Registry:
    return Registry()


def group_resource_of(resource: Any) -> tuple[str, str]:
    """(group, plural) of a Struct class or a resource name (``"pods"``, ``"widgets.example.com"``);
    names the built-in registry does not know are read as ``plural.group``."""
    reg = _builtin_registry()
    try:
        info = reg.for_struct(resource) if isinstance(resource, type) else reg.resolve(str(resource))
    except KeyError:
        plural, _, group = str(resource).partition(".")
        return group, plural
    return info.group, info.plural


def _selector(selector: SelectorLike) -> Selector | None:
    """None when everything matches (so callers can skip matching entirely)."""
    if selector is None:
        return None
    if isinstance(selector, str):
        if not selector:
            return None
        selector = parse_selector(selector)
    return None if selector.empty() else selector


def _filter(objs: list[Any], selector: SelectorLike) -> list[Any]:
    sel = _selector(selector)
    if sel is None:
        return objs
    matches = sel.matches
    return [o for o in objs if matches(labels_of(o))]


class Lister(Generic[T]):
    """All objects of one informer. ``T`` is the object type (a Struct class, or dict)."""

    def __init__(self, indexer: Indexer, *, group: str, resource: str) -> None:
        self.indexer = indexer
        self.group = group
        self.resource = resource

    @classmethod
    def for_resource(cls, indexer: Indexer, resource: Any) -> Lister[Any]:
        """A lister over ``indexer`` typed for ``resource``."""
        group, plural = group_resource_of(resource)
        return Lister(indexer, group=group, resource=plural)

    def list(self, selector: SelectorLike = None) -> list[T]:
        """Every cached object matching ``selector`` (shared objects: do not mutate them)."""
        return _filter(self.indexer.list(), selector)

    def get(self, name: str) -> T:
        """A cluster-scoped object by name; NotFound if it is not in the cache."""
        obj = self.indexer.get_by_key(name)
        if obj is None:
            raise NotFound.for_object(self.group, self.resource, name)
        return obj  # type: ignore[no-any-return]

    def namespace(self, namespace: str) -> NamespaceLister[T]:
        """A lister restricted to ``namespace`` (upstream ``Listers().Namespace``)."""
        return NamespaceLister(self, namespace)


class NamespaceLister(Generic[T]):
    """The objects of one namespace (``""``: every namespace, upstream ``NamespaceAll``)."""

    def __init__(self, lister: Lister[T], namespace: str) -> None:
        self._lister = lister
        self.namespace = namespace

    def list(self, selector: SelectorLike = None) -> list[T]:
        """Every cached object of this namespace matching ``selector`` (shared objects)."""
        ns = self.namespace
        indexer = self._lister.indexer
        if not ns:
            return _filter(indexer.list(), selector)
        if NAMESPACE_INDEX in indexer.get_indexers():
            return _filter(indexer.by_index(NAMESPACE_INDEX, ns), selector)
        # no namespace index: scan (upstream logs a warning and does the same)
        return _filter([o for o in indexer.list() if namespace_of(o) == ns], selector)

    def get(self, name: str) -> T:
        """The cached object ``name`` in this namespace; ``NotFound`` if absent (shared: do not mutate)."""
        lister = self._lister
        obj = lister.indexer.get_by_key(f"{self.namespace}/{name}" if self.namespace else name)
        if obj is None:
            raise NotFound.for_object(lister.group, lister.resource, name)
        return obj  # type: ignore[no-any-return]
