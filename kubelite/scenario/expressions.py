"""The scenario expression language: a small, safe language for expectations and ``when:`` conditions.

Contract:
- **Safe by construction.** Text is tokenized by hand and parsed by a Pratt parser into a tree of
  plain nodes; evaluation walks that tree. Nothing reaches Python's ``eval``, attribute lookup or
  imports: ``.field`` reads a key of a mapping (JSON objects), never a Python attribute, and only the
  functions in :data:`FUNCTIONS` can be called. There is no exponentiation and ``*`` only multiplies
  numbers, so no expression can build a huge value; text length and nesting depth are bounded.
- **Errors name a position.** :class:`ExpressionError` carries the 1-based column; parse errors (unknown
  function, wrong arguments, bad syntax) are raised by :func:`compile_expression`, before any cluster
  exists; evaluation errors (``"a" < 1``) by :meth:`Expression.evaluate`.
- **JSONPath-like semantics.** A missing field is ``null`` and reading through ``null`` gives ``null``;
  ``.field`` on a list maps over it; ``list[key="value"]`` is the first element whose ``key`` equals the
  value (kubectl's ``[?(@.type=="Ready")]``); ``list[0]`` indexes, ``list[-1]`` from the end. Ordering
  comparisons involving ``null`` are false and arithmetic on ``null`` is ``null``, so an expectation on an
  object that does not exist yet is simply not met.

Grammar (lowest to highest precedence)::

    expr    := or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | cmp
    cmp     := sum (("=="|"!="|"<"|"<="|">"|">="|"in"|"not in") sum)?
    sum     := term (("+"|"-") term)*
    term    := unary (("*"|"/"|"%") unary)*
    unary   := "-" unary | postfix
    postfix := primary ("." NAME | "[" (NAME "=" expr | expr) "]")*
    primary := NUMBER [unit] | STRING | "true" | "false" | "null" | NAME | NAME "(" args ")" | "(" expr ")"
             | "[" [expr ("," expr)*] "]"

Numbers may carry a duration unit (``90s``, ``5m``, ``2h``, ``500ms``): the value is in seconds. The
names ``now`` (virtual seconds since the scenario started) and ``metrics`` are the only free variables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

__all__ = ["FUNCTIONS", "Environment", "Expression", "ExpressionError", "compile_expression"]

MAX_LENGTH = 4000
MAX_DEPTH = 64


class ExpressionError(ValueError):
    """A syntax or evaluation error; ``column`` is 1-based within ``text``."""

    def __init__(self, message: str, text: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.column = column

    def __str__(self) -> str:
        return f"{self.message} (at column {self.column})"

    def pointer(self) -> str:
        """The expression with a caret under the column, as a two-line string."""
        return f"{self.text}\n{' ' * (self.column - 1)}^"


class Environment(Protocol):
    """What an expression can see. Implemented by the runner's view of the cluster."""

    @property
    def now(self) -> float: ...

    @property
    def metrics(self) -> Mapping[str, Any]: ...

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run one of the cluster functions of :data:`FUNCTIONS` (``pod``, ``pods``, ``events``, ...)."""


# --- functions -------------------------------------------------------------------------------------

_OBJECT_KINDS = ("pod", "deployment", "replicaset", "statefulset", "daemonset", "job", "service", "node",
                 "pvc", "endpointslice", "poddisruptionbudget", "hpa")
_LIST_KWARGS = frozenset({"namespace", "label", "phase", "condition", "node", "status", "owner"})

#: name -> (min positional, max positional, allowed keyword arguments)
FUNCTIONS: dict[str, tuple[int, int, frozenset[str]]] = {
    **{k: (1, 1, frozenset()) for k in _OBJECT_KINDS},
    "object": (2, 2, frozenset()),
    "pods": (0, 0, _LIST_KWARGS),
    "nodes": (0, 0, frozenset({"label", "condition", "unschedulable"})),
    "deployments": (0, 0, frozenset({"namespace", "label"})),
    "jobs": (0, 0, frozenset({"namespace", "label"})),
    "events": (0, 0, frozenset({"reason", "type", "object", "namespace"})),
    "diagnosis": (1, 1, frozenset()),
    "status": (1, 1, frozenset()),
    "count": (1, 1, frozenset()),
    "len": (1, 1, frozenset()),
    "sum": (1, 1, frozenset()),
    "min": (1, 1, frozenset()),
    "max": (1, 1, frozenset()),
    "abs": (1, 1, frozenset()),
    "round": (1, 2, frozenset()),
}

_Pure = Callable[[list[Any]], Any]


def _numbers(v: Any) -> list[float]:
    if not isinstance(v, list):
        raise TypeError("expects a list")
    return [x for x in v if _is_number(x)]


def _round(a: list[Any]) -> Any:
    if a[0] is None:
        return None
    return round(a[0], int(a[1]) if len(a) > 1 else 0)


_PURE: dict[str, _Pure] = {
    "count": lambda a: None if a[0] is None else len(a[0]),
    "len": lambda a: None if a[0] is None else len(a[0]),
    "sum": lambda a: sum(_numbers(a[0])),
    "min": lambda a: min(_numbers(a[0]), default=None),
    "max": lambda a: max(_numbers(a[0]), default=None),
    "abs": lambda a: None if a[0] is None else abs(a[0]),
    "round": _round,
}


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


# --- tokens ----------------------------------------------------------------------------------------

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_KEYWORDS = frozenset({"and", "or", "not", "in", "true", "false", "null"})
_TWO = frozenset({"==", "!=", "<=", ">="})
_ONE = frozenset("()[].,<>+-*/%=")


def _units(text: str, i: int, value: float) -> tuple[float, int]:
    """A duration unit after a number, and more number+unit pairs (``1m30s``); seconds."""
    n = len(text)
    total: float = 0
    while True:
        j = i
        while j < n and text[j].isalpha():
            j += 1
        unit = text[i:j]
        if not unit:
            return (value if total == 0 else total + value), i
        if unit not in _UNITS:
            raise ExpressionError(f"unknown unit {unit!r} (use ms, s, m, h or d)", text, i + 1)
        total += value * _UNITS[unit]
        i = j
        k = i
        while k < n and (text[k].isdigit() or text[k] == "."):
            k += 1
        if k == i or k >= n or not text[k].isalpha():
            return total, i
        value = float(text[i:k])
        i = k


class _Tok:
    __slots__ = ("kind", "pos", "value")

    def __init__(self, kind: str, value: Any, pos: int) -> None:
        self.kind = kind  # "num", "str", "name", "op", "kw", "end"
        self.value = value
        self.pos = pos


def _tokenize(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        start = i
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            while i < n and (text[i].isdigit() or text[i] == "."):
                i += 1
            lit = text[start:i]
            if lit.count(".") > 1:
                raise ExpressionError(f"malformed number {lit!r}", text, start + 1)
            value: float = float(lit) if "." in lit else int(lit)
            value, i = _units(text, i, value)
            out.append(_Tok("num", value, start))
        elif c in "\"'":
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    raise ExpressionError("unterminated string", text, start + 1)
                ch = text[i]
                if ch == c:
                    i += 1
                    break
                if ch == "\\" and i + 1 < n:
                    esc = text[i + 1]
                    buf.append({"n": "\n", "t": "\t"}.get(esc, esc))
                    i += 2
                    continue
                buf.append(ch)
                i += 1
            out.append(_Tok("str", "".join(buf), start))
        elif c.isalpha() or c == "_":
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            word = text[start:i]
            out.append(_Tok("kw" if word in _KEYWORDS else "name", word, start))
        elif text[i:i + 2] in _TWO:
            out.append(_Tok("op", text[i:i + 2], start))
            i += 2
        elif c in _ONE:
            out.append(_Tok("op", c, start))
            i += 1
        else:
            raise ExpressionError(f"unexpected character {c!r}", text, start + 1)
    out.append(_Tok("end", None, n))
    return out


# --- tree ------------------------------------------------------------------------------------------

class _Node:
    __slots__ = ("pos",)
    pos: int

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        raise NotImplementedError


class _Ctx:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def error(self, message: str, pos: int) -> ExpressionError:
        return ExpressionError(message, self.text, pos + 1)


class _Lit(_Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, pos: int) -> None:
        self.value, self.pos = value, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        return self.value


class _Name(_Node):
    __slots__ = ("name",)

    def __init__(self, name: str, pos: int) -> None:
        self.name, self.pos = name, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        return env.now if self.name == "now" else env.metrics


class _List(_Node):
    __slots__ = ("items",)

    def __init__(self, items: list[_Node], pos: int) -> None:
        self.items, self.pos = items, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        return [x.eval(env, ctx) for x in self.items]


def _field(v: Any, name: str) -> Any:
    if isinstance(v, Mapping):
        return v.get(name)
    if isinstance(v, list):
        return [r for r in (_field(x, name) for x in v) if r is not None]
    return None


class _Attr(_Node):
    __slots__ = ("name", "obj")

    def __init__(self, obj: _Node, name: str, pos: int) -> None:
        self.obj, self.name, self.pos = obj, name, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        return _field(self.obj.eval(env, ctx), self.name)


class _Index(_Node):
    __slots__ = ("index", "obj")

    def __init__(self, obj: _Node, index: _Node, pos: int) -> None:
        self.obj, self.index, self.pos = obj, index, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        v = self.obj.eval(env, ctx)
        k = self.index.eval(env, ctx)
        if v is None or k is None:
            return None
        if isinstance(v, list | str):
            if not isinstance(k, int) or isinstance(k, bool):
                raise ctx.error(f"a list index must be an integer, not {_type(k)}", self.index.pos)
            return v[k] if -len(v) <= k < len(v) else None
        if isinstance(v, Mapping):
            return v.get(k) if isinstance(k, str) else None
        raise ctx.error(f"cannot index {_type(v)}", self.pos)


class _Filter(_Node):
    __slots__ = ("key", "obj", "value")

    def __init__(self, obj: _Node, key: str, value: _Node, pos: int) -> None:
        self.obj, self.key, self.value, self.pos = obj, key, value, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        v = self.obj.eval(env, ctx)
        want = self.value.eval(env, ctx)
        if not isinstance(v, list):
            return None
        for item in v:
            if isinstance(item, Mapping) and item.get(self.key) == want:
                return item
        return None


class _Call(_Node):
    __slots__ = ("args", "kwargs", "name")

    def __init__(self, name: str, args: list[_Node], kwargs: dict[str, _Node], pos: int) -> None:
        self.name, self.args, self.kwargs, self.pos = name, args, kwargs, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        args = [a.eval(env, ctx) for a in self.args]
        kwargs = {k: v.eval(env, ctx) for k, v in self.kwargs.items()}
        pure = _PURE.get(self.name)
        try:
            if pure is not None:
                return pure(args)
            return env.call(self.name, args, kwargs)
        except (TypeError, ValueError) as e:
            raise ctx.error(f"{self.name}(): {e}", self.pos) from None


class _Not(_Node):
    __slots__ = ("x",)

    def __init__(self, x: _Node, pos: int) -> None:
        self.x, self.pos = x, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        return not _truthy(self.x.eval(env, ctx))


class _Neg(_Node):
    __slots__ = ("x",)

    def __init__(self, x: _Node, pos: int) -> None:
        self.x, self.pos = x, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        v = self.x.eval(env, ctx)
        if v is None:
            return None
        if not _is_number(v):
            raise ctx.error(f"cannot negate {_type(v)}", self.pos)
        return -v


class _Bool(_Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: _Node, right: _Node, pos: int) -> None:
        self.op, self.left, self.right, self.pos = op, left, right, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        first = _truthy(self.left.eval(env, ctx))
        if self.op == "and":
            return first and _truthy(self.right.eval(env, ctx))
        return first or _truthy(self.right.eval(env, ctx))


def _truthy(v: Any) -> bool:
    return bool(v)


def _type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if _is_number(v):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


class _Bin(_Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: _Node, right: _Node, pos: int) -> None:
        self.op, self.left, self.right, self.pos = op, left, right, pos

    def eval(self, env: Environment, ctx: _Ctx) -> Any:
        a = self.left.eval(env, ctx)
        b = self.right.eval(env, ctx)
        op = self.op
        if op == "==":
            return _eq(a, b)
        if op == "!=":
            return not _eq(a, b)
        if op in ("in", "not in"):
            if b is None:
                found = False
            elif isinstance(b, str):
                if not isinstance(a, str):
                    raise ctx.error(f"'in' a string needs a string on the left, not {_type(a)}", self.pos)
                found = a in b
            elif isinstance(b, list):
                found = any(_eq(a, x) for x in b)
            elif isinstance(b, Mapping):
                found = a in b
            else:
                raise ctx.error(f"'in' needs a string, list or object on the right, not {_type(b)}", self.pos)
            return found if op == "in" else not found
        if a is None or b is None:
            return False if op in ("<", "<=", ">", ">=") else None
        if op in ("<", "<=", ">", ">="):
            if not ((_is_number(a) and _is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
                raise ctx.error(f"cannot compare {_type(a)} with {_type(b)} using {op!r}", self.pos)
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if op == "+" and isinstance(a, str) and isinstance(b, str):
            return a + b
        if not (_is_number(a) and _is_number(b)):
            raise ctx.error(f"cannot apply {op!r} to {_type(a)} and {_type(b)}", self.pos)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            return None  # a rate over nothing is not a number; keeps `eventually` conditions unmet
        return a / b if op == "/" else a % b


def _eq(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if type(a) is not type(b) and not (a is None or b is None):
        # "3" == 3 is false, as in JSON; quantities and replicas are compared as written
        return False
    return bool(a == b)


# --- parser ----------------------------------------------------------------------------------------

_CMP = frozenset({"==", "!=", "<", "<=", ">", ">="})
_BINDING = {"or": 1, "and": 2, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0

    def error(self, message: str, tok: _Tok | None = None) -> ExpressionError:
        t = tok or self.toks[self.i]
        return ExpressionError(message, self.text, t.pos + 1)

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def next(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, value: str) -> _Tok:
        t = self.peek()
        if t.kind != "op" or t.value != value:
            raise self.error(f"expected {value!r}, found {_describe(t)}")
        return self.next()

    def parse(self) -> _Node:
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
        if t.kind == "kw" and t.value == "not" and self.toks[self.i + 1].kind == "kw" \
                and self.toks[self.i + 1].value == "in":
            return "not in", _BINDING["cmp"]
        if t.kind == "op" and t.value in _CMP:
            return t.value, _BINDING["cmp"]
        if t.kind == "op" and t.value in ("+", "-", "*", "/", "%"):
            return t.value, _BINDING[t.value]
        return None

    def expr(self, min_bp: int) -> _Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error("expression nested too deeply")
        left = self.prefix()
        while True:
            t = self.peek()
            infix = self._infix(t)
            if infix is None:
                break
            op, bp = infix
            if bp <= min_bp:
                break
            self.next()
            if op == "not in":
                self.next()
            right = self.expr(bp)
            if op in ("and", "or"):
                left = _Bool(op, left, right, t.pos)
            else:
                if bp == _BINDING["cmp"] and isinstance(left, _Bin) and left.op in _CMP | {"in", "not in"}:
                    raise self.error("comparisons cannot be chained; use 'and'", t)
                left = _Bin(op, left, right, t.pos)
        self.depth -= 1
        return left

    def prefix(self) -> _Node:
        t = self.next()
        if t.kind == "kw" and t.value == "not":
            return _Not(self.expr(_BINDING["and"]), t.pos)
        if t.kind == "op" and t.value == "-":
            return _Neg(self.expr(_BINDING["*"]), t.pos)
        return self.postfix(self.primary(t))

    def primary(self, t: _Tok) -> _Node:
        if t.kind in ("num", "str"):
            return _Lit(t.value, t.pos)
        if t.kind == "kw" and t.value in ("true", "false", "null"):
            return _Lit({"true": True, "false": False, "null": None}[t.value], t.pos)
        if t.kind == "op" and t.value == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        if t.kind == "op" and t.value == "[":
            items: list[_Node] = []
            if not (self.peek().kind == "op" and self.peek().value == "]"):
                items.append(self.expr(0))
                while self.peek().kind == "op" and self.peek().value == ",":
                    self.next()
                    items.append(self.expr(0))
            self.expect("]")
            return _List(items, t.pos)
        if t.kind == "name":
            if self.peek().kind == "op" and self.peek().value == "(":
                return self.call(t)
            if t.value in ("now", "metrics"):
                return _Name(t.value, t.pos)
            raise self.error(f"unknown name {t.value!r} (the variables are 'now' and 'metrics'; "
                             f"functions are called with parentheses)", t)
        raise self.error(f"unexpected {_describe(t)}", t)

    def call(self, name_tok: _Tok) -> _Node:
        name = name_tok.value
        spec = FUNCTIONS.get(name)
        if spec is None:
            raise self.error(f"unknown function {name!r}", name_tok)
        self.expect("(")
        args: list[_Node] = []
        kwargs: dict[str, _Node] = {}
        if not (self.peek().kind == "op" and self.peek().value == ")"):
            while True:
                t = self.peek()
                nxt = self.toks[self.i + 1]
                if t.kind == "name" and nxt.kind == "op" and nxt.value == "=":
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
                if self.peek().kind == "op" and self.peek().value == ",":
                    self.next()
                    continue
                break
        self.expect(")")
        lo, hi = spec[0], spec[1]
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.error(f"{name}() takes {want} positional argument{'s' if hi != 1 else ''}, "
                             f"got {len(args)}", name_tok)
        return _Call(name, args, kwargs, name_tok.pos)

    def postfix(self, node: _Node) -> _Node:
        while True:
            t = self.peek()
            if t.kind == "op" and t.value == ".":
                self.next()
                nt = self.next()
                if nt.kind not in ("name", "kw"):
                    raise self.error(f"expected a field name after '.', found {_describe(nt)}", nt)
                node = _Attr(node, nt.value, nt.pos)
            elif t.kind == "op" and t.value == "[":
                self.next()
                k, eq = self.peek(), self.toks[self.i + 1]
                if k.kind == "name" and eq.kind == "op" and eq.value == "=":
                    self.next()
                    self.next()
                    node = _Filter(node, k.value, self.expr(0), t.pos)
                else:
                    node = _Index(node, self.expr(0), t.pos)
                self.expect("]")
            else:
                return node


def _describe(t: _Tok) -> str:
    if t.kind == "end":
        return "the end of the expression"
    if t.kind == "str":
        return f"string {t.value!r}"
    return repr(str(t.value))


class Expression:
    """A compiled expression. Immutable; evaluate it any number of times against any environment."""

    __slots__ = ("_ctx", "_root", "text", "uses_time")

    def __init__(self, text: str, root: _Node) -> None:
        self.text = text
        self._root = root
        self._ctx = _Ctx(text)
        #: whether the value can change without any object changing (it reads `now` or `metrics`)
        self.uses_time = False

        def walk(n: Any) -> None:
            if isinstance(n, _Name):
                self.uses_time = True
            for slot in getattr(type(n), "__slots__", ()):
                child = getattr(n, slot, None)
                if isinstance(child, _Node):
                    walk(child)
                elif isinstance(child, list):
                    for c in child:
                        walk(c)
                elif isinstance(child, dict):
                    for c in child.values():
                        walk(c)

        walk(root)

    def evaluate(self, env: Environment) -> Any:
        return self._root.eval(env, self._ctx)

    def holds(self, env: Environment) -> bool:
        """The expression's truth value (``null``, ``0``, ``""`` and ``[]`` are false)."""
        return _truthy(self.evaluate(env))

    def calls(self) -> list[tuple[str, list[Any]]]:
        """Every call with literal positional arguments, in source order (for diagnoses:
        ``pod("default/web")`` names the pod to explain)."""
        out: list[tuple[str, list[Any]]] = []

        def walk(n: Any) -> None:
            if isinstance(n, _Call):
                out.append((n.name, [a.value if isinstance(a, _Lit) else None for a in n.args]))
            for slot in ("obj", "x", "left", "right", "index", "value"):
                child = getattr(n, slot, None) if slot in getattr(type(n), "__slots__", ()) else None
                if isinstance(child, _Node):
                    walk(child)
            for child in getattr(n, "items", None) or ():
                walk(child)
            if isinstance(n, _Call):
                for a in n.args:
                    walk(a)
                for a in n.kwargs.values():
                    walk(a)

        walk(self._root)
        return out

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def compile_expression(text: str) -> Expression:
    """Parse ``text``; raises :class:`ExpressionError` (with a column) for anything malformed or unknown."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, not {_type(text)}", str(text), 1)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters", text[:40], 1)
    if not text.strip():
        raise ExpressionError("empty expression", text, 1)
    return Expression(text, _Parser(text).parse())
