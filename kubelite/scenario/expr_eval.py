"""The syntax tree of the expression language and its three-valued evaluation.

Contract (see also :mod:`kubelite.scenario.expr_values`):
- **Missing is unknown, not null.** An object function (``pod("shop")``) whose object does not exist
  gives ``Unknown("pod shop does not exist")``; selecting a field an object lacks, an index past the end
  or a filter with no match gives an ``Unknown`` marked *absent*. Unknown propagates through selection,
  arithmetic, comparisons and functions; ``and``/``or``/``not`` follow Kleene's logic (``false and
  unknown`` is false, ``true or unknown`` is true), so a guard can still decide. ``has(x.f)`` is false
  for an absent field of an existing object, ``exists(x)`` is false for anything unknown or null, and
  ``default(x, d)`` replaces an unknown or null ``x``.
- **null is a value** (a rate over nothing, an explicit JSON null): ``==``/``!=`` compare it; ordering,
  arithmetic and ``in`` on null are unknown ("... is null").
- **Bounded.** Every node evaluation and every list element walked costs a step; integers stay within
  int64, floats finite, strings and lists within their limits; ``round``'s digits within ±15.
- Only :class:`ExpressionError` escapes, with the column of the node at fault.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Protocol

from kubelite.scenario.expr_values import (
    MAX_LIST,
    MAX_ROUND_DIGITS,
    MAX_STEPS,
    MAX_STRING,
    ExpressionError,
    Unknown,
    check_number,
    is_number,
    type_name,
)

__all__ = ["OBJECT_FUNCTIONS", "PURE_ARITY", "Context", "Environment", "Node"]

#: functions returning one object by reference (``pod("ns/name")``); None from the environment means
#: the object does not exist
OBJECT_FUNCTIONS = ("pod", "deployment", "replicaset", "statefulset", "daemonset", "job", "service", "node",
                    "pvc", "endpointslice", "poddisruptionbudget", "hpa", "namespace")

#: pure functions: name -> (min, max) positional arguments
PURE_ARITY: dict[str, tuple[int, int]] = {
    "count": (1, 1), "len": (1, 1), "sum": (1, 1), "min": (1, 1), "max": (1, 1), "abs": (1, 1), "round": (1, 2),
    "has": (1, 1), "exists": (1, 1), "default": (2, 2), "distinct": (1, 1), "in_cidr": (2, 2),
    "all": (1, 1), "any": (1, 1), "where": (3, 9), "sorted": (1, 1),
}

#: comparisons recorded per evaluation for diagnoses
MAX_TRACE = 32


class Environment(Protocol):
    """What an expression can see. Implemented by the runner's view of the cluster."""

    @property
    def now(self) -> float: ...

    @property
    def metrics(self) -> Mapping[str, Any]: ...

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run one of the cluster functions (``pod``, ``pods``, ``events``, ...)."""


class Context:
    """One evaluation: the text (for errors and reasons), the step budget, and the comparisons made."""

    __slots__ = ("env", "steps", "text", "trace")

    def __init__(self, text: str, env: Environment) -> None:
        self.text = text
        self.env = env
        self.steps = 0
        self.trace: list[tuple[Node, Any, Any, Any]] = []

    def error(self, message: str, node: Node) -> ExpressionError:
        return ExpressionError(message, self.text, node.pos + 1)

    def src(self, node: Node) -> str:
        s = self.text[node.start:node.end]
        return " ".join(s.split())

    def tick(self, node: Node, k: int = 1) -> None:
        self.steps += k
        if self.steps > MAX_STEPS:
            raise self.error(f"the expression took more than {MAX_STEPS} evaluation steps", node)


class Node:
    __slots__ = ("end", "height", "pos", "start")
    pos: int
    start: int
    end: int
    height: int

    def _at(self, pos: int, start: int, end: int, *children: Node) -> None:
        self.pos, self.start, self.end = pos, start, end
        self.height = 1 + max((c.height for c in children), default=0)

    def eval(self, ctx: Context) -> Any:
        raise NotImplementedError

    def children(self) -> list[Node]:
        return []


class Lit(Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, pos: int, start: int, end: int) -> None:
        self.value = value
        self._at(pos, start, end)

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        return self.value


class Var(Node):
    __slots__ = ("name",)

    def __init__(self, name: str, pos: int, start: int, end: int) -> None:
        self.name = name
        self._at(pos, start, end)

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        if self.name == "now":
            return ctx.env.now
        if self.name == "metrics":
            return ctx.env.metrics
        request = getattr(ctx.env, "request", None)  # only an admission hook's condition has one
        return Unknown("'request' is only defined in an admission hook's denyIf") if request is None else request


class Unary(Node):
    """A node with one operand."""

    __slots__ = ("x",)

    def __init__(self, x: Node, pos: int, start: int, end: int) -> None:
        self.x = x
        self._at(pos, start, end, x)

    def children(self) -> list[Node]:
        return [self.x]


class Group(Unary):
    __slots__ = ()

    def eval(self, ctx: Context) -> Any:
        return self.x.eval(ctx)


class ListLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: list[Node], pos: int, start: int, end: int) -> None:
        self.items = items
        self._at(pos, start, end, *items)

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        return [x.eval(ctx) for x in self.items]

    def children(self) -> list[Node]:
        return list(self.items)


def _select(ctx: Context, node: Node, base: Node, v: Any, name: str) -> Any:
    if isinstance(v, Unknown):
        return v
    if v is None:
        return Unknown(f"{ctx.src(base)} is null")
    if isinstance(v, Mapping):
        if name in v:
            return v[name]
        return Unknown(f"{ctx.src(base)} has no field {name!r}", absent=True)
    if isinstance(v, list):
        return _map_field(ctx, node, v, name)
    raise ctx.error(f"cannot select field {name!r} of {type_name(v)}", node)


def _map_field(ctx: Context, node: Node, v: list[Any], name: str) -> list[Any]:
    """JSONPath's ``[*].field``: the field of every element that has it (not null), nested lists
    flattened (``pods().spec.containers.image`` is every container's image)."""
    out: list[Any] = []
    stack = [iter(v)]
    while stack:
        x = next(stack[-1], _MISSING)
        if x is _MISSING:
            stack.pop()
            continue
        ctx.tick(node)
        if isinstance(x, Mapping):
            if name in x and x[name] is not None:
                out.append(x[name])
        elif isinstance(x, list) and len(stack) < 8:
            stack.append(iter(x))
    return out


class Field(Node):
    __slots__ = ("name", "obj")

    def __init__(self, obj: Node, name: str, pos: int, start: int, end: int) -> None:
        self.obj, self.name = obj, name
        self._at(pos, start, end, obj)

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        return _select(ctx, self, self.obj, self.obj.eval(ctx), self.name)

    def children(self) -> list[Node]:
        return [self.obj]


class Index(Node):
    __slots__ = ("index", "obj")

    def __init__(self, obj: Node, index: Node, pos: int, start: int, end: int) -> None:
        self.obj, self.index = obj, index
        self._at(pos, start, end, obj, index)

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        v = self.obj.eval(ctx)
        k = self.index.eval(ctx)
        if isinstance(v, Unknown):
            return v
        if isinstance(k, Unknown):
            return k
        if v is None:
            return Unknown(f"{ctx.src(self.obj)} is null")
        if isinstance(v, list) and isinstance(k, str):
            return _map_field(ctx, self, v, k)  # ["nvidia.com/gpu"] over a list, as .field is
        if isinstance(v, list | str):
            if not isinstance(k, int) or isinstance(k, bool):
                raise ctx.error(f"a list index must be an integer, not {type_name(k)}", self.index)
            if -len(v) <= k < len(v):
                return v[k]
            return Unknown(f"{ctx.src(self.obj)} has no element {k} (it has {len(v)})", absent=True)
        if isinstance(v, Mapping):
            if not isinstance(k, str):
                raise ctx.error(f"an object key must be a string, not {type_name(k)}", self.index)
            if k in v:
                return v[k]
            return Unknown(f"{ctx.src(self.obj)} has no key {k!r}", absent=True)
        raise ctx.error(f"cannot index {type_name(v)}", self)

    def children(self) -> list[Node]:
        return [self.obj, self.index]


def _path(item: Any, key: str) -> Any:
    v = item
    for part in key.split("."):
        if not isinstance(v, Mapping) or part not in v:
            return _MISSING
        v = v[part]
    return v


_MISSING = object()


class Filter(Node):
    """``list[k=v, k2.sub=v2]``: the first element whose every (dotted) key equals its value."""

    __slots__ = ("obj", "pairs")

    def __init__(self, obj: Node, pairs: list[tuple[str, Node]], pos: int, start: int, end: int) -> None:
        self.obj, self.pairs = obj, pairs
        self._at(pos, start, end, obj, *(v for _, v in pairs))

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        v = self.obj.eval(ctx)
        wants = [(k, x.eval(ctx)) for k, x in self.pairs]
        if isinstance(v, Unknown):
            return v
        for _, w in wants:
            if isinstance(w, Unknown):
                return w
        if v is None:
            return Unknown(f"{ctx.src(self.obj)} is null")
        if not isinstance(v, list):
            raise ctx.error(f"a [key=value] filter needs a list, not {type_name(v)}", self)
        ctx.tick(self, len(v))
        for item in v:
            if all(_eq(ctx, self, _path(item, k), w) for k, w in wants):
                return item
        what = ", ".join(f"{k}={_lit(w)}" for k, w in wants)
        return Unknown(f"{ctx.src(self.obj)} has no element with {what}", absent=True)

    def children(self) -> list[Node]:
        return [self.obj, *(v for _, v in self.pairs)]


def _lit(v: Any) -> str:
    from kubelite.scenario.expr_values import show

    return show(v, 40)


def _truth(ctx: Context, node: Node, v: Any) -> bool | Unknown:
    if isinstance(v, Unknown):
        return v
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    if isinstance(v, int | float | str | list | Mapping):
        return bool(v)
    raise ctx.error(f"cannot use {type_name(v)} as a condition", node)


class Binary(Node):
    """An operator with two operands."""

    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Node, right: Node, pos: int, start: int, end: int) -> None:
        self.op, self.left, self.right = op, left, right
        self._at(pos, start, end, left, right)

    def children(self) -> list[Node]:
        return [self.left, self.right]


class Logic(Binary):
    """Kleene ``and``/``or``, short-circuiting on the deciding value."""

    __slots__ = ()



    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        decisive = self.op == "or"
        a = _truth(ctx, self.left, self.left.eval(ctx))
        if a is decisive:
            return decisive
        b = _truth(ctx, self.right, self.right.eval(ctx))
        if b is decisive:
            return decisive
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
            return b
        return not decisive


class Not(Unary):
    __slots__ = ()

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        v = _truth(ctx, self.x, self.x.eval(ctx))
        return v if isinstance(v, Unknown) else not v


class Neg(Unary):
    __slots__ = ()

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        v = self.x.eval(ctx)
        if isinstance(v, Unknown):
            return v
        if v is None:
            return Unknown(f"{ctx.src(self.x)} is null")
        if not is_number(v):
            raise ctx.error(f"cannot negate {type_name(v)}", self)
        return _bounded(ctx, self, -v)


def _bounded(ctx: Context, node: Node, x: int | float) -> int | float:
    if check_number(x) is None:
        raise ctx.error("number out of range (integers are int64, floats finite)", node)
    return x


def _eq(ctx: Context, node: Node, a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (3 == 3.0), otherwise same type and same value; deep for lists
    and objects (bounded: each element compared costs a step)."""
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        ctx.tick(node, len(a))
        return len(a) == len(b) and all(_eq(ctx, node, x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        ctx.tick(node, len(a))
        return a.keys() == b.keys() and all(_eq(ctx, node, a[k], b[k]) for k in a)
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _contains(ctx: Context, node: Compare, a: Any, b: Any) -> bool:
    if isinstance(b, str):
        if not isinstance(a, str):
            raise ctx.error(f"'in' a string needs a string on the left, not {type_name(a)}", node)
        ctx.tick(node, len(b) // 64)
        return a in b
    if isinstance(b, list):
        ctx.tick(node, len(b))
        return any(_eq(ctx, node, a, x) for x in b)
    if isinstance(b, Mapping):
        return isinstance(a, str) and a in b
    raise ctx.error(f"'in' needs a string, list or object on the right, not {type_name(b)}", node)


class Compare(Binary):
    __slots__ = ()
    cmp_level = True


    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        a = self.left.eval(ctx)
        b = self.right.eval(ctx)
        out = self._compare(ctx, a, b)
        if len(ctx.trace) < MAX_TRACE:
            ctx.trace.append((self, a, b, out))
        return out

    def _compare(self, ctx: Context, a: Any, b: Any) -> Any:
        op = self.op
        for side in (a, b):
            if isinstance(side, Unknown):
                return side
        if op == "==":
            return _eq(ctx, self, a, b)
        if op == "!=":
            return not _eq(ctx, self, a, b)
        for side, node in ((a, self.left), (b, self.right)):
            if side is None:
                return Unknown(f"{ctx.src(node)} is null")
        if op in ("in", "not in"):
            found = _contains(ctx, self, a, b)
            return found if op == "in" else not found
        if not ((is_number(a) and is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
            raise ctx.error(f"cannot compare {type_name(a)} with {type_name(b)} using {op!r}", self)
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        return a >= b


class Arith(Binary):
    __slots__ = ()


    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        a = self.left.eval(ctx)
        b = self.right.eval(ctx)
        for side in (a, b):
            if isinstance(side, Unknown):
                return side
        for side, node in ((a, self.left), (b, self.right)):
            if side is None:
                return Unknown(f"{ctx.src(node)} is null")
        op = self.op
        if op == "+" and isinstance(a, str) and isinstance(b, str):
            if len(a) + len(b) > MAX_STRING:
                raise ctx.error(f"string longer than {MAX_STRING} characters", self)
            return a + b
        if op == "+" and isinstance(a, list) and isinstance(b, list):
            if len(a) + len(b) > MAX_LIST:
                raise ctx.error(f"list longer than {MAX_LIST} elements", self)
            ctx.tick(self, len(a) + len(b))
            return a + b
        if not (is_number(a) and is_number(b)):
            raise ctx.error(f"cannot apply {op!r} to {type_name(a)} and {type_name(b)}", self)
        if op == "+":
            return _bounded(ctx, self, a + b)
        if op == "-":
            return _bounded(ctx, self, a - b)
        if op == "*":
            if isinstance(a, float) or isinstance(b, float):
                return _bounded(ctx, self, float(a) * float(b))
            return _bounded(ctx, self, a * b)
        if b == 0:
            return Unknown(f"{ctx.src(self.right)} is zero in {ctx.src(self)}")
        if op == "/":
            return _bounded(ctx, self, float(a) / float(b))
        return _bounded(ctx, self, a % b)


class Call(Node):
    __slots__ = ("args", "kwargs", "name")

    def __init__(self, name: str, args: list[Node], kwargs: dict[str, Node], pos: int, start: int, end: int) -> None:
        self.name, self.args, self.kwargs = name, args, kwargs
        self._at(pos, start, end, *args, *kwargs.values())

    def children(self) -> list[Node]:
        return [*self.args, *self.kwargs.values()]

    def eval(self, ctx: Context) -> Any:
        ctx.tick(self)
        from kubelite.scenario import expr_functions as fn

        name = self.name
        args = [a.eval(ctx) for a in self.args]
        kwargs = {k: v.eval(ctx) for k, v in self.kwargs.items()}
        pure = fn.PURE.get(name)
        if pure is not None:
            return pure(ctx, self, args)
        for v in (*args, *kwargs.values()):
            if isinstance(v, Unknown):
                return v
        if name in OBJECT_FUNCTIONS or name == "object":
            for a in args:
                if not isinstance(a, str):
                    raise ctx.error(f"{name}() expects a name such as \"default/web\", not {type_name(a)}", self)
        for k, v in kwargs.items():
            if not (v is None or isinstance(v, str | bool | int)):
                raise ctx.error(f"{name}(): argument {k!r} must be a string, not {type_name(v)}", self)
        try:
            out = ctx.env.call(name, args, kwargs)
        except (TypeError, ValueError, LookupError, ArithmeticError) as e:
            msg = str(e.args[0]) if e.args else type(e).__name__
            raise ctx.error(f"{name}(): {msg}", self) from None
        if out is None and (name in OBJECT_FUNCTIONS or name == "object"):
            what = f"{args[0]} {args[1]}" if name == "object" else f"{name} {args[0]}"
            return Unknown(f"{what} does not exist")
        if out is None and name == "traffic":
            return Unknown(f"no traffic to service {args[0]} was started")
        if isinstance(out, list):
            ctx.tick(self, len(out))
        return out


def check_ip(ctx: Context, node: Node, ip: Any, cidr: Any) -> bool:
    """``ip`` (or every ip of a list) inside ``cidr``."""
    if not isinstance(cidr, str):
        raise ctx.error(f"in_cidr() needs a CIDR string such as \"10.244.0.0/16\", not {type_name(cidr)}", node)
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError as e:
        raise ctx.error(f"in_cidr(): {e}", node) from None
    ips = ip if isinstance(ip, list) else [ip]
    ctx.tick(node, len(ips))
    out = True
    for x in ips:
        if not isinstance(x, str):
            raise ctx.error(f"in_cidr() needs an IP string, not {type_name(x)}", node)
        try:
            addr = ipaddress.ip_address(x)
        except ValueError as e:
            raise ctx.error(f"in_cidr(): {e}", node) from None
        out = out and addr.version == net.version and addr in net
    return out


def bounded_round(ctx: Context, node: Node, x: Any, digits: Any) -> Any:
    if not isinstance(digits, int) or isinstance(digits, bool) or abs(digits) > MAX_ROUND_DIGITS:
        raise ctx.error(f"round(): digits must be an integer from -{MAX_ROUND_DIGITS} to {MAX_ROUND_DIGITS}", node)
    if not is_number(x):
        raise ctx.error(f"round() needs a number, not {type_name(x)}", node)
    return _bounded(ctx, node, round(x, digits) if digits else round(x))


def eq(ctx: Context, node: Node, a: Any, b: Any) -> bool:
    return _eq(ctx, node, a, b)


def path(item: Any, key: str) -> Any:
    """A dotted path into ``item``; :data:`MISSING` when absent."""
    return _path(item, key)


MISSING = _MISSING
