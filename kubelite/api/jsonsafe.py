"""JSON data at the API boundary: text that UTF-8 cannot carry, and nesting the pipeline cannot walk.

Contract:
- :func:`encode` is ``msgspec.json.encode`` that never raises ``UnicodeEncodeError``: a lone UTF-16
  surrogate (``"\\ud800"``, which no UTF-8 text can hold) is encoded as U+FFFD, which is what upstream's
  Go JSON decoder makes of the escaped surrogate any client library sends. Data without surrogates
  encodes exactly as before, at the same cost (the replacement runs only after a failure).
- :func:`check_depth` raises :class:`TooDeep` for data nested deeper than :data:`MAX_DEPTH` containers
  (each dict or list is one level). The walk is iterative, so it cannot itself overflow the stack.
  Upstream's decoder stops at 10000 levels; kubelite's recursive walkers (patches, pruning, apply,
  validation) run on the Python stack, so the limit is lower, yet several times deeper than any real
  object (a CRD whose schema embeds a pod template is about 40 levels deep).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

__all__ = ["MAX_DEPTH", "TooDeep", "check_depth", "encode", "replace_surrogates"]

MAX_DEPTH: Final = 128

_encode = msgspec.json.Encoder().encode


class TooDeep(ValueError):
    """Data nested deeper than :data:`MAX_DEPTH`."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"the object is nested more than {limit} levels deep")


def replace_surrogates(v: Any) -> Any:
    """A copy of JSON data with every lone surrogate in keys and strings replaced by U+FFFD."""
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in v)
        return v
    if isinstance(v, dict):
        return {replace_surrogates(k): replace_surrogates(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [replace_surrogates(x) for x in v]
    if isinstance(v, msgspec.Struct):
        return replace_surrogates(msgspec.to_builtins(v))
    return v


def encode(v: Any) -> bytes:
    """JSON bytes of ``v``; lone surrogates become U+FFFD instead of failing."""
    try:
        return _encode(v)
    except UnicodeEncodeError:
        return _encode(replace_surrogates(v))


def check_depth(v: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when ``v`` nests more than ``limit`` dicts/lists."""
    if not isinstance(v, dict | list):
        return
    stack: list[tuple[Any, int]] = [(v, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        x, d = pop()
        if d > limit:
            raise TooDeep(limit)
        children = x.values() if type(x) is dict else x
        for c in children:
            if isinstance(c, dict | list):
                push((c, d + 1))
