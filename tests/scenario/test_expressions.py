"""The expression language: evaluation, errors with positions, and rejection of anything unsafe."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.scenario.expressions import ExpressionError, compile_expression

POD = {"metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
       "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"},
                                                      {"type": "Ready", "status": "True"}],
                  "containerStatuses": [{"name": "a", "restartCount": 2}, {"name": "b", "restartCount": 3}]}}


class Env:
    def __init__(self) -> None:
        self.now = 90.0
        self.metrics: dict[str, Any] = {"traffic": {"success_rate": 0.995,
                                                    "by_service": {"default/web": {"sent": 10}}}}

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name == "pod":
            return POD if args[0] in ("web", "default/web") else None
        if name == "pods":
            return [POD] if kwargs.get("phase", "Running") == "Running" else []
        raise AssertionError(name)


CASES = [
    ("field access", 'pod("default/web").status.phase', "Running"),
    ("missing object is null", 'pod("nope").status.phase', None),
    ("filter", 'pod("web").status.conditions[type="Ready"].status == "True"', True),
    ("index", 'pod("web").status.conditions[0].type', "PodScheduled"),
    ("negative index", 'pod("web").status.conditions[-1].type', "Ready"),
    ("index out of range", 'pod("web").status.conditions[5]', None),
    ("map over list", 'pod("web").status.containerStatuses.restartCount', [2, 3]),
    ("sum", 'sum(pod("web").status.containerStatuses.restartCount)', 5),
    ("count", 'count(pods(phase="Running"))', 1),
    ("count empty", 'count(pods(phase="Pending"))', 0),
    ("metrics", "metrics.traffic.success_rate >= 0.99", True),
    ("metrics index", 'metrics.traffic.by_service["default/web"].sent', 10),
    ("durations", "now > 1m and now < 1m31s", True),
    ("milliseconds", "500ms == 0.5", True),
    ("arithmetic precedence", "1 + 2 * 3 - 4 / 2", 5.0),
    ("parentheses", "(1 + 2) * 3", 9),
    ("modulo", "7 % 3", 1),
    ("unary minus", "-2 + 5", 3),
    ("division by zero is null", "1 / 0", None),
    ("not", "not false", True),
    ("or short-circuits", 'true or pod("web").x.y', True),
    ("and", "1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 3 and 1 != 2", True),
    ("string in string", '"Insuff" in "Insufficient cpu"', True),
    ("not in list", '"x" not in ["a", "b"]', True),
    ("in object", '"app" in pod("web").metadata.labels', True),
    ("null ordering is false", 'pod("nope").status.replicas > 0', False),
    ("null arithmetic is null", 'pod("nope").x + 1', None),
    ("string vs number never equal", '"3" == 3', False),
    ("int equals float", "3 == 3.0", True),
    ("escapes", r'"a\"b" == "a" + "\"" + "b"', True),
    ("single quotes", "'x' == \"x\"", True),
    ("list literal", 'pod("web").status.containerStatuses.name == ["a", "b"]', True),
    ("min max round abs", "min([3, 1, 2]) + max([1, 5]) + round(2.6) + abs(-1)", 10),
    ("keyword field name", 'pod("web").status.conditions[type="Ready"].type', "Ready"),
]


@pytest.mark.parametrize(("text", "want"), [(t, w) for _, t, w in CASES], ids=[c[0] for c in CASES])
def test_evaluate(text: str, want: Any) -> None:
    assert compile_expression(text).evaluate(Env()) == want


REJECTED = [
    ("python eval", '__import__("os").system("true")', "unknown function '__import__'", 1),
    ("attribute escape", "().__class__", "unexpected ')'", 2),
    ("dunder name", "__builtins__", "unknown name '__builtins__'", 1),
    ("lambda", "lambda: 1", "unexpected character ':'", 7),
    ("exponent", "2 ** 100", "unexpected '*'", 4),
    ("semicolon", "1; 2", "unexpected character ';'", 2),
    ("assignment", "x = 1", "unknown name 'x'", 1),
    ("bare identifier", 'pod("a").status.phase == Running', "unknown name 'Running'", 26),
    ("unknown function", "exec(1)", "unknown function 'exec'", 1),
    ("wrong arity", 'pod("a", "b")', "pod() takes 1 positional argument, got 2", 1),
    ("unknown keyword", 'pods(colour="red")', "pods() has no argument 'colour'", 6),
    ("positional after keyword", 'pods(phase="Running", "x")', "a positional argument cannot follow", 23),
    ("unterminated string", '"abc', "unterminated string", 1),
    ("bad unit", "5y", "unknown unit 'y'", 2),
    ("chained comparison", "1 < 2 < 3", "comparisons cannot be chained", 7),
    ("trailing tokens", "1 2", "unexpected '2' after a complete expression", 3),
    ("empty", "   ", "empty expression", 1),
    ("missing paren", "(1 + 2", "expected ')'", 7),
    ("too deep", "(" * 100 + "1" + ")" * 100, "nested too deeply", 65),
]


@pytest.mark.parametrize(("text", "message", "column"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_rejected(text: str, message: str, column: int) -> None:
    with pytest.raises(ExpressionError) as ei:
        compile_expression(text)
    assert message in ei.value.message
    assert ei.value.column == column


EVAL_ERRORS = [
    ("string times number", '"a" * 3', "cannot apply '*' to a string and a number"),
    ("compare string and number", '"a" < 1', "cannot compare a string with a number"),
    ("index with string", 'pod("web").status.conditions["x"]', "a list index must be an integer"),
    ("negate string", '-"a"', "cannot negate a string"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in EVAL_ERRORS], ids=[c[0] for c in EVAL_ERRORS])
def test_evaluation_errors(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as ei:
        compile_expression(text).evaluate(Env())
    assert message in ei.value.message


def test_never_reads_python_attributes() -> None:
    class Sneaky(dict[str, Any]):
        secret = "leaked"

    env = Env()
    env.metrics = Sneaky()
    assert compile_expression("metrics.secret").evaluate(env) is None
    assert compile_expression("metrics.__class__").evaluate(env) is None


def test_uses_time() -> None:
    assert compile_expression("now > 5s").uses_time
    assert compile_expression("metrics.traffic.sent > 1").uses_time
    assert not compile_expression('pod("a").status.phase == "Running"').uses_time


def test_pointer() -> None:
    with pytest.raises(ExpressionError) as ei:
        compile_expression("1 + foo")
    assert ei.value.pointer() == "1 + foo\n    ^"
