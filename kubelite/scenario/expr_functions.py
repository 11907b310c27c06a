"""The pure functions of the expression language (those that need no cluster).

Each takes the evaluation context, the call node (for error positions) and the evaluated positional
arguments, and follows the three-valued rules of :mod:`kubelite.scenario.expr_eval`: an unknown
argument makes the result unknown, except for ``has``, ``exists`` and ``default``, which exist to
look at unknowns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubelite.scenario.expr_eval import MISSING, Context, Node, bounded_round, check_ip, eq, path
from kubelite.scenario.expr_values import Unknown, check_number, is_number, type_name

__all__ = ["PURE"]

_Fn = Callable[[Context, Node, list[Any]], Any]


def _first_unknown(args: list[Any]) -> Unknown | None:
    for a in args:
        if isinstance(a, Unknown):
            return a
    return None


def _strict(f: _Fn) -> _Fn:
    """Unknown in, unknown out; null in where a collection is wanted: unknown."""
    def g(ctx: Context, node: Node, args: list[Any]) -> Any:
        u = _first_unknown(args)
        if u is not None:
            return u
        return f(ctx, node, args)
    return g


def _collection(ctx: Context, node: Node, name: str, v: Any) -> Any:
    if v is None:
        return Unknown(f"{name}() of null")
    if not isinstance(v, list | str | Mapping):
        raise ctx.error(f"{name}() needs a list, not {type_name(v)}", node)
    return v


def _count(ctx: Context, node: Node, args: list[Any]) -> Any:
    v = _collection(ctx, node, "count", args[0])
    return v if isinstance(v, Unknown) else len(v)


def _numbers(ctx: Context, node: Node, name: str, v: Any) -> list[Any] | Unknown:
    if v is None:
        return Unknown(f"{name}() of null")
    if not isinstance(v, list):
        raise ctx.error(f"{name}() needs a list, not {type_name(v)}", node)
    ctx.tick(node, len(v))
    for x in v:
        if not is_number(x):
            raise ctx.error(f"{name}() needs a list of numbers, found {type_name(x)}", node)
    return v


def _sum(ctx: Context, node: Node, args: list[Any]) -> Any:
    v = _numbers(ctx, node, "sum", args[0])
    if isinstance(v, Unknown):
        return v
    total: int | float = 0
    for x in v:
        total += x
        if check_number(total) is None:
            raise ctx.error("sum() out of range", node)
    return total


def _extreme(name: str, pick: Callable[[list[Any]], Any]) -> _Fn:
    def f(ctx: Context, node: Node, args: list[Any]) -> Any:
        v = _numbers(ctx, node, name, args[0])
        if isinstance(v, Unknown):
            return v
        if not v:
            return Unknown(f"{name}() of an empty list")
        return pick(v)
    return f


def _abs(ctx: Context, node: Node, args: list[Any]) -> Any:
    x = args[0]
    if x is None:
        return Unknown("abs() of null")
    if not is_number(x):
        raise ctx.error(f"abs() needs a number, not {type_name(x)}", node)
    out = abs(x)
    if check_number(out) is None:
        raise ctx.error("abs() out of range", node)
    return out


def _round(ctx: Context, node: Node, args: list[Any]) -> Any:
    if args[0] is None:
        return Unknown("round() of null")
    return bounded_round(ctx, node, args[0], args[1] if len(args) > 1 else 0)


def _has(ctx: Context, node: Node, args: list[Any]) -> Any:
    v = args[0]
    if isinstance(v, Unknown):
        return False if v.absent else v
    return v is not None


def _exists(ctx: Context, node: Node, args: list[Any]) -> Any:
    return not isinstance(args[0], Unknown) and args[0] is not None


def _default(ctx: Context, node: Node, args: list[Any]) -> Any:
    return args[1] if isinstance(args[0], Unknown) or args[0] is None else args[0]


def _hashable(ctx: Context, node: Node, name: str, v: Any) -> list[Any] | Unknown:
    if v is None:
        return Unknown(f"{name}() of null")
    if not isinstance(v, list):
        raise ctx.error(f"{name}() needs a list, not {type_name(v)}", node)
    ctx.tick(node, len(v))
    kinds = {type_name(x) for x in v}
    if kinds - {"a number", "a string", "a boolean"} or len(kinds) > 1:
        raise ctx.error(f"{name}() needs a list of numbers, strings or booleans of one kind", node)
    return v


def _distinct(ctx: Context, node: Node, args: list[Any]) -> Any:
    v = _hashable(ctx, node, "distinct", args[0])
    return v if isinstance(v, Unknown) else sorted(set(v))


def _sorted(ctx: Context, node: Node, args: list[Any]) -> Any:
    v = _hashable(ctx, node, "sorted", args[0])
    return v if isinstance(v, Unknown) else sorted(v)


def _quantifier(name: str, want: bool) -> _Fn:
    def f(ctx: Context, node: Node, args: list[Any]) -> Any:
        v = args[0]
        if v is None:
            return Unknown(f"{name}() of null")
        if not isinstance(v, list):
            raise ctx.error(f"{name}() needs a list, not {type_name(v)}", node)
        ctx.tick(node, len(v))
        unknown: Unknown | None = None
        for x in v:
            if isinstance(x, Unknown):
                unknown = unknown or x
            elif not isinstance(x, bool):
                raise ctx.error(f"{name}() needs a list of booleans, found {type_name(x)}", node)
            elif x is not want:
                return not want
        return unknown if unknown is not None else want
    return f


def _where(ctx: Context, node: Node, args: list[Any]) -> Any:
    """``where(list, "key", value, ...)``: every element whose each (dotted) key equals its value."""
    v, pairs = args[0], args[1:]
    if len(pairs) % 2:
        raise ctx.error("where() takes a list and then key, value pairs", node)
    if v is None:
        return Unknown("where() of null")
    if not isinstance(v, list):
        raise ctx.error(f"where() needs a list, not {type_name(v)}", node)
    keys = pairs[0::2]
    for k in keys:
        if not isinstance(k, str) or not k:
            raise ctx.error(f"where(): a key must be a field name such as \"status.phase\", not {type_name(k)}",
                            node)
    ctx.tick(node, len(v) * len(keys))
    return [item for item in v
            if all((got := path(item, k)) is not MISSING and eq(ctx, node, got, w)
                   for k, w in zip(keys, pairs[1::2], strict=True))]


def _in_cidr(ctx: Context, node: Node, args: list[Any]) -> Any:
    if args[0] is None:
        return Unknown("in_cidr() of null")
    return check_ip(ctx, node, args[0], args[1])


PURE: dict[str, _Fn] = {
    "count": _strict(_count), "len": _strict(_count), "sum": _strict(_sum),
    "min": _strict(_extreme("min", min)), "max": _strict(_extreme("max", max)),
    "abs": _strict(_abs), "round": _strict(_round),
    "has": _has, "exists": _exists, "default": _default,
    "distinct": _strict(_distinct), "sorted": _strict(_sorted),
    "all": _strict(_quantifier("all", True)), "any": _strict(_quantifier("any", False)),
    "where": _strict(_where), "in_cidr": _strict(_in_cidr),
}
