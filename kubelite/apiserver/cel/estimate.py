"""A static worst-case cost estimate of a CRD validation rule (upstream: cel-go's ``checker.Cost`` with
``k8s.io/apiserver/pkg/cel/library/cost.go``, used by ``ValidateCustomResourceDefinition`` to reject a rule
whose estimated cost exceeds ``StaticEstimatedCostLimit``, 10,000,000).

Contract:
- Sizes come from the schema: a string's ``maxLength``, a list's ``maxItems``, a map's ``maxProperties``;
  where one is missing the bound is what fits in a request (upstream's ``MaxRequestSizeBytes``, 3 MiB,
  divided by the smallest encoding of one element), so rules over unbounded lists and strings estimate
  high, as upstream's do.
- Cost: one unit per operation; a comprehension (``all``, ``exists``, ``exists_one``, ``map``, ``filter``)
  costs its range's size times its body; string functions cost a tenth of their target's size, list
  functions its length. This follows cel-go's model in shape, not to the unit: figures are of the same
  order as upstream's, so a rule near the limit may be judged differently. It exists to catch what
  upstream exists to catch: nested comprehensions and scans over unbounded data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import lark

from kubelite.apiserver.cel.environment import PASS_THROUGH, ident_name

__all__ = ["STATIC_COST_LIMIT", "cost_error_message", "estimate_cost"]

#: upstream StaticEstimatedCostLimit (apiextensions validation)
STATIC_COST_LIMIT = 10_000_000
_MAX_REQUEST = 3 * 1024 * 1024
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_STRING_FUNCTIONS = frozenset({"contains", "startsWith", "endsWith", "matches", "indexOf", "lastIndexOf", "split",
                               "replace", "lowerAscii", "upperAscii", "trim", "find", "findAll", "substring",
                               "reverse", "quantity", "isQuantity", "url", "isURL", "ip", "isIP", "cidr", "isCIDR",
                               "validate", "charAt", "join"})
_LIST_FUNCTIONS = frozenset({"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "join"})
_STRING_SCHEMA: Mapping[str, Any] = {"type": "string"}


def _min_size(raw: Mapping[str, Any] | None) -> int:
    """The smallest JSON encoding of a value of ``raw`` (upstream ``estimateMinSizeJSON``)."""
    t = (raw or {}).get("type")
    return {"string": 2, "boolean": 4, "integer": 1, "number": 1, "array": 2, "object": 2}.get(str(t), 1)


def _max_size(raw: Mapping[str, Any] | None) -> int:
    """How many elements (characters, items, entries) a value of ``raw`` can hold at most."""
    if not raw:
        return _MAX_REQUEST
    t = raw.get("type")
    if t == "string":
        return int(raw["maxLength"]) if isinstance(raw.get("maxLength"), int) else _MAX_REQUEST - 2
    if t == "array":
        if isinstance(raw.get("maxItems"), int):
            return int(raw["maxItems"])
        return (_MAX_REQUEST - 2) // (_min_size(raw.get("items")) + 1)
    if t == "object":
        if isinstance(raw.get("maxProperties"), int):
            return int(raw["maxProperties"])
        value = raw.get("additionalProperties")
        return (_MAX_REQUEST - 2) // (_min_size(value if isinstance(value, Mapping) else None) + 4)
    return 1


def _element(raw: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """What a comprehension over ``raw`` binds its variable to (list items; map keys)."""
    if not raw:
        return None
    if raw.get("type") == "array":
        items = raw.get("items")
        return items if isinstance(items, Mapping) else None
    return _STRING_SCHEMA


def _field(raw: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    if not raw:
        return None
    props = raw.get("properties") or {}
    if name in props and isinstance(props[name], Mapping):
        return props[name]  # type: ignore[no-any-return]
    extra = raw.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def _estimate(node: Any, env: Mapping[str, Mapping[str, Any] | None]) -> tuple[int, Mapping[str, Any] | None]:
    """(worst-case cost, schema of the value or None when unknown)."""
    if not isinstance(node, lark.Tree):
        return 0, None
    own = 0 if (node.data in PASS_THROUGH and len(node.children) == 1) else 1
    if node.data == "ident":
        return 1, env.get(str(node.children[0]))
    if node.data == "member_dot":
        cost, raw = _estimate(node.children[0], env)
        return cost + 1, _field(raw, str(node.children[1]))
    if node.data == "member_dot_arg":
        target_cost, target = _estimate(node.children[0], env)
        method = str(node.children[1])
        args = list(node.children[2].children) if len(node.children) > 2 and isinstance(node.children[2], lark.Tree) \
            else []
        if method in _MACROS and len(args) >= 2:
            var = ident_name(args[0])
            inner = {**env, var: _element(target)} if var else env
            body = sum(_estimate(a, inner)[0] for a in args[1:])
            result = target if method == "filter" else None
            return target_cost + _max_size(target) * (body + 1) + 1, result
        cost = target_cost + sum(_estimate(a, env)[0] for a in args) + 1
        if target is not None and target.get("type") == "string" and method in _STRING_FUNCTIONS:
            cost += math.ceil(0.1 * _max_size(target))
        elif target is not None and target.get("type") == "array" and method in _LIST_FUNCTIONS:
            cost += _max_size(target)
        return cost, None
    if node.data == "ident_arg":
        args = list(node.children[1].children) if len(node.children) > 1 and isinstance(node.children[1], lark.Tree) \
            else []
        cost = 1
        for a in args:
            c, raw = _estimate(a, env)
            cost += c
            if raw is not None and raw.get("type") == "string" and str(node.children[0]) in _STRING_FUNCTIONS:
                cost += math.ceil(0.1 * _max_size(raw))
        return cost, None
    total = own
    last: Mapping[str, Any] | None = None
    for child in node.children:
        c, raw = _estimate(child, env)
        total += c
        last = raw
    return total, (last if len(node.children) == 1 else None)


def estimate_cost(ast: lark.Tree[Any], self_schema: Mapping[str, Any]) -> int:
    """The worst-case cost of a rule whose ``self`` (and ``oldSelf``) has ``self_schema``."""
    return _estimate(ast, {"self": self_schema, "oldSelf": self_schema})[0]


def cost_error_message(name: str, cost: int, limit: int) -> str:
    """upstream ``getCostErrorMessage``."""
    factor = cost / limit
    if factor > 100.0:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return (f"{name} exceeds budget by factor of {text} (try simplifying the rule, or adding maxItems, "
            "maxProperties, and maxLength where arrays, maps, and strings are declared)")
