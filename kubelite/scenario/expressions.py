"""The scenario expression language: a small, safe, three-valued language for expectations and ``when:``.

Contract:
- **Safe by construction.** Text is tokenized by hand and parsed by a Pratt parser
  (:mod:`~kubelite.scenario.expr_syntax`) into a tree of plain nodes (:mod:`~kubelite.scenario.expr_eval`);
  evaluation walks that tree. Nothing reaches Python's ``eval``, attribute lookup or imports: ``.field``
  reads a key of a mapping (JSON objects), never a Python attribute, and only the functions in
  :data:`FUNCTIONS` can be called.
- **Total and bounded.** :func:`compile_expression` and :meth:`Expression.evaluate` raise nothing but
  :class:`ExpressionError` (with the column, and file:line:column when an :class:`Origin` is given), on
  any input; text length, tree height, integer and string sizes, ``round`` digits and evaluation steps are
  bounded (:mod:`~kubelite.scenario.expr_values`), so every evaluation ends quickly in bounded memory.
- **Three-valued, like CEL's no-such-key.** A missing object or field is :class:`Unknown` (with a reason
  such as "pod shop does not exist"), not ``null``, and a comparison with it is unknown: an expectation
  holds only when its value is known and true, so a check about something that does not exist fails and
  says so. ``has(x.f)``, ``exists(x)`` and ``default(x, d)`` ask explicitly.

Grammar (lowest to highest precedence)::

    expr    := or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | cmp
    cmp     := sum (("=="|"!="|"<"|"<="|">"|">="|"in"|"not in") sum)?
    sum     := term (("+"|"-") term)*
    term    := unary (("*"|"/"|"%") unary)*
    unary   := "-" unary | postfix
    postfix := primary ("." NAME | "[" expr "]" | "[" KEY "=" expr ("," KEY "=" expr)* "]")*
    primary := NUMBER [unit] | STRING | "true" | "false" | "null" | NAME | NAME "(" args ")" | "(" expr ")"
             | "[" [expr ("," expr)*] "]"

Numbers may carry a duration unit (``90s``, ``5m``, ``2h``, ``500ms``): the value is in seconds. The
names ``now`` (virtual seconds since the scenario started) and ``metrics`` are the only free variables.
"""

from __future__ import annotations

from typing import Any

from kubelite.scenario import expr_eval as _n
from kubelite.scenario.expr_eval import Context, Environment
from kubelite.scenario.expr_syntax import FUNCTIONS, parse
from kubelite.scenario.expr_values import MAX_LENGTH, ExpressionError, Origin, Unknown, show, type_name

__all__ = ["FUNCTIONS", "Environment", "Expression", "ExpressionError", "Origin", "Unknown", "Verdict",
           "compile_expression"]


class Verdict:
    """One evaluation: ``value`` (possibly :class:`Unknown`), whether it ``held`` (known and true), and the
    comparisons it made as ``(source, left, op, right, result)``, for diagnoses."""

    __slots__ = ("comparisons", "held", "steps", "value")

    def __init__(self, value: Any, held: bool, comparisons: list[tuple[str, Any, str, Any, Any]],
                 steps: int = 0) -> None:
        self.value, self.held, self.comparisons = value, held, comparisons
        #: evaluation steps taken (at most MAX_STEPS)
        self.steps = steps

    @property
    def unknown(self) -> Unknown | None:
        return self.value if isinstance(self.value, Unknown) else None

    def explain(self, limit: int = 6) -> list[str]:
        """The comparisons that did not hold, with the values compared (first ones first)."""
        out: list[str] = []
        for src, a, op, b, res in self.comparisons:
            if res is True:
                continue
            if isinstance(res, Unknown):
                out.append(f"{src}: unknown ({res.reason})")
            else:
                out.append(f"{src}: {show(a)} {op} {show(b)} is false")
            if len(out) >= limit:
                break
        return out


class Expression:
    """A compiled expression. Immutable; evaluate it any number of times against any environment."""

    __slots__ = ("_root", "origin", "text", "uses_metrics", "uses_time")

    def __init__(self, text: str, root: _n.Node, origin: Origin | None = None) -> None:
        self.text = text
        self._root = root
        self.origin = origin
        #: whether the value can change without any object changing (it reads `now` or `metrics`)
        self.uses_time = any(isinstance(x, _n.Var) and x.name != "request" for x in _walk(root))
        #: whether it reads `metrics`
        self.uses_metrics = any(isinstance(x, _n.Var) and x.name == "metrics" for x in _walk(root))

    def _run(self, env: Environment) -> tuple[Any, Context]:
        ctx = Context(self.text, env)
        try:
            return self._root.eval(ctx), ctx
        except ExpressionError as e:
            raise (e.place(self.origin) if self.origin is not None else e) from None
        except RecursionError:  # cannot happen with the height bound; kept so the contract holds regardless
            raise self._error("expression too deeply nested to evaluate") from None

    def _error(self, message: str) -> ExpressionError:
        return ExpressionError(message, self.text, 1, self.origin)

    def evaluate(self, env: Environment) -> Any:
        """The value: JSON data or :class:`Unknown`."""
        return self._run(env)[0]

    def verdict(self, env: Environment) -> Verdict:
        value, ctx = self._run(env)
        held = not isinstance(value, Unknown) and _n._truth(ctx, self._root, value) is True
        comps = [(ctx.src(node), a, node.op, b, res) for node, a, b, res in ctx.trace
                 if isinstance(node, _n.Compare)]
        return Verdict(value, held, comps, ctx.steps)

    def holds(self, env: Environment) -> bool:
        """Whether the value is known and true (``null``, ``0``, ``""`` and ``[]`` are false)."""
        return self.verdict(env).held

    def calls(self) -> list[tuple[str, list[Any]]]:
        """Every call with literal positional arguments, in source order (for diagnoses:
        ``pod("default/web")`` names the pod to explain)."""
        out = []
        for x in _walk(self._root):
            if isinstance(x, _n.Call):
                out.append((x.name, [a.value if isinstance(a, _n.Lit) else None for a in x.args]))
        return out

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def _walk(root: _n.Node) -> list[_n.Node]:
    """Nodes in source order (pre-order), iteratively."""
    out: list[_n.Node] = []
    stack = [root]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(reversed(x.children()))
    return out


def compile_expression(text: str, origin: Origin | None = None) -> Expression:
    """Parse ``text``; raises :class:`ExpressionError` (with a column) for anything malformed or unknown."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, not {type_name(text)}", str(text)[:40], 1, origin)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters", text[:40], 1, origin)
    if not text.strip():
        raise ExpressionError("empty expression", text, 1, origin)
    if "\x00" in text:
        raise ExpressionError("NUL character in the expression", text.replace("\x00", " "), text.index("\x00") + 1,
                              origin)
    try:
        root = parse(text)
    except ExpressionError as e:
        raise (e.place(origin) if origin is not None else e) from None
    return Expression(text, root, origin)
