"""The JSONPath subset CRD printer columns use (client-go ``util/jsonpath``, ``AllowMissingKeys``).

Supported: ``.field``, ``['field']`` / ``["field"]``, ``[n]`` (negative counts from the end), ``[*]``, and
filters ``[?(@.a.b == "x")]`` / ``!=`` against a string, number or boolean literal. A missing key yields no
result (never an error); a path outside the subset yields no result either, as an unparsable column
prints as empty (``<none>``) in kubectl.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.memo import compiled

__all__ = ["find", "print_value"]

#: one step of a path (compiled with the first CRD printer column printed: ``memo.compiled``)
_TOKEN = (
    r"""\.(?P<field>[^.\[\]]+)"""
    r"""|\[(?P<quoted>'[^']*'|"[^"]*")\]"""
    r"""|\[(?P<index>-?\d+)\]"""
    r"""|\[(?P<star>\*)\]"""
    r"""|\[\?\(@(?P<fpath>(?:\.[^.\s=!\]\)]+)+)\s*(?P<op>==|!=)\s*(?P<lit>'[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|true|false)\)\]"""
)


def _parse(path: str) -> list[tuple[str, Any]] | None:
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        m = compiled(_TOKEN).match(path, pos)
        if m is None:
            return None
        if m["field"] is not None:
            steps.append(("field", m["field"]))
        elif m["quoted"] is not None:
            steps.append(("field", m["quoted"][1:-1]))
        elif m["index"] is not None:
            steps.append(("index", int(m["index"])))
        elif m["star"] is not None:
            steps.append(("star", None))
        else:
            lit = m["lit"]
            value: Any = lit[1:-1] if lit[0] in "'\"" else msgspec.json.decode(lit)
            steps.append(("filter", (m["fpath"][1:].split("."), m["op"], value)))
        pos = m.end()
    return steps


def _get(value: Any, fields: list[str]) -> tuple[bool, Any]:
    for f in fields:
        if not isinstance(value, dict) or f not in value:
            return False, None
        value = value[f]
    return True, value


def find(obj: Any, path: str) -> list[Any]:
    """Every value ``path`` selects in ``obj`` (in document order)."""
    steps = _parse(path)
    if steps is None:
        return []
    current = [obj]
    for kind, arg in steps:
        nxt: list[Any] = []
        for v in current:
            if kind == "field":
                if isinstance(v, dict) and arg in v:
                    nxt.append(v[arg])
            elif kind == "index":
                if isinstance(v, list) and -len(v) <= arg < len(v):
                    nxt.append(v[arg])
            elif kind == "star":
                if isinstance(v, list):
                    nxt.extend(v)
                elif isinstance(v, dict):
                    nxt.extend(v.values())
            elif isinstance(v, list):
                fields, op, lit = arg
                for item in v:
                    found, got = _get(item, fields)
                    if found and ((got == lit) == (op == "==")):
                        nxt.append(item)
        current = nxt
    return current


def print_value(value: Any) -> str:
    """How jsonpath prints one result: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()
