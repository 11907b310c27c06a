"""Compiling and evaluating CEL expressions for the apiserver: one environment, a runtime cost budget.

Contract:
- :func:`compile_expression` parses an expression once (cached by text) and checks it the way cel-go's
  checker would catch the common mistakes before anything runs: a syntax error, a reference to a variable
  the environment does not declare, or a call of a function or macro that neither CEL nor Kubernetes'
  library defines is a :class:`CompileError` whose message is cel-go's (``ERROR: <input>:L:C: ...``).
  Field names are not type-checked here (celpy is dynamically typed); a missing field is a runtime
  ``no such key`` error, as cel-go reports it for schemaless (``dyn``) values.
- :meth:`Program.evaluate` runs with a cost limit (upstream ``PerCallLimit``, 1,000,000 by default) and
  returns ``(value, cost)``; an error is an :class:`EvalError` carrying cel-go's wording (``no such key:
  x``, ``no such overload``, ``division by zero``, ``index out of bounds``...), and running past the limit
  is :class:`OutOfBudget` (``operation cancelled: actual cost limit exceeded``).
- **Cost is an approximation of cel-go's.** cel-go charges one unit per evaluated instruction plus
  size-proportional units for string and list functions. Here every evaluated AST node costs one unit
  that is an operation, a literal, a variable or a call (so comprehensions pay per iteration; grammar
  levels that merely pass one child through are free) and the library functions charge ``ceil(0.1 * size)`` of their
  string/list arguments, as cel-go's ``stringTraversalCostFactor`` does. Figures are of the same order as
  cel-go's, not equal to them.

The implementation is cel-python (``celpy``), extended through its function-registration API: functions
are registered by name (a method call ``x.f(a)`` calls ``f(x, a)``), and namespaces such as
``format.dns1123Label()`` or ``optional.of(x)`` are sentinel variables bound in every activation.
celpy's ``Environment`` raises the process-wide recursion limit to 2500 as a side effect; kubelite's
depth guards rely on the interpreter's limit (the client turns a RecursionError into a 400), so it is
restored right after construction.
"""

from __future__ import annotations

import contextvars
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import celpy
import lark
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.evaluation import Activation, CELEvalError, Evaluator

from kubelite.memo import BoundedCache

__all__ = [
    "PASS_THROUGH", "PER_CALL_LIMIT", "RUNTIME_BUDGET", "CompileError", "EvalError", "OutOfBudget", "Program", "charge",
    "compile_expression", "error", "ident_name", "is_true", "register", "register_namespace", "to_cel",
]

#: upstream ``PerCallLimit`` (k8s.io/apiserver/pkg/apis/cel/config.go): the cost limit of one evaluation
PER_CALL_LIMIT = 1_000_000
#: upstream ``RuntimeCELCostBudget``: what all the rules of one custom resource, or one policy binding, may spend
RUNTIME_BUDGET = 10_000_000

# CEL's own functions and macros, and the operators celpy names in its trees
_CEL_FUNCTIONS = frozenset({
    "size", "int", "uint", "double", "string", "bytes", "bool", "dyn", "type", "duration", "timestamp",
    "has", "all", "exists", "exists_one", "map", "filter", "matches", "contains", "startsWith", "endsWith",
    "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear", "getHours", "getMilliseconds",
    "getMinutes", "getMonth", "getSeconds",
})
_MACROS = ("all", "exists", "exists_one", "map", "filter")
_LIBRARY: dict[str, Callable[..., Any]] = {}
#: namespace name -> sentinel value bound in every activation (``format``, ``optional``, ``strings``...)
_NAMESPACES: dict[str, Any] = {}


def register(name: str, fn: Callable[..., Any], *, cost: bool = True) -> None:
    """Add a library function (``name`` is what CEL calls; a method's target is the first argument).
    With ``cost`` the call charges ``ceil(0.1 * size)`` of its string and list arguments."""
    _LIBRARY[name] = _costed(fn) if cost else fn


def register_namespace(name: str, sentinel: Any) -> None:
    _NAMESPACES[name] = sentinel


class CompileError(Exception):
    """An expression that does not compile; ``str(e)`` is cel-go's message."""


class EvalError(Exception):
    """A runtime error; ``str(e)`` is cel-go's wording of it."""


class OutOfBudget(EvalError):
    def __init__(self) -> None:
        super().__init__("operation cancelled: actual cost limit exceeded")


class _Meter:
    __slots__ = ("cost", "limit")

    def __init__(self, limit: int) -> None:
        self.cost = 0
        self.limit = limit

    def add(self, units: int) -> None:
        self.cost += units
        if self.cost > self.limit:
            raise OutOfBudget


_METER: contextvars.ContextVar[_Meter | None] = contextvars.ContextVar("kubelite_cel_meter", default=None)


class _LibraryError(CELEvalError):
    """A library function's error: its message is already cel-go's."""


def error(message: str) -> CELEvalError:
    """A library function's runtime error, as a value (celpy's convention: ``||``/``&&`` may absorb it)."""
    return _LibraryError(message)


def charge(units: int) -> None:
    """Charge the running evaluation (library functions whose work is not proportional to their arguments)."""
    meter = _METER.get()
    if meter is not None and units > 0:
        meter.add(units)


def _size(value: Any) -> int:
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return len(value)
    return 0


def _costed(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        units = sum(_size(a) for a in args)
        if units:
            charge(math.ceil(units * 0.1))
        return fn(*args)
    call.__name__ = getattr(fn, "__name__", "fn")
    return call


#: grammar levels (celpy's tree) that merely pass one child through: not operations
PASS_THROUGH = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                           "unary", "member", "primary", "exprlist", "paren_expr", "literal"})


class _CostedEvaluator(Evaluator):
    """celpy's tree interpreter, charging one unit per evaluated node (macro bodies included)."""

    meter: _Meter

    def _count(self, tree: Any) -> None:
        # grammar levels that only pass their one child through are not operations
        if isinstance(tree, lark.Tree) and (len(tree.children) != 1 or tree.data not in PASS_THROUGH):
            self.meter.add(1)

    def visit(self, tree: lark.Tree[Any]) -> Any:
        self._count(tree)
        return super().visit(tree)

    def visit_children(self, tree: lark.Tree[Any]) -> list[Any]:
        for child in tree.children:
            self._count(child)
        return super().visit_children(tree)

    def sub_evaluator(self, ast: lark.Tree[Any]) -> Evaluator:
        sub = _CostedEvaluator(ast, activation=self.activation)
        sub.meter = self.meter
        return sub


def _environment() -> celpy.Environment:
    limit = sys.getrecursionlimit()
    try:
        return celpy.Environment()
    finally:
        sys.setrecursionlimit(limit)


_ENV = _environment()
_PROGRAMS: BoundedCache[tuple[str, frozenset[str]], Any] = BoundedCache("apiserver.cel.programs", maxsize=4096)


_BASE: list[Activation] = []


def _base_activation() -> Activation:
    """One base activation (its function map is the live library); every evaluation clones it."""
    if not _BASE:
        _BASE.append(Activation(package=None, annotations=_ENV.annotations, functions=_LIBRARY))
    return _BASE[0]


class Program:
    """A compiled expression."""

    __slots__ = ("ast", "text")

    def __init__(self, text: str, ast: lark.Tree[Any]) -> None:
        self.text = text
        self.ast = ast

    def evaluate(self, variables: Mapping[str, Any], *, limit: int = PER_CALL_LIMIT) -> tuple[Any, int]:
        """``(value, cost)``; ``variables`` are CEL values (see :func:`to_cel`). Raises :class:`EvalError`."""
        evaluator = _CostedEvaluator(ast=self.ast, activation=_base_activation())
        meter = evaluator.meter = _Meter(limit)
        token = _METER.set(meter)
        try:
            value = evaluator.evaluate({**_NAMESPACES, **variables})
        except OutOfBudget:
            raise
        except CELEvalError as e:
            raise EvalError(_go_message(e)) from None
        except RecursionError:
            raise EvalError("max recursion depth exceeded") from None
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as e:
            raise EvalError(_go_message(e)) from None
        finally:
            _METER.reset(token)
        if isinstance(value, CELEvalError):
            raise EvalError(_go_message(value))
        return value, meter.cost


def _go_message(e: BaseException) -> str:
    """cel-go's wording of a celpy error (upstream messages quote these: ``no such key: x``)."""
    args = getattr(e, "args", ())
    text = str(args[0]) if args else str(e)
    if isinstance(e, (_LibraryError, EvalError)):
        return text
    if text.startswith("Attempt to reduce an empty sequence"):
        return "min called on empty list"  # celpy evaluates ``.min()`` itself, as a reduce macro
    if text.startswith("no such member in mapping: "):
        return "no such key: " + text[len("no such member in mapping: "):].strip("'")
    if "no matching overload" in text or text.startswith("no such overload"):
        return "no such overload"
    if "divide by zero" in text or "division by zero" in text or isinstance(e, ZeroDivisionError):
        return "division by zero"
    if "overflow" in text:
        return "integer overflow"
    if "index" in text and "range" in text:
        return "index out of bounds"
    cause = e.__cause__
    if isinstance(cause, EvalError):
        return str(cause)
    return text


def _position(token: Any) -> str:
    return f"ERROR: <input>:{getattr(token, 'line', 1)}:{getattr(token, 'column', 1)}:"


def _check(text: str, ast: lark.Tree[Any], declared: frozenset[str]) -> None:
    """cel-go's checker, for what celpy can see statically: undeclared variables and unknown functions."""
    bound: set[str] = set()
    # comprehension variables: the first argument of a macro call ``x.all(v, ...)``
    for node in ast.iter_subtrees():
        if node.data == "member_dot_arg" and len(node.children) > 2:
            method = node.children[1]
            if str(method) in _MACROS and isinstance(node.children[2], lark.Tree):
                for ident in node.children[2].children[:1]:
                    name = ident_name(ident)
                    if name:
                        bound.add(name)
    for node in ast.iter_subtrees():
        if node.data == "ident":
            tok = node.children[0]
            name = str(tok)
            if name not in declared and name not in bound and name not in _NAMESPACES and name not in _TYPE_NAMES:
                raise CompileError(f"{_position(tok)} undeclared reference to '{name}' "
                                   f"(in container '')")
        elif node.data in ("ident_arg", "member_dot_arg"):
            tok = node.children[0] if node.data == "ident_arg" else node.children[1]
            name = str(tok)
            if name not in _CEL_FUNCTIONS and name not in _LIBRARY:
                raise CompileError(f"{_position(tok)} undeclared reference to '{name}' "
                                   f"(in container '')")


_TYPE_NAMES = frozenset({"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type",
                         "google"})


def ident_name(node: Any) -> str | None:
    """The identifier an expression node is (``expr`` → ... → ``ident``), or None."""
    while isinstance(node, lark.Tree):
        if node.data == "ident":
            return str(node.children[0])
        if len(node.children) != 1:
            return None
        node = node.children[0]
    return None


def compile_expression(text: str, variables: Iterable[str]) -> Program:
    """Parse and check ``text`` against the declared ``variables`` (cached). Raises :class:`CompileError`."""
    declared = frozenset(variables)
    key = (text, declared)
    hit = _PROGRAMS.get(key)
    if hit is None:
        try:
            ast = _ENV.compile(text)
            _check(text, ast, declared)
            hit = Program(text, ast)
        except CompileError as e:
            hit = e
        except RecursionError:
            hit = CompileError("ERROR: <input>:1:1: expression nested too deeply")
        except Exception as e:  # celpy's parse errors: CELParseError and lark's
            hit = CompileError(_parse_message(e))
        _PROGRAMS.put(key, hit)
    if isinstance(hit, CompileError):
        raise hit
    return hit  # type: ignore[no-any-return]


def _parse_message(e: Exception) -> str:
    line = getattr(e, "line", None) or 1
    column = getattr(e, "column", None) or 1
    first = str(e.args[0]) if e.args else str(e)
    first = first.splitlines()[0] if first else "syntax error"
    return f"ERROR: <input>:{line}:{column}: Syntax error: {first}"


_S, _I, _D, _B = celtypes.StringType, celtypes.IntType, celtypes.DoubleType, celtypes.BoolType


def to_cel(value: Any) -> Any:
    """A JSON value (an object as stored) as a CEL value: celpy's ``json_to_cel`` for the JSON types, built
    directly (a third faster: map keys are already strings, so MapType's key checks are skipped)."""
    t = type(value)
    if t is str:
        return _S(value)
    if t is dict:
        out = celtypes.MapType()
        for k, v in value.items():
            dict.__setitem__(out, _S(k), to_cel(v))
        return out
    if t is list:
        return celtypes.ListType([to_cel(v) for v in value])
    if t is bool:
        return _B(value)
    if t is int:
        return _I(value)
    if t is float:
        return _D(value)
    return json_to_cel(value)


def is_true(value: Any) -> bool:
    return isinstance(value, celtypes.BoolType) and bool(value)
