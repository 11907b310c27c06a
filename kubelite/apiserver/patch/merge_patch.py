"""JSON merge patch (RFC 7386): what ``kubectl patch --type merge`` sends.

Contract:
- :func:`apply_merge_patch` and :func:`create_merge_patch` never mutate their arguments. Every dict
  and list of a result is freshly built; only immutable leaves (str, int, float, bool, None) are
  shared with the inputs.
  :func:`apply_merge_patch_shared` builds the same result without copying what the patch leaves
  alone: those subtrees are the original's, for callers that copy the result before mutating it.
- Behaviour follows the library kube-apiserver uses, gopkg.in/evanphx/json-patch.v4 ``merge.go``
  (``MergePatch`` / ``CreateMergePatch``), including where it departs from the RFC:

  * a ``null`` patch, or a scalar patch, is rejected with 400 ``Invalid JSON Patch`` (the RFC would
    return the patch itself); an array patch replaces the document;
  * a patch value that lands where the document has no object (key missing, ``null``, or not an
    object) is inserted with its ``null`` object members pruned, recursively and also inside arrays;
    a non-object patch value that replaces an object is inserted verbatim.
- Errors map as in k8s.io/apiserver ``handlers/patch.go`` ``applyJSPatch``: ``ErrBadJSONPatch`` is a
  400 BadRequest; ``ErrBadJSONDoc`` is not a Status there, so it surfaces as a 500 with reason
  ``""`` (``StatusReasonUnknown``), as ``responsewriters.ErrorToAPIStatus`` renders it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.errors import BadRequest, InternalError, Status

__all__ = ["apply_merge_patch", "apply_merge_patch_shared", "create_merge_patch"]

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()


def _clone(value: Any) -> Any:
    """A deep copy of a JSON value (msgspec's C round trip beats a Python-level walk)."""
    if type(value) is dict or type(value) is list:
        return _DECODER.decode(_ENCODER.encode(value))
    return value


def _pruned(value: Any) -> Any:
    """A deep copy of ``value`` without ``null`` object members (evanphx ``pruneNulls``).

    ``null`` array elements are kept; objects nested inside arrays are pruned too.
    """
    if type(value) is dict:
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if type(value) is list:
        return [_pruned(v) for v in value]
    return value


def _merge_docs(doc: dict[str, Any], patch: dict[str, Any]) -> None:
    """Merge ``patch`` into ``doc`` in place; ``doc`` is a private copy, ``patch`` is only read."""
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
            continue
        current = doc.get(key)
        if type(current) is not dict:  # missing, null or not an object: nothing to merge into
            doc[key] = _pruned(value)
        elif type(value) is not dict:
            doc[key] = _clone(value)
        else:
            _merge_docs(current, value)


def _internal(message: str) -> InternalError:
    # A plain Go error reaching the handler: 500 with StatusReasonUnknown ("").
    return InternalError(Status(message=message, reason="", code=500))


def apply_merge_patch(original: Any, patch: Any) -> Any:
    """``original`` with the merge ``patch`` applied (evanphx ``MergePatch``).

    Raises 400 BadRequest ``Invalid JSON Patch`` for a ``null`` or scalar patch.
    """
    if type(patch) is list:
        return _pruned(patch)
    if type(patch) is not dict:
        raise BadRequest.make("Invalid JSON Patch")
    if original is None:
        raise _internal("Invalid JSON Document")
    if type(original) is not dict:
        return _pruned(patch)
    doc: dict[str, Any] = _clone(original)
    _merge_docs(doc, patch)
    return doc


def _merged_shared(doc: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
            continue
        current = out.get(key)
        if type(current) is not dict:
            out[key] = _pruned(value)
        elif type(value) is not dict:
            out[key] = _clone(value)
        else:
            out[key] = _merged_shared(current, value)
    return out


def apply_merge_patch_shared(original: Any, patch: Any) -> Any:
    """:func:`apply_merge_patch` without the deep copy: every dict on a patched path is new, but the
    subtrees the patch does not touch are ``original``'s own objects.

    For a caller that copies the result before anything mutates it (the apiserver's typed decode of a
    built-in kind builds fresh containers); same result and errors as :func:`apply_merge_patch`.
    """
    if type(patch) is list:
        return _pruned(patch)
    if type(patch) is not dict:
        raise BadRequest.make("Invalid JSON Patch")
    if original is None:
        raise _internal("Invalid JSON Document")
    if type(original) is not dict:
        return _pruned(patch)
    return _merged_shared(original, patch)


# --- creating a merge patch ---------------------------------------------------------------------------


def _kind(value: Any) -> type:
    """The Go type json.Unmarshal would give ``value``: every number is a float64."""
    t = type(value)
    return float if t is int else t


def _equal(a: Any, b: Any) -> bool:
    """evanphx ``matchesValue``: structural equality where true and 1 differ."""
    ta, tb = _kind(a), _kind(b)
    if ta is not tb:
        return False
    if ta is dict:
        return len(a) == len(b) and all(k in b and _equal(v, b[k]) for k, v in a.items())
    if ta is list:
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _diff(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    """evanphx ``getDiff``: the merge patch that turns ``original`` into ``modified``."""
    patch: dict[str, Any] = {}
    for key, new in modified.items():
        if key not in original:
            patch[key] = new
            continue
        old = original[key]
        if type(old) is dict and type(new) is dict:
            sub = _diff(old, new)
            if sub:
                patch[key] = sub
        elif not _equal(old, new):
            patch[key] = new
    for key in original:
        if key not in modified:
            patch[key] = None
    return patch


def create_merge_patch(original: Any, modified: Any) -> Any:
    """The merge patch turning ``original`` into ``modified`` (evanphx ``CreateMergePatch``).

    Both must be objects, or both arrays of objects of equal length (one patch per element).
    ``null`` values inside ``modified`` cannot be expressed by a merge patch: the result deletes
    those keys instead.
    """
    if type(original) is dict and type(modified) is dict:
        return _clone(_diff(original, modified))
    if type(original) is list and type(modified) is list:
        if len(original) != len(modified) or not all(
            type(a) is dict and type(b) is dict for a, b in zip(original, modified)
        ):
            raise _internal("Invalid JSON Document")
        return [_clone(_diff(a, b)) for a, b in zip(original, modified)]
    if type(original) is list or type(modified) is list:
        raise _internal("Mismatched JSON Documents")
    raise _internal("Invalid JSON Document")
