"""The store tables the apiserver serves, one per registered resource.

:class:`ResourceTables` pairs the resource :class:`~kubelite.api.resources.Registry` (names) with the
store's tables (objects): adding a resource registers its table with its field selectors and the
trigger field watchers may be pinned to; removing it drops both. It also serves the decoded, cached
reads admission plugins use (the ``ObjectReader`` protocol). Callers must not mutate what it returns.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.fields import object_fields
from kubelite.api.resources import Registry, ResourceInfo
from kubelite.errors import NotFound
from kubelite.store import Store, StoredObject, Table

__all__ = ["ResourceTables"]

# (group, plural) -> the field watchers may be pinned to, as upstream's storage TriggerFuncs: a kubelet
# watches its node's pods (pod.NodeNameTriggerFunc) and its own Node (node.NameTriggerFunc), so a write is
# offered to the watchers of that one node, not tested against every node's
_TRIGGER_FIELDS = {("", "pods"): "spec.nodeName", ("", "nodes"): "metadata.name"}
_OBJECT_CACHE_LIMIT = 4096


class ResourceTables:
    def __init__(self, store: Store, registry: Registry) -> None:
        self.store = store
        self.registry = registry
        self._tables: dict[tuple[str, str], Table] = {}
        self._read_cache: dict[tuple[str, str, str | None], tuple[int, Table, list[dict[str, Any]]]] = {}
        self._object_cache: dict[tuple[str, str, str, str], tuple[StoredObject, dict[str, Any]]] = {}

    def add(self, info: ResourceInfo, *, selectable_fields: tuple[str, ...] = ()) -> Table:
        group, plural = info.group, info.plural

        def fields_fn(obj: dict[str, Any]) -> dict[str, str]:
            return object_fields(group, plural, obj, selectable_fields)

        table = self.store.add_table(
            group, plural, namespaced=info.namespaced, fields_fn=fields_fn,
            trigger_field=_TRIGGER_FIELDS.get((group, plural)),
        )
        self._tables[(group, plural)] = table
        return table

    def remove(self, group: str, plural: str) -> None:
        self._tables.pop((group, plural), None)
        self.store.remove_table(group, plural)

    def __contains__(self, key: object) -> bool:
        return key in self._tables

    def table(self, info: ResourceInfo) -> Table:
        return self._tables[(info.group, info.plural)]

    def items(self) -> list[tuple[tuple[str, str], Table]]:
        return list(self._tables.items())

    def resource(self, group: str, plural: str) -> ResourceInfo:
        try:
            return self.registry.by_resource(group, plural)
        except KeyError:
            raise NotFound.make("the server could not find the requested resource") from None

    def last_write(self, group: str, plural: str) -> int:
        """The revision of the table's last write (-1 when the resource is not served): what the
        per-template create memo keys admission state on."""
        table = self._tables.get((group, plural))
        return -1 if table is None else table.last_write

    # --- ObjectReader for admission plugins ---
    def read(self, group: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        """One object, decoded; cached while the stored version is unchanged (NamespaceLifecycle reads the
        namespace on every create)."""
        table = self._tables.get((group, plural))
        if table is None:
            return None
        obj = self.store.get(table, namespace, name)
        if obj is None:
            return None
        key = (group, plural, namespace, name)
        hit = self._object_cache.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        decoded = obj.decode()
        if len(self._object_cache) > _OBJECT_CACHE_LIMIT:
            self._object_cache.clear()
        self._object_cache[key] = (obj, decoded)
        return decoded

    def read_all(self, group: str, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every object of a resource, decoded; cached until the table is next written (admission plugins
        such as Priority consult small tables on every pod create)."""
        table = self._tables.get((group, plural))
        if table is None:
            return []
        key = (group, plural, namespace)
        hit = self._read_cache.get(key)
        if hit is not None and hit[0] == table.last_write and hit[1] is table:
            return hit[2]
        items = [o.decode() for o in self.store.list(table, namespace=namespace).items]
        self._read_cache[key] = (table.last_write, table, items)
        return items
