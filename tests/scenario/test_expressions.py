"""The expression language: evaluation, errors with positions, and rejection of anything unsafe."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.scenario.expressions import ExpressionError, Unknown, compile_expression

POD = {"metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
       "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"},
                                                      {"type": "Ready", "status": "True"}],
                  "containerStatuses": [{"name": "a", "restartCount": 2}, {"name": "b", "restartCount": 3}]}}


class Env:
    def __init__(self) -> None:
        self.now = 90.0
        self.metrics: dict[str, Any] = {"rate": None, "traffic": {"success_rate": 0.995,
                                                    "by_service": {"default/web": {"sent": 10}}}}

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name == "pod":
            return POD if args[0] in ("web", "default/web") else None
        if name == "pods":
            return [POD] if kwargs.get("phase", "Running") == "Running" else []
        raise AssertionError(name)


CASES = [
    ("field access", 'pod("default/web").status.phase', "Running"),
    ("missing object is unknown", 'pod("nope").status.phase', Unknown("pod nope does not exist")),
    ("missing field is unknown", 'pod("web").status.podIP',
     Unknown("pod(\"web\").status has no field 'podIP'", absent=True)),
    ("has: absent field of an existing object", 'has(pod("web").status.podIP)', False),
    ("has: present field", 'has(pod("web").status.phase)', True),
    ("has: missing object stays unknown", 'has(pod("nope").status.phase)', Unknown("pod nope does not exist")),
    ("exists", 'exists(pod("web")) and not exists(pod("nope"))', True),
    ("default", 'default(pod("nope").status.phase, "Gone")', "Gone"),
    ("!= on a missing object is unknown, not true", 'pod("nope").status.phase != "Running"',
     Unknown("pod nope does not exist")),
    ("kleene: false and unknown", 'false and pod("nope").x == 1', False),
    ("kleene: unknown or true", 'pod("nope").x == 1 or true', True),
    ("kleene: not unknown", 'not (pod("nope").x == 1)', Unknown("pod nope does not exist")),
    ("multi-key filter", 'pod("web").status.conditions[type="Ready", status="True"].type', "Ready"),
    ("dotted filter key", 'pods()[metadata.name="web"].status.phase', "Running"),
    ("filter without a match is unknown", 'pod("web").status.conditions[type="Nope"]',
     Unknown("pod(\"web\").status.conditions has no element with type=\"Nope\"", absent=True)),
    ("where", 'count(where(pod("web").status.conditions, "status", "True"))', 2),
    ("distinct", 'distinct(["b", "a", "b"])', ["a", "b"]),
    ("sorted", "sorted([3, 1, 2])", [1, 2, 3]),
    ("all any", "all([true, true]) and any([false, true]) and not all([true, false])", True),
    ("in_cidr", 'in_cidr("10.244.1.7", "10.244.0.0/16") and not in_cidr("10.0.0.1", "10.244.0.0/16")', True),
    ("in_cidr over a list", 'in_cidr(["10.1.0.1", "10.1.2.3"], "10.1.0.0/16")', True),
    ("string key maps over a list", 'pod("web").status.containerStatuses["name"]', ["a", "b"]),
    ("null rate compares to null", "metrics.rate == null", True),
    ("null rate ordering is unknown", "metrics.rate >= 0.99", Unknown("metrics.rate is null")),
    ("filter", 'pod("web").status.conditions[type="Ready"].status == "True"', True),
    ("index", 'pod("web").status.conditions[0].type', "PodScheduled"),
    ("negative index", 'pod("web").status.conditions[-1].type', "Ready"),
    ("index out of range", 'pod("web").status.conditions[5]',
     Unknown("pod(\"web\").status.conditions has no element 5 (it has 2)", absent=True)),
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
    ("division by zero is unknown", "1 / 0", Unknown("0 is zero in 1 / 0")),
    ("not", "not false", True),
    ("or short-circuits", 'true or pod("web").x.y', True),
    ("and", "1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 3 and 1 != 2", True),
    ("string in string", '"Insuff" in "Insufficient cpu"', True),
    ("not in list", '"x" not in ["a", "b"]', True),
    ("in object", '"app" in pod("web").metadata.labels', True),
    ("ordering on a missing object is unknown", 'pod("nope").status.replicas > 0',
     Unknown("pod nope does not exist")),
    ("arithmetic on a missing object is unknown", 'pod("nope").x + 1', Unknown("pod nope does not exist")),
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
    ("unclosed call (was IndexError)", "count(", "unexpected the end of the expression", 7),
    ("unclosed filter", 'pod("a").x[type=', "unexpected the end of the expression", 17),
    ("huge integer literal (was OverflowError)", "1" * 400 + " / 3", "integer literal too large", 1),
    ("malformed duration", "1m3.3.3s", "malformed duration", 3),
    ("long chain of fields", "metrics" + ".a" * 100, "nested too deeply", 134),
    ("long sum", " + ".join(["1"] * 100), "nested too deeply", 255),
    ("has needs a selection", "has(1)", "has() needs a field selection", 1),
    ("non-ascii digits", "\u0661 == 1", "unexpected character", 1),
    ("trailing backslash", '"abc\\', "unterminated string", 1),
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
    ("index with a boolean", 'pod("web").status.conditions[true]', "a list index must be an integer"),
    ("negate string", '-"a"', "cannot negate a string"),
    ("round with a huge digits argument (never finished)", "round(1, -1000000000)", "digits must be an integer"),
    ("integer overflow", "9223372036854775807 + 1", "number out of range"),
    ("float overflow", "1.5 * 9223372036854775807 * 9223372036854775807 * 9223372036854775807"
     " * 9223372036854775807 * 9223372036854775807 * 9223372036854775807 * 9223372036854775807"
     " * 9223372036854775807 * 9223372036854775807 * 9223372036854775807 * 9223372036854775807"
     " * 9223372036854775807 * 9223372036854775807 * 9223372036854775807 * 9223372036854775807"
     " * 9223372036854775807 * 9223372036854775807", "number out of range"),
    ("bad cidr", 'in_cidr("10.0.0.1", "nope")', "in_cidr()"),
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
    assert isinstance(compile_expression("metrics.secret").evaluate(env), Unknown)
    assert isinstance(compile_expression("metrics.__class__").evaluate(env), Unknown)


def test_uses_time() -> None:
    assert compile_expression("now > 5s").uses_time
    assert compile_expression("metrics.traffic.sent > 1").uses_time
    assert not compile_expression('pod("a").status.phase == "Running"').uses_time


def test_pointer() -> None:
    with pytest.raises(ExpressionError) as ei:
        compile_expression("1 + foo")
    assert ei.value.pointer() == "1 + foo\n    ^"
