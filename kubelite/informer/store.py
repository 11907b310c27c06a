"""Stores, keys and tombstones: client-go ``tools/cache/store.go``.

Contract:
- An object's key is ``namespace/name`` for namespaced objects and ``name`` for cluster-scoped ones
  (:func:`meta_namespace_key_func`); :func:`split_meta_namespace_key` inverts it.
- A :class:`DeletedFinalStateUnknown` is the tombstone an informer delivers when it learned of a
  deletion only by relisting (the watch missed the DELETED event): its ``obj`` is the last state the
  cache knew, which may be stale. Handlers' ``on_delete`` must accept it as well as a real object.
- :class:`Indexer` is the informer's cache (upstream's ``cache`` built by ``NewIndexer``): a
  :class:`~kubelite.informer.thread_safe_store.ThreadSafeStore` that computes keys itself. Only the
  informer writes to it (through ``process_deltas``); everyone else reads. Objects are shared by
  reference: readers must treat them as immutable.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import msgspec

from kubelite.informer.index import Indexers
from kubelite.informer.thread_safe_store import ThreadSafeStore

__all__ = [
    "DeletedFinalStateUnknown",
    "Indexer",
    "KeyFunc",
    "KeyListerGetter",
    "Store",
    "deletion_handling_meta_namespace_key_func",
    "key_func_for",
    "meta_namespace_key_func",
    "split_meta_namespace_key",
]

KeyFunc = Callable[[Any], str]

_EMPTY: dict[str, Any] = {}


class DeletedFinalStateUnknown:
    """An object deleted while the watch was down; ``obj`` is its last known (possibly stale) state,
    or None if even that is unknown."""

    __slots__ = ("key", "obj")

    def __init__(self, key: str, obj: Any) -> None:
        self.key = key
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DeletedFinalStateUnknown) and self.key == other.key and self.obj == other.obj
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DeletedFinalStateUnknown(key={self.key!r}, obj={self.obj!r})"


def meta_namespace_key_func(obj: Any) -> str:
    """``namespace/name``, or ``name`` when the object has no namespace (upstream
    ``MetaNamespaceKeyFunc``). A plain string is taken as an explicit key (upstream ``ExplicitKey``)."""
    if isinstance(obj, dict):
        m = obj.get("metadata") or {}
        ns = m.get("namespace")
        name: str = m.get("name") or ""
        return f"{ns}/{name}" if ns else name
    if isinstance(obj, str):
        return obj
    m = obj.metadata
    ns = m.namespace
    return f"{ns}/{m.name}" if ns else (m.name or "")


def deletion_handling_meta_namespace_key_func(obj: Any) -> str:
    """Like :func:`meta_namespace_key_func` but a tombstone yields its recorded key (upstream
    ``DeletionHandlingMetaNamespaceKeyFunc``)."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return meta_namespace_key_func(obj)


def _struct_key(obj: Any) -> str:
    """:func:`deletion_handling_meta_namespace_key_func` for a generated Struct: attribute reads only,
    no type tests (anything without ``metadata``, such as a tombstone or a dict, takes the general path)."""
    try:
        m = obj.metadata
        ns = m.namespace
        name = m.name
    except AttributeError:
        return deletion_handling_meta_namespace_key_func(obj)
    return f"{ns}/{name}" if ns else (name or "")


def _dict_key(obj: Any) -> str:
    """:func:`deletion_handling_meta_namespace_key_func` for a plain dict object (exactly ``dict``)."""
    if type(obj) is not dict:
        return deletion_handling_meta_namespace_key_func(obj)
    m = obj.get("metadata") or _EMPTY
    ns = m.get("namespace")
    name: str = m.get("name") or ""
    return f"{ns}/{name}" if ns else name


def key_func_for(resource: Any) -> KeyFunc:
    """:func:`deletion_handling_meta_namespace_key_func`, specialised once for the objects a client
    returns for ``resource`` (a Struct class: Structs; anything else: dicts). The result is the same
    for every input; a guess that does not match the objects only costs speed."""
    if isinstance(resource, type) and issubclass(resource, msgspec.Struct):
        return _struct_key
    return _dict_key


def split_meta_namespace_key(key: str) -> tuple[str, str]:
    """``"ns/name"`` -> ``("ns", "name")``, ``"name"`` -> ``("", "name")``; ValueError otherwise."""
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f'unexpected key format: "{key}"')


class KeyListerGetter(Protocol):
    """What a DeltaFIFO needs to know about the objects its consumer already has."""

    def list_keys(self) -> list[str]:
        """Every key."""

    def get_by_key(self, key: str) -> Any | None:
        """The object under ``key``, or None."""


class Store(Protocol):
    """A key-computing object store (upstream ``cache.Store``); the Reflector writes into one."""

    def add(self, obj: Any) -> None:
        """Insert or replace ``obj`` under its key."""

    def update(self, obj: Any) -> None:
        """Insert or replace ``obj`` under its key."""

    def delete(self, obj: Any) -> None:
        """Remove ``obj``'s key."""

    def list(self) -> builtins.list[Any]:
        """Every stored object."""

    def list_keys(self) -> builtins.list[str]:
        """Every key."""

    def get(self, obj: Any) -> Any | None:
        """The stored object with ``obj``'s key, or None."""

    def get_by_key(self, key: str) -> Any | None:
        """The object under ``key``, or None."""

    def replace(self, items: Iterable[Any], resource_version: str) -> None:
        """Replace the whole content with ``items``."""

    def resync(self) -> None:
        """Resync (meaningful for queues; a no-op for caches)."""


class Indexer:
    """An indexed store that computes keys with ``key_func`` (see the module docstring); upstream's
    ``cache`` over a ``threadSafeMap``. The keyed store is :attr:`thread_safe_store`."""

    __slots__ = ("_tss", "_tss_delete", "_tss_update", "key_func", "thread_safe_store")

    def __init__(self, key_func: KeyFunc = deletion_handling_meta_namespace_key_func,
                 indexers: Indexers | None = None) -> None:
        self.key_func = key_func
        self.thread_safe_store = self._tss = ThreadSafeStore(indexers)
        # bound methods cached: add/update/delete run once per watch event
        self._tss_update = self._tss.update
        self._tss_delete = self._tss.delete

    # --- cache.Store ---
    def add(self, obj: Any) -> None:
        """Insert or replace ``obj`` under its key."""
        self._tss_update(self.key_func(obj), obj)

    def update(self, obj: Any) -> None:
        """Insert or replace ``obj`` under its key."""
        self._tss_update(self.key_func(obj), obj)

    def delete(self, obj: Any) -> None:
        """Remove ``obj``'s key (a no-op if absent)."""
        self._tss_delete(self.key_func(obj))

    def list(self) -> builtins.list[Any]:
        """Every stored object."""
        return self._tss.list()

    def list_keys(self) -> builtins.list[str]:
        """Every stored key."""
        return self._tss.list_keys()

    def get(self, obj: Any) -> Any | None:
        """The stored object with ``obj``'s key, or None."""
        return self._tss.get(self.key_func(obj))

    def get_by_key(self, key: str) -> Any | None:
        """The object stored under ``key``, or None."""
        return self._tss.get(key)

    def replace(self, items: Iterable[Any], resource_version: str = "") -> None:
        """Replace the whole content with ``items`` (upstream ``Replace``)."""
        key_func = self.key_func
        self._tss.replace({key_func(o): o for o in items}, resource_version)

    def resync(self) -> None:
        """A no-op for a plain cache (upstream ``Resync``)."""
        self._tss.resync()

    def __len__(self) -> int:
        return len(self._tss)

    def __contains__(self, key: object) -> bool:
        return key in self._tss

    @property
    def resource_version(self) -> str:
        """The resourceVersion of the last :meth:`replace`."""
        return self._tss.resource_version

    # --- cache.Indexer ---
    def index(self, index_name: str, obj: Any) -> builtins.list[Any]:
        """The objects sharing any ``index_name`` value with ``obj`` (upstream ``Index``)."""
        return self._tss.index(index_name, obj)

    def by_index(self, index_name: str, indexed_value: str) -> builtins.list[Any]:
        """The objects whose ``index_name`` values include ``indexed_value`` (upstream ``ByIndex``)."""
        return self._tss.by_index(index_name, indexed_value)

    def index_keys(self, index_name: str, indexed_value: str) -> builtins.list[str]:
        """The keys whose ``index_name`` values include ``indexed_value`` (upstream ``IndexKeys``)."""
        return self._tss.index_keys(index_name, indexed_value)

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        """Every value ``index_name`` indexes under."""
        return self._tss.list_index_func_values(index_name)

    def get_indexers(self) -> Indexers:
        """The index functions by name."""
        return self._tss.get_indexers()

    def add_indexers(self, indexers: Indexers) -> None:
        """Add index functions and index the existing objects (``ValueError`` on a name conflict)."""
        self._tss.add_indexers(indexers)
