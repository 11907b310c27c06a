"""The values of the expression language, its one error type and its cost bounds.

Contract:
- A value is JSON (``null``, booleans, numbers, strings, lists, objects) or :class:`Unknown`: the
  third truth value. ``Unknown`` stands for "this could not be known", with the reason in words
  ("pod shop does not exist", "deployment("web").status has no field 'readyReplicas'"). It is what
  CEL's no-such-key error is to CEL: reading a field of an object that does not exist, or a field
  the object does not have, is not ``null``, and a comparison involving it is neither true nor
  false. An expectation holds only when its value is known and true.
- :class:`ExpressionError` is the only exception the language raises, for syntax and for evaluation
  (types that cannot be compared, a bound exceeded). It carries the 1-based column in the expression
  and, when the expression came from a file, the file, line and column there.
- Cost is bounded by the constants below, checked as values are made: an expression cannot build a
  number, string or list past them, nor run more than :data:`MAX_STEPS` evaluation steps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "MAX_DEPTH", "MAX_INT", "MAX_LENGTH", "MAX_LIST", "MAX_ROUND_DIGITS", "MAX_STEPS", "MAX_STRING", "ExpressionError",
    "Origin", "Unknown", "check_number", "is_number", "show", "type_name",
]

#: characters in one expression
MAX_LENGTH = 4000
#: nesting of the syntax tree (parentheses, operators, field selections)
MAX_DEPTH = 64
#: evaluation steps per evaluation (one per node, plus one per list element a node walks)
MAX_STEPS = 200_000
#: the magnitude of any integer (int64, as CEL's int)
MAX_INT = 2**63 - 1
#: characters in a string an expression builds
MAX_STRING = 65_536
#: elements in a list an expression builds
MAX_LIST = 100_000
#: ``round(x, digits)``: |digits| at most this
MAX_ROUND_DIGITS = 15


class Origin:
    """Where an expression's text sits in a file: ``segments`` maps offsets in the text to the (1-based)
    line and column of the file where that piece starts (a folded YAML scalar spans several lines)."""

    __slots__ = ("file", "segments")

    def __init__(self, file: str, segments: Sequence[tuple[int, int, int]]) -> None:
        self.file = file
        self.segments = tuple(sorted(segments))

    def locate(self, offset: int) -> tuple[int, int, int]:
        """(line, column, start offset of that line's piece) of ``offset`` (0-based) in the text."""
        best = self.segments[0] if self.segments else (0, 0, 1)
        for seg in self.segments:
            if seg[0] <= offset:
                best = seg
        start, line, col = best
        return line, col + (offset - start), start


class ExpressionError(ValueError):
    """A syntax or evaluation error; ``column`` is 1-based within ``text``; ``origin`` (optional) places
    the text in a file, and then ``file``, ``line`` and ``file_column`` are set."""

    def __init__(self, message: str, text: str, column: int, origin: Origin | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.column = max(1, column)
        self.origin: Origin | None = None
        self.file = ""
        self.line = 0
        self.file_column = 0
        if origin is not None:
            self.place(origin)

    def place(self, origin: Origin) -> ExpressionError:
        """Place the error in a file (idempotent)."""
        self.origin = origin
        self.file = origin.file
        self.line, self.file_column, _ = origin.locate(self.column - 1)
        return self

    def __str__(self) -> str:
        if self.origin is not None:
            return f"{self.file}:{self.line}:{self.file_column}: {self.message}\n{self.pointer(indent='  ')}"
        return f"{self.message} (at column {self.column})"

    def pointer(self, indent: str = "") -> str:
        """The line of the expression holding the error with a caret under the column, as two lines
        (each prefixed by ``indent``). With an origin, the line is the file's piece, so the caret sits
        where an editor would show the column."""
        offset = self.column - 1
        if self.origin is not None:
            _, _, start = self.origin.locate(offset)
            piece = self.text[start:].split("\n", 1)[0]
            col = offset - start
            # the piece may have been folded from several lines: show only up to the next segment
            nxt = [s for s, _, _ in self.origin.segments if s > start]
            if nxt:
                piece = self.text[start:nxt[0]].rstrip("\n")
        else:
            start = self.text.rfind("\n", 0, offset) + 1
            piece = self.text[start:].split("\n", 1)[0]
            col = offset - start
        piece = piece.replace("\t", " ")
        return f"{indent}{piece}\n{indent}{' ' * max(0, col)}^"


class Unknown:
    """The third truth value (see the module docstring). ``absent`` is true when the cause is a field or
    element the (existing) object does not have, false when the object itself does not exist or a
    value was null: ``has()`` answers false for the first and stays unknown for the second."""

    __slots__ = ("absent", "reason")

    def __init__(self, reason: str, *, absent: bool = False) -> None:
        self.reason = reason
        self.absent = absent

    def __bool__(self) -> bool:
        raise TypeError("an Unknown has no truth value; test it with isinstance")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown) and other.reason == self.reason and other.absent == self.absent

    def __hash__(self) -> int:
        return hash((self.reason, self.absent))

    def __repr__(self) -> str:
        return f"Unknown({self.reason!r})"


def is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def check_number(x: int | float) -> int | float | None:
    """``x`` if within bounds; None if not (the caller raises with its position)."""
    if isinstance(x, int):
        return x if -MAX_INT - 1 <= x <= MAX_INT else None
    return x if math.isfinite(x) else None


def type_name(v: Any) -> str:
    if isinstance(v, Unknown):
        return "unknown"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if is_number(v):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


def show(v: Any, limit: int = 80) -> str:
    """A short rendering of a value for diagnoses."""
    if isinstance(v, Unknown):
        return f"unknown ({v.reason})"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        s = v if len(v) <= limit else v[:limit] + "..."
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list):
        if all(not isinstance(x, list | Mapping) for x in v):
            out = "[" + ", ".join(show(x, 30) for x in v[:8]) + (", ..." if len(v) > 8 else "") + "]"
            if len(out) <= limit * 2:
                return out
        return f"a list of {len(v)}"
    if isinstance(v, Mapping):
        meta = v.get("metadata")
        if isinstance(meta, Mapping) and isinstance(meta.get("name"), str):
            ns = meta.get("namespace")
            return f"{v.get('kind', 'object')} {ns + '/' if ns else ''}{meta['name']}"
        return "an object"
    return type_name(v)
