"""Quantity fields of built-in kinds, canonicalised as decoding into ``resource.Quantity`` does.

Upstream decodes every request body into Go structs, and a ``resource.Quantity`` field re-encodes as
its canonical ``String()``: a pod sent with ``cpu: 1000m`` is stored (and watched, and listed) with
``cpu: "1"``, ``memory: 1.5Gi`` as ``1536Mi``, ``cpu: 0.5`` (a JSON number) as ``500m``. A value that
does not parse fails the decode, so the request is a 400 BadRequest ("Pod in version "v1" cannot be
handled as a Pod: quantities must match the regular expression ...") and nothing is stored.

Contract:
- :func:`quantity_paths` compiles, once per schema node, the tree of paths that lead to Quantity fields
  (``{"x-kubernetes-int-or-string": true, "format": "quantity"}``); subtrees without any are dropped,
  so a write only walks the few branches that can hold a quantity (``resources``, ``overhead``,
  ``capacity``, ``allocatable``, ``hard``, ``sizeLimit``, ...).
- :func:`canonicalize_quantities` rewrites those fields of a plain JSON object in place and raises
  :class:`QuantityError` (a ``ValueError``) with upstream's parse message for the first bad one.
  Custom resources are unstructured upstream and are left as sent (callers only pass built-in kinds).
"""

from __future__ import annotations

from typing import Any, Final

from kubelite.api.quantity import parse_quantity
from kubelite.api.schema import Schema
from kubelite.memo import memoize

__all__ = ["QuantityError", "canonicalize_quantities", "quantity_paths"]

# A compiled path tree: field name, ITEMS (every list item) or VALUES (every map value) -> subtree;
# LEAF marks a Quantity.
LEAF: Final = "\x00quantity"
ITEMS: Final = "\x00items"
VALUES: Final = "\x00values"
_MAX_DEPTH: Final = 64

_TREES: dict[int, tuple[Schema, dict[str, Any] | None]] = {}


class QuantityError(ValueError):
    """A Quantity field that does not parse (``str(e)`` is upstream's message)."""


def _is_quantity(s: Schema) -> bool:
    return s.int_or_string and s.format == "quantity"


def _compile(s: Schema, active: set[int], depth: int) -> dict[str, Any] | None:
    if _is_quantity(s):
        return {LEAF: True}
    hit = _TREES.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    if id(s) in active or depth > _MAX_DEPTH:
        return None  # a recursive definition (JSONSchemaProps) never reaches a Quantity through itself
    active.add(id(s))
    out: dict[str, Any] = {}
    for name, prop in s.properties.items():
        sub = _compile(prop, active, depth + 1)
        if sub is not None:
            out[name] = sub
    extra = s.additional_properties
    if extra is not None:
        sub = _compile(extra, active, depth + 1)
        if sub is not None:
            out[VALUES] = sub
    items = s.items
    if items is not None:
        sub = _compile(items, active, depth + 1)
        if sub is not None:
            out[ITEMS] = sub
    active.discard(id(s))
    tree = out or None
    # Every node is cached, also one compiled inside a cycle: no recursive built-in definition reaches a
    # Quantity (JSONSchemaProps, the only deep one, has none), so a cut back-edge never hides one. Without
    # this, the CRD schema (JSONSchemaProps nested in itself ~40 ways) takes seconds to walk.
    _TREES[id(s)] = (s, tree)
    return tree


def quantity_paths(schema: Schema) -> dict[str, Any] | None:
    """The compiled tree of Quantity paths under ``schema`` (None when it has none)."""
    hit = _TREES.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    return _compile(schema, set(), 0)


_QUANTITY_TYPES: Final = (str, int, float)


def _canonical(v: Any) -> str:
    if type(v) is str:
        return _canonical_str(v)
    if isinstance(v, bool) or not isinstance(v, _QUANTITY_TYPES):
        raise QuantityError("quantities must match the regular expression "
                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    return _canonical_of(v)


# bound: distinct quantity strings sent: a cluster's quantities are a small vocabulary ("100m", "512Mi") even
# when every spec is its own, so a string's canonical form is looked up, not parsed and printed again (a
# string that does not parse raises every time: nothing is remembered for it)
@memoize("api.quantity_fields.canonical", maxsize=4096)
def _canonical_str(v: str) -> str:
    return _canonical_of(v)


def _canonical_of(v: str | int | float) -> str:
    try:
        return str(parse_quantity(v))
    except (ValueError, TypeError, OverflowError) as e:
        raise QuantityError(str(e)) from None


def _walk(v: Any, tree: dict[str, Any]) -> Any:
    if LEAF in tree:
        return v if v is None else _canonical(v)
    if isinstance(v, dict):
        values = tree.get(VALUES)
        for k, child in v.items():
            sub = tree.get(k, values)
            if sub is not None and child is not None:
                new = _walk(child, sub)
                if new is not child:
                    v[k] = new
    elif isinstance(v, list):
        sub = tree.get(ITEMS)
        if sub is not None:
            for i, child in enumerate(v):
                if child is not None:
                    new = _walk(child, sub)
                    if new is not child:
                        v[i] = new
    return v


def canonicalize_quantities(obj: dict[str, Any], schema: Schema) -> None:
    """Rewrite every Quantity field of ``obj`` to its canonical string, in place."""
    tree = quantity_paths(schema)
    if tree is not None:
        _walk(obj, tree)
