"""The revisioned in-memory store with watches (kubelite's etcd and watch cache)."""

from kubelite.store.store import (
    COMPACT_BATCH_BYTES,
    COMPACT_BATCH_COUNT,
    COMPACT_MIN,
    CompactObject,
    ListResult,
    Store,
    StoredObject,
    Table,
    object_key,
)
from kubelite.store.watch import ADDED, BOOKMARK, DELETED, ERROR, MODIFIED, Watcher, WatchEvent

__all__ = [
    "ADDED", "BOOKMARK", "COMPACT_BATCH_BYTES", "COMPACT_BATCH_COUNT", "COMPACT_MIN", "DELETED", "ERROR", "MODIFIED", "CompactObject", "ListResult", "Store",
    "StoredObject", "Table", "WatchEvent", "Watcher", "object_key",
]
