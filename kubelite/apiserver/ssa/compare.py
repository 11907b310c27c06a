"""Field sets of objects on compiled nodes: ``Compare``, a new object's fields, ``ToFieldSet``.

Ports ``sigs.k8s.io/structured-merge-diff/v6/typed/compare.go`` (the walker ``Compare`` uses) and
``tofieldset.go`` for plain dicts described by :mod:`.compiled` nodes; they return exactly what the
schema-interpreting walks (``tests/apiserver/ssa/ssa_reference.py``) return. These walks run on
every write, so:

- :func:`compare` only descends where the two sides differ (``==`` on equal subtrees runs in C),
  so its cost follows the size of the change, not of the object;
- :func:`all_fields` (everything a create sets) builds its trie already in upstream's
  serialisation order, so a create never re-sorts it, and does not walk again a top-level value
  an earlier object of the kind had (a pod spec stamped out of a ReplicaSet's template);
  :func:`created_fields` is the creator's set in that same walk: the reset fields and stripmeta's
  paths are left out as it goes, not taken away from the whole set afterwards.

Contract:
- Inputs are never mutated. :func:`compare`'s and :func:`to_field_set`'s tries are freshly built.
  :func:`all_fields`'s top level is fresh, but the sets of top-level values other than
  ``metadata`` are remembered per schema node and shared between calls: nobody may mutate them
  (the set algebra never does).
- Shape rules are those of :mod:`.apply` (atomic maps and non-``set``/``map`` lists are one leaf,
  undeclared keys are deduced); malformed granular lists raise :class:`~.apply.TypedError` with the
  path of the innermost compared field, exactly as the reference walk in ``_reference.py`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.apply import TypedError
from kubelite.apiserver.ssa.compiled import Node, compile_node, field_order, index_items, item_pe
from kubelite.apiserver.ssa.fieldpath import (
    FieldSet,
    PathElement,
    is_member,
    pe_sort_key,
    recursive_difference,
)
from kubelite.apiserver.ssa.fieldpath import node as trie_node
from kubelite.memo import ENCODED_KEYS

__all__ = ["STRIPPED_META", "all_fields", "compare", "created_fields", "to_field_set"]

_ABSENT: Any = object()  # a missing field or list item, as opposed to an explicit null
_MEMO_SIZE = 32  # remembered values per schema node
_encode = msgspec.json.encode
_DUPLICATE: Any = {}  # stands for a list item whose key repeats (owned whole, never walked); never mutated


def all_fields(obj: Mapping[str, Any], schema: Schema | None) -> FieldSet:
    """``compare({}, obj)``'s added set (every path is a member), already in wire order.

    The top level is fresh; what is below it may be shared with earlier results (see
    :func:`_memo_fill`), so callers must not mutate below the top level.
    """
    node = compile_node(schema)
    out: FieldSet = {}
    order = node.orders.get(tuple(obj))
    if order is None:
        order = field_order(node, tuple(obj))
    path: list[str] = []
    for k, fk, cn in order:
        cv = obj[k]
        ct = type(cv)
        if ct is dict and cv and not cn.atomic_map:
            if k == "metadata":  # unique to each object: never worth remembering
                sub: FieldSet = {".": {}}
                _fill(cv, cn, path, sub)
                out[fk] = sub
            else:
                out[fk] = _memo_fill(cv, cn, path)
        elif ct is list and cv and cn.list_type is not None:
            out[fk] = _list_paths(cv, cn, path)
        else:
            out[fk] = {}
    return out


# stripmeta.go's paths (``managed_fields._STRIP``): the top-level leaves and metadata's own leaves nobody owns
# (on a create they are all leaves: strings and an integer)
_STRIPPED_TOP = frozenset({"apiVersion", "kind"})
STRIPPED_META = frozenset({"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                            "managedFields", "resourceVersion"})


def created_fields(obj: Mapping[str, Any], schema: Schema | None, ignored: FieldSet | None) -> FieldSet | None:
    """The set a create's manager owns: ``all_fields(obj)`` less ``ignored`` (the strategy's reset fields,
    ``RecursiveDifference``) less stripmeta.go's paths (``Difference``), built in one walk that never
    builds what it would then remove (a pod's ``status`` is walked only for the errors it may raise, the
    metadata's name and uid not at all). Exactly that composition's result, in wire order
    (``tests/apiserver/ssa/test_fast_paths.py``); None when a stripped field holds a granular value (a
    malformed body: stripmeta keeps what is below a stripped member), for the caller to compose."""
    node = compile_node(schema)
    out: FieldSet = {}
    order = node.orders.get(tuple(obj))
    if order is None:
        order = field_order(node, tuple(obj))
    nested: FieldSet | None = None  # reset fields below the top level, taken away at the end
    path: list[str] = []
    for k, fk, cn in order:
        cv = obj[k]
        ct = type(cv)
        if k in _STRIPPED_TOP:
            if (ct is dict or ct is list) and cv:
                return None
            continue
        if ignored:
            ig = ignored.get(fk)
            if ig is not None:
                if is_member(ig):  # (RecursiveDifference: a member takes everything below it)
                    if (ct is dict or ct is list) and cv:
                        _all_paths(cv, cn, path)  # walked for its TypedError only: a bad list fails the whole set
                    continue
                nested = nested or {}
                nested[fk] = ig
        if k == "metadata":
            if ct is not dict or cn.atomic_map:
                if (ct is dict or ct is list) and cv:
                    return None
                continue  # (a leaf: stripped)
            kept = {}
            for mk, mv in cv.items():
                if mk in STRIPPED_META:
                    if (type(mv) is dict or type(mv) is list) and mv:
                        return None
                else:
                    kept[mk] = mv
            if kept:  # (metadata itself is stripped: its node is a prefix, not a member)
                sub: FieldSet = {}
                _fill(kept, cn, path, sub)
                out[fk] = sub
        elif ct is dict and cv and not cn.atomic_map:
            out[fk] = _memo_fill(cv, cn, path)
        elif ct is list and cv and cn.list_type is not None:
            out[fk] = _list_paths(cv, cn, path)
        else:
            out[fk] = {}
    return recursive_difference(out, nested) if nested else out


def _memo_fill(v: dict[str, Any], node: Node, path: list[str]) -> FieldSet:
    """The set of a granular map, remembered by its encoded value on its schema node.

    Objects of a kind are often stamped out of one template (a ReplicaSet's pods share their whole
    spec), so a top-level value's set is worth remembering: a repeat costs one C-speed encode
    instead of a walk. The set is a function of the node and the value alone (errors are raised,
    never remembered), and the encoded JSON tells apart any two JSON values that differ, types
    included. It assumes JSON data, which is all the apiserver holds (objects are decoded from
    JSON): msgspec writes a tuple like a list, an int key like a str key and NaN like null.
    """
    try:
        if not ENCODED_KEYS.on:
            raise TypeError  # a value seen for the first time (kubelite.memo.ENCODED_KEYS): just walk it
        key = _encode(v)
    except (TypeError, ValueError, msgspec.EncodeError):  # not JSON data: just walk it
        out: FieldSet = {".": {}}
        _fill(v, node, path, out)
        return out
    memo = node.memo
    got = memo.get(key)
    if got is None:
        got = {".": {}}
        _fill(v, node, path, got)
        if len(memo) >= _MEMO_SIZE:
            del memo[next(iter(memo))]  # first in, first out
        memo[key] = got
    return got


def _fill(v: Mapping[str, Any], node: Node, path: list[str], out: FieldSet) -> None:
    order = node.orders.get(tuple(v))
    if order is None:
        order = field_order(node, tuple(v))
    for k, fk, cn in order:
        cv = v[k]
        ct = type(cv)
        if ct is dict:
            if cv and not cn.atomic_map:
                sub: FieldSet = {".": {}}
                _fill(cv, cn, path, sub)
                out[fk] = sub
            else:
                out[fk] = {}
        elif ct is list and cv:
            out[fk] = _list_paths(cv, cn, path) if cn.list_type is not None else {}
        else:
            out[fk] = {}


def _all_paths(v: Any, node: Node, path: list[str]) -> FieldSet:
    """The node for a value seen on one side only: every path below it is a member.

    ``path`` is only for error messages: it stays the path of the compare walk that got here.
    """
    t = type(v)
    if t is dict:
        if not v or node.atomic_map:
            return {}
        out: FieldSet = {".": {}}
        _fill(v, node, path, out)
        return out
    if t is list and v and node.list_type is not None:
        return _list_paths(v, node, path)
    return {}


def _list_paths(v: list[Any], node: Node, path: list[str]) -> FieldSet:
    by_pe: dict[str, Any] = {}
    try:
        for item in v:
            pe = item_pe(node, item)
            by_pe[pe] = _DUPLICATE if pe in by_pe else item
    except ValueError:
        index_items(v, node, path)  # raises the slow walk's TypedError
        raise
    items = node.items
    out: FieldSet = {".": {}}
    for pe in sorted(by_pe, key=pe_sort_key) if len(by_pe) > 1 else by_pe:
        item = by_pe[pe]
        t = type(item)
        if t is dict:
            if item is _DUPLICATE or not item or items.atomic_map:
                out[pe] = {}
            else:
                sub: FieldSet = {".": {}}
                _fill(item, items, path, sub)
                out[pe] = sub
        else:
            out[pe] = _all_paths(item, items, path)
    return out


def compare(lhs: Mapping[str, Any], rhs: Mapping[str, Any], schema: Schema | None, *, skip: str | None = None,
            ) -> tuple[FieldSet, FieldSet, FieldSet]:
    """``TypedValue.Compare``: the (added, modified, removed) fields from ``lhs`` to ``rhs``.

    Unlike ``to_field_set``, every granular map or list that appears or disappears is itself a
    member of ``added``/``removed``, as upstream's compare walker records it. ``skip``: a top-level
    field both sides are compared without (as if neither had it; the heartbeat path's ``metadata``).
    """
    a: FieldSet = {}
    m: FieldSet = {}
    r: FieldSet = {}
    # No ``lhs == rhs`` shortcut: the walk compares each top-level value anyway, and the shortcut
    # would run that comparison a second time over the (large) equal parts.
    _cmp_map(lhs, rhs, compile_node(schema), a, m, r, [], skip)
    return a, m, r


def _mark(d: FieldSet, pe: str) -> None:
    n = d.get(pe)
    if n is None:
        d[pe] = {}
    elif not is_member(n):
        d[pe] = {".": {}, **n}


def _cmp(pe: str, lv: Any, rv: Any, node: Node, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str]) -> None:
    if lv is _ABSENT:
        a[pe] = _all_paths(rv, node, path)
        return
    if rv is _ABSENT:
        r[pe] = _all_paths(lv, node, path)
        return
    if lv == rv:
        return
    ca: FieldSet = {}
    cm: FieldSet = {}
    cr: FieldSet = {}
    if isinstance(lv, dict | None) and isinstance(rv, dict | None):
        if (not lv and not rv) or node.atomic_map:
            m[pe] = {}
            return
        path.append(pe)
        _cmp_map(lv or {}, rv or {}, node, ca, cm, cr, path)
        path.pop()
    elif isinstance(lv, list | None) and isinstance(rv, list | None):
        if node.list_type is None or (not lv and not rv):
            m[pe] = {}
            return
        path.append(pe)
        _cmp_list(lv or [], rv or [], node, ca, cm, cr, path)
        path.pop()
    else:
        m[pe] = {}
        return
    if ca:
        a[pe] = ca
    if cm:
        m[pe] = cm
    if cr:
        r[pe] = cr


def _cmp_map(
    lm: Mapping[str, Any], rm: Mapping[str, Any], node: Node, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str],
    skip: str | None = None,
) -> None:
    fields = node.fields
    elem = node.elem
    for k, lv in lm.items():
        rv = rm[k] if k in rm else _ABSENT  # noqa: SIM401  (membership and subscript: no method call per key)
        if rv is lv or k == skip or rv == lv:  # equal subtrees compare in C; only differences are walked
            continue
        _cmp("f:" + k, lv, rv, (fields[k] if k in fields else None) or elem, a, m, r, path)  # noqa: SIM401
    for k, rv in rm.items():
        if k not in lm and k != skip:
            a["f:" + k] = _all_paths(rv, fields.get(k) or elem, path)


def _cmp_list(ll: list[Any], rl: list[Any], node: Node, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str]) -> None:
    lpes, lby = index_items(ll, node, path)
    rpes, rby = index_items(rl, node, path)
    items = node.items
    if lpes == rpes and len(lby) == len(lpes):
        # The usual edit (same items, same order, no duplicate keys): pair the items up by position.
        for pe, lv, rv in zip(lpes, ll, rl, strict=True):
            if lv is not rv and lv != rv:
                _cmp(pe, lv, rv, items, a, m, r, path)
        return
    seen: set[str] = set()
    for pe in lpes + rpes:
        if pe in seen:
            continue
        seen.add(pe)
        lg = lby.get(pe, ())
        rg = rby.get(pe, ())
        if len(lg) <= 1 and len(rg) <= 1:
            _cmp(pe, lg[0] if lg else _ABSENT, rg[0] if rg else _ABSENT, items, a, m, r, path)
        elif len(lg) >= 2 and len(rg) >= 2:
            if lg != rg:
                _mark(m, pe)
        elif len(lg) >= 2:
            if rg:
                _cmp(pe, _ABSENT, rg[0], items, a, m, r, path)
            _mark(r, pe)
        else:
            if lg:
                _cmp(pe, lg[0], _ABSENT, items, a, m, r, path)
            _mark(a, pe)


# --- ToFieldSet ------------------------------------------------------------------------------------


def to_field_set(obj: Mapping[str, Any], schema: Schema | None, *, strict: bool = False) -> FieldSet:
    """``TypedValue.ToFieldSet``: the fields an object (an applied configuration) sets.

    Struct fields holding non-empty maps or lists are only prefixes; leaves, map keys and list
    items are members. ``strict`` validates like ``ObjectToTyped`` without ``AllowDuplicates``:
    duplicate list keys and fields not declared in a closed schema raise :class:`TypedError`.
    """
    errs: list[tuple[list[str], str]] = []
    out = _tfs_map(obj, compile_node(schema), strict, [], errs)
    if errs:
        raise TypedError(errs)
    return out


def _tfs(v: Any, nd: Node, strict: bool, path: list[str], errs: list[Any]) -> FieldSet | None:
    """Children of ``v``'s path, or None when ``v`` is a leaf (scalar, null, atomic, empty map)."""
    if isinstance(v, dict):
        if not v or nd.atomic_map:
            return None
        return _tfs_map(v, nd, strict, path, errs)
    if isinstance(v, list):
        if nd.list_type is None:
            return None
        return _tfs_list(v, nd, strict, path, errs)
    return None


def _tfs_map(m: Mapping[str, Any], nd: Node, strict: bool, path: list[str], errs: list[Any]) -> FieldSet:
    out: FieldSet = {}
    closed = strict and nd.closed
    fields = nd.fields
    for k, v in m.items():
        pe = "f:" + k
        cn = fields.get(k)
        named = cn is not None
        if not named:
            if closed:
                errs.append(([*path, pe], "field not declared in schema"))
                continue
            cn = nd.elem
        assert cn is not None
        if isinstance(v, dict | list):  # scalars are leaves: no need to track the path
            path.append(pe)
            sub = _tfs(v, cn, strict, path, errs)
            path.pop()
        else:
            sub = None
        if sub is None:
            out[pe] = {}
        else:
            n = trie_node(not named, sub)
            if n is not None:
                out[pe] = n
    return out


def _tfs_list(lst: list[Any], nd: Node, strict: bool, path: list[str], errs: list[Any]) -> FieldSet:
    try:
        pes, by_pe = index_items(lst, nd, path)
    except TypedError as e:
        errs.extend(e.errors)
        return {}
    out: FieldSet = {}
    items = nd.items
    for pe in pes:
        if pe in out:
            continue
        got = by_pe[pe]
        if len(got) > 1:
            if strict:
                errs.append((list(path), f"duplicate entries for key {PathElement.parse(pe)}"))
            out[pe] = {}
            continue
        path.append(pe)
        sub = _tfs(got[0], items, strict, path, errs)
        path.pop()
        out[pe] = {} if sub is None else (trie_node(True, sub) or {})
    return out
