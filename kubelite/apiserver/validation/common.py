"""Shared building blocks of built-in validation: field-error helpers with upstream's wording.

Contract:
- Every helper only *reads* its inputs and returns a fresh ``list[FieldError]`` (possibly empty) or
  appends to a list the caller owns; nothing here mutates an object.
- Messages are upstream's constants (``apimachinery/pkg/api/validation/generic.go``,
  ``pkg/apis/core/validation/validation.go``, ``apps/validation``) so callers never spell them twice.

Values are JSON: an int-or-string is an ``int`` or a ``str``, a quantity is a ``str`` or a number, a
missing optional field is ``None``. Where upstream prints a Go struct with ``%#v`` we print its JSON.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import msgspec

from kubelite.api import names
from kubelite.api.labels import Selector, selector_from_label_selector
from kubelite.api.quantity import ERR_FORMAT_WRONG, Quantity, parse_quantity
from kubelite.errors import FieldError
from kubelite.memo import ENCODED_KEYS, memoize

__all__ = [
    "memo_valid",
    "FIELD_IMMUTABLE",
    "IS_NEGATIVE",
    "EMPTY",
    "NameFn",
    "Obj",
    "Selector",
    "as_dict",
    "as_list",
    "dns1123_label",
    "dns1123_subdomain",
    "immutable",
    "int_or_percent",
    "label_selector",
    "labels",
    "nonnegative",
    "not_found",
    "not_more_than_100_percent",
    "positive_int_or_percent",
    "qualified_name",
    "quantity",
    "rbac_name",
    "selector_of",
    "semantic_equal",
    "too_many",
]

Obj = dict[str, Any]
NameFn = Callable[[str, bool], list[str]]

FIELD_IMMUTABLE: Final = "field is immutable"
IS_NEGATIVE: Final = "must be greater than or equal to 0"
EMPTY: Final[Mapping[str, Any]] = {}


def as_dict(v: Any) -> Mapping[str, Any]:
    """``v`` if it is an object, else an empty mapping (shape errors belong to schema validation)."""
    return v if isinstance(v, dict) else EMPTY


def as_list(v: Any) -> Sequence[Any]:
    return v if isinstance(v, list) else ()


def _probe_not_found() -> bool:
    try:
        FieldError(kind="NotFound", field="", value="").body()
    except KeyError:
        return False
    return True


_HAS_NOT_FOUND: Final = _probe_not_found()


def not_found(path: str, value: Any) -> FieldError:
    """``field.NotFound``. kubelite.errors has no NotFound kind yet; until it does, report the value as
    Invalid with upstream's label as the detail so the text still says "not found"."""
    if _HAS_NOT_FOUND:
        return FieldError(kind="NotFound", field=path, value=value)
    return FieldError.invalid(path, value, "Not found")


def too_many(path: str, actual: int, maximum: int) -> FieldError:
    """``field.TooMany``: "Too many: 1001: must have at most 1000 items"."""
    return FieldError(kind="TooMany", field=path, detail=f"{actual}: must have at most {maximum} items")


def nonnegative(value: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateNonnegativeField``."""
    if isinstance(value, int | float) and value < 0:
        errs.append(FieldError.invalid(path, value, IS_NEGATIVE))


def immutable(new: Any, old: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateImmutableField``."""
    if new != old:
        errs.append(FieldError.invalid(path, new, FIELD_IMMUTABLE))


def dns1123_label(value: str, path: str, errs: list[FieldError]) -> None:
    """``ValidateDNS1123Label``."""
    for msg in names.is_dns1123_label(value):
        errs.append(FieldError.invalid(path, value, msg))


def dns1123_subdomain(value: str, path: str, errs: list[FieldError]) -> None:
    """``ValidateDNS1123Subdomain``."""
    for msg in names.is_dns1123_subdomain(value):
        errs.append(FieldError.invalid(path, value, msg))


def qualified_name(value: str, path: str, errs: list[FieldError]) -> None:
    """``ValidateQualifiedName`` / ``ValidateLabelName``."""
    for msg in names.is_qualified_name(value):
        errs.append(FieldError.invalid(path, value, msg))


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """``path.IsValidPathSegmentName`` (and ``...Prefix`` when ``prefix``)."""
    errs = []
    if not prefix and name in (".", ".."):
        errs.append(f"may not be '{name}'")
    for bad in ("/", "%"):
        if bad in name:
            errs.append(f"may not contain '{bad}'")
    return errs


def rbac_name(name: str, prefix: bool) -> list[str]:
    """``ValidateRBACName`` (``path.IsValidPathSegmentName``)."""
    return path_segment_name(name, prefix)


# --- quantities --------------------------------------------------------------------------------------


def quantity(value: Any, path: str, errs: list[FieldError]) -> Quantity | None:
    """Parse a quantity; an unparseable one is reported (upstream rejects it while decoding)."""
    try:
        return parse_quantity(value)
    except (ValueError, TypeError):
        errs.append(FieldError.invalid(path, value, ERR_FORMAT_WRONG))
        return None


# --- int-or-percent (apps/validation) ----------------------------------------------------------------

_PERCENT_RE = re.compile(r"([0-9]+)%")


def int_or_percent(value: Any) -> int:
    """``getIntOrPercentValue``: the number of an int or a ``"N%"`` string (0 when unparsable)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        m = _PERCENT_RE.fullmatch(value)
        if m is not None:
            return int(m.group(1))
    return 0


def positive_int_or_percent(value: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, str):
        for msg in names.is_valid_percent(value):
            errs.append(FieldError.invalid(path, value, msg))
    elif isinstance(value, int) and not isinstance(value, bool):
        nonnegative(value, path, errs)
    elif value is not None:
        errs.append(FieldError.invalid(path, value, "must be an integer or percentage (e.g '5%')"))


def not_more_than_100_percent(value: Any, path: str, errs: list[FieldError]) -> None:
    """``IsNotMoreThan100Percent``."""
    if isinstance(value, str) and _PERCENT_RE.fullmatch(value) and int_or_percent(value) > 100:
        errs.append(FieldError.invalid(path, value, "must not be greater than 100%"))


# --- label selectors (meta/v1/validation) --------------------------------------------------------------


def label_selector(ls: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateLabelSelector`` (strict: label values in expressions must be valid)."""
    if not isinstance(ls, dict):
        return
    match_labels = ls.get("matchLabels")
    if match_labels:
        labels(match_labels, f"{path}.matchLabels", errs)
    for i, expr in enumerate(as_list(ls.get("matchExpressions"))):
        expr = as_dict(expr)
        p = f"{path}.matchExpressions[{i}]"
        op = expr.get("operator")
        values = as_list(expr.get("values"))
        if op in ("In", "NotIn"):
            if not values:
                errs.append(FieldError.required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(FieldError.forbidden(
                    f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(FieldError.invalid(f"{p}.operator", op, "not a valid selector operator"))
        qualified_name(expr.get("key") or "", f"{p}.key", errs)
        for j, v in enumerate(values):
            for msg in names.is_valid_label_value(v) if isinstance(v, str) else ():
                errs.append(FieldError.invalid(f"{p}.values[{j}]", v, msg))


def selector_of(ls: Any) -> Selector | None:
    """``metav1.LabelSelectorAsSelector``: None when it cannot be converted (upstream's error case)."""
    try:
        return selector_from_label_selector(ls if isinstance(ls, dict) else None)
    except ValueError:
        return None


def _zero(v: Any) -> bool:
    return v is None or v is False or v == "" or v == [] or v == {}


def _normalize(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _normalize(x) for k, x in v.items() if not _zero(x)}
    if isinstance(v, list):
        return [_normalize(x) for x in v]
    return v


def semantic_equal(a: Any, b: Any) -> bool:
    """``apiequality.Semantic.DeepEqual`` over JSON: an absent field equals its Go zero value (null,
    "", false, [] or {}), which is what the typed comparison upstream sees. Numbers compare exactly."""
    return bool(a == b or _normalize(a) == _normalize(b))


# bound: distinct label key/value pairs: a few per workload
@memoize("apiserver.validation.common._label_problems", maxsize=8192)
def _label_problems(key: str, value: str) -> tuple[tuple[str, str], ...]:
    """(bad value, message) pairs for one label, in ``ValidateLabels`` order (key first)."""
    out = [(key, msg) for msg in names.is_qualified_name(key)]
    out.extend((value, msg) for msg in names.is_valid_label_value(value))
    return tuple(out)


def labels(values: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateLabels``, memoized per (key, value): the same few labels recur on every object."""
    if not values:
        return
    if not isinstance(values, dict):
        errs.extend(names.validate_labels(values, path))
        return
    for k, v in values.items():
        if not isinstance(k, str) or not isinstance(v, str):
            errs.extend(names.validate_labels({k: v}, path))
            continue
        problems = _label_problems(k, v)
        if problems:
            errs.extend(FieldError.invalid(path, bad, msg) for bad, msg in problems)


_Check = Callable[[Any, str, list[FieldError]], None]
_MEMO_LIMIT: Final = 1024
_memo_encode = msgspec.json.Encoder().encode


def memo_valid(check: _Check) -> _Check:
    """Remember the encoded values a pure ``check(value, path, errs)`` found valid.

    A cluster validates the same sub-objects over and over (every replica of a template, every update
    of a pod re-validates its unchanged spec). Only values that passed are remembered, so a rejection
    always runs the full check and reports every error; values that are not JSON data are never
    remembered. Each decorated check keeps its own bounded table (cleared when full).
    """
    valid: dict[tuple[str, bytes], None] = {}

    @functools.wraps(check)
    def memoised(value: Any, path: str, errs: list[FieldError]) -> None:
        if not ENCODED_KEYS.on:
            check(value, path, errs)
            return
        try:
            key: tuple[str, bytes] | None = (path, _memo_encode(value))
        except (TypeError, ValueError):
            key = None
        if key is not None and key in valid:
            return
        before = len(errs)
        check(value, path, errs)
        if key is not None and len(errs) == before:
            if len(valid) >= _MEMO_LIMIT:
                valid.clear()
            valid[key] = None

    return memoised
