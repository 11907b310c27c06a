"""Kubernetes' CEL list library (``k8s.io/apiserver/pkg/cel/library/lists.go``): ``isSorted``, ``sum``,
``min``, ``max``, ``indexOf``, ``lastIndexOf``; plus the string ``indexOf``/``lastIndexOf`` overloads
(one CEL name, dispatched on the target's type).

Elements must be comparable: ints, uints, doubles, strings, bools, bytes, durations, timestamps, or
quantities for ``isSorted``/``min``/``max``; ``sum`` adds ints, uints, doubles or durations. ``min``/``max``
of an empty list is ``min called on empty list``, as upstream.
"""

from __future__ import annotations

import itertools
from typing import Any

from celpy import celtypes

from kubelite.apiserver.cel import strings
from kubelite.apiserver.cel.environment import error, register
from kubelite.apiserver.cel.quantity import CELQuantity

__all__: list[str] = []


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise TypeError("no such overload")
    return v


def _key(v: Any) -> Any:
    if isinstance(v, CELQuantity):
        return v.q
    if isinstance(v, (celtypes.MapType, celtypes.ListType)) or v is None:
        raise TypeError("no such overload")
    return v


def is_sorted(items: Any) -> celtypes.BoolType:
    xs = [_key(x) for x in _list(items)]
    return celtypes.BoolType(all(not (b < a) for a, b in itertools.pairwise(xs)))


def sum_(items: Any) -> Any:
    xs = _list(items)
    if not xs:
        return celtypes.IntType(0)
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return type(xs[0])(total) if isinstance(xs[0], (celtypes.IntType, celtypes.DoubleType, celtypes.UintType)) else total


def _extreme(items: Any, name: str, pick_max: bool) -> Any:
    xs = _list(items)
    if not xs:
        return error(f"{name} called on empty list")
    best = xs[0]
    for x in xs[1:]:
        if (_key(x) > _key(best)) if pick_max else (_key(x) < _key(best)):
            best = x
    return best


def index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, str):
        return strings.index_of(target, item, offset)
    for i, x in enumerate(_list(target)):
        if type(x) is type(item) and x == item:
            return celtypes.IntType(i)
    return celtypes.IntType(-1)


def last_index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, str):
        return strings.last_index_of(target, item, offset)
    xs = _list(target)
    for i in range(len(xs) - 1, -1, -1):
        if type(xs[i]) is type(item) and xs[i] == item:
            return celtypes.IntType(i)
    return celtypes.IntType(-1)


register("isSorted", is_sorted)
register("sum", sum_)
register("min", lambda items: _extreme(items, "min", False))
register("max", lambda items: _extreme(items, "max", True))
register("indexOf", index_of)
register("lastIndexOf", last_index_of)
