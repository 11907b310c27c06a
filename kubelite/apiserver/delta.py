"""The update path in proportion to the change: a ``/status`` write decodes what it changed.

A ``/status`` patch of a built-in kind is applied to the stored object, and everything the status
strategy takes from the request is then decoded (types, unknown fields, Quantity canonicalisation):
upstream decodes the whole patched object into Go structs, and so did kubelite, although the status
strategy (``prepare_status_update``, upstream's ``<kind>StatusStrategy.PrepareForUpdate``) then throws
away every part but ``status`` and a few metadata fields and takes them from the stored object. A node
or pod heartbeat paid for decoding the pod's whole spec. :func:`decode_changed` decodes only what the
strategy keeps and the patch changed, and the patch handler shares the rest with the stored object.

Guarantees:
- :func:`decode_changed` returns what ``Decoder.decode`` returns for the whole object, as far as the
  status strategy keeps it (so the stored bytes, managedFields and resourceVersion included, are the
  same), or None when it cannot tell, and the caller decodes the whole object, with its errors and
  warnings, as before. ``tests/apiserver/test_delta.py`` drives seeded random writes through both and
  compares responses, warnings, errors and the stored bytes.
- It relies on the live object being the stored one, decoded from its bytes for this request (a private
  copy), and on the patch sharing, not copying, what it left alone (``apply_merge_patch_shared``,
  ``apply_strategic_merge_patch_shared``).
- Only the ``/status`` endpoint takes it: a write to the main resource keeps the spec it decodes, and a
  stored spec is not always what the typed decode would give again (admission and defaulting insert
  maps in their own key order, e.g. TaintNodesByCondition's taint), so its decode is not skipped.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.omitempty import omit_empty, omit_empty_message
from kubelite.api.quantity_fields import QuantityError, canonicalize_quantities
from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import builtin_schemas

__all__ = ["decode_changed"]

_ABSENT: Any = object()
# kinds whose built-in schema holds fields of any shape: always decoded whole (pipeline._OPEN_KINDS)
_OPEN_KINDS = {("apiextensions.k8s.io", "customresourcedefinitions"), ("apps", "controllerrevisions")}


def _fast_kind(info: ResourceInfo) -> bool:
    return info.builtin and not info.storage_version and (info.group, info.plural) not in _OPEN_KINDS


_FIELDS: dict[type, tuple[tuple[str, ...], type | None]] = {}


def _fields(struct: type) -> tuple[tuple[str, ...], type | None]:
    """``struct``'s JSON field names in encoding order, and the Struct type of its ``metadata``."""
    hit = _FIELDS.get(struct)
    if hit is None:
        meta: type | None = None
        for f in msgspec.structs.fields(struct):
            if f.encode_name == "metadata" and isinstance(f.type, type) and issubclass(f.type, msgspec.Struct):
                meta = f.type
        hit = _FIELDS[struct] = (struct.__struct_encode_fields__, meta)  # type: ignore[attr-defined]
    return hit


def _round_trip(struct: type, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``to_builtins(convert(new, struct))``, except that every value of ``new`` that is ``old``'s own
    object is kept as it is; the rest is converted in one call; keys in the Struct's order."""
    fields, _ = _fields(struct)
    partial: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    for k, v in new.items():
        if old.get(k, _ABSENT) is v:
            kept[k] = v
        else:
            partial[k] = v
    decoded = msgspec.to_builtins(msgspec.convert(partial, struct)) if partial else {}
    return {f: kept[f] if f in kept else decoded[f] for f in fields if f in kept or f in decoded}


def _normalize_changed(info: ResourceInfo, changed: dict[str, Any], live: dict[str, Any]) -> None:
    """Go's omitempty, then Quantity canonicalisation, in place, on ``changed`` (top-level fields of the
    decoded object that are not live's own), entering only what differs from live: within a changed
    object-valued field (``status``), a key whose value equals live's is left alone, because live is
    stored (it has no zero Go omits, and its quantities are canonical), so an equal value has neither
    and both steps would leave it as it is. A node's status patch of its conditions thus walks the
    conditions, not the capacity, images and addresses it carries along."""
    narrowed: dict[str, Any] = {}
    parts: list[tuple[dict[str, Any], dict[str, Any], list[str]]] = []
    for k, v in changed.items():
        lv = live.get(k)
        if type(v) is dict and type(lv) is dict:
            part = {f: x for f, x in v.items() if f not in lv or lv[f] != x}  # (compared in C)
            parts.append((v, part, list(part)))
            narrowed[k] = part
        else:
            narrowed[k] = v
    omit_empty(narrowed, info.api_version, info.kind)
    schema = builtin_schemas().get(info.schema_ref) if info.schema_ref else None
    if schema is not None:
        canonicalize_quantities(narrowed, schema)
    for whole, part, keys in parts:
        for f in keys:
            if f in part:
                whole[f] = part[f]  # (canonicalised, or the same object)
            else:
                del whole[f]  # dropped by omitempty
    for k in list(changed):
        if k not in narrowed:
            del changed[k]  # a top-level zero omitempty dropped
        elif type(changed[k]) is not dict:
            changed[k] = narrowed[k]  # a top-level value canonicalised


def decode_changed(info: ResourceInfo, obj: Any, live: dict[str, Any], subresource: str) -> dict[str, Any] | None:
    """What ``Decoder.decode(info, obj, ...)`` gives a ``/status`` write, as far as the status strategy
    keeps it, for ``obj`` made from ``live`` by a patch that shares what it left alone; None when that
    cannot be done here (another endpoint, a custom resource, a non-storage version, an open-ended
    kind, no live object, apiVersion or kind changed, or a part that does not convert cleanly: unknown
    fields, wrong types, bad quantities), and the caller decodes the whole object, with its errors and
    warnings, as before.

    Exact because of what the status strategies keep (``Strategy.prepare_status_update``): every
    top-level field but ``metadata`` and ``status`` is replaced by the stored one, so it is passed on
    unconverted; ``status`` is converted whole when the patch changed it; ``metadata`` is rebuilt in
    ObjectMeta's order with only its changed fields converted, because what it shares with live is
    either taken from live again by the strategy (labels, ownerReferences, system fields), handed
    over by the patch handler (managedFields), or a map or list of strings that converts to itself
    (annotations, finalizers)."""
    if subresource != "status" or not live or not _fast_kind(info) or type(obj) is not dict:
        return None
    if obj.get("apiVersion") != live.get("apiVersion") or obj.get("kind") != info.kind:
        return None
    meta, live_meta = obj.get("metadata"), live.get("metadata")
    if type(meta) is not dict or type(live_meta) is not dict:
        return None
    assert info.struct is not None
    _, meta_struct = _fields(info.struct)
    if meta_struct is None:
        return None
    try:
        partial = {k: v for k, v in obj.items() if k != "metadata"}
        out = _round_trip(info.struct, {**partial, "metadata": {}}, live)
        out["metadata"] = omit_empty_message(_round_trip(meta_struct, meta, live_meta), "meta.v1.ObjectMeta")
        changed = {k: v for k, v in out.items() if k != "metadata" and v is not live.get(k, _ABSENT)}
        if changed:  # Go's omitempty and Quantity canonicalisation on what the patch changed
            _normalize_changed(info, changed, live)
            out.update(changed)  # (a top-level value the steps replaced)
            for k in [k for k in out if k != "metadata" and k not in changed and out[k] is not live.get(k, _ABSENT)]:
                del out[k]
    except (msgspec.ValidationError, QuantityError, UnicodeEncodeError, TypeError, ValueError):
        return None
    return out
