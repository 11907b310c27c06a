"""Schema nodes compiled once for the hot walks, and list items' path elements, cached.

The managedFields walks run on every write, so they must not re-read ``x-kubernetes-*`` keywords
or re-serialise the same list keys on every call. This module turns each :class:`Schema` node into
a :class:`Node` the first time a walk meets it and remembers the serialised path element of each
list item key it has seen.

Contract:
- :func:`compile_node` returns the same :class:`Node` for the same :class:`Schema` object (by
  identity; the compiled graph follows ``properties``/``additionalProperties``/``items`` eagerly
  and is cyclic where the schema is). A node answers exactly what ``apply._Shape`` answers for its
  schema; ``None`` and undeclared fields compile to :data:`DEDUCED`. Nodes are never mutated after
  compilation apart from their bounded path-element caches, so every call may share them.
- :func:`item_pe` and :func:`index_items` return exactly what ``apply._item_pe`` and
  ``apply._index_items`` return for the node's schema, and raise the same errors (anything off
  the cached fast path is delegated to them).
"""

from __future__ import annotations

from typing import Any

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.apply import _index_items, _item_pe
from kubelite.apiserver.ssa.fieldpath import key_pe, value_pe
from kubelite.memo import BoundedCache

__all__ = ["DEDUCED", "Node", "compile_node", "field_order", "index_items", "item_pe"]

_MISSING: Any = object()  # a key field the item does not set
_CACHE_LIMIT = 4096  # per node; list keys such as owner uids are unbounded


class Node:
    """One compiled schema node.

    ``fields``/``elem`` describe maps (named fields, and the node of any other key); ``items`` and
    ``keys``/``defaults`` describe lists; ``list_type`` is ``"set"``, ``"map"`` or None (atomic).
    """

    __slots__ = (
        "atomic_map", "closed", "defaults", "elem", "fields", "items", "keys", "list_type", "memo", "orders", "pes",
        "schema",
    )

    def __init__(self, schema: Schema | None) -> None:
        self.schema = schema
        self.fields: dict[str, Node] = {}
        self.elem: Node = self
        self.items: Node = self
        self.atomic_map = False
        self.list_type: str | None = None
        self.keys: tuple[str, ...] = ()
        self.defaults: tuple[Any, ...] = ()
        self.closed = False
        # serialised path element of an item, by its key value(s) (a map list) or its value (a set)
        self.pes: dict[Any, str] = {}
        # a map's keys as iterated (insertion order) -> (key, "f:" + key, node) sorted by key
        self.orders: dict[tuple[str, ...], list[tuple[str, str, Node]]] = {}
        # encoded value -> its field set, for the values objects of a kind often repeat (a pod spec
        # stamped out of a template); the sets are shared by every caller and never mutated
        self.memo: dict[bytes, dict[str, Any]] = {}


DEDUCED = Node(None)  # no schema: maps granular, lists atomic, every key deduced again

# id(schema) -> (schema, node); holding the schema keeps its id from being reused.
#: bounded by the number of schema nodes in use: built-in kinds have ~20,000; CRDs come and go.
_NODES: BoundedCache[int, tuple[Schema, Node]] = BoundedCache("apiserver.ssa.compiled_nodes", maxsize=100_000)


def compile_node(s: Schema | None) -> Node:
    if s is None:
        return DEDUCED
    hit = _NODES.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    node = Node(s)
    _NODES.put(id(s), (s, node))  # registered before the children, so cycles end here
    props = s.properties
    node.fields = {k: compile_node(c) for k, c in props.items()}
    node.elem = compile_node(s.additional_properties)
    node.atomic_map = s.map_type == "atomic"
    lt = s.list_type
    node.list_type = lt if lt == "set" or lt == "map" else None
    items = s.items
    node.items = compile_node(items)
    node.keys = tuple(s.list_map_keys)
    defaults: list[Any] = []
    for k in node.keys:
        ks = items.property(k) if items is not None else None
        defaults.append(ks.default if ks is not None else None)
    node.defaults = tuple(defaults)
    node.closed = bool(props) and not (s.additional_properties_allowed or s.preserve_unknown_fields)
    return node


def field_order(node: Node, keys: tuple[str, ...]) -> list[tuple[str, str, Node]]:
    """``(key, "f:" + key, node of key)`` for each of a map's keys, sorted by key (wire order)."""
    orders = node.orders
    got = orders.get(keys)
    if got is not None:
        return got
    if len(orders) >= _CACHE_LIMIT // 16:  # maps with free-form keys (labels) vary a lot
        orders.clear()
    fields = node.fields
    elem = node.elem
    got = orders[keys] = [(k, "f:" + k, fields.get(k) or elem) for k in sorted(keys)]
    return got


def _remember(node: Node, key: Any, pe: str) -> str:
    pes = node.pes
    if len(pes) >= _CACHE_LIMIT:
        pes.clear()
    pes[key] = pe
    return pe


def item_pe(node: Node, item: Any) -> str:
    """``listItemToPathElement`` for an item of the granular list ``node``; raises ValueError.

    Cached by key value when every key value is a ``str`` or an ``int`` (never a bool or float, so
    equal cache keys always serialise alike).
    """
    t = type(item)
    if t is dict and node.list_type == "map":
        keys = node.keys
        if len(keys) == 1:
            v = item.get(keys[0], _MISSING)
            tv = type(v)
            if tv is str or tv is int:
                pe = node.pes.get(v)
                return pe if pe is not None else _remember(node, v, key_pe({keys[0]: v}))
        elif keys:
            ck = tuple([item.get(k, _MISSING) for k in keys])
            for v in ck:
                tv = type(v)
                if not (tv is str or tv is int or v is _MISSING):
                    break
            else:
                pe = node.pes.get(ck)
                if pe is not None:
                    return pe
                return _remember(node, ck, _slow_item_pe(node, item))
    elif (t is str or t is int) and node.list_type == "set":
        pe = node.pes.get(item)
        return pe if pe is not None else _remember(node, item, value_pe(item))
    return _slow_item_pe(node, item)


def _slow_item_pe(node: Node, item: Any) -> str:
    assert node.schema is not None and node.list_type is not None
    return _item_pe(item, node.list_type, node.schema)


def index_items(lst: list[Any], node: Node, path: list[str]) -> tuple[list[str], dict[str, list[Any]]]:
    """Path elements of a granular list's items in order, and the items under each element."""
    pes: list[str] = []
    by_pe: dict[str, list[Any]] = {}
    try:
        for item in lst:
            pe = item_pe(node, item)
            pes.append(pe)
            got = by_pe.get(pe)
            if got is None:
                by_pe[pe] = [item]
            else:
                got.append(item)
    except ValueError:
        # The slow walk reports every bad item with its index, as upstream does.
        assert node.schema is not None and node.list_type is not None
        _index_items(lst, node.list_type, node.schema, path)
        raise AssertionError("unreachable: the slow index found no error") from None
    return pes, by_pe
