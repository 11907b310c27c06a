"""The revisioned in-memory store with watches (kubelite's etcd and watch cache)."""

from kubelite.store.store import ListResult, Store, StoredObject, Table, object_key
from kubelite.store.watch import ADDED, BOOKMARK, DELETED, ERROR, MODIFIED, Watcher, WatchEvent

__all__ = [
    "ADDED", "BOOKMARK", "DELETED", "ERROR", "MODIFIED", "ListResult", "Store", "StoredObject", "Table",
    "WatchEvent", "Watcher", "object_key",
]
