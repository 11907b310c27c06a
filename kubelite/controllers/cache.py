"""A cache-backed reader: controller-runtime's ``cache.Cache`` as a ``client.Reader`` over the manager's
shared informers (``mgr.GetCache()`` / the reads of ``mgr.GetClient()``).

Guarantees:
- **Copies by default.** :meth:`CacheReader.get` and :meth:`CacheReader.list` return deep copies of
  the cached objects, so mutating a result can never corrupt the cache every controller reads from
  (client-go listers hand out the shared object and ask you not to; that is how a cache came to say 99
  replicas while the server said 1). ``copy=False`` returns the shared objects for read-only hot paths
  (controller-runtime's ``UnsafeDisableDeepCopy``).
- **Lazy informers.** The first read of a resource starts its informer (if the manager runs) and waits
  for it to sync, as controller-runtime's informer cache does; reads are then answered locally,
  eventually consistent with the server and never ahead of it.
- **Field indexes.** :meth:`CacheReader.index_field` registers an index (upstream ``IndexField``:
  the index is named ``field:<name>``, its values are namespaced); ``list(..., fields={name: value})``
  uses it. An exact-match field selector without an index is a ``ValueError`` naming the index to add.
- NotFound is raised for an absent object, as from the API (``kubelite.errors.NotFound``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

import msgspec

from kubelite.api.labels import Selector, parse_selector, selector_from_label_selector, selector_from_set
from kubelite.api.views import thaw
from kubelite.errors import NotFound
from kubelite.informer import SharedIndexInformer, SharedInformerFactory, wait_for_cache_sync
from kubelite.informer.meta import labels_of, namespace_of

__all__ = ["ALL_NAMESPACES_KEY", "CacheReader", "deep_copy", "field_index_name"]

S = TypeVar("S", bound=msgspec.Struct)

#: the namespace component of an index value that matches in every namespace (upstream ``allNamespacesNamespace``)
ALL_NAMESPACES_KEY = "__all_namespaces"



def deep_copy(obj: Any) -> Any:
    """A deep, mutable copy of an API object (a Struct or JSON-like data; a shared view too), through one
    encode/decode (:func:`kubelite.api.views.thaw`)."""
    return thaw(obj)


def field_index_name(field: str) -> str:
    """The indexer name of a field index (upstream ``FieldIndexName``)."""
    return f"field:{field}"


def _label_selector(labels: str | Mapping[str, Any] | None) -> Selector | None:
    if labels is None:
        return None
    if isinstance(labels, str):
        return parse_selector(labels)
    if "matchLabels" in labels or "matchExpressions" in labels:
        return selector_from_label_selector(labels)
    return selector_from_set({k: str(v) for k, v in labels.items()})


class CacheReader:
    """Reads from a :class:`~kubelite.informer.SharedInformerFactory`'s caches (see the module docstring)."""

    def __init__(self, informers: Callable[[], SharedInformerFactory], *, clock: Any,
                 namespaced: Callable[[Any], bool]) -> None:
        self._informers = informers
        self._clock = clock
        self._namespaced = namespaced

    def _informer(self, resource: Any) -> SharedIndexInformer:
        return self._informers().informer_for(resource)

    async def _synced(self, resource: Any) -> SharedIndexInformer:
        informer = self._informer(resource)
        if not informer.has_started():
            factory = self._informers()
            if not factory.supervisor.running:
                raise RuntimeError(f"the cache of {informer.name} is not running: start the manager first")
            factory.start()
        if not informer.has_synced():
            await wait_for_cache_sync(informer, clock=self._clock)
        return informer

    def index_field(self, resource: Any, field: str, extract: Callable[[Any], list[str] | None]) -> None:
        """Index ``resource``'s cached objects by ``extract(obj)`` (the values of ``field``), so that
        ``list(resource, fields={field: value})`` can be answered from the cache (upstream
        ``FieldIndexer.IndexField``). ``extract`` receives the shared cached object: it must not mutate it."""
        namespaced = self._namespaced(resource)

        def index(obj: Any) -> list[str]:
            values = extract(obj) or []
            out = [f"{ALL_NAMESPACES_KEY}/{v}" for v in values]
            if namespaced:
                ns = namespace_of(obj)
                out.extend(f"{ns}/{v}" for v in values)
            return out

        self._informers().informer_for(resource, indexers={field_index_name(field): index})

    @overload
    async def get(self, resource: type[S], name: str, *, namespace: str | None = ..., copy: bool = ...) -> S: ...
    @overload
    async def get(self, resource: str | tuple[str, str], name: str, *, namespace: str | None = ...,
                  copy: bool = ...) -> dict[str, Any]: ...

    async def get(self, resource: Any, name: str, *, namespace: str | None = None, copy: bool = True) -> Any:
        """The cached object (a copy unless ``copy=False``); NotFound if the cache does not have it."""
        informer = await self._synced(resource)
        namespaced = self._namespaced(resource)
        ns = (namespace or "default") if namespaced else ""
        key = f"{ns}/{name}" if ns else name
        obj = informer.get_indexer().get_by_key(key)
        if obj is None:
            raise NotFound.make(f'{informer.name} "{name}" not found', name=name)
        return deep_copy(obj) if copy else obj

    @overload
    async def list(self, resource: type[S], *, namespace: str | None = ..., labels: Any = ...,
                   fields: Mapping[str, str] | None = ..., copy: bool = ...) -> list[S]: ...
    @overload
    async def list(self, resource: str | tuple[str, str], *, namespace: str | None = ..., labels: Any = ...,
                   fields: Mapping[str, str] | None = ..., copy: bool = ...) -> list[dict[str, Any]]: ...

    async def list(self, resource: Any, *, namespace: str | None = None, labels: Any = None,
                   fields: Mapping[str, str] | None = None, copy: bool = True) -> list[Any]:
        """Cached objects (copies unless ``copy=False``), in key order: every namespace unless ``namespace``
        is given; filtered by a label selector (a string, a ``{key: value}`` map or a LabelSelector) and
        by exact field matches through field indexes."""
        informer = await self._synced(resource)
        indexer = informer.get_indexer()
        ns = None if namespace in (None, "", "*") or not self._namespaced(resource) else namespace
        if fields:
            keys: dict[str, None] | None = None
            for field, value in fields.items():
                name = field_index_name(field)
                if name not in indexer.get_indexers():
                    raise ValueError(f"the cache has no index for field {field!r} of {informer.name}: add it with "
                                     f"index_field({informer.name}, {field!r}, ...) before the first read")
                found = dict.fromkeys(indexer.index_keys(name, f"{ns or ALL_NAMESPACES_KEY}/{value}"))
                keys = found if keys is None else {k: None for k in keys if k in found}
            objs = [o for o in (indexer.get_by_key(k) for k in sorted(keys or ())) if o is not None]
        elif ns is not None:
            objs = sorted(indexer.by_index("namespace", ns), key=indexer.key_func)
        else:
            objs = sorted(indexer.list(), key=indexer.key_func)
        selector = _label_selector(labels)
        if selector is not None:
            objs = [o for o in objs if selector.matches(labels_of(o))]
        return [deep_copy(o) for o in objs] if copy else objs
