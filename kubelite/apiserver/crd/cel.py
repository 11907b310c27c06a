"""CRD validation rules: ``x-kubernetes-validations`` evaluated with CEL.

Follows ``k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go``:
- Every schema node with ``x-kubernetes-validations`` evaluates its rules with ``self`` bound to the value
  at that node (objects, lists, scalars); nodes absent from the object are not evaluated.
- A rule that mentions ``oldSelf`` is a transition rule: it runs only on an update where the node existed in
  the old object too, with ``oldSelf`` bound to the old value (upstream ``Transition rules``).
- A rule that evaluates to false reports ``<path>: Invalid value: "<type>": <message>``, where the value is
  the node's schema type (as upstream prints it), the path is the node's path plus the rule's ``fieldPath``,
  the message is ``message``, else the string ``messageExpression`` evaluates to (an expression that fails or
  yields an empty string falls back to ``message`` / the default), else ``failed rule: <rule>``; ``reason``
  (FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate) picks the error type.
- A rule that fails at runtime is reported as upstream reports it, as an Invalid value on the node:
  ``<error> evaluating rule: <message or rule>`` (``no such key: x`` for a selection without ``has()``),
  or ``'no such overload': call arguments did not match ...``.
- **Cost limits** (upstream ``PerCallLimit`` and ``RuntimeCELCostBudget``): one rule may spend 1,000,000
  units, all rules of one object 10,000,000; past either, that error is reported and no further rules run
  (``'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call
  cost exceeds limit for rule: ...`` / ``validation failed due to running out of cost budget, no further
  validation rules will be run``). Units are those of :mod:`kubelite.apiserver.cel.environment`, an
  approximation of cel-go's.

Rules compile and run in the apiserver's CEL environment (:mod:`kubelite.apiserver.cel`: cel-python plus
Kubernetes' library: quantity, format, lists, strings, regex, URLs, IP/CIDR, optional). A CRD whose rule
does not compile is rejected at creation (:func:`compile_errors`), and so is one whose static worst-case
cost estimate exceeds upstream's ``StaticEstimatedCostLimit`` (``estimated rule cost exceeds budget by
factor of ...``; :mod:`kubelite.apiserver.cel.estimate`, an approximation of cel-go's estimator). Not done:
the CRD-wide total estimate (``StaticEstimatedCRDCostLimit``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any

from kubelite.apiserver.cel import (
    PER_CALL_LIMIT,
    RUNTIME_BUDGET,
    CompileError,
    EvalError,
    OutOfBudget,
    compile_expression,
    is_true,
    to_cel,
)
from kubelite.apiserver.cel.estimate import STATIC_COST_LIMIT, cost_error_message, estimate_cost
from kubelite.apiserver.crd.rules import has_rules
from kubelite.errors import FieldError

__all__ = ["STATIC_COST_LIMIT", "compile_errors", "cost_error_message", "estimated_cost", "has_rules", "validate_rules"]

_OLD_SELF = re.compile(r"\boldSelf\b")
_VARIABLES = ("self", "oldSelf")
_OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class _Budget:
    """What the rules of one object may still spend (upstream ``RuntimeCELCostBudget``)."""

    __slots__ = ("remaining",)

    def __init__(self) -> None:
        self.remaining = RUNTIME_BUDGET


def compile_errors(text: str) -> str | None:
    """cel-go's message when a rule does not compile, else None (CRD creation rejects such rules)."""
    try:
        compile_expression(text, _VARIABLES)
    except CompileError as e:
        return str(e)
    return None


def estimated_cost(text: str, node: Mapping[str, Any]) -> int:
    """The static worst-case cost of a (compiling) rule on schema ``node`` (:mod:`kubelite.apiserver.cel.estimate`)."""
    return estimate_cost(compile_expression(text, _VARIABLES).ast, node)


def _evaluate(rule: str, activation: Mapping[str, Any], budget: _Budget) -> tuple[Any, str | None]:
    """(result, None) or (None, error message); raises OutOfBudget when the object's budget is spent."""
    try:
        program = compile_expression(rule, _VARIABLES)
    except CompileError as e:
        return None, f"compilation failed: {e}"
    try:
        result, cost = program.evaluate({k: to_cel(v) for k, v in activation.items()},
                                        limit=min(PER_CALL_LIMIT, budget.remaining))
    except OutOfBudget:
        raise
    except EvalError as e:
        return None, str(e)
    budget.remaining -= cost
    return result, None


def _error(rule: Mapping[str, Any], path: str, schema_type: str, message: str) -> FieldError:
    field_path = rule.get("fieldPath") or ""
    if not field_path:
        full = path
    elif field_path.startswith((".", "[")):
        full = path + field_path
    else:
        full = f"{path}.{field_path}" if path else field_path
    full = full.lstrip(".") or "<nil>"
    reason = rule.get("reason") or "FieldValueInvalid"
    if reason == "FieldValueForbidden":
        return FieldError.forbidden(full, message)
    if reason == "FieldValueRequired":
        return FieldError.required(full, message)
    if reason == "FieldValueDuplicate":
        return FieldError.duplicate(full, schema_type)
    return FieldError.invalid(full, schema_type, message)


def _message(rule: Mapping[str, Any], activation: Mapping[str, Any], budget: _Budget) -> str:
    expr = rule.get("messageExpression")
    if expr:
        result, err = _evaluate(str(expr), activation, budget)
        if err is None and isinstance(result, str) and result.strip():
            return str(result)
    if rule.get("message"):
        return str(rule["message"])
    return f"failed rule: {rule.get('rule')}"


class _Stop(Exception):
    """No further rules run (a spent budget)."""


def _rule_text(rule: Mapping[str, Any]) -> str:
    """upstream ``ruleErrorString``: the message if there is one, else the rule."""
    return str(rule.get("message") or rule.get("rule") or "").strip()


def _node_rules(raw: Mapping[str, Any], value: Any, old: Any, has_old: bool, path: str,
                out: list[FieldError], budget: _Budget) -> None:
    schema_type = str(raw.get("type") or "object")
    for rule in raw.get("x-kubernetes-validations") or ():
        if not isinstance(rule, Mapping) or not isinstance(rule.get("rule"), str):
            continue
        text = rule["rule"]
        activation: dict[str, Any] = {"self": value}
        if _OLD_SELF.search(text):
            if not has_old:
                continue  # transition rules run only on updates of an existing value
            activation["oldSelf"] = old
        node = path or "<nil>"
        if budget.remaining <= 0:
            out.append(FieldError.invalid(node, schema_type, _OUT_OF_BUDGET))
            raise _Stop
        try:
            result, err = _evaluate(text, activation, budget)
        except OutOfBudget as e:
            out.append(FieldError.invalid(node, schema_type, f"'{e}': no further validation rules will be run due "
                                                             f"to call cost exceeds limit for rule: {_rule_text(rule)}"))
            raise _Stop from None
        if budget.remaining < 0:
            out.append(FieldError.invalid(node, schema_type, _OUT_OF_BUDGET))
            raise _Stop
        if err is not None:
            if err == "no such overload":
                out.append(FieldError.invalid(node, schema_type, f"'{err}': call arguments did not match a supported "
                                                                 f"operator, function or macro signature for rule: "
                                                                 f"{_rule_text(rule)}"))
            else:
                out.append(FieldError.invalid(node, schema_type, f"{err} evaluating rule: {_rule_text(rule)}"))
        elif not is_true(result):
            out.append(_error(rule, path, schema_type, _message(rule, activation, budget)))


def _walk(raw: Mapping[str, Any], value: Any, old: Any, has_old: bool, path: str, out: list[FieldError],
          budget: _Budget) -> None:
    _node_rules(raw, value, old, has_old, path, out, budget)
    if isinstance(value, dict):
        props = raw.get("properties") or {}
        extra = raw.get("additionalProperties")
        for key, child in value.items():
            sub = props.get(key) if key in props else (extra if isinstance(extra, Mapping) else None)
            if not isinstance(sub, Mapping) or not has_rules(sub):
                continue
            child_has_old = has_old and isinstance(old, dict) and key in old
            cpath = f"{path}.{key}" if path else key
            if key not in props:
                cpath = f"{path}[{key}]"
            _walk(sub, child, old.get(key) if child_has_old else None, child_has_old, cpath, out, budget)
    elif isinstance(value, list):
        items = raw.get("items")
        if isinstance(items, Mapping) and has_rules(items):
            # upstream correlates old list items only for map lists and sets; positional lists have no oldSelf
            keys = raw.get("x-kubernetes-list-map-keys") if raw.get("x-kubernetes-list-type") == "map" else None
            old_by_key: dict[tuple[Any, ...], Any] = {}
            if keys and has_old and isinstance(old, list):
                for o in old:
                    if isinstance(o, dict):
                        old_by_key[tuple(o.get(k) for k in keys)] = o
            for i, item in enumerate(value):
                k = tuple(item.get(k) for k in keys) if keys and isinstance(item, dict) else None
                item_has_old = k is not None and k in old_by_key
                _walk(items, item, old_by_key.get(k) if k is not None else None, item_has_old, f"{path}[{i}]", out,
                      budget)


def validate_rules(obj: Mapping[str, Any], old: Mapping[str, Any] | None, raw: Mapping[str, Any]) -> list[FieldError]:
    """Every failed ``x-kubernetes-validations`` rule of ``obj`` (the object without apiVersion/kind/metadata)
    against the version's ``openAPIV3Schema`` ``raw``; ``old`` is the stored object on an update."""
    if not has_rules(raw):
        return []
    out: list[FieldError] = []
    with contextlib.suppress(_Stop):
        _walk(raw, dict(obj), dict(old) if old is not None else None, old is not None, "", out, _Budget())
    return out
