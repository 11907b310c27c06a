"""CEL string and regex functions Kubernetes enables (cel-go ``ext.Strings`` v2 as listed in
``k8s.io/apiserver/pkg/cel/library``, and ``regex.go``).

Strings: ``charAt``, ``indexOf``, ``lastIndexOf`` (code-point indexes, as cel-go), ``lowerAscii``,
``upperAscii``, ``replace``, ``split``, ``substring``, ``trim``, ``join``, ``reverse`` and
``strings.quote``. Regex: ``find`` and ``findAll`` (Python's ``re`` stands in for RE2: the common
syntax agrees; RE2-only or Python-only constructs may differ). List ``indexOf``/``lastIndexOf`` share the
names and live in :mod:`.lists`.
"""

from __future__ import annotations

import re
from typing import Any

from celpy import celtypes

from kubelite.apiserver.cel.environment import error, register, register_namespace
from kubelite.memo import BoundedCache

__all__: list[str] = []

_S = celtypes.StringType
_REGEX: BoundedCache[str, Any] = BoundedCache("apiserver.cel.regex", maxsize=512)
# ext.Strings trims Unicode white space (unicode.IsSpace)
_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("no such overload")
    return str(v)


def _int(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError("no such overload")
    return int(v)


def char_at(s: Any, i: Any) -> Any:
    text, n = _str(s), _int(i)
    if n < 0 or n > len(text):
        return error(f"index out of range: {n}")
    return _S(text[n:n + 1])


def index_of(s: Any, sub: Any, offset: Any = None) -> Any:
    text, needle = _str(s), _str(sub)
    start = 0 if offset is None else _int(offset)
    if start < 0 or start > len(text):
        return error(f"index out of range: {start}")
    return celtypes.IntType(text.find(needle, start))


def last_index_of(s: Any, sub: Any, offset: Any = None) -> Any:
    text, needle = _str(s), _str(sub)
    if offset is None:
        return celtypes.IntType(text.rfind(needle))
    end = _int(offset)
    if end < 0 or (end >= len(text) and len(text) > 0) or (len(text) == 0 and end != 0):
        return error(f"index out of range: {end}")
    return celtypes.IntType(text.rfind(needle, 0, end + len(needle)))


def _ascii(s: Any, upper: bool) -> _S:
    text = _str(s)
    table = {c: c - 32 for c in range(97, 123)} if upper else {c: c + 32 for c in range(65, 91)}
    return _S(text.translate(table))


def replace(s: Any, old: Any, new: Any, n: Any = None) -> _S:
    count = -1 if n is None else _int(n)
    return _S(_str(s).replace(_str(old), _str(new), count))


def split(s: Any, sep: Any, n: Any = None) -> celtypes.ListType:
    text, delim = _str(s), _str(sep)
    limit = -1 if n is None else _int(n)
    if limit == 0:
        return celtypes.ListType([])
    if delim == "":
        parts = list(text)
        if limit > 0 and len(parts) > limit:
            parts = [*parts[:limit - 1], "".join(parts[limit - 1:])]
    else:
        parts = text.split(delim, limit - 1 if limit > 0 else -1)
    return celtypes.ListType([_S(p) for p in parts])


def substring(s: Any, start: Any, end: Any = None) -> Any:
    text = _str(s)
    a = _int(start)
    b = len(text) if end is None else _int(end)
    if a < 0 or a > len(text):
        return error(f"index out of range: {a}")
    if b < 0 or b > len(text):
        return error(f"index out of range: {b}")
    if a > b:
        return error(f"invalid substring range. start: {a}, end: {b}")
    return _S(text[a:b])


def trim(s: Any) -> _S:
    return _S(_str(s).strip(_SPACE))


def join(items: Any, sep: Any = None) -> _S:
    if not isinstance(items, list):
        raise TypeError("no such overload")
    delim = "" if sep is None else _str(sep)
    return _S(delim.join(_str(i) for i in items))


def reverse(s: Any) -> _S:
    return _S(_str(s)[::-1])


_QUOTE = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
          "\\": "\\\\", '"': '\\"'}


def quote(ns: Any, s: Any) -> _S:
    return _S('"' + "".join(_QUOTE.get(c, c) for c in _str(s)) + '"')


def _compile(pattern: str) -> Any:
    hit = _REGEX.get(pattern)
    if hit is None:
        try:
            hit = re.compile(pattern)
        except re.error as e:
            hit = f"error parsing regexp: {e}"
        _REGEX.put(pattern, hit)
    return hit


def find(s: Any, pattern: Any) -> Any:
    rx = _compile(_str(pattern))
    if isinstance(rx, str):
        return error(rx)
    m = rx.search(_str(s))
    return _S(m.group(0) if m else "")


def find_all(s: Any, pattern: Any, n: Any = None) -> Any:
    rx = _compile(_str(pattern))
    if isinstance(rx, str):
        return error(rx)
    limit = -1 if n is None else _int(n)
    out = [_S(m.group(0)) for m in rx.finditer(_str(s))]
    return celtypes.ListType(out if limit < 0 else out[:limit])


class _Namespace:
    __slots__ = ()


register_namespace("strings", _Namespace())
register("charAt", char_at)
register("lowerAscii", lambda s: _ascii(s, False))
register("upperAscii", lambda s: _ascii(s, True))
register("replace", replace)
register("split", split)
register("substring", substring)
register("trim", trim)
register("join", join)
register("reverse", reverse)
register("quote", quote)
register("find", find)
register("findAll", find_all)
