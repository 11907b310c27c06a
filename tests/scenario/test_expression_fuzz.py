"""Fuzz the expression language. Invariant first: for any text, compiling and evaluating it either
gives a value (JSON or Unknown) or raises ExpressionError, never anything else, within MAX_STEPS
evaluation steps and a few megabytes of memory."""

from __future__ import annotations

import tracemalloc
from typing import Any, ClassVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.scenario.expr_values import MAX_STEPS
from kubelite.scenario.expressions import FUNCTIONS, ExpressionError, compile_expression

POD = {"metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
       "spec": {"nodeName": "node-0", "containers": [{"name": "a", "image": "nginx"}]},
       "status": {"phase": "Running", "podIP": "10.244.0.5",
                  "conditions": [{"type": "Ready", "status": "True"}],
                  "containerStatuses": [{"name": "a", "restartCount": 2}]}}


class Env:
    now = 12.5
    metrics: ClassVar[dict[str, Any]] = {"traffic": {"success_rate": None, "sent": 0, "by_pod": {"default/web": 3}},
                               "big": list(range(5000)), "s": "x" * 60_000}

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name not in FUNCTIONS:
            raise AssertionError(name)
        if name in ("pod", "object"):
            return POD if args and args[-1] in ("web", "default/web") else None
        if name.endswith("s") and name not in ("status", "diagnosis", "dns"):
            return [POD] * 200
        if name in ("diagnosis", "status"):
            return "Running"
        if name == "dns":
            return ["10.96.0.10"]
        if name == "traffic":
            return None
        return None


TOKENS = ['pod("web")', 'pod("nope")', "pods()", 'pods(label="app=web")', "events()", "nodes()", ".", "status",
          "phase", "conditions", "[", "]", "(", ")", ",", "=", "type", '"Ready"', "0", "-1", "5", "9" * 25, "1.5",
          ".5", "1m30s", "500ms", "1e", "+", "-", "*", "/", "%", "==", "!=", "<", ">=", " and ", " or ", "not ",
          " in ", "count(", "sum(", "min(", "round(", "abs(", "has(", "exists(", "default(", "distinct(", "where(",
          "in_cidr(", "all(", "any(", "sorted(", "len(", "metrics", ".big", ".s", "now", "true", "null", "'x'",
          '"', "\\", " ", "[1, 2]", "traffic(\"web\")", "dns(\"web\")", "object(\"pod\", \"web\")", "x", "\x00",
          "status.containerStatuses.restartCount", "[type=\"Ready\", status=\"True\"]", "-1000000000"]

texts = st.one_of(
    st.lists(st.sampled_from(TOKENS), min_size=1, max_size=40).map("".join),
    st.text(max_size=200),
    st.lists(st.sampled_from(["(", "[", "not ", "-", "metrics", ".a", "+1", ")"]), max_size=400).map("".join),
)


def _error_is_placed(e: ExpressionError, text: str) -> bool:
    return 1 <= e.column <= max(1, len(text) + 1) and e.pointer().count("\n") == 1


def _check(text: str) -> None:
    error: ExpressionError | None = None
    try:
        v = compile_expression(text).verdict(Env())
    except ExpressionError as e:
        error = e
    if error is not None:
        assert _error_is_placed(error, text), (text, error.column)
    else:
        assert v.steps <= MAX_STEPS


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_only_expression_errors(text: str) -> None:
    _check(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=60).map("".join))
def test_bounded_memory(text: str) -> None:
    tracemalloc.start()
    try:
        _check(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024


def test_the_step_budget_stops_a_costly_expression() -> None:
    # comparing two 5000-element lists costs 5000 steps; 50 of them exceed the budget
    import pytest

    text = " and ".join(["metrics.big == metrics.big"] * 50)
    with pytest.raises(ExpressionError, match="evaluation steps"):
        compile_expression(text).verdict(Env())
    assert compile_expression(" and ".join(["metrics.big == metrics.big"] * 5)).holds(Env())
