"""Field sets: which fields of an object someone owns, in the FieldsV1 shape.

Follows ``sigs.k8s.io/structured-merge-diff/v6/fieldpath`` (``element.go``, ``set.go``,
``serialize.go``, ``serialize-pe.go``) with one representation change: a :data:`FieldSet` *is*
the FieldsV1 trie. Each key is a serialised path element (``f:name``, ``k:{"name":"nginx"}``,
``v:"foo"``, ``i:0``) and maps to the child trie:

- ``{}``                 the path is a member and has no children;
- ``{".": {}, ...}``     the path is a member and has children;
- ``{...}`` without "."  the path is only a prefix of members.

The root is never a member (``{}`` at the root is the empty set).

Contract:
- Every function here treats its input tries as immutable and may share untouched subtrees between
  its inputs and its result; nobody may mutate a trie after handing it to this module. Only
  :func:`to_fields_v1` returns a fresh, fully owned copy (sorted as upstream serialises it), so
  that is what gets written into objects.
- No operation produces a non-member node without children (that would read back as a member).
- Path elements built here are canonical (key fields sorted, JSON encoded as Go's encoding/json
  does), so equal elements are equal strings and tries can be compared with ``==``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

import msgspec

from kubelite.memo import BoundedCache, memoize

__all__ = [
    "FieldSet",
    "PathElement",
    "difference",
    "field_pe",
    "from_fields_v1",
    "go_json",
    "index_pe",
    "intersection",
    "is_member",
    "key_pe",
    "node",
    "path_string",
    "paths",
    "pe_sort_key",
    "recursive_difference",
    "rewire",
    "to_fields_v1",
    "union",
    "value_pe",
]

# A trie of serialised path elements; see the module docstring.
FieldSet = dict[str, Any]

_SELF = "."
_encode = msgspec.json.encode
_decode = msgspec.json.decode


# --- path elements ---------------------------------------------------------------------------------


def _go_float_json(f: float) -> str:
    """encoding/json's float64 form: integral values without a fraction, 'e' only far out."""
    if math.isfinite(f) and f == int(f) and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


def go_json(v: Any) -> str:
    """JSON text as Go's encoding/json writes it (HTML-escaped, compact, map keys sorted)."""
    t = type(v)
    if t is str:
        s: str = _encode(v).decode()
        if "<" in s or ">" in s or "&" in s or "\u2028" in s or "\u2029" in s:
            s = (
                s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
            )
        return s
    if t is int:
        return str(v)
    if t is float:
        return _go_float_json(v)
    if t is dict:
        return "{" + ",".join(f"{go_json(k)}:{go_json(v[k])}" for k in sorted(v)) + "}"
    if t is list:
        return "[" + ",".join(go_json(x) for x in v) + "]"
    return str(_encode(v).decode())


def field_pe(name: str) -> str:
    return "f:" + name


# (key field, value) -> serialised element, for the one-key lists (containers, env, conditions)
# whose few distinct keys recur on every write; bounded, since some keys (uids) never recur.
_ONE_KEY_PES: BoundedCache[tuple[str, Any], str] = BoundedCache("apiserver.ssa.one_key_path_elements", maxsize=8192)


def key_pe(fields: Mapping[str, Any]) -> str:
    """An associative-list element, keyed by its key fields sorted by name (``value.FieldList.Sort``)."""
    if len(fields) == 1:
        ((k, v),) = fields.items()
        tv = type(v)
        if tv is not str and tv is not int:  # never a bool or float: equal keys must print alike
            return "k:{" + go_json(k) + ":" + go_json(v) + "}"
        pe = _ONE_KEY_PES.get((k, v))
        if pe is None:
            pe = "k:{" + go_json(k) + ":" + go_json(v) + "}"
            _ONE_KEY_PES.put((k, v), pe)
        return pe
    return "k:" + go_json(dict(fields))


def value_pe(v: Any) -> str:
    return "v:" + go_json(v)


def index_pe(i: int) -> str:
    return f"i:{i}"


def _go_value_string(v: Any) -> str:
    """``value.ToString``: strings Go-quoted, floats as ``%v``, maps as ``k=v`` pairs."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _encode(v).decode()
    if isinstance(v, float):
        return _go_float_v(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ",".join(_go_value_string(x) for x in v) + "]"
    if isinstance(v, dict):
        return "".join(f"{k}={_go_value_string(v[k])}" for k in v)
    return str(v)


def _go_float_v(f: float) -> str:
    """fmt's ``%v`` for float64 (``strconv.FormatFloat(f, 'g', -1, 64)``): exponent form when
    the decimal exponent is < -4 or >= 6."""
    if not math.isfinite(f):
        return "NaN" if f != f else ("+Inf" if f > 0 else "-Inf")
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    _, digs, e = Decimal(repr(abs(f))).normalize().as_tuple()
    digits = "".join(map(str, digs))
    exp = len(digits) - 1 + int(e)
    sign = "-" if f < 0 else ""
    if exp < -4 or exp >= 6:
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{m}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp >= len(digits) - 1:
        return sign + digits + "0" * (exp - len(digits) + 1)
    if exp >= 0:
        return sign + digits[: exp + 1] + "." + digits[exp + 1 :]
    return sign + "0." + "0" * (-exp - 1) + digits


def _value_sort_key(v: Any) -> tuple[Any, ...]:
    """``value.Compare``'s total order: numbers < strings < bools < lists < maps < null."""
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, int | float):
        return (0, v)
    if isinstance(v, str):
        return (1, v.encode())
    if isinstance(v, list):
        return (3, tuple(_value_sort_key(x) for x in v))
    if isinstance(v, dict):
        return (4, tuple((k.encode(), _value_sort_key(v[k])) for k in sorted(v)))
    return (5,)


class PathElement:
    """A parsed path element, for ordering and for human-readable paths (``element.go``).

    ``kind`` is ``"f"`` (field name), ``"k"`` (associative-list key fields, a dict sorted by name),
    ``"v"`` (set value) or ``"i"`` (index); ``value`` holds the payload.
    """

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: Any) -> None:
        self.kind = kind
        self.value = value

    @classmethod
    def parse(cls, s: str) -> PathElement:
        """``DeserializePathElement``; raises ValueError for malformed or unknown elements."""
        if len(s) < 2 or s[1] != ":":
            raise ValueError(f"missing colon: {s}")
        kind, body = s[0], s[2:]
        if kind == "f":
            return cls("f", body)
        if kind == "i":
            return cls("i", int(body))
        if kind in ("k", "v"):
            try:
                val = _decode(body)
            except msgspec.DecodeError as e:
                raise ValueError(f"parsing key as path element: {e}") from None
            if kind == "k":
                if not isinstance(val, dict):
                    raise ValueError(f"key path element is not an object: {s}")
                val = {k: val[k] for k in sorted(val)}
            return cls(kind, val)
        raise ValueError(f"unknown path element type: {s}")

    def serialize(self) -> str:
        if self.kind == "f":
            return field_pe(self.value)
        if self.kind == "k":
            return key_pe(self.value)
        if self.kind == "v":
            return value_pe(self.value)
        return index_pe(self.value)

    def __str__(self) -> str:
        if self.kind == "f":
            return "." + str(self.value)
        if self.kind == "k":
            return "[" + ",".join(f"{k}={_go_value_string(v)}" for k, v in self.value.items()) + "]"
        if self.kind == "v":
            return f"[={_go_value_string(self.value)}]"
        return f"[{self.value}]"

    def __repr__(self) -> str:
        return f"PathElement({self.serialize()!r})"

    def sort_key(self) -> tuple[Any, ...]:
        """``PathElement.Compare``: field names < keys < values < indices."""
        if self.kind == "f":
            return (0, self.value.encode())
        if self.kind == "k":
            return (1, tuple((k.encode(), _value_sort_key(v)) for k, v in self.value.items()))
        if self.kind == "v":
            return (2, _value_sort_key(self.value))
        return (3, self.value)


# bound: distinct serialised path elements: field names and a few keys per schema
@memoize("apiserver.ssa.fieldpath.pe_sort_key", maxsize=8192)
def pe_sort_key(s: str) -> tuple[Any, ...]:
    """Sort key of a serialised path element, in ``PathElement.Compare`` order."""
    try:
        return PathElement.parse(s).sort_key()
    except ValueError:
        return (9, s)


def _sorted_keys(trie: FieldSet) -> list[str]:
    keys = sorted(trie)
    if keys[0] == _SELF:
        del keys[0]
    # Field names (by far the most common) order like their serialised form; when the first and
    # last keys are field names, every key between them is one too.
    if len(keys) > 1 and not (keys[0].startswith("f:") and keys[-1].startswith("f:")):
        keys.sort(key=pe_sort_key)
    return keys


def path_string(elements: list[str]) -> str:
    """``fieldpath.Path.String``: ``.spec.containers[name="nginx"].image``."""
    return "".join(str(PathElement.parse(pe)) for pe in elements)


# --- set algebra -----------------------------------------------------------------------------------


def is_member(n: FieldSet) -> bool:
    return not n or _SELF in n


def node(member: bool, children: FieldSet) -> FieldSet | None:
    """The trie node for a path, or None when it would be neither a member nor a prefix."""
    if not children:
        return {} if member else None
    if member:
        out: FieldSet = {_SELF: {}}
        out.update(children)
        return out
    return children


def _children(n: FieldSet) -> FieldSet:
    if _SELF in n:
        return {k: v for k, v in n.items() if k != _SELF}
    return n


def _as_member(n: FieldSet) -> FieldSet:
    if not n or _SELF in n:
        return n
    out: FieldSet = {_SELF: {}}
    out.update(n)
    return out


def _trimmed(n: FieldSet, member: bool) -> FieldSet | None:
    """``n`` (which may still carry ".") as a node that is a member iff ``member``."""
    if member:
        return {} if _SELF in n and len(n) == 1 else _as_member(n)
    if _SELF in n:
        n = {k: v for k, v in n.items() if k != _SELF}
    return n or None


# The operations below iterate the (usually small) second operand and copy a level of the first only
# when something in it changes, so untouched subtrees, and whole results, keep their identity.


def union(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a:
        return b
    if not b or a is b:
        return a
    return _union_into(a, b)


def _union_into(a: FieldSet, b: FieldSet) -> FieldSet:
    out: FieldSet | None = None
    for k, bn in b.items():
        if k == _SELF:
            continue
        an = a.get(k)
        if an is bn:
            continue
        if an is None:
            n = bn
        elif not bn:
            n = _as_member(an)
        elif not an:
            n = _as_member(bn)
        else:
            n = _union_into(an, bn)
            if _SELF in bn:
                n = _as_member(n)
        if n is not an:
            if out is None:
                out = dict(a)
            out[k] = n
    return a if out is None else out


def intersection(a: FieldSet, b: FieldSet) -> FieldSet:
    out: FieldSet = {}
    if len(b) < len(a):
        a, b = b, a
    for k, an in a.items():
        if k == _SELF:
            continue
        bn = b.get(k)
        if bn is None:
            continue
        n = node(is_member(an) and is_member(bn), intersection(an, bn))
        if n is not None:
            out[k] = n
    return out


def difference(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a or not b:
        return a
    return _difference_of(a, b)


def _difference_of(a: FieldSet, b: FieldSet) -> FieldSet:
    out: FieldSet | None = None
    for k, bn in b.items():
        if k == _SELF:
            continue
        an = a.get(k)
        if an is None:
            continue
        if not an:  # a leaf (the common case): gone if b has it as a member, else untouched
            if bn and _SELF not in bn:
                continue
            member = False
            kids = an
        else:
            member = _SELF in an and not is_member(bn)
            kids = _difference_of(an, bn) if bn else an
        n = kids if kids is an and member == is_member(an) else _trimmed(kids, member)
        if n is not an:
            if out is None:
                out = dict(a)
            if n is None:
                del out[k]
            else:
                out[k] = n
    return a if out is None else out


def recursive_difference(a: FieldSet, b: FieldSet) -> FieldSet:
    """``Set.RecursiveDifference``: a member of ``b`` also removes everything below it from ``a``."""
    if not a or not b:
        return a
    return _recursive_difference_of(a, b)


def _recursive_difference_of(a: FieldSet, b: FieldSet) -> FieldSet:
    out: FieldSet | None = None
    for k, bn in b.items():
        if k == _SELF:
            continue
        an = a.get(k)
        if an is None:
            continue
        if is_member(bn):
            n = None
        else:
            kids = _recursive_difference_of(an, bn) if an else an
            n = kids if kids is an else _trimmed(kids, is_member(an))
        if n is not an:
            if out is None:
                out = dict(a)
            if n is None:
                del out[k]
            else:
                out[k] = n
    return a if out is None else out


def paths(trie: FieldSet, prefix: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """Every member path, in ``Set.Iterate`` order: a level's members first, then its subtrees."""
    keys = _sorted_keys(trie) if trie else []
    for k in keys:
        if is_member(trie[k]):
            yield [*prefix, k]
    for k in keys:
        n = trie[k]
        if n and (len(n) > 1 or _SELF not in n):
            yield from paths(_children(n), (*prefix, k))


# --- FieldsV1 --------------------------------------------------------------------------------------


def to_fields_v1(trie: FieldSet) -> FieldSet:
    """A fresh copy in upstream's serialisation order ("." first, then elements sorted)."""
    out: FieldSet = {}
    if not trie:
        return out
    if _SELF in trie and len(trie) > 1:
        out[_SELF] = {}
    for k in _sorted_keys(trie):
        n = trie[k]
        out[k] = to_fields_v1(n) if n else {}
    return out


def rewire(trie: FieldSet, wired: FieldSet) -> FieldSet:
    """``to_fields_v1(trie)``, sharing every subtree ``trie`` still holds of ``wired``.

    ``wired`` must already be in serialisation order (a :func:`to_fields_v1` result, such as a
    stored object's FieldsV1) and must not be mutated later. A set derived from it by this
    module's operations only differs along the changed paths, so only those get copied and
    sorted: the cost follows the change, not the size of the set.
    """
    if trie is wired:
        return trie
    out: FieldSet = {}
    if not trie or (len(trie) == 1 and _SELF in trie):
        return out
    tk, wk = trie.keys(), wired.keys()
    if tk == wk:  # same elements (C-fast set comparison): the stored order is the wire order
        keys: list[str] = list(wk)
    elif tk <= wk:
        keys = [k for k in wk if k in trie]  # some removed: what is left keeps the stored order
    else:
        if _SELF in trie and len(trie) > 1:
            out[_SELF] = {}
        keys = _sorted_keys(trie)
    for k in keys:
        n = trie[k]
        w = wired.get(k)
        if n is w:
            out[k] = n
        elif not n:
            out[k] = {}
        else:
            out[k] = rewire(n, w) if w is not None else to_fields_v1(n)
    return out


def from_fields_v1(raw: Any) -> FieldSet:
    """Parse a FieldsV1 value from a request (``Set.FromJSON``), canonicalising key elements.

    Unknown element types are dropped as upstream does; anything malformed raises ValueError.
    """
    if not isinstance(raw, dict):
        raise ValueError("fieldsV1 must be an object")
    out: FieldSet = {}
    for k, v in raw.items():
        if k == _SELF:
            out[_SELF] = {}
            continue
        if len(k) >= 2 and k[1] == ":" and k[0] not in "fkvi":
            continue
        pe = PathElement.parse(k)
        out[k if pe.kind == "f" else pe.serialize()] = from_fields_v1(v)
    if _SELF in out and len(out) == 1:
        return {}
    return out
