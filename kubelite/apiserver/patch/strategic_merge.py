"""Strategic merge patch: what ``kubectl patch`` (the default ``--type strategic``) and ``kubectl apply`` send.

Contract:
- :func:`apply_strategic_merge_patch` and :func:`create_two_way_merge_patch` never mutate their
  arguments: they work on private deep copies (upstream mutates both), and no dict or list of a
  result is shared with an input (:func:`apply_strategic_merge_patch_shared` shares the subtrees the
  patch does not reach).
- Semantics are those of k8s.io/apimachinery/pkg/util/strategicpatch ``patch.go``
  (``StrategicMergeMapPatch`` → ``mergeMap`` / ``mergeSlice``, ``CreateTwoWayMergeMapPatch`` →
  ``diffMaps`` / ``diffLists``), with the per-field metadata read from a :class:`Schema`:
  ``x-kubernetes-patch-strategy`` (``merge``, ``replace``, ``retainKeys``, or ``merge,retainKeys``)
  and ``x-kubernetes-patch-merge-key``. The module docstring of upstream's patch.go and
  https://git.k8s.io/community/contributors/devel/sig-api-machinery/strategic-merge-patch.md
  describe the format; in short:

  * objects merge recursively and ``null`` deletes a key; lists are replaced unless their strategy
    is ``merge``: lists of objects then merge element-wise by the merge key, lists of scalars are
    unioned;
  * directives: ``$patch: replace | delete`` in an object, ``$patch: delete | replace`` as a list
    element, ``$retainKeys``, ``$deleteFromPrimitiveList/<field>``, ``$setElementOrder/<field>``;
  * element order of a merged list: ``$setElementOrder`` wins, then the order of the patch, then the
    order of the live list. Without ``$setElementOrder`` a patch element that is new to the list
    lands *before* the live elements that follow it in no patch order (upstream's
    ``mergeSortedSlice`` places unknown items first), e.g. patching ``[a, b]`` with ``[c]`` gives
    ``[c, a, b]``.
- Where a field has no schema (not described, or under ``x-kubernetes-preserve-unknown-fields``)
  the patch falls back to JSON-merge-like semantics: objects merge, lists are replaced, and
  directives are still honoured. (Upstream's struct-driven lookup errors on undescribed fields that
  both sides hold as objects or lists; its OpenAPI lookup treats a missing schema the same way as
  here.)
- Errors map as in k8s.io/apiserver ``handlers/patch.go`` ``interpretStrategicMergePatchError``:
  malformed directives (``invalid patch format of ...``) are 400 BadRequest; lists of lists are
  422 Invalid with the generic message; every other strategicpatch error (unknown ``$patch``
  value, missing merge key, mixed element types, ``$setElementOrder`` mismatch) is a plain Go error
  there, which kube-apiserver answers with 500 and reason ``""``. Messages are upstream's, with Go's
  ``%v`` rendering of maps and lists.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.schema import Schema
from kubelite.errors import ApiError, BadRequest, InternalError, Invalid, Status, StatusDetails

__all__ = ["apply_strategic_merge_patch", "apply_strategic_merge_patch_shared", "create_two_way_merge_patch"]

_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_SET_ELEMENT_ORDER = "$setElementOrder"

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()


def _clone(value: Any) -> Any:
    """A deep copy of a JSON value (msgspec's C round trip beats a Python-level walk)."""
    return _DECODER.decode(_ENCODER.encode(value))


# --- errors ---------------------------------------------------------------------------------------------


class _PatchError(Exception):
    """A strategicpatch error, with the HTTP code ``interpretStrategicMergePatchError`` gives it."""

    def __init__(self, message: str, code: int = 500) -> None:
        super().__init__(message)
        self.code = code

    def api_error(self) -> ApiError:
        message = str(self)
        if self.code == 400:
            return BadRequest.make(message)
        if self.code == 422:
            # NewGenericServerResponse(422, ...): the detail is replaced by a generic message.
            generic = "the server rejected our request due to an error in our request"
            return Invalid(Status(message=generic, reason=Invalid.reason, code=422, details=StatusDetails()))
        # Not a Status upstream: ErrorToAPIStatus answers 500 with StatusReasonUnknown ("").
        return InternalError(Status(message=message, reason="", code=500))


# mergepatch/errors.go sentinels that patch.go maps to 400 / 422.
def _bad_primitive_list() -> _PatchError:
    return _PatchError("invalid patch format of primitive list", 400)


def _bad_retain_keys() -> _PatchError:
    return _PatchError("invalid patch format of retainKeys", 400)


def _bad_set_element_order() -> _PatchError:
    return _PatchError("invalid patch format of setElementOrder list", 400)


def _no_list_of_lists() -> _PatchError:
    return _PatchError("lists of lists are not supported", 422)


def _go_float(f: float) -> str:
    """Go's ``%v`` for a float64: shortest form, exponent below 1e-4 and from 1e21 on."""
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


def _go(v: Any) -> str:
    """Go's ``%v`` rendering of a decoded JSON value (maps print with sorted keys)."""
    t = type(v)
    if t is str:
        return v  # type: ignore[no-any-return]
    if v is None:
        return "<nil>"
    if t is bool:
        return "true" if v else "false"
    if t is float:
        return _go_float(v)
    if t is list:
        return "[" + " ".join(_go(x) for x in v) + "]"
    if t is dict:
        return "map[" + " ".join(f"{k}:{_go(x)}" for k, x in sorted(v.items())) + "]"
    return str(v)


def _go_type(v: Any) -> str:
    """``reflect.TypeOf(v)`` of a value decoded by apimachinery's json (integers are int64)."""
    t = type(v)
    if t is dict:
        return "map[string]interface {}"
    if t is list:
        return "[]interface {}"
    if t is str:
        return "string"
    if t is bool:
        return "bool"
    if t is int:
        return "int64"
    if t is float:
        return "float64"
    return "<nil>"


_MAP_TYPE = "map[string]interface {}"
_SLICE_TYPE = "[]interface {}"


def _bad_arg_type(expected: str, actual: Any) -> _PatchError:
    return _PatchError(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(m: dict[str, Any], key: str) -> _PatchError:
    return _PatchError(f"map: {_go(m)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, m: dict[str, Any]) -> _PatchError:
    if type(directive) is str:
        shown = directive
    elif directive is None or type(directive) in (dict, list):
        shown = "%!s(<nil>)" if directive is None else _go(directive)
    else:
        shown = f"%!s({_go_type(directive)}={_go(directive)})"
    return _PatchError(f"unknown patch type: {shown} in map: {_go(m)}")


# --- values ---------------------------------------------------------------------------------------------


def _kind(v: Any) -> type:
    """The kind Go's reflect sees; numbers form one kind (apimachinery's json keeps 1.0 as int64)."""
    t = type(v)
    return float if t is int else t


def _eq(a: Any, b: Any) -> bool:
    """Go's ``==`` / DeepEqual on decoded JSON: like Python's, except ``true`` is not ``1``."""
    ta, tb = type(a), type(b)
    if ta is dict:
        return tb is dict and len(a) == len(b) and all(k in b and _eq(v, b[k]) for k, v in a.items())
    if ta is list:
        return tb is list and len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if ta is bool or tb is bool:
        return a is b
    if tb is dict or tb is list:
        return False
    return bool(a == b)


def _hkey(v: Any) -> tuple[int, Any]:
    """A hashable identity for a list item, as a Go map keyed by ``interface{}`` would see it."""
    t = type(v)
    if t is dict or t is list:
        return (2, id(v))
    return (1 if t is bool else 0, v)


def _clean(v: Any, discard_nulls: bool) -> tuple[Any, bool]:
    """A copy of patch value ``v`` without directives (``removeDirectives``), optionally without
    ``null`` object members first (``discardNullValuesFromPatch``). The flag says whether to keep
    ``v`` at all: an object that carries ``$patch`` is dropped."""
    t = type(v)
    if t is dict:
        if discard_nulls:
            v = {k: x for k, x in v.items() if x is not None}
        if _DIRECTIVE in v:
            return None, False
        out = {}
        for k, x in v.items():
            cx, keep = _clean(x, discard_nulls)
            if keep:
                out[k] = cx
        return out, True
    if t is list:
        items = []
        for x in v:
            cx, keep = _clean(x, discard_nulls)
            if keep:
                items.append(cx)
        return items, True
    return v, True


def _slice_element_kind(*slices: list[Any]) -> type:
    """upstream ``sliceElementType``: every element of every slice has one kind, not a list."""
    kind: type | None = None
    for s in slices:
        for v in s:
            k = _kind(v)
            if kind is None:
                if k is list:
                    raise _no_list_of_lists()
                kind = k
            elif k is not kind:
                raise _PatchError(f"list element types are not identical: {_go(list(slices))}")
    if kind is None:
        raise _PatchError("no elements in any of the given slices")
    return kind


def _dedup_scalars(s: list[Any]) -> list[Any]:
    """upstream ``deduplicateScalars``, order quirks included: a duplicate is overwritten by the
    last element."""
    s = list(s)
    last = len(s) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if _eq(s[i], s[j]):
                s[j] = s[last]
                del s[last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _sort_scalars(s: list[Any]) -> list[Any]:
    """upstream ``sortScalars``: by the ``%v`` string."""
    return sorted(s, key=_go)


# --- schema lookup --------------------------------------------------------------------------------------


def _split_strategies(strategies: str) -> tuple[bool, str]:
    """upstream ``extractRetainKeysPatchStrategy``: (has retainKeys, the other strategy)."""
    parts = strategies.split(",")
    if len(parts) == 1:
        return (True, "") if parts[0] == "retainKeys" else (False, parts[0])
    if len(parts) == 2:
        if parts[0] == "retainKeys":
            return True, parts[1]
        if parts[1] == "retainKeys":
            return True, parts[0]
    raise _PatchError(f"unexpected patch strategy: [{' '.join(parts)}]")


_NO_META: tuple[Schema | None, str, str, bool] = (None, "", "", False)


def _lookup(schema: Schema | None, key: str, is_slice: bool) -> tuple[Schema | None, str, str, bool]:
    """``LookupPatchMetadataForStruct`` / ``ForSlice``: (field or item schema, merge key, strategy,
    retainKeys). A field the schema does not describe has no metadata."""
    if schema is None:
        return _NO_META
    field = schema.property(key)
    if field is None:
        field = schema.additional_properties  # map[string]T: every key shares T
        if field is None:
            return _NO_META
    raw = field.patch_strategy
    retain, strategy = _split_strategies(raw) if raw else (False, "")
    # A slice field without ``items`` keeps its own schema for the elements, as upstream's
    # PatchMetaFromOpenAPIV3 does (a pointer-to-struct field patched as a list).
    sub = (field.items or field) if is_slice else field
    return sub, field.patch_merge_key or "", strategy, retain


def _schema_name(schema: Schema | None) -> str:
    return (schema.type if schema is not None else None) or "Struct"


# --- list ordering (mergeSlice / $setElementOrder) ------------------------------------------------------


def _item_value(v: Any, merge_key: str, kind: type) -> Any:
    """upstream ``index``'s getValFn: the merge key value for maps, the item itself otherwise."""
    if kind is dict:
        return v.get(merge_key) if type(v) is dict else None
    return v


def _positions(order: list[Any], merge_key: str, kind: type) -> dict[tuple[int, Any], int]:
    """The first index of each item of ``order``, keyed like :func:`_item_value`."""
    pos: dict[tuple[int, Any], int] = {}
    for i, v in enumerate(order):
        pos.setdefault(_hkey(_item_value(v, merge_key, kind)), i)
    return pos


def _validate_merge_key_in_lists(merge_key: str, *lists: list[Any]) -> None:
    for lst in lists:
        for item in lst:
            if type(item) is not dict:
                raise _bad_arg_type(_MAP_TYPE, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _extract_to_delete_items(items: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for v in items:
        if type(v) is not dict:
            raise _bad_arg_type(_MAP_TYPE, v)
        (delete if v.get(_DIRECTIVE) == "delete" else keep).append(v)
    return keep, delete


def _normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str, kind: type) -> list[Any]:
    """upstream ``normalizeSliceOrder``: ``to_sort`` in the order of ``order``, deletions last.

    Upstream's comparator is not a strict order for items absent from ``order``; those only arise
    from malformed patches, and here they keep their relative order at the end.
    """
    to_delete: list[Any] = []
    if kind is dict:
        _validate_merge_key_in_lists(merge_key, to_sort, order)
        to_sort, to_delete = _extract_to_delete_items(to_sort)
    pos = _positions(order, merge_key, kind)
    end = len(order)
    ordered = sorted(to_sort, key=lambda v: pos.get(_hkey(_item_value(v, merge_key, kind)), end))
    return ordered + to_delete


def _merge_sorted_slice(
    left: list[Any], right: list[Any], server_order: list[Any], merge_key: str, kind: type
) -> list[Any]:
    """upstream ``mergeSortedSlice``: interleave server-only items (``left``) into the patch items
    (``right``), keeping both relative orders; a left item goes first only if both items are in the
    live list and it comes first there."""
    pos = _positions(server_order, merge_key, kind)
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = pos.get(_hkey(_item_value(left[i], merge_key, kind)))
            ri = pos.get(_hkey(_item_value(right[j], merge_key, kind)))
            if li is not None and ri is not None and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _normalize_element_order(
    patch_items: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: type,
) -> list[Any]:
    patch_items = _normalize_slice_order(patch_items, patch_order, merge_key, kind)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted_slice(server_only, patch_items, server_order, merge_key, kind)


def _find_by_key(items: list[Any], merge_key: str, value: Any) -> int:
    """upstream ``findMapInSliceBasedOnKeyValue``: the index of the first map whose key equals."""
    for i, v in enumerate(items):
        if type(v) is not dict:
            raise _PatchError(f"value for key {i} is not a map")
        if merge_key in v and _eq(v[merge_key], value):
            return i
    return -1


def _partition(merged: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """upstream ``partition{Primitives,Maps}ByPresentInList``: (items present in ``by``, the rest)."""
    present: list[Any] = []
    absent: list[Any] = []
    if not merge_key:
        keys = {_hkey(v) for v in by}
        for v in merged:
            (present if _hkey(v) in keys else absent).append(v)
        return present, absent
    for v in merged:
        if type(v) is not dict:
            raise _bad_arg_type(_MAP_TYPE, v)
        if merge_key not in v:
            raise _no_merge_key(v, merge_key)
        (present if _find_by_key(by, merge_key, v[merge_key]) >= 0 else absent).append(v)
    return present, absent


# --- applying a patch -----------------------------------------------------------------------------------


def _extract_key(key: str, prefix: str) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        raise _bad_primitive_list() if prefix == _DELETE_FROM_PRIMITIVE_LIST else _bad_set_element_order()
    return rest


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """upstream ``applyRetainKeysDirective``: drop the original's keys missing from ``$retainKeys``."""
    if _RETAIN_KEYS not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS)
    if type(retain) is not list:
        raise _bad_retain_keys()
    allowed = {k for k in retain if type(k) is str}
    for k, v in patch.items():
        if v is None or k.startswith((_DELETE_FROM_PRIMITIVE_LIST, _SET_ELEMENT_ORDER)):
            continue
        if k not in allowed:
            raise _bad_retain_keys()
    for k in [k for k in original if k not in allowed]:
        del original[k]


def _merge_key_value_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _eq(left, right)
    if type(left) is not dict:
        raise _bad_arg_type(_MAP_TYPE, left)
    if type(right) is not dict:
        raise _bad_arg_type(_MAP_TYPE, right)
    if merge_key not in left:
        raise _no_merge_key(left, merge_key)
    if merge_key not in right:
        raise _no_merge_key(right, merge_key)
    return _eq(left[merge_key], right[merge_key])


def _validate_patch_with_set_order_list(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch list's items, deletions aside, must appear in ``order`` and in the same order."""
    if not order or not patch_list:
        return
    items = _extract_to_delete_items(patch_list)[0] if merge_key else patch_list
    pi = si = 0
    while pi < len(items) and si < len(order):
        if type(items[pi]) is dict and _DIRECTIVE in items[pi]:
            pi += 1
            continue
        if _merge_key_value_equal(items[pi], order[si], merge_key):
            pi += 1
        si += 1
    if pi < len(items) and si >= len(order):
        raise _PatchError(
            f"The order in patch list:\n{_go(patch_list)}\n doesn't match {_SET_ELEMENT_ORDER} list:\n"
            f"{_go(order)}\n"
        )


def _aliased_server_order(original: list[Any], patch: list[Any], merge_key: str) -> list[Any]:
    """The live order ``mergePatchIntoOriginal`` really sorts server-only items by.

    Upstream's ``mergeSlice`` edits the live list's Go backing array in place, and
    ``mergePatchIntoOriginal`` then reads that array through the old slice header: each
    ``$patch: delete`` element shifts the later items left, and the patch's new items are appended
    into the freed tail slots. Upstream's expected results depend on this, so it is replayed here
    for lists of maps (the only kind whose merge writes into the live array).
    """
    if not merge_key or not all(type(v) is dict for v in original):
        return original
    backing = list(original)
    size = len(backing)
    live = size
    items = [v for v in patch if type(v) is dict]
    for item in items:
        if item.get(_DIRECTIVE) != "delete" or merge_key not in item:
            continue
        target = item[merge_key]
        k = 0
        while k < live:
            if merge_key in backing[k] and _eq(backing[k][merge_key], target):
                backing[k : live - 1] = backing[k + 1 : live]  # the slot at live-1 keeps a stale copy
                live -= 1
            else:
                k += 1
    if any(item.get(_DIRECTIVE) == "replace" for item in items):
        return backing  # the merge continues on a fresh array
    grown = backing[:live]
    for item in items:
        if _DIRECTIVE in item or merge_key not in item:
            continue
        if not any(merge_key in v and _eq(v[merge_key], item[merge_key]) for v in grown):
            if len(grown) < size:
                backing[len(grown)] = item
            grown.append(item)
    return backing


def _merge_set_element_order(original: dict[str, Any], patch: dict[str, Any], schema: Schema | None) -> None:
    """upstream ``mergePatchIntoOriginal``: merge each list named by a ``$setElementOrder/<field>``
    directive, then order it: the directive's order, then the patch's, then the live list's."""
    for key in [k for k in patch if k.startswith(_SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if type(order) is not list:
            raise _bad_arg_type(_SLICE_TYPE, order)
        field = _extract_key(key, _SET_ELEMENT_ORDER)
        original_list: list[Any] = []
        patch_list: list[Any] = []
        found_original, found_patch = field in original, field in patch
        if found_original:
            original_list = original[field]
            if type(original_list) is not list:
                raise _bad_arg_type(_SLICE_TYPE, original_list)
        if found_patch:
            patch_list = patch[field]
            if type(patch_list) is not list:
                raise _bad_arg_type(_SLICE_TYPE, patch_list)
        item_schema, merge_key, strategy, _ = _lookup(schema, field, True)
        _validate_patch_with_set_order_list(patch_list, order, merge_key)
        server_order = original_list
        if found_original and found_patch:
            if strategy == "merge":
                server_order = _aliased_server_order(original_list, patch_list, merge_key)
            merged = _merge_slice_handler(original_list, patch_list, item_schema, strategy, merge_key, False)
        elif found_original:
            merged = original_list
        elif found_patch:
            merged = _clean(patch_list, False)[0]
        else:
            continue
        patch_items, server_only = _partition(merged, order, merge_key)
        kind = _slice_element_kind(original_list, patch_list)
        original[field] = _normalize_element_order(
            patch_items, server_only, order, server_order, merge_key, kind
        )
        patch.pop(field, None)


def _merge_map(original: dict[str, Any], patch: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """upstream ``mergeMap`` (server side: parallel lists merged, unmatched nulls ignored).

    ``original`` and ``patch`` are private copies: both may be consumed, and the result is built
    from their nodes.
    """
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            # The patch replaces the whole map, as is (nested directives and nulls included).
            del patch[_DIRECTIVE]
            return patch
        if directive == "delete":
            return {}
        raise _bad_patch_type(directive, patch)

    _apply_retain_keys(original, patch)
    _merge_set_element_order(original, patch, schema)

    for key, value in patch.items():
        is_delete_list = key.startswith(_DELETE_FROM_PRIMITIVE_LIST)
        if is_delete_list:
            key = _extract_key(key, _DELETE_FROM_PRIMITIVE_LIST)
        if value is None:
            original.pop(key, None)
            continue
        current = original.get(key, _ABSENT)
        if current is _ABSENT or _kind(current) is not _kind(value):
            # New key or a change of type: take the patch value (unless it only lists deletions).
            if not is_delete_list:
                cleaned, keep = _clean(value, True)
                if keep:
                    original[key] = cleaned
                else:
                    original.pop(key, None)
            continue
        if type(value) is dict:
            sub, _, strategy, _ = _lookup(schema, key, False)
            original[key] = value if strategy == "replace" else _merge_map(current, value, sub)
        elif type(value) is list:
            sub, merge_key, strategy, _ = _lookup(schema, key, True)
            original[key] = _merge_slice_handler(current, value, sub, strategy, merge_key, is_delete_list)
        else:
            original[key] = value
    return original


_ABSENT: Any = object()


def _merge_slice_handler(
    original: list[Any],
    patch: list[Any],
    schema: Schema | None,
    strategy: str,
    merge_key: str,
    is_delete_list: bool,
) -> list[Any]:
    # Deletion lists apply whatever the field's strategy; other non-merge lists are replaced.
    if strategy == "merge" or is_delete_list:
        return _merge_slice(original, patch, schema, merge_key, is_delete_list)
    return patch


def _merge_slice(
    original: list[Any], patch: list[Any], schema: Schema | None, merge_key: str, is_delete_list: bool
) -> list[Any]:
    """upstream ``mergeSlice``: union scalars / merge maps by key, then restore the element order."""
    if not original and not patch:
        return original
    kind = _slice_element_kind(original, patch)
    if kind is not dict:
        if is_delete_list:
            doomed = {_hkey(v) for v in patch}
            return [v for v in original if _hkey(v) not in doomed]
        merged = _dedup_scalars(original + patch)
    else:
        if not merge_key:
            raise _PatchError(f"cannot merge lists without merge key for {_schema_name(schema)}")
        original, patch = _merge_special_elements(original, patch, merge_key)
        merged = list(original)
        for item in patch:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            idx = _find_by_key(merged, merge_key, item[merge_key])
            if idx >= 0:
                merged[idx] = _merge_map(merged[idx], item, schema)
            else:
                merged.append(item)
    patch_items, server_only = _partition(merged, patch, merge_key)
    return _normalize_element_order(patch_items, server_only, patch, original, merge_key, kind)


def _merge_special_elements(
    original: list[Any], patch: list[Any], merge_key: str
) -> tuple[list[Any], list[Any]]:
    """upstream ``mergeSliceWithSpecialElements``: apply ``$patch`` list elements; returns the new
    original and the patch without them (``$patch: replace`` makes the rest the whole list)."""
    rest: list[Any] = []
    replace = False
    for item in patch:
        if _DIRECTIVE not in item:
            rest.append(item)
            continue
        directive = item[_DIRECTIVE]
        if directive == "delete":
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            value = item[merge_key]
            original = [v for v in original if not (merge_key in v and _eq(v[merge_key], value))]
        elif directive == "replace":
            replace = True  # keep scanning: other directive elements are still dropped
        elif directive == "merge":
            raise _PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    if replace:
        return rest, []
    return original, rest


def apply_strategic_merge_patch(original: dict[str, Any], patch: Any, schema: Schema | None) -> dict[str, Any]:
    """A new object: ``original`` with the strategic merge ``patch`` applied (``StrategicMergeMapPatch``).

    ``schema`` describes ``original`` (e.g. ``builtin_schemas().get("io.k8s.api.core.v1.Pod")``);
    ``None`` means no field has patch metadata. A ``null`` patch changes nothing; a patch that is not
    an object is a 400, as when kube-apiserver fails to decode it.
    """
    if patch is None:
        patch = {}
    elif type(patch) is not dict:
        kind = "array" if type(patch) is list else "string" if type(patch) is str else (
            "bool" if type(patch) is bool else "number"
        )
        raise BadRequest.make(f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}")
    try:
        return _merge_map(_clone(original) if original is not None else {}, _clone(patch), schema)
    except _PatchError as e:
        raise e.api_error() from e



def _copy_patched(original: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``original`` in which every container the merge of ``patch`` can write to is private
    (the maps on the patch's paths, copied one level each; the lists it names, deep), while the subtrees
    the patch does not reach stay ``original``'s own objects."""
    out = dict(original)
    for key, value in patch.items():
        if key.startswith((_SET_ELEMENT_ORDER, _DELETE_FROM_PRIMITIVE_LIST)):
            key = key.partition("/")[2]
            value = None
        current = out.get(key)
        if type(current) is dict and type(value) is dict:
            out[key] = _copy_patched(current, value)
        elif type(current) in (dict, list):
            out[key] = _clone(current)
    return out


def apply_strategic_merge_patch_shared(
    original: dict[str, Any], patch: Any, schema: Schema | None,
) -> dict[str, Any]:
    """:func:`apply_strategic_merge_patch` without the deep copy of ``original``: the subtrees the patch
    does not reach are ``original``'s own objects in the result (for a caller that never mutates them in
    place, the apiserver's patch handler); same result and errors."""
    if type(patch) is not dict or original is None:
        return apply_strategic_merge_patch(original, patch, schema)
    private = _clone(patch)
    try:
        return _merge_map(_copy_patched(original, private), private, schema)
    except _PatchError as e:
        raise e.api_error() from e

# --- creating a two-way patch ---------------------------------------------------------------------------


def _diff_maps(
    original: dict[str, Any], modified: dict[str, Any], schema: Schema | None, build_retain_keys: bool
) -> dict[str, Any]:
    """upstream ``diffMaps`` (two-way: changes, additions and deletions, with ``$setElementOrder``).

    The result shares subtrees with ``modified``; the public function copies it.
    """
    patch: dict[str, Any] = {}
    retain: list[str] = []
    for key, new in modified.items():
        if build_retain_keys and new is not None:
            retain.append(key)
        if key not in original:
            patch[key] = new
            continue
        old = original[key]
        if key == _DIRECTIVE:
            if type(old) is not str or type(new) is not str:
                raise _PatchError(f"invalid value for special key: {_DIRECTIVE}")
            if old != new:
                patch[key] = new
            continue
        if _kind(old) is not _kind(new):
            patch[key] = new
        elif type(old) is dict:
            sub, _, strategy, retain_keys = _lookup(schema, key, False)
            if strategy == "replace":
                patch[key] = new
            else:
                sub_patch = _diff_maps(old, new, sub, retain_keys)
                if sub_patch:
                    patch[key] = sub_patch
        elif type(old) is list:
            _diff_slice_field(key, old, new, patch, schema)
        elif not _eq(old, new):
            patch[key] = new
    for key in original:
        if key not in modified:
            patch[key] = None
    # $retainKeys goes out when something changed or the original holds fields to clear.
    if retain and (patch or any(v is not None and k not in modified for k, v in original.items())):
        patch[_RETAIN_KEYS] = _sort_scalars(retain)
    return patch


def _diff_slice_field(
    key: str, old: list[Any], new: list[Any], patch: dict[str, Any], schema: Schema | None
) -> None:
    """upstream ``handleSliceDiff``: merge lists get a patch list plus parallel directive lists."""
    item_schema, merge_key, strategy, retain_keys = _lookup(schema, key, True)
    if strategy != "merge":
        if not _eq(old, new):
            patch[key] = new
        return
    additions, deletions, order = _diff_lists(old, new, item_schema, merge_key, retain_keys)
    if additions:
        patch[key] = additions
    if deletions:
        patch[f"{_DELETE_FROM_PRIMITIVE_LIST}/{key}"] = deletions
    if order:
        patch[f"{_SET_ELEMENT_ORDER}/{key}"] = order


def _diff_lists(
    original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str, build_retain_keys: bool
) -> tuple[list[Any], list[Any], list[Any]]:
    """upstream ``diffLists``: (patch list, ``$deleteFromPrimitiveList``, ``$setElementOrder``)."""
    if not original:
        return list(modified), [], []
    kind = _slice_element_kind(original, modified)
    if kind is dict:
        patch_list, deletions = _diff_lists_of_maps(original, modified, schema, merge_key, build_retain_keys)
        patch_list = _normalize_slice_order(patch_list, modified, merge_key, kind) + deletions
        order_same = len(original) == len(modified) and all(
            _merge_key_value_equal(a, b, merge_key) for a, b in zip(original, modified)
        )
        order = [{merge_key: m[merge_key]} for m in modified] if patch_list or not order_same else []
        return patch_list, [], order
    if kind is list:
        raise _no_list_of_lists()
    additions, deletions = _diff_lists_of_scalars(original, modified)
    additions = _normalize_slice_order(additions, modified, merge_key, kind)
    order = list(modified) if deletions or not _eq(original, modified) else []
    return additions, deletions, order


def _diff_lists_of_scalars(original: list[Any], modified: list[Any]) -> tuple[list[Any], list[Any]]:
    """Walk both lists sorted by ``%v`` string: (additions, deduplicated deletions)."""
    old = sorted(original, key=_go)
    new = sorted(modified, key=_go)
    additions: list[Any] = []
    deletions: list[Any] = []
    i = j = 0
    while i < len(old) or j < len(new):
        old_s = _go(old[i]) if i < len(old) else None
        new_s = _go(new[j]) if j < len(new) else None
        if old_s is not None and new_s is not None and old_s == new_s:
            i += 1
            j += 1
        elif old_s is None or (new_s is not None and old_s > new_s):
            additions.append(new[j])
            j += 1
        else:
            deletions.append(old[i])
            i += 1
    return additions, _dedup_scalars(deletions)


def _map_and_key(items: list[Any], i: int, merge_key: str) -> tuple[dict[str, Any], Any]:
    m = items[i]
    if type(m) is not dict:
        raise _bad_arg_type(_MAP_TYPE, m)
    if merge_key not in m:
        raise _no_merge_key(m, merge_key)
    return m, m[merge_key]


def _diff_lists_of_maps(
    original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str, build_retain_keys: bool
) -> tuple[list[Any], list[Any]]:
    """upstream ``diffListsOfMaps``: walk both lists sorted by merge key; changed elements become
    partial maps carrying the merge key, removed ones ``$patch: delete`` elements."""
    def by_key(m: Any) -> str:
        return _go(m.get(merge_key)) if type(m) is dict else ""

    old = sorted(original, key=by_key)
    new = sorted(modified, key=by_key)
    patch: list[Any] = []
    deletions: list[Any] = []
    i = j = 0
    while i < len(old) or j < len(new):
        old_m = new_m = None
        old_s = new_s = ""
        if i < len(old):
            old_m, old_key = _map_and_key(old, i, merge_key)
            old_s = _go(old_key)
        if j < len(new):
            new_m, new_key = _map_and_key(new, j, merge_key)
            new_s = _go(new_key)
        if old_m is not None and new_m is not None and old_s == new_s:
            element_patch = _diff_maps(old_m, new_m, schema, build_retain_keys)
            if element_patch:
                element_patch[merge_key] = new_key
                patch.append(element_patch)
            i += 1
            j += 1
        elif old_m is None or (new_m is not None and old_s > new_s):
            patch.append(new_m)
            j += 1
        else:
            deletions.append({merge_key: old_key, _DIRECTIVE: "delete"})
            i += 1
    return patch, deletions


def create_two_way_merge_patch(
    original: dict[str, Any], modified: dict[str, Any], schema: Schema | None
) -> dict[str, Any]:
    """The strategic merge patch that turns ``original`` into ``modified``, as kubectl computes it
    (``CreateTwoWayMergeMapPatch``: ``$setElementOrder`` lists included, no preconditions).

    ``null`` values in ``modified`` are sent as deletions, so they are not reproduced by applying
    the patch.
    """
    try:
        return _clone(_diff_maps(original or {}, modified or {}, schema, False))  # type: ignore[no-any-return]
    except _PatchError as e:
        raise e.api_error() from e
