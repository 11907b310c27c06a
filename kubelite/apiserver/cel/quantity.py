"""Kubernetes' CEL quantity library (``k8s.io/apiserver/pkg/cel/library/quantity.go``).

``quantity(s)`` parses (a bad string is a runtime error with apimachinery's message), ``isQuantity(s)``;
methods ``sign()``, ``isInteger()``, ``asInteger()`` (``cannot convert value to integer`` when fractional
or beyond int64), ``asApproximateFloat()``, ``add(q|int)``, ``sub(q|int)``, ``isLessThan(q)``,
``isGreaterThan(q)``, ``compareTo(q)``. Quantities compare equal by value (``quantity("200M") ==
quantity("0.2G")``), as ``Quantity.Equal`` does.
"""

from __future__ import annotations

from typing import Any

from celpy import celtypes

from kubelite.api.quantity import Quantity, parse_quantity
from kubelite.apiserver.cel.environment import error, register

__all__ = ["CELQuantity"]

_MAX_INT64 = 2**63 - 1


class CELQuantity:
    """A quantity as a CEL value."""

    __slots__ = ("q",)

    def __init__(self, q: Quantity) -> None:
        self.q = q

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CELQuantity) and self.q == other.q

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.q)

    def __repr__(self) -> str:
        return f"quantity({str(self.q)!r})"


def _quantity(s: Any) -> Any:
    if not isinstance(s, str):
        raise TypeError("no such overload")
    try:
        return CELQuantity(parse_quantity(str(s)))
    except (TypeError, ValueError) as e:
        return error(str(e.args[0]) if e.args else str(e))


def _is_quantity(s: Any) -> celtypes.BoolType:
    if not isinstance(s, str):
        raise TypeError("no such overload")
    try:
        parse_quantity(str(s))
    except (TypeError, ValueError):
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _q(v: Any) -> Quantity:
    if not isinstance(v, CELQuantity):
        raise TypeError("no such overload")
    return v.q


def _operand(v: Any) -> Quantity:
    if isinstance(v, CELQuantity):
        return v.q
    if isinstance(v, int) and not isinstance(v, bool):
        return Quantity.from_int(int(v))
    raise TypeError("no such overload")


def _sign(v: Any) -> celtypes.IntType:
    return celtypes.IntType(_q(v).sign())


def _integral(q: Quantity) -> int | None:
    frac = q.as_fraction()
    if frac.denominator != 1 or not -_MAX_INT64 - 1 <= frac.numerator <= _MAX_INT64:
        return None
    return frac.numerator


def _is_integer(v: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_integral(_q(v)) is not None)


def _as_integer(v: Any) -> Any:
    n = _integral(_q(v))
    if n is None:
        return error("cannot convert value to integer")
    return celtypes.IntType(n)


def _as_approximate_float(v: Any) -> celtypes.DoubleType:
    return celtypes.DoubleType(float(_q(v).as_fraction()))


def _add(a: Any, b: Any) -> CELQuantity:
    return CELQuantity(_q(a) + _operand(b))


def _sub(a: Any, b: Any) -> CELQuantity:
    return CELQuantity(_q(a) - _operand(b))


def _compare(a: Any, b: Any) -> int:
    x, y = _q(a), _q(b)
    return -1 if x < y else (1 if x > y else 0)


register("quantity", _quantity)
register("isQuantity", _is_quantity)
register("sign", _sign, cost=False)
register("isInteger", _is_integer, cost=False)
register("asInteger", _as_integer, cost=False)
register("asApproximateFloat", _as_approximate_float, cost=False)
register("add", _add, cost=False)
register("sub", _sub, cost=False)
register("isLessThan", lambda a, b: celtypes.BoolType(_compare(a, b) < 0), cost=False)
register("isGreaterThan", lambda a, b: celtypes.BoolType(_compare(a, b) > 0), cost=False)
register("compareTo", lambda a, b: celtypes.IntType(_compare(a, b)), cost=False)
