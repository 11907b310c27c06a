"""A keyed object map with secondary indices: client-go ``tools/cache/thread_safe_store.go``.

Contract:
- Keys are opaque strings chosen by the caller (the :class:`~kubelite.informer.store.Indexer` uses
  ``namespace/name``). ``add``/``update`` store the object under its key and re-index it; ``delete``
  removes it from the map and every index.
- Invariant: for every index name ``n`` and value ``v``, ``indices[n][v]`` holds exactly the keys whose
  object yields ``v`` from ``indexers[n]``; empty buckets are removed (so ``list_index_func_values``
  only returns values that still select something).
- Objects are stored by reference and handed out by reference: they are shared, read-only snapshots.
  Nobody may mutate an object after giving it to the store or after getting it from it (upstream's
  rule; the informer's handlers and listers see these very objects).
- Iteration order (``list``, ``list_keys``, ``by_index``) is insertion order, never hash order, so
  runs replay the same way with any ``PYTHONHASHSEED``.
- "Thread safe" in upstream's name: here every method is synchronous, so under asyncio each call is
  atomic without a lock.
"""

from __future__ import annotations

import builtins
from typing import Any

from kubelite.informer.index import Indexers, Indices

__all__ = ["ThreadSafeStore"]

# Shared, never mutated: the values of a missing object.
_NO_VALUES: builtins.list[str] = []


class ThreadSafeStore:
    """See the module docstring."""

    __slots__ = ("_indexers", "_indices", "_items", "resource_version")

    def __init__(self, indexers: Indexers | None = None) -> None:
        self._items: dict[str, Any] = {}
        self._indexers: Indexers = dict(indexers) if indexers else {}
        self._indices: Indices = {name: {} for name in self._indexers}
        # the resourceVersion of the last Replace (informational, like upstream's LastStoreSyncResourceVersion)
        self.resource_version = ""

    # --- writes ---
    def add(self, key: str, obj: Any) -> None:
        """Store ``obj`` under ``key`` and update the indices."""
        self.update(key, obj)

    def update(self, key: str, obj: Any) -> Any | None:
        """Store ``obj`` under ``key``; return the object it replaced (None if the key was new), which
        saves the informer a separate ``get`` per event."""
        items = self._items
        old = items.get(key)
        items[key] = obj
        if self._indexers:
            if old is None:
                self._index_new(obj, key)
            else:
                self._update_indices(old, obj, key)
        return old

    def delete(self, key: str) -> Any | None:
        """Remove ``key``; return the object it held (None if absent)."""
        obj = self._items.pop(key, None)
        if obj is not None and self._indexers:
            self._update_indices(obj, None, key)
        return obj

    def replace(self, items: dict[str, Any], resource_version: str = "") -> None:
        """Swap in a whole new map (takes ownership of ``items``) and rebuild every index."""
        self._items = items
        self.resource_version = resource_version
        self._indices = {name: {} for name in self._indexers}
        if self._indexers:
            for key, obj in items.items():
                self._index_new(obj, key)

    def resync(self) -> None:
        """Nothing to do for a plain store (upstream's Resync is a no-op here too)."""

    # --- reads ---
    def get(self, key: str) -> Any | None:
        """The object under ``key``, or None."""
        return self._items.get(key)

    def list(self) -> builtins.list[Any]:
        """Every stored object."""
        return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        """Every key."""
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    # --- indices ---
    def _index_func(self, index_name: str) -> Any:
        fn = self._indexers.get(index_name)
        if fn is None:
            raise KeyError(f"Index with name {index_name} does not exist")
        return fn

    def index(self, index_name: str, obj: Any) -> builtins.list[Any]:
        """Objects that share at least one indexed value with ``obj`` under ``index_name``."""
        values: builtins.list[str] = self._index_func(index_name)(obj)
        idx = self._indices[index_name]
        items = self._items
        if len(values) == 1:
            return [items[k] for k in idx.get(values[0], ())]
        keys: dict[str, None] = {}
        for v in values:
            keys.update(idx.get(v, {}))
        return [items[k] for k in keys]

    def by_index(self, index_name: str, indexed_value: str) -> builtins.list[Any]:
        """Objects whose ``index_name`` values include ``indexed_value``."""
        self._index_func(index_name)
        items = self._items
        return [items[k] for k in self._indices[index_name].get(indexed_value, ())]

    def index_keys(self, index_name: str, indexed_value: str) -> builtins.list[str]:
        """Store keys whose ``index_name`` values include ``indexed_value``, sorted (upstream sorts)."""
        self._index_func(index_name)
        return sorted(self._indices[index_name].get(indexed_value, ()))

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        """Every value currently indexed under ``index_name`` (empty for an unknown index, as upstream)."""
        return list(self._indices.get(index_name, ()))

    def get_indexers(self) -> Indexers:
        """The index functions by name."""
        return dict(self._indexers)

    def add_indexers(self, indexers: Indexers) -> None:
        """Add new index functions and index the existing objects with them; a name that is already
        taken raises ``ValueError`` (upstream ``indexer conflict``) and changes nothing."""
        conflict = sorted(set(self._indexers) & set(indexers))
        if conflict:
            raise ValueError(f"indexer conflict: {conflict}")
        for name, fn in indexers.items():
            self._indexers[name] = fn
            idx: dict[str, dict[str, None]] = {}
            self._indices[name] = idx
            for key, obj in self._items.items():
                for v in fn(obj):
                    idx.setdefault(v, {})[key] = None

    def _index_new(self, obj: Any, key: str) -> None:
        """``_update_indices(None, obj, key)`` for a key that was absent (the cold start's every object)."""
        indices = self._indices
        for name, fn in self._indexers.items():
            idx = indices[name]
            for v in fn(obj):
                bucket = idx.get(v)
                if bucket is None:
                    idx[v] = {key: None}
                else:
                    bucket[key] = None

    def _update_indices(self, old: Any | None, new: Any | None, key: str) -> None:
        indices = self._indices
        for name, fn in self._indexers.items():
            old_values: builtins.list[str] = fn(old) if old is not None else _NO_VALUES
            new_values: builtins.list[str] = fn(new) if new is not None else _NO_VALUES
            # The common case (a namespace, a node name) is one unchanged value: nothing to move.
            if len(new_values) == 1 and len(old_values) == 1 and new_values[0] == old_values[0]:
                continue
            idx = indices[name]
            for v in old_values:
                bucket = idx.get(v)
                if bucket is not None:
                    bucket.pop(key, None)
                    if not bucket:
                        del idx[v]
            for v in new_values:
                bucket = idx.get(v)
                if bucket is None:
                    idx[v] = {key: None}
                else:
                    bucket[key] = None
