"""A PUT decoded in proportion to its change: the typed decode of what differs from the stored object.

A kubelet's Lease renewal PUTs back the whole Lease its last renewal returned with one leaf changed
(``spec.renewTime``); the whole path decodes every field of the body into the Go-shaped struct and back
(``Decoder.decode``: types, unknown fields, Quantity canonicalisation), although every field but one is
the stored object's, which passed that same decode when it was written. :func:`decode_put` compares the
body with the stored object instead, takes every part equal to it from the stored object as it is, and
decodes only the parts that differ (one typed conversion of a partial object holding just those), then
builds the new object from the stored one plus the decoded leaves.

Guarantees (``tests/apiserver/test_put_delta.py`` compares it with ``Decoder.decode`` over seeded random
and hostile bodies; the heartbeat property test compares responses and stored bytes with the whole path):

- It returns what ``Decoder.decode`` returns for the body (equal as JSON data; the store's encoding sorts
  keys, so dict order does not reach the bytes), or None, and the caller decodes the whole body, with
  its errors and warnings, as before. None whenever it cannot tell: a kind outside :data:`KINDS`, another
  version, apiVersion or kind not the stored one's, metadata other than the stored one's but for
  ``resourceVersion`` (a string) and ``managedFields`` (the stored list or absent), a system field left
  out, or a changed part that does not convert cleanly (unknown fields, wrong types, bad quantities, a
  null or a value the typed decode drops).
- "Equal" is equal as JSON types, so a part the typed decode would reject is never taken as unchanged:
  ``True`` is not ``1``, ``1.0`` is not ``1``, a tuple is not a list (:func:`same_json`).
- It relies on the stored objects of :data:`KINDS` being what the typed decode gives for themselves
  (every value in them came out of that decode: these kinds' strategies insert no value of their own on
  an update), and on the caller's ``live`` being the stored object. It mutates neither the body nor
  ``live``, and the result shares no container with the body (a retry reads the body again).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.quantity_fields import QuantityError, canonicalize_quantities
from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import builtin_schemas

__all__ = ["KINDS", "decode_put", "same_json"]

#: (group, plural) whose main-resource PUTs are decoded in proportion to their change
KINDS = frozenset({("coordination.k8s.io", "leases")})

_MISSING: Any = object()
# metadata a PUT may send differently from the stored object: the precondition, and the managedFields the
# field manager reads (the store and the field manager set both after validation)
_FREE_META = ("resourceVersion", "managedFields")
# metadata a PUT may leave out: the handler sets name and namespace from the URL
_URL_META = ("name", "namespace")


def same_json(a: Any, b: Any) -> bool:
    """Whether ``a`` is ``b`` (decoded JSON data) as JSON: equal, and of the same JSON type at every level
    (so the typed decode gives ``a`` exactly what it gave ``b``)."""
    if a is b:
        return True
    tb = type(b)
    if tb is dict:
        if type(a) is not dict or len(a) != len(b):
            return False
        for k, v in b.items():
            x = a.get(k, _MISSING)
            if x is _MISSING or not same_json(x, v):
                return False
        return True
    if tb is list:
        if type(a) is not list or len(a) != len(b):
            return False
        return all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is tb and a == b


def _split(body: dict[str, Any], live: dict[str, Any], partial: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``body`` with every part that is ``live``'s taken from ``live``; the parts that differ go into
    ``partial`` (same nesting, the body's values) and are left out of the result. Returns the result and
    the plan of what differs (key -> None for a whole value, or the plan of a nested object)."""
    out: dict[str, Any] = {}
    plan: dict[str, Any] = {}
    for k, v in body.items():
        lv = live.get(k, _MISSING)
        if lv is not _MISSING and same_json(v, lv):
            out[k] = lv
        elif type(v) is dict and type(lv) is dict:
            sub: dict[str, Any] = {}
            out[k], plan[k] = _split(v, lv, sub)
            partial[k] = sub
        else:
            partial[k] = v
            plan[k] = None
    return out, plan


def _fill(out: dict[str, Any], plan: dict[str, Any], typed: Any) -> bool:
    """Put the typed decode's values of the parts in ``plan`` into ``out``; False if one is not there."""
    if type(typed) is not dict:
        return False
    for k, sub in plan.items():
        tv = typed.get(k, _MISSING)
        if tv is _MISSING:
            return False  # a null, or a value the typed decode leaves out: decode whole
        if sub is None:
            out[k] = tv
        elif not _fill(out[k], sub, tv):
            return False
    return True


def decode_put(info: ResourceInfo, body: Any, live: dict[str, Any], version: str) -> dict[str, Any] | None:
    """What ``Decoder.decode(info, body, ...)`` returns for a PUT of ``body`` over the stored ``live``
    (see the module docstring), or None: decode the whole body."""
    if ((info.group, info.plural) not in KINDS or not live or type(body) is not dict or info.storage_version
            or (version and version != info.version) or info.struct is None):
        return None
    if body.get("apiVersion") != live.get("apiVersion") or body.get("kind") != live.get("kind"):
        return None
    meta, live_meta = body.get("metadata"), live.get("metadata")
    if type(meta) is not dict or type(live_meta) is not dict:
        return None
    out_meta: dict[str, Any] = {}
    for k, v in meta.items():
        lv = live_meta.get(k, _MISSING)
        if k == "resourceVersion":
            if type(v) is not str:
                return None
            out_meta[k] = v
        elif lv is _MISSING or not same_json(v, lv):
            return None  # (a changed managedFields list, too: the field manager must see it whole)
        else:
            out_meta[k] = lv
    for k in live_meta:
        if k not in meta and k not in _FREE_META and k not in _URL_META:
            return None  # a system field left out: the update's own rules restore or reject it
    rest = {k: v for k, v in body.items() if k not in ("apiVersion", "kind", "metadata")}
    partial: dict[str, Any] = {}
    out, plan = _split(rest, live, partial)
    if plan:
        try:
            typed = msgspec.to_builtins(msgspec.convert(partial, info.struct))
            schema = builtin_schemas().get(info.schema_ref) if info.schema_ref else None
            if schema is not None:
                canonicalize_quantities(typed, schema)  # in place: the values are typed's own
        except (msgspec.ValidationError, QuantityError, UnicodeEncodeError, TypeError, ValueError):
            return None
        if not _fill(out, plan, typed):
            return None
    out["apiVersion"], out["kind"], out["metadata"] = live["apiVersion"], live["kind"], out_meta
    return out
