"""Label selectors: parsing, canonical strings and fast matching.

Follows ``k8s.io/apimachinery/pkg/labels/selector.go`` (``Parse``, ``NewRequirement``, ``Matches``,
``String``) and ``pkg/apis/meta/v1/helpers.go`` (``LabelSelectorAsSelector``).

Contract:
- A :class:`Selector` is immutable and hashable; it is the AND of its requirements, kept sorted by key
  (stable, so requirements on one key keep their order). ``str(selector)`` is upstream's ``String()``.
- :data:`EVERYTHING` matches every label set (``empty()`` is true); :data:`NOTHING` matches none. Both print
  as ``""`` but are distinct: a nil ``metav1.LabelSelector`` selects nothing, an empty one everything.
- :func:`parse_selector` and :func:`selector_from_label_selector` validate keys and values like upstream and
  raise ``ValueError`` carrying upstream's message. Parsed selectors are cached (they are immutable).
- :meth:`Selector.matches` is the hot path (every object, every watcher): requirements are compiled once
  into equality pairs plus small closures, and labels are only read, never copied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

import msgspec

from kubelite.api.names import is_qualified_name, is_valid_label_value
from kubelite.errors import FieldError
from kubelite.memo import memoize

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "Requirement",
    "Selector",
    "label_selector_matches",
    "new_requirement",
    "parse_selector",
    "selector_from_label_selector",
    "selector_from_set",
]

# selection.Operator values.
EQUALS: Final = "="
DOUBLE_EQUALS: Final = "=="
NOT_EQUALS: Final = "!="
IN: Final = "in"
NOT_IN: Final = "notin"
EXISTS: Final = "exists"
DOES_NOT_EXIST: Final = "!"
GREATER_THAN: Final = "gt"
LESS_THAN: Final = "lt"

_BINARY_OPERATORS: Final = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_VALID_OPERATORS: Final = (*_BINARY_OPERATORS, EXISTS, DOES_NOT_EXIST)
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1

Labels = Mapping[str, str]
_NO_LABELS: Final[Mapping[str, str]] = {}


def _parse_int64(s: str) -> int | None:
    """Go ``strconv.ParseInt(s, 10, 64)``: optional sign, decimal digits, int64 range."""
    digits = s[1:] if s[:1] in ("+", "-") else s
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    n = int(s)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


class Requirement(NamedTuple):
    """One ``key op values`` term. Build validated ones with :func:`new_requirement`."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Labels | None) -> bool:
        return _compile(self)(labels if labels is not None else _NO_LABELS)

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def _aggregate(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message as is, several de-duplicated in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def new_requirement(key: str, operator: str, values: Iterable[str] = (), *, path: str = "") -> Requirement:
    """``labels.NewRequirement``: validate and build; ``ValueError`` with the aggregated field errors.

    ``path`` prefixes the field paths (upstream's ``field.WithPath``); the empty default reports errors at
    ``key`` and ``values[i]`` exactly as an unprefixed upstream call does.
    """
    vals = tuple(values)
    prefix = path + "." if path else ""
    errs: list[str] = []
    key_msgs = is_qualified_name(key)
    if key_msgs:
        errs.append(str(FieldError.invalid(prefix + "key", key, "; ".join(key_msgs))))
    values_path = prefix + "values"
    shown: Any = list(vals) if vals else None  # Go renders a nil []string as null
    if operator in (IN, NOT_IN):
        if not vals:
            errs.append(str(FieldError.invalid(
                values_path, shown, "for 'in', 'notin' operators, values set can't be empty")))
    elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(vals) != 1:
            errs.append(str(FieldError.invalid(
                values_path, shown, "exact-match compatibility requires one single value")))
    elif operator in (EXISTS, DOES_NOT_EXIST):
        if vals:
            errs.append(str(FieldError.invalid(
                values_path, shown, "values set must be empty for exists and does not exist")))
    elif operator in (GREATER_THAN, LESS_THAN):
        if len(vals) != 1:
            errs.append(str(FieldError.invalid(
                values_path, shown, "for 'Gt', 'Lt' operators, exactly one value is required")))
        for i, v in enumerate(vals):
            if _parse_int64(v) is None:
                errs.append(str(FieldError.invalid(
                    f"{values_path}[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")))
    else:
        errs.append(str(FieldError.not_supported(prefix + "operator", operator, _VALID_OPERATORS)))
    for i, v in enumerate(vals):
        value_msgs = is_valid_label_value(v)
        if value_msgs:
            errs.append(str(FieldError.invalid(f"{values_path}[{i}][{key}]", v, "; ".join(value_msgs))))
    if errs:
        raise ValueError(_aggregate(errs))
    return Requirement(key, operator, vals)


# --- matching -------------------------------------------------------------------------------------------

_Check = Callable[[Labels], bool]


def _compile(r: Requirement) -> _Check:
    """One closure per requirement (upstream ``Requirement.Matches``)."""
    key, op, values = r
    if op in (IN, EQUALS, DOUBLE_EQUALS):
        if len(values) == 1:
            only = values[0]
            return lambda ls: ls.get(key) == only
        allowed = frozenset(values)
        return lambda ls: ls.get(key) in allowed
    if op in (NOT_IN, NOT_EQUALS):
        denied = frozenset(values)
        return lambda ls: ls.get(key) not in denied  # an absent key (None) is never denied
    if op == EXISTS:
        return lambda ls: key in ls
    if op == DOES_NOT_EXIST:
        return lambda ls: key not in ls
    if op in (GREATER_THAN, LESS_THAN):
        bound = _parse_int64(values[0]) if len(values) == 1 else None
        if bound is None:
            return lambda ls: False
        greater = op == GREATER_THAN

        def compare(ls: Labels) -> bool:
            raw = ls.get(key)
            n = _parse_int64(raw) if raw is not None else None
            if n is None:
                return False
            return n > bound if greater else n < bound

        return compare
    return lambda ls: False


class Selector:
    """An immutable AND of :class:`Requirement` values, sorted by key."""

    __slots__ = ("_checks", "_eq", "_nothing", "requirements")

    requirements: tuple[Requirement, ...]
    _eq: tuple[tuple[str, str], ...]  # single-value equality requirements, checked first
    _checks: tuple[_Check, ...]  # everything else
    _nothing: bool

    def __init__(self, requirements: Iterable[Requirement] = (), *, _nothing: bool = False) -> None:
        reqs = tuple(sorted(requirements, key=lambda r: r.key))
        eq: list[tuple[str, str]] = []
        checks: list[_Check] = []
        for r in reqs:
            if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                eq.append((r.key, r.values[0]))
            else:
                checks.append(_compile(r))
        object.__setattr__(self, "requirements", reqs)
        object.__setattr__(self, "_eq", tuple(eq))
        object.__setattr__(self, "_checks", tuple(checks))
        object.__setattr__(self, "_nothing", _nothing)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Selector is immutable")

    def matches(self, labels: Labels | None) -> bool:
        if self._nothing:
            return False
        ls = labels if labels is not None else _NO_LABELS
        for k, v in self._eq:
            if ls.get(k) != v:
                return False
        for check in self._checks:  # noqa: SIM110 - a plain loop beats all() on this hot path
            if not check(ls):
                return False
        return True

    def empty(self) -> bool:
        """True if the selector does not restrict anything (only :data:`EVERYTHING`-like selectors)."""
        return not self._nothing and not self.requirements

    def matches_nothing(self) -> bool:
        """Upstream ``labels.MatchesNothing``: true only for :data:`NOTHING`."""
        return self._nothing

    def add(self, *requirements: Requirement) -> Selector:
        """A new selector with ``requirements`` added (upstream ``Add``); NOTHING stays NOTHING."""
        if self._nothing:
            return self
        return Selector((*self.requirements, *requirements))

    def requires_exact_match(self, key: str) -> str | None:
        """The value ``key`` must have, if the first requirement on ``key`` pins one (``RequiresExactMatch``)."""
        for r in self.requirements:
            if r.key == key:
                if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "Selector(NOTHING)" if self._nothing else f"Selector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return self._nothing == other._nothing and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self.requirements))


EVERYTHING: Final = Selector()
NOTHING: Final = Selector(_nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """``labels.SelectorFromSet``: ``key=value`` for every entry, unvalidated; empty -> EVERYTHING."""
    if not labels:
        return EVERYTHING
    return Selector(Requirement(k, EQUALS, (v,)) for k, v in labels.items())


# --- metav1.LabelSelector -------------------------------------------------------------------------------

_LABEL_SELECTOR_OPS: Final = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


def selector_from_label_selector(ls: Mapping[str, Any] | None) -> Selector:
    """``metav1.LabelSelectorAsSelector`` over the JSON form: None -> NOTHING, {} -> EVERYTHING."""
    if ls is None:
        return NOTHING
    match_labels: Mapping[str, str] = ls.get("matchLabels") or {}
    match_expressions: Sequence[Mapping[str, Any]] = ls.get("matchExpressions") or ()
    if not match_labels and not match_expressions:
        return EVERYTHING
    reqs = [new_requirement(k, EQUALS, (v,)) for k, v in match_labels.items()]
    for expr in match_expressions:
        raw_op = expr.get("operator", "")
        op = _LABEL_SELECTOR_OPS.get(raw_op)
        if op is None:
            raise ValueError(f"{msgspec.json.encode(raw_op).decode()} is not a valid label selector operator")
        reqs.append(new_requirement(expr.get("key", ""), op, expr.get("values") or ()))
    return Selector(reqs)


# bound: distinct label selectors: one per workload
@memoize("api.labels._selector_for_json", maxsize=4096)
def _selector_for_json(canonical: bytes) -> Selector:
    return selector_from_label_selector(msgspec.json.decode(canonical))


def label_selector_matches(ls: Mapping[str, Any] | None, labels: Labels | None) -> bool:
    """Whether a ``metav1.LabelSelector`` (JSON form) matches ``labels``; ValueError if it is invalid.

    Conversions are cached by the selector's canonical JSON, since controllers evaluate the same few
    selectors against every object.
    """
    if ls is None:
        return False
    return _selector_for_json(msgspec.json.encode(ls, order="sorted")).matches(labels)


# --- the string syntax ----------------------------------------------------------------------------------
#
# A hand-written lexer and recursive-descent parser shaped like upstream's, so that error messages line up
# token for token.

_ERROR, _EOS, _CLOSED_PAR, _COMMA, _NOT, _DOUBLE_EQUALS, _EQUALS, _GT, _IDENT, _IN, _LT, _NOT_EQUALS, \
    _NOT_IN, _OPEN_PAR = range(14)

_STRING_TO_TOKEN: Final = {
    ")": _CLOSED_PAR,
    ",": _COMMA,
    "!": _NOT,
    "==": _DOUBLE_EQUALS,
    "=": _EQUALS,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NOT_EQUALS,
    "notin": _NOT_IN,
    "(": _OPEN_PAR,
}
_SPECIAL: Final = frozenset("=!(),><")
_WHITESPACE: Final = frozenset(" \t\r\n")
_OPERATOR_TOKENS: Final = {
    _IN: IN, _EQUALS: EQUALS, _DOUBLE_EQUALS: DOUBLE_EQUALS, _GT: GREATER_THAN, _LT: LESS_THAN,
    _NOT_IN: NOT_IN, _NOT_EQUALS: NOT_EQUALS,
}


def _lex(s: str) -> list[tuple[int, str]]:
    """All tokens of ``s``, ending with one ``_EOS`` (a NUL character ends input, as in upstream)."""
    items: list[tuple[int, str]] = []
    pos, end = 0, len(s)
    while True:
        while pos < end and s[pos] in _WHITESPACE:
            pos += 1
        if pos >= end or s[pos] == "\0":
            items.append((_EOS, ""))
            return items
        if s[pos] in _SPECIAL:
            # Longest run of special characters that still forms a known token.
            buf, last, last_end = "", None, pos
            while pos < end and s[pos] in _SPECIAL:
                buf += s[pos]
                tok = _STRING_TO_TOKEN.get(buf)
                if tok is not None:
                    last, last_end = (tok, buf), pos + 1
                elif last is not None:
                    break
                pos += 1
            if last is None:
                items.append((_ERROR, f"error expected: keyword found '{buf}'"))
            else:
                items.append(last)
            pos = last_end if last is not None else pos
            continue
        start = pos
        while pos < end and s[pos] not in _SPECIAL and s[pos] not in _WHITESPACE and s[pos] != "\0":
            pos += 1
        word = s[start:pos]
        items.append((_STRING_TO_TOKEN.get(word, _IDENT), word))


class _Parser:
    __slots__ = ("items", "pos")

    def __init__(self, s: str) -> None:
        self.items = _lex(s)
        self.pos = 0

    def lookahead(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if values and tok in (_IN, _NOT_IN):
            tok = _IDENT  # 'in' and 'notin' are plain identifiers where values (or keys) are expected
        return tok, lit

    def consume(self, values: bool) -> tuple[int, str]:
        item = self.lookahead(values)
        self.pos += 1
        return item

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_IDENT, _NOT):
                try:
                    reqs.append(self.requirement())
                except ValueError as e:
                    raise ValueError(f"unable to parse requirement: {e}") from None
                tok, lit = self.consume(True)
                if tok == _EOS:
                    return reqs
                if tok == _COMMA:
                    tok2, lit2 = self.lookahead(True)
                    if tok2 not in (_IDENT, _NOT):
                        raise ValueError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise ValueError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _EOS:
                return reqs
            else:
                raise ValueError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        operator = ""
        tok, lit = self.consume(True)
        if tok == _NOT:
            operator = DOES_NOT_EXIST
            tok, lit = self.consume(True)
        if tok != _IDENT:
            raise ValueError(f"found '{lit}', expected: identifier")
        key = lit
        key_msgs = is_qualified_name(key)
        if key_msgs:
            raise ValueError(str(FieldError.invalid("<nil>", key, "; ".join(key_msgs))))
        if self.lookahead(True)[0] in (_EOS, _COMMA) and operator != DOES_NOT_EXIST:
            operator = EXISTS
        if operator in (EXISTS, DOES_NOT_EXIST):
            return new_requirement(key, operator)
        tok, lit = self.consume(False)
        op = _OPERATOR_TOKENS.get(tok)
        if op is None:
            raise ValueError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        values = self.value_set() if op in (IN, NOT_IN) else self.exact_value()
        return new_requirement(key, op, sorted(values))

    def value_set(self) -> set[str]:
        tok, lit = self.consume(True)
        if tok != _OPEN_PAR:
            raise ValueError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok in (_IDENT, _COMMA):
            values = self.identifiers()
            if self.consume(True)[0] != _CLOSED_PAR:
                raise ValueError(f"found '{lit}', expected: ')'")
            return values
        if tok == _CLOSED_PAR:  # "()" is the set holding the empty string
            self.consume(True)
            return {""}
        raise ValueError(f"found '{lit}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.consume(True)
            if tok == _IDENT:
                values.add(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSED_PAR:
                    return values
                raise ValueError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:  # empty entries (",a", "a,,b", "a,") stand for the empty string
                if not values:
                    values.add("")
                tok2 = self.lookahead(True)[0]
                if tok2 == _CLOSED_PAR:
                    values.add("")
                    return values
                if tok2 == _COMMA:
                    values.add("")
            else:
                raise ValueError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead(True)[0] in (_EOS, _COMMA):
            return {""}
        tok, lit = self.consume(True)
        if tok == _IDENT:
            return {lit}
        raise ValueError(f"found '{lit}', expected: identifier")


# bound: distinct label selector strings: one per informer or list call shape
@memoize("api.labels.parse_selector", maxsize=4096)
def parse_selector(s: str) -> Selector:
    """``labels.Parse``: ``"app=web,tier in (a,b),!canary,x"``; ValueError with upstream's message."""
    return Selector(_Parser(s).parse())
