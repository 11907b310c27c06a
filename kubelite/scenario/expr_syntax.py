"""Tokens and the Pratt parser of the expression language (no evaluation here: see ``expr_eval``).

Contract: :func:`parse` turns text into a tree of :mod:`kubelite.scenario.expr_eval` nodes or raises
:class:`~kubelite.scenario.expr_values.ExpressionError` at the offending column. It is total: every
input, however malformed, ends in a tree or that error (never IndexError, RecursionError, OverflowError),
in time linear in the text. Function names, argument counts and keyword names are checked here, so a
typo is a load error. Number literals are bounded (:data:`MAX_INT`, finite floats) and the tree's
height by :data:`MAX_DEPTH`, so evaluation recursion is bounded too.
"""

from __future__ import annotations

from typing import Any

from kubelite.scenario import expr_eval as n
from kubelite.scenario.expr_values import MAX_DEPTH, MAX_INT, ExpressionError

__all__ = ["FUNCTIONS", "parse"]

#: name -> (min positional, max positional, allowed keyword arguments)
FUNCTIONS: dict[str, tuple[int, int, frozenset[str]]] = {
    **{k: (1, 1, frozenset()) for k in n.OBJECT_FUNCTIONS},
    "object": (2, 2, frozenset()),
    "objects": (1, 1, frozenset({"namespace", "label"})),
    "pods": (0, 0, frozenset({"namespace", "label", "phase", "condition", "node", "status", "owner", "deployment"})),
    "nodes": (0, 0, frozenset({"label", "condition", "unschedulable"})),
    "deployments": (0, 0, frozenset({"namespace", "label"})),
    "replicasets": (0, 0, frozenset({"namespace", "label", "owner", "deployment"})),
    "jobs": (0, 0, frozenset({"namespace", "label"})),
    "endpointslices": (0, 0, frozenset({"namespace", "service"})),
    "endpoints": (1, 1, frozenset({"ready"})),
    "events": (0, 0, frozenset({"reason", "type", "object", "namespace"})),
    "dns": (1, 1, frozenset({"namespace"})),
    "traffic": (1, 1, frozenset()),
    "diagnosis": (1, 1, frozenset()),
    "status": (1, 1, frozenset()),
    **{k: (lo, hi, frozenset()) for k, (lo, hi) in n.PURE_ARITY.items()},
}

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_KEYWORDS = frozenset({"and", "or", "not", "in", "true", "false", "null"})
_TWO = frozenset({"==", "!=", "<=", ">="})
_ONE = frozenset("()[].,<>+-*/%=")
#: digits in an integer literal (int64 has 19)
_MAX_DIGITS = 19


class _Tok:
    __slots__ = ("end", "kind", "pos", "value")

    def __init__(self, kind: str, value: Any, pos: int, end: int) -> None:
        self.kind = kind  # "num", "str", "name", "op", "kw", "end"
        self.value = value
        self.pos = pos
        self.end = end


def _digits(text: str, i: int) -> int:
    n = len(text)
    while i < n and (text[i].isdigit() and text[i].isascii()):
        i += 1
    return i


def _number(text: str, start: int) -> tuple[float | int, int]:
    """A number with optional duration units (``90s``, ``1m30s``, ``1.5h``); seconds. Returns (value, end)."""
    i = _digits(text, start)
    if i < len(text) and text[i] == ".":
        i = _digits(text, i + 1)
    lit = text[start:i]
    if lit.startswith(".") or lit.endswith("."):
        raise ExpressionError(f"malformed number {lit!r}", text, start + 1)
    if "." not in lit and len(lit.lstrip("0")) > _MAX_DIGITS:
        raise ExpressionError(f"integer literal too large (at most {MAX_INT})", text, start + 1)
    if len(lit) > 40:
        raise ExpressionError("number literal too long", text, start + 1)
    value: float | int = float(lit) if "." in lit else int(lit)
    if isinstance(value, int) and value > MAX_INT:
        raise ExpressionError(f"integer literal too large (at most {MAX_INT})", text, start + 1)
    if i >= len(text) or not (text[i].isalpha() and text[i].isascii()):
        return value, i
    total = 0.0
    while True:
        j = i
        while j < len(text) and text[j].isalpha() and text[j].isascii():
            j += 1
        unit = text[i:j]
        if unit not in _UNITS:
            raise ExpressionError(f"unknown unit {unit!r} (use ms, s, m, h or d)", text, i + 1)
        total += float(value) * _UNITS[unit]
        i = j
        k = _digits(text, i)
        if k == i:
            break
        if k < len(text) and text[k] == ".":
            k = _digits(text, k + 1)
        piece = text[i:k]
        if piece.endswith(".") or len(piece) > 40 or k >= len(text) or not (text[k].isalpha() and text[k].isascii()):
            raise ExpressionError(f"malformed duration after {text[start:i]!r} (a number needs a unit)", text, i + 1)
        value = float(piece)
        i = k
    return total, i


def _tokenize(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, n_ = 0, len(text)
    while i < n_:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        start = i
        if (c.isdigit() and c.isascii()) or (c == "." and i + 1 < n_ and text[i + 1].isdigit() and text[i + 1].isascii()):
            value, i = _number(text, start)
            out.append(_Tok("num", value, start, i))
        elif c in "\"'":
            i += 1
            buf: list[str] = []
            while True:
                if i >= n_:
                    raise ExpressionError("unterminated string", text, start + 1)
                ch = text[i]
                if ch == c:
                    i += 1
                    break
                if ch == "\\":
                    if i + 1 >= n_:
                        raise ExpressionError("unterminated string", text, start + 1)
                    esc = text[i + 1]
                    buf.append({"n": "\n", "t": "\t"}.get(esc, esc))
                    i += 2
                    continue
                buf.append(ch)
                i += 1
            out.append(_Tok("str", "".join(buf), start, i))
        elif (c.isalpha() and c.isascii()) or c == "_":
            while i < n_ and ((text[i].isalnum() and text[i].isascii()) or text[i] == "_"):
                i += 1
            word = text[start:i]
            out.append(_Tok("kw" if word in _KEYWORDS else "name", word, start, i))
        elif text[i:i + 2] in _TWO:
            out.append(_Tok("op", text[i:i + 2], start, i + 2))
            i += 2
        elif c in _ONE:
            out.append(_Tok("op", c, start, i + 1))
            i += 1
        else:
            raise ExpressionError(f"unexpected character {c!r}", text, start + 1)
    out.append(_Tok("end", None, n_, n_))
    return out


_CMP = frozenset({"==", "!=", "<", "<=", ">", ">="})
_BINDING = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7}
#: functions whose first argument must be a field selection (CEL's has() macro)
_SELECTION_ONLY = frozenset({"has"})


def _describe(t: _Tok) -> str:
    if t.kind == "end":
        return "the end of the expression"
    if t.kind == "str":
        return f"string {t.value!r}"
    return repr(str(t.value))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0

    def error(self, message: str, tok: _Tok | None = None) -> ExpressionError:
        t = tok or self.peek()
        return ExpressionError(message, self.text, t.pos + 1)

    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> _Tok:
        t = self.peek()
        if t.kind != "end":
            self.i += 1
        return t

    def at_op(self, value: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t.kind == "op" and t.value == value

    def expect(self, value: str) -> _Tok:
        if not self.at_op(value):
            raise self.error(f"expected {value!r}, found {_describe(self.peek())}")
        return self.next()

    def enter(self, tok: _Tok) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"expression nested too deeply (more than {MAX_DEPTH} levels)", tok)

    def parse(self) -> n.Node:
        node = self.expr(0)
        t = self.peek()
        if t.kind != "end":
            raise self.error(f"unexpected {_describe(t)} after a complete expression")
        return node

    def _infix(self, t: _Tok) -> tuple[str, int] | None:
        if t.kind == "kw" and t.value in ("and", "or"):
            return t.value, _BINDING[t.value]
        if t.kind == "kw" and t.value == "in":
            return "in", _BINDING["cmp"]
        if t.kind == "kw" and t.value == "not" and self.peek(1).kind == "kw" and self.peek(1).value == "in":
            return "not in", _BINDING["cmp"]
        if t.kind == "op" and t.value in _CMP:
            return t.value, _BINDING["cmp"]
        if t.kind == "op" and t.value in ("+", "-", "*", "/", "%"):
            return t.value, _BINDING[t.value]
        return None

    def expr(self, min_bp: int) -> n.Node:
        self.enter(self.peek())
        left = self.prefix()
        while True:
            t = self.peek()
            infix = self._infix(t)
            if infix is None:
                break
            op, bp = infix
            if bp <= min_bp:
                break
            if bp == _BINDING["cmp"] and isinstance(left, n.Compare) and left.cmp_level:
                raise self.error("comparisons cannot be chained; use 'and'", t)
            self.next()
            if op == "not in":
                self.next()
            right = self.expr(bp)
            if op in ("and", "or"):
                left = n.Logic(op, left, right, t.pos, left.start, right.end)
            elif bp == _BINDING["cmp"]:
                left = n.Compare(op, left, right, t.pos, left.start, right.end)
            else:
                left = n.Arith(op, left, right, t.pos, left.start, right.end)
            if left.height > MAX_DEPTH:
                raise self.error(f"expression nested too deeply (more than {MAX_DEPTH} levels)", t)
        self.depth -= 1
        return left

    def prefix(self) -> n.Node:
        t = self.next()
        if t.kind == "kw" and t.value == "not":
            x = self.expr(_BINDING["not"])
            return n.Not(x, t.pos, t.pos, x.end)
        if t.kind == "op" and t.value == "-":
            x = self.expr(_BINDING["neg"])
            return n.Neg(x, t.pos, t.pos, x.end)
        return self.postfix(self.primary(t))

    def primary(self, t: _Tok) -> n.Node:
        if t.kind in ("num", "str"):
            return n.Lit(t.value, t.pos, t.pos, t.end)
        if t.kind == "kw" and t.value in ("true", "false", "null"):
            return n.Lit({"true": True, "false": False, "null": None}[t.value], t.pos, t.pos, t.end)
        if t.kind == "op" and t.value == "(":
            inner = self.expr(0)
            close = self.expect(")")
            return n.Group(inner, t.pos, t.pos, close.end)
        if t.kind == "op" and t.value == "[":
            items: list[n.Node] = []
            if not self.at_op("]"):
                items.append(self.expr(0))
                while self.at_op(","):
                    self.next()
                    items.append(self.expr(0))
            close = self.expect("]")
            return n.ListLit(items, t.pos, t.pos, close.end)
        if t.kind == "name":
            if self.at_op("("):
                return self.call(t)
            if t.value in ("now", "metrics", "request"):
                return n.Var(t.value, t.pos, t.pos, t.end)
            raise self.error(f"unknown name {t.value!r} (the variables are 'now', 'metrics' and 'request'; "
                             f"functions are called with parentheses; strings are quoted)", t)
        raise self.error(f"unexpected {_describe(t)}", t)

    def call(self, name_tok: _Tok) -> n.Node:
        name = name_tok.value
        spec = FUNCTIONS.get(name)
        if spec is None:
            raise self.error(f"unknown function {name!r}", name_tok)
        self.expect("(")
        args: list[n.Node] = []
        kwargs: dict[str, n.Node] = {}
        if not self.at_op(")"):
            while True:
                t = self.peek()
                if t.kind == "name" and self.at_op("=", 1):
                    if t.value not in spec[2]:
                        allowed = ", ".join(sorted(spec[2])) or "none"
                        raise self.error(f"{name}() has no argument {t.value!r} (allowed: {allowed})", t)
                    if t.value in kwargs:
                        raise self.error(f"{name}() got {t.value!r} twice", t)
                    self.next()
                    self.next()
                    kwargs[t.value] = self.expr(0)
                else:
                    if kwargs:
                        raise self.error("a positional argument cannot follow a keyword argument", t)
                    args.append(self.expr(0))
                if self.at_op(","):
                    self.next()
                    continue
                break
        close = self.expect(")")
        lo, hi = spec[0], spec[1]
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.error(f"{name}() takes {want} positional argument{'s' if hi != 1 else ''}, "
                             f"got {len(args)}", name_tok)
        if name in _SELECTION_ONLY and not isinstance(args[0], n.Field | n.Index | n.Filter):
            raise self.error(f"{name}() needs a field selection such as pod(\"web\").status.podIP", name_tok)
        return n.Call(name, args, kwargs, name_tok.pos, name_tok.pos, close.end)

    def postfix(self, node: n.Node) -> n.Node:
        while True:
            t = self.peek()
            if t.kind == "op" and t.value == ".":
                self.next()
                nt = self.next()
                if nt.kind not in ("name", "kw"):
                    raise self.error(f"expected a field name after '.', found {_describe(nt)}", nt)
                node = n.Field(node, nt.value, nt.pos, node.start, nt.end)
            elif t.kind == "op" and t.value == "[":
                self.next()
                if self._filter_ahead():
                    pairs: list[tuple[str, n.Node]] = []
                    while True:
                        key = self._dotted_key()
                        self.expect("=")
                        pairs.append((key, self.expr(0)))
                        if not self.at_op(","):
                            break
                        self.next()
                    close = self.expect("]")
                    node = n.Filter(node, pairs, t.pos, node.start, close.end)
                else:
                    idx = self.expr(0)
                    close = self.expect("]")
                    node = n.Index(node, idx, t.pos, node.start, close.end)
            else:
                return node
            if node.height > MAX_DEPTH:
                raise self.error(f"expression nested too deeply (more than {MAX_DEPTH} levels)", t)

    def _filter_ahead(self) -> bool:
        """``[name=`` or ``[name.name=``: a filter, not an index."""
        k = 0
        while True:
            t = self.peek(k)
            if t.kind not in ("name", "kw"):
                return False
            if self.at_op("=", k + 1):
                return True
            if not self.at_op(".", k + 1):
                return False
            k += 2

    def _dotted_key(self) -> str:
        parts = [str(self.next().value)]
        while self.at_op("."):
            self.next()
            parts.append(str(self.next().value))
        return ".".join(parts)


def parse(text: str) -> n.Node:
    return _Parser(text).parse()
