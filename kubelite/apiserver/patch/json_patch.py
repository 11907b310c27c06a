"""JSON patch (RFC 6902): what ``kubectl patch --type json`` sends.

Contract:
- :func:`apply_json_patch` never mutates the document or the operations; it works on a private deep
  copy, and values taken from operations are copied before they are inserted.
- The operations are applied in order; the first failing one aborts the whole patch.
- Behaviour and wording follow the library kube-apiserver uses, gopkg.in/evanphx/json-patch.v4
  ``patch.go`` (``DecodePatch`` / ``Patch.Apply``), including its departures from the RFC: negative
  array indices count from the end, ``replace`` of a missing object member adds it, ``add`` or
  ``copy`` of an absent value inserts ``null``, ``add`` at the root path is an error, and ``test``
  compares ``null`` with a missing member as equal. (``test`` compares numbers by value, as the RFC
  says; evanphx compares their raw bytes, which decoded values no longer carry.)
- Status codes follow k8s.io/apiserver ``handlers/patch.go`` ``applyJSPatch``:
  a body that does not decode as a list of objects is a 400 BadRequest carrying the decoder's
  message; more than 10000 operations is a 413; any failure while applying is a 422 Invalid whose
  message is the generic ``the server rejected our request due to an error in our request``
  (``NewGenericServerResponse`` drops the detail). The evanphx detail is kept as the exception's
  ``__cause__`` for logs and tests.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.errors import ApiError, BadRequest, Invalid, Status, StatusDetails

__all__ = ["MAX_JSON_PATCH_OPERATIONS", "JsonPatchError", "apply_json_patch"]

# handlers/patch.go maxJSONPatchOperations
MAX_JSON_PATCH_OPERATIONS = 10000

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()

_MISSING = "missing value"  # evanphx ErrMissing
_INVALID_INDEX = "invalid index referenced"  # evanphx ErrInvalidIndex
_INT64_MAX = 2**63 - 1


class JsonPatchError(Exception):
    """evanphx's error text for a failed operation (the ``__cause__`` of the 422)."""


def _clone(value: Any) -> Any:
    if type(value) is dict or type(value) is list:
        return _DECODER.decode(_ENCODER.encode(value))
    return value


def _json_kind(value: Any) -> str:
    """How encoding/json names a value's kind in an UnmarshalTypeError."""
    if type(value) is dict:
        return "object"
    if type(value) is list:
        return "array"
    if type(value) is str:
        return "string"
    if type(value) is bool:
        return "bool"
    return "number"


def _decode_pointer_token(token: str) -> str:
    # RFC 6901 section 4: "~1" first, then "~0", so "~01" decodes to "~1".
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def _atoi(key: str) -> int:
    """Go's strconv.Atoi: optional sign, ASCII digits only."""
    digits = key[1:] if key[:1] in ("+", "-") else key
    if not digits or not digits.isascii() or not digits.isdigit():
        raise JsonPatchError(f'strconv.Atoi: parsing "{key}": invalid syntax')
    value = int(key)
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise JsonPatchError(f'strconv.Atoi: parsing "{key}": value out of range')
    return value


def _invalid_index(idx: int) -> JsonPatchError:
    return JsonPatchError(f"Unable to access invalid index: {idx}: {_INVALID_INDEX}")


# --- containers: evanphx partialDoc / partialArray get, set, add, remove ------------------------------


def _get(con: dict[str, Any] | list[Any], key: str) -> Any:
    if isinstance(con, dict):
        return con.get(key)
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    if idx >= len(con):
        raise _invalid_index(idx)
    return con[idx]


def _set(con: dict[str, Any] | list[Any], key: str, value: Any) -> None:
    if isinstance(con, dict):
        con[key] = value
        return
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    con[idx] = value


def _add(con: dict[str, Any] | list[Any], key: str, value: Any) -> None:
    if isinstance(con, dict):
        con[key] = value
        return
    if key == "-":
        con.append(value)
        return
    try:
        idx = _atoi(key)
    except JsonPatchError as e:
        raise JsonPatchError(f"value was not a proper array index: '{key}': {e}") from None
    size = len(con) + 1
    if idx >= size:
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -size:
            raise _invalid_index(idx)
        idx += size
    con.insert(idx, value)


def _remove(con: dict[str, Any] | list[Any], key: str) -> None:
    if isinstance(con, dict):
        if key not in con:
            raise JsonPatchError(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del con[key]
        return
    idx = _atoi(key)
    if idx >= len(con):
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    del con[idx]


def _find(doc: Any, path: str) -> tuple[dict[str, Any] | list[Any], str] | None:
    """evanphx ``findObject``: the container that holds ``path``'s last token, and that token."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    con = doc
    for part in parts[1:-1]:
        try:
            con = _get(con, _decode_pointer_token(part))
        except JsonPatchError:
            return None
        if type(con) is not dict and type(con) is not list:
            return None
    return con, _decode_pointer_token(parts[-1])


# --- operations -----------------------------------------------------------------------------------------


def _string_field(op: dict[str, Any], name: str, missing: str) -> str:
    """evanphx ``Operation.Path`` / ``From``."""
    value = op.get(name)
    if value is None:
        raise JsonPatchError(missing)
    if type(value) is not str:
        raise JsonPatchError(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string")
    return value


def _path(op: dict[str, Any]) -> str:
    return _string_field(op, "path", f"operation missing path field: {_MISSING}")


def _from(op: dict[str, Any]) -> str:
    return _string_field(op, "from", f"operation, missing from field: {_MISSING}")


def _equal(a: Any, b: Any) -> bool:
    """Structural equality where ``true`` and ``1`` differ (Python's ``==`` would equate them)."""
    if type(a) is dict:
        return type(b) is dict and len(a) == len(b) and all(k in b and _equal(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return type(b) is list and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if type(a) is bool or type(b) is bool:
        return a is b
    if type(b) is dict or type(b) is list:
        return False
    return bool(a == b)


def _op_add(doc: Any, op: dict[str, Any]) -> Any:
    try:
        path = _path(op)
    except JsonPatchError:
        raise JsonPatchError(f"add operation failed to decode path: {_MISSING}") from None
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(f'add operation does not apply: doc is missing path: "{path}": {_MISSING}')
    try:
        _add(*found, _clone(op.get("value")))
    except JsonPatchError as e:
        raise JsonPatchError(f"error in add for path: '{path}': {e}") from None
    return doc


def _op_remove(doc: Any, op: dict[str, Any]) -> Any:
    try:
        path = _path(op)
    except JsonPatchError:
        raise JsonPatchError(f"remove operation failed to decode path: {_MISSING}") from None
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(f'remove operation does not apply: doc is missing path: "{path}": {_MISSING}')
    try:
        _remove(*found)
    except JsonPatchError as e:
        raise JsonPatchError(f"error in remove for path: '{path}': {e}") from None
    return doc


def _op_replace(doc: Any, op: dict[str, Any]) -> Any:
    try:
        path = _path(op)
    except JsonPatchError as e:
        raise JsonPatchError(f"replace operation failed to decode path: {e}") from None
    if path == "":
        value = op.get("value")
        if type(value) is not dict and type(value) is not list:
            # Go formats the nil error it wraps with %w as "%!w(<nil>)".
            raise JsonPatchError("replace operation value must be object or array: %!w(<nil>)")
        return _clone(value)
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")
    con, key = found
    try:
        _get(con, key)
    except JsonPatchError:
        raise JsonPatchError(
            f"replace operation does not apply: doc is missing key: {path}: {_MISSING}"
        ) from None
    try:
        _set(con, key, _clone(op.get("value")))
    except JsonPatchError as e:
        # sic: upstream says "remove" here.
        raise JsonPatchError(f"error in remove for path: '{path}': {e}") from None
    return doc


def _op_move(doc: Any, op: dict[str, Any]) -> Any:
    try:
        source = _from(op)
    except JsonPatchError as e:
        raise JsonPatchError(f"move operation failed to decode from: {e}") from None
    found = _find(doc, source)
    if found is None:
        raise JsonPatchError(f"move operation does not apply: doc is missing from path: {source}: {_MISSING}")
    con, key = found
    try:
        value = _get(con, key)
        _remove(con, key)
    except JsonPatchError as e:
        raise JsonPatchError(f"error in move for path: '{key}': {e}") from None
    try:
        path = _path(op)
    except JsonPatchError as e:
        raise JsonPatchError(f"move operation failed to decode path: {e}") from None
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(
            f"move operation does not apply: doc is missing destination path: {path}: {_MISSING}"
        )
    try:
        _add(*found, value)
    except JsonPatchError as e:
        raise JsonPatchError(f"error in move for path: '{path}': {e}") from None
    return doc


def _op_test(doc: Any, op: dict[str, Any]) -> Any:
    try:
        path = _path(op)
    except JsonPatchError as e:
        raise JsonPatchError(f"test operation failed to decode path: {e}") from None
    expected = op.get("value")
    failed = JsonPatchError(f"testing value {path} failed: test failed")
    if path == "":
        if _equal(doc, expected):
            return doc
        raise failed
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(f"test operation does not apply: is missing path: {path}: {_MISSING}")
    try:
        actual = _get(*found)
    except JsonPatchError as e:
        raise JsonPatchError(f"error in test for path: '{path}': {e}") from None
    if actual is None:
        # A missing member and a JSON null are the same nil node to evanphx.
        if expected is None:
            return doc
        raise failed
    if expected is None or not _equal(actual, expected):
        raise failed
    return doc


def _op_copy(doc: Any, op: dict[str, Any]) -> Any:
    try:
        source = _from(op)
    except JsonPatchError as e:
        raise JsonPatchError(f"copy operation failed to decode from: {e}") from None
    found = _find(doc, source)
    if found is None:
        raise JsonPatchError(f"copy operation does not apply: doc is missing from path: {source}: {_MISSING}")
    try:
        value = _get(*found)
    except JsonPatchError as e:
        raise JsonPatchError(f"error in copy for from: '{source}': {e}") from None
    try:
        path = _path(op)
    except JsonPatchError:
        raise JsonPatchError(f"copy operation failed to decode path: {_MISSING}") from None
    found = _find(doc, path)
    if found is None:
        raise JsonPatchError(
            f"copy operation does not apply: doc is missing destination path: {path}: {_MISSING}"
        )
    try:
        _add(*found, _clone(value))
    except JsonPatchError as e:
        raise JsonPatchError(f"error while adding value during copy: {e}") from None
    return doc


_OPERATIONS = {
    "add": _op_add,
    "remove": _op_remove,
    "replace": _op_replace,
    "move": _op_move,
    "test": _op_test,
    "copy": _op_copy,
}


def _decode_patch(operations: Any) -> list[dict[str, Any] | None]:
    """evanphx ``DecodePatch`` on an already-decoded body: a list of objects (``null`` is empty)."""
    if operations is None:
        return []
    if type(operations) is not list:
        raise BadRequest.make(
            f"json: cannot unmarshal {_json_kind(operations)} into Go value of type jsonpatch.Patch"
        )
    for op in operations:
        if op is not None and type(op) is not dict:
            raise BadRequest.make(
                f"json: cannot unmarshal {_json_kind(op)} into Go value of type jsonpatch.Operation"
            )
    return operations


def _unprocessable() -> ApiError:
    """``NewGenericServerResponse(422, "", GroupResource{}, "", msg, 0, false)``: the detail is dropped."""
    return Invalid(
        Status(
            message="the server rejected our request due to an error in our request",
            reason=Invalid.reason,
            code=Invalid.code,
            details=StatusDetails(),
        )
    )


def apply_json_patch(original: Any, operations: Any) -> Any:
    """A new document: ``original`` (an object or an array) with ``operations`` applied in order.

    ``operations`` is the decoded request body. Raises BadRequest (400) when it is not a list of
    objects, ApiError 413 when it holds more than :data:`MAX_JSON_PATCH_OPERATIONS`, and Invalid
    (422) when an operation fails.
    """
    ops = _decode_patch(operations)
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        message = (
            f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}"
        )
        raise ApiError(
            Status(message=f"Request entity too large: {message}", reason="RequestEntityTooLarge", code=413)
        )
    if type(original) is not dict and type(original) is not list:
        raise _unprocessable() from JsonPatchError(
            f"json: cannot unmarshal {_json_kind(original)} into Go value of type jsonpatch.partialDoc"
        )
    doc = _clone(original)
    for op in ops:
        kind = op.get("op") if op is not None else None
        if type(kind) is not str:
            kind = "unknown"
        apply = _OPERATIONS.get(kind)
        try:
            if apply is None:
                raise JsonPatchError(f"Unexpected kind: {kind}")
            doc = apply(doc, op)  # type: ignore[arg-type]
        except JsonPatchError as e:
            raise _unprocessable() from e
    return doc
