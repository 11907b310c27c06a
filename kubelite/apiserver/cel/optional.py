"""CEL optional values (``optional.of``, ``optional.none``, ``hasValue``, ``value``, ``orValue``).

cel-go's optional library as Kubernetes enables it, minus the ``?.`` / ``[?]`` syntax that celpy's
grammar cannot parse: ``format.<name>().validate(s)`` returns one of these.
"""

from __future__ import annotations

from typing import Any

from celpy import celtypes

from kubelite.apiserver.cel.environment import error, register, register_namespace

__all__ = ["NONE", "Optional", "of"]


_EMPTY: Any = object()


class Optional:
    __slots__ = ("value",)

    def __init__(self, value: Any = _EMPTY) -> None:
        self.value = value

    @property
    def has_value(self) -> bool:
        return self.value is not _EMPTY

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Optional) and (
            (not self.has_value and not other.has_value) or (self.has_value and other.has_value
                                                             and bool(self.value == other.value)))

    def __hash__(self) -> int:
        return hash(self.value) if self.has_value else 0

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value else "optional.none()"


NONE = Optional()


def of(value: Any) -> Optional:
    return Optional(value)


class _Namespace:
    __slots__ = ()


_OPTIONAL = _Namespace()


def _of(ns: Any, value: Any) -> Optional:
    return Optional(value)


def _none(ns: Any) -> Optional:
    return NONE


def _of_non_zero(ns: Any, value: Any) -> Optional:
    return Optional(value) if value not in (None, 0, "", b"", False) and value != [] and value != {} else NONE


def _has_value(opt: Any) -> celtypes.BoolType:
    if not isinstance(opt, Optional):
        raise TypeError("no such overload")
    return celtypes.BoolType(opt.has_value)


def _value(opt: Any) -> Any:
    if not isinstance(opt, Optional):
        raise TypeError("no such overload")
    if not opt.has_value:
        return error("optional.none() dereference")
    return opt.value


def _or_value(opt: Any, default: Any) -> Any:
    if not isinstance(opt, Optional):
        raise TypeError("no such overload")
    return opt.value if opt.has_value else default


register_namespace("optional", _OPTIONAL)
register("of", _of, cost=False)
register("none", _none, cost=False)
register("ofNonZeroValue", _of_non_zero, cost=False)
register("hasValue", _has_value, cost=False)
register("value", _value, cost=False)
register("orValue", _or_value, cost=False)
