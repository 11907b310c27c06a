"""Schema-driven walks over JSON objects: field sets, apply merge and removal.

Ports ``sigs.k8s.io/structured-merge-diff/v6/typed`` (``tofieldset.go``, ``merge.go`` with
``ruleKeepRHS``, ``remove.go``, ``helpers.go``) and
``fieldpath.Set.EnsureNamedFieldsAreMembers``, on plain dicts described by
:class:`kubelite.api.schema.Schema` instead of SMD's typed values. These walks interpret the
schema on every call; the per-write walks (``Compare``, a new object's fields, and ``ToFieldSet``
itself) run on compiled nodes in :mod:`.compare` (their schema-interpreting twins live with the tests,
in ``tests/apiserver/ssa/ssa_reference.py``, as the oracle they are checked against).

Contract:
- Inputs are never mutated. :func:`merge` returns a fresh object that shares nothing with either
  input (leaves are cloned), so the apiserver may default or mutate it freely. :func:`remove_items`
  shares untouched subtrees with its input; callers only feed it objects :func:`merge` made.
- Shape rules (upstream's schema conversion): a dict under an ``x-kubernetes-map-type: atomic``
  schema, and a list whose ``x-kubernetes-list-type`` is neither ``set`` nor ``map``, is one leaf
  owned whole. Keys listed in ``properties`` are struct fields; other keys use
  ``additionalProperties`` or, failing that, are "deduced" (dicts granular, lists atomic), which is
  also how a ``None`` schema and ``x-kubernetes-preserve-unknown-fields`` subtrees are treated.
- Lists of type ``map`` are keyed by ``x-kubernetes-list-map-keys`` (a missing key field takes its
  schema default); lists of type ``set`` by value.
- Malformed lists (duplicate keys in an applied configuration, items without key fields, maps in a
  set) raise :class:`TypedError` with upstream's ``ValidationErrors`` text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import msgspec

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.fieldpath import (
    FieldSet,
    field_pe,
    is_member,
    key_pe,
    node,
    path_string,
    value_pe,
)
from kubelite.memo import BoundedCache

__all__ = ["TypedError", "ensure_named_fields", "merge", "remove_items"]

_ABSENT: Any = object()  # a missing field or list item, as opposed to an explicit null
_encode = msgspec.json.encode
_decode = msgspec.json.decode


class TypedError(Exception):
    """An object that cannot be converted to SMD's typed form (``typed.ValidationErrors``)."""

    def __init__(self, errors: list[tuple[list[str], str]]) -> None:
        self.errors = errors
        super().__init__(self.text())

    def text(self) -> str:
        msgs = [f"{path_string(p)}: {m}" if p else m for p, m in self.errors]
        if len(msgs) == 1:
            return msgs[0]
        return "\n".join(["errors:", *("  " + m for m in msgs)])


def _clone(v: Any) -> Any:
    if isinstance(v, dict | list):
        return _decode(_encode(v))
    return v


class _Shape(NamedTuple):
    """What the walkers need to know about one schema node, read once per node."""

    props: dict[str, Schema]
    elem: Schema | None  # schema of keys not in props (None: deduced)
    atomic_map: bool
    list_type: str | None  # "set" or "map"; None means atomic
    items: Schema | None
    keys: list[str]
    closed: bool  # a struct that declares its fields and allows no others


_NO_SHAPE = _Shape({}, None, False, None, None, [], False)
# id(schema) -> (schema, shape); holding the schema keeps its id from being reused.
#: bounded by the number of schema nodes in use: built-in kinds have ~20,000; CRDs come and go.
_SHAPES: BoundedCache[int, tuple[Schema, _Shape]] = BoundedCache("apiserver.ssa.shapes", maxsize=100_000)


def _shape(s: Schema | None) -> _Shape:
    if s is None:
        return _NO_SHAPE
    hit = _SHAPES.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    lt = s.list_type
    props = s.properties
    shape = _Shape(
        props=props,
        elem=s.additional_properties,
        atomic_map=s.map_type == "atomic",
        list_type=lt if lt == "set" or lt == "map" else None,
        items=s.items,
        keys=s.list_map_keys,
        closed=bool(props) and not (s.additional_properties_allowed or s.preserve_unknown_fields),
    )
    _SHAPES.put(id(s), (s, shape))
    return shape


def _field_schema(s: Schema | None, key: str) -> tuple[Schema | None, bool]:
    """The schema of map key ``key`` and whether it is a named (struct) field."""
    sh = _shape(s)
    p = sh.props.get(key)
    if p is not None:
        return p, True
    return sh.elem, False


def _atomic_map(s: Schema | None) -> bool:
    return _shape(s).atomic_map


def _granular_list_type(s: Schema | None) -> str | None:
    return _shape(s).list_type


def _go_strings(xs: list[str]) -> str:
    return "[" + " ".join(_encode(x).decode() for x in xs) + "]"


def _item_pe(item: Any, lt: str, s: Schema) -> str:
    """``listItemToPathElement``; raises ValueError with upstream's wording."""
    if lt == "set":
        if isinstance(item, dict):
            raise ValueError("associative list without keys has an element that's a map type")
        if isinstance(item, list):
            raise ValueError("not supported: associative list with lists as elements")
        if item is None:
            raise ValueError("associative list without keys has an element that's an explicit null")
        return value_pe(item)
    if item is None:
        raise ValueError("associative list with keys may not have a null element")
    if not isinstance(item, dict):
        raise ValueError("associative list with keys may not have non-map elements")
    sh = _shape(s)
    keys = sh.keys
    if len(keys) == 1:
        k = keys[0]
        if k in item:
            return key_pe({k: item[k]})
    kv: dict[str, Any] = {}
    items = sh.items
    for k in keys:
        if k in item:
            kv[k] = item[k]
        elif items is not None:
            ks = items.property(k)
            if ks is not None and ks.default is not None:
                kv[k] = ks.default
    if keys and not kv:
        raise ValueError(
            f"associative list with keys has an element that omits all key fields {_go_strings(keys)} "
            "(and doesn't have default values for any key fields)"
        )
    return key_pe(kv)


def _index_items(
    lst: list[Any], lt: str, s: Schema, path: list[str]
) -> tuple[list[str], dict[str, list[Any]]]:
    """Path elements of a list's items in order, and the items under each element."""
    pes: list[str] = []
    by_pe: dict[str, list[Any]] = {}
    errs: list[tuple[list[str], str]] = []
    for i, item in enumerate(lst):
        try:
            pe = _item_pe(item, lt, s)
        except ValueError as e:
            errs.append((list(path), f"element {i}: {e}"))
            continue
        pes.append(pe)
        got = by_pe.get(pe)
        if got is None:
            by_pe[pe] = [item]
        else:
            got.append(item)
    if errs:
        raise TypedError(errs)
    return pes, by_pe


# --- ToFieldSet ------------------------------------------------------------------------------------


def ensure_named_fields(fs: FieldSet, schema: Schema | None) -> FieldSet:
    """``Set.EnsureNamedFieldsAreMembers``: struct fields on the way to a member become members."""
    out: FieldSet = {}
    for pe, n in fs.items():
        if pe == ".":
            continue
        cs: Schema | None = None
        named = False
        if schema is not None:
            if pe.startswith("f:"):
                cs, named = _field_schema(schema, pe[2:])
            elif pe.startswith("k:"):
                cs = _shape(schema).items
        children = {k: v for k, v in n.items() if k != "."} if "." in n else n
        built = node(named or is_member(n), ensure_named_fields(children, cs) if children else {})
        if built is not None:
            out[pe] = built
    return out


# --- Merge (ruleKeepRHS) ---------------------------------------------------------------------------


def merge(lhs: Mapping[str, Any], rhs: Mapping[str, Any], schema: Schema | None) -> dict[str, Any]:
    """``TypedValue.Merge``: ``rhs`` (the applied configuration) layered over ``lhs`` (live)."""
    out = _merge(lhs, rhs, schema)
    assert isinstance(out, dict)
    return out


def _merge(lv: Any, rv: Any, s: Schema | None) -> Any:
    if lv is _ABSENT:
        return _clone(rv)
    if rv is _ABSENT:
        return _clone(lv)
    if isinstance(lv, dict | None) and isinstance(rv, dict | None):
        if (not lv and not rv) or _atomic_map(s):
            return _clone(rv)
        lm: dict[str, Any] = lv or {}
        rm: dict[str, Any] = rv or {}
        out: dict[str, Any] = {}
        for k, v in lm.items():
            out[k] = _merge(v, rm.get(k, _ABSENT), _field_schema(s, k)[0])
        for k, v in rm.items():
            if k not in lm:
                out[k] = _clone(v)
        return out
    if isinstance(lv, list | None) and isinstance(rv, list | None):
        lt = _granular_list_type(s)
        if lt is None or (not lv and not rv):
            return _clone(rv)
        assert s is not None
        return _merge_list(lv or [], rv or [], lt, s)
    return _clone(rv)


def _merge_list(ll: list[Any], rl: list[Any], lt: str, s: Schema) -> list[Any]:
    """``mergingWalker.visitListItems``: keeps live order, slotting shared items in applied order."""
    rpes, rby = _index_items(rl, lt, s, [])
    lpes, lby = _index_items(ll, lt, s, [])
    robs = {pe: g[0] for pe, g in rby.items()}
    # Duplicated live items are not merged with the applied one (upstream observes them as null).
    lobs = {pe: (g[0] if len(g) == 1 else None) for pe, g in lby.items()}
    shared = [pe for pe in rpes if pe in lobs]
    si = 0
    next_shared = shared[0] if shared else None
    items = _shape(s).items
    merged_r: set[str] = set()
    out: list[Any] = []
    li = ri = 0
    nl, nr = len(lpes), len(rpes)
    while li < nl or ri < nr:
        if li < nl and ri < nr:
            pe = lpes[li]
            if pe == rpes[ri]:
                merged_r.add(pe)
                out.append(_merge(lobs[pe], robs[pe], items))
                li += 1
                ri += 1
                si += 1
                next_shared = shared[si] if si < len(shared) else None
                continue
            if pe in robs and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < nl:
            pe = lpes[li]
            if pe not in robs:
                out.append(_clone(ll[li]))
                li += 1
                continue
            if pe in merged_r:
                li += 1
        if ri < nr:
            pe = rpes[ri]
            merged_r.add(pe)
            out.append(_merge(lobs.get(pe, _ABSENT), robs[pe], items))
            ri += 1
            if next_shared is not None and next_shared == pe:
                si += 1
                next_shared = shared[si] if si < len(shared) else None
    return out


# --- RemoveItems -----------------------------------------------------------------------------------


def remove_items(obj: Mapping[str, Any], fs: FieldSet, schema: Schema | None) -> dict[str, Any]:
    """``TypedValue.RemoveItems``: ``obj`` without the members of ``fs`` (and what is below them).

    Where upstream leaves an explicit null behind for a container emptied this way, the key or
    item is dropped instead: a dict object has no typed zero value to fall back to.
    """
    if not fs:
        return dict(obj)
    out = _remove_map(obj, fs, schema)
    return out if out is not _ABSENT else {}


def _remove(v: Any, fs: FieldSet, s: Schema | None) -> Any:
    if isinstance(v, dict) and v and not _atomic_map(s):
        return _remove_map(v, fs, s)
    if isinstance(v, list) and v:
        lt = _granular_list_type(s)
        if lt is not None:
            assert s is not None
            return _remove_list(v, lt, fs, s)
    return v


def _remove_map(m: Mapping[str, Any], fs: FieldSet, s: Schema | None) -> Any:
    out: dict[str, Any] = {}
    for k, v in m.items():
        n = fs.get(field_pe(k))
        if n is None:
            out[k] = v
        elif not is_member(n):
            nv = _remove(v, n, _field_schema(s, k)[0])
            if nv is not _ABSENT:
                out[k] = nv
    return out if out else _ABSENT


def _remove_list(lst: list[Any], lt: str, fs: FieldSet, s: Schema) -> Any:
    out: list[Any] = []
    for item in lst:
        n = fs.get(_item_pe(item, lt, s))
        if n is None:
            out.append(item)
        elif not is_member(n):
            nv = _remove(item, n, _shape(s).items)
            if nv is not _ABSENT:
                out.append(nv)
    return out if out else _ABSENT
