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
- A rule that cannot be compiled or evaluated (a no-such-key selection without ``has()``) is reported as
  upstream reports runtime errors, as an Invalid value on the node naming the rule.

The CEL implementation is cel-python (``celpy``): pure Python, maintained, with CEL's standard library and
macros (``has``, ``all``, ``exists``, ``exists_one``, ``map``, ``filter``, ``size``, string functions).
Kubernetes' library functions are partial: ``isQuantity`` is provided; ``quantity()`` objects, the ``format``
library and upstream's static cost estimation are not (see the module's tests for what is covered).
Compiled programs are cached per rule text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

import celpy
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.evaluation import CELEvalError

from kubelite.api.quantity import parse_quantity
from kubelite.errors import FieldError
from kubelite.memo import BoundedCache

__all__ = ["has_rules", "validate_rules"]



def _environment() -> celpy.Environment:
    """celpy's Environment raises the process-wide recursion limit to 2500 as a side effect; kubelite's depth
    guards rely on the interpreter's limit (the client turns a RecursionError into a 400), so it is restored.
    Rules are parsed well within the default limit."""
    limit = sys.getrecursionlimit()
    try:
        return celpy.Environment()
    finally:
        sys.setrecursionlimit(limit)


_ENV = _environment()
#: rule text -> compiled program (or the compile error's message)
_PROGRAMS: BoundedCache[str, Any] = BoundedCache("apiserver.crd.cel_programs", maxsize=2048)
_OLD_SELF = re.compile(r"\boldSelf\b")


def _is_quantity(value: Any) -> celtypes.BoolType:
    try:
        parse_quantity(str(value))
    except (TypeError, ValueError):
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


_FUNCTIONS: dict[str, Any] = {"isQuantity": _is_quantity}


def _program(rule: str) -> Any:
    hit = _PROGRAMS.get(rule)
    if hit is None:
        try:
            hit = _ENV.program(_ENV.compile(rule), functions=_FUNCTIONS)
        except Exception as e:  # celpy raises its own parse errors; any of them means "does not compile"
            hit = f"compilation failed: {e}"
        _PROGRAMS.put(rule, hit)
    return hit


def _evaluate(rule: str, activation: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(result, None) or (None, error message)."""
    program = _program(rule)
    if isinstance(program, str):
        return None, program
    try:
        result = program.evaluate({k: json_to_cel(v) for k, v in activation.items()})
    except (CELEvalError, RecursionError, TypeError, ValueError, KeyError) as e:
        return None, _eval_message(e)
    if isinstance(result, CELEvalError):
        return None, _eval_message(result)
    return result, None


def _eval_message(e: BaseException) -> str:
    args = getattr(e, "args", ())
    return str(args[0]) if args else str(e)


def has_rules(raw: Mapping[str, Any]) -> bool:
    """Whether a schema has any ``x-kubernetes-validations`` (so validation can skip the walk)."""
    if raw.get("x-kubernetes-validations"):
        return True
    for key in ("properties",):
        for child in (raw.get(key) or {}).values():
            if isinstance(child, Mapping) and has_rules(child):
                return True
    for key in ("items", "additionalProperties"):
        child = raw.get(key)
        if isinstance(child, Mapping) and has_rules(child):
            return True
    return False


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


def _message(rule: Mapping[str, Any], activation: Mapping[str, Any]) -> str:
    expr = rule.get("messageExpression")
    if expr:
        result, err = _evaluate(str(expr), activation)
        if err is None and isinstance(result, str) and result.strip():
            return str(result)
    if rule.get("message"):
        return str(rule["message"])
    return f"failed rule: {rule.get('rule')}"


def _node_rules(raw: Mapping[str, Any], value: Any, old: Any, has_old: bool, path: str,
                out: list[FieldError]) -> None:
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
        result, err = _evaluate(text, activation)
        if err is not None:
            out.append(FieldError.invalid(path or "<nil>", schema_type, f"rule: {text}, error: {err}"))
        elif result is not True and not (isinstance(result, celtypes.BoolType) and bool(result)):
            out.append(_error(rule, path, schema_type, _message(rule, activation)))


def _walk(raw: Mapping[str, Any], value: Any, old: Any, has_old: bool, path: str, out: list[FieldError]) -> None:
    _node_rules(raw, value, old, has_old, path, out)
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
            _walk(sub, child, old.get(key) if child_has_old else None, child_has_old, cpath, out)
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
                _walk(items, item, old_by_key.get(k) if k is not None else None, item_has_old, f"{path}[{i}]", out)


def validate_rules(obj: Mapping[str, Any], old: Mapping[str, Any] | None, raw: Mapping[str, Any]) -> list[FieldError]:
    """Every failed ``x-kubernetes-validations`` rule of ``obj`` (the object without apiVersion/kind/metadata)
    against the version's ``openAPIV3Schema`` ``raw``; ``old`` is the stored object on an update."""
    if not has_rules(raw):
        return []
    out: list[FieldError] = []
    _walk(raw, dict(obj), dict(old) if old is not None else None, old is not None, "", out)
    return out
