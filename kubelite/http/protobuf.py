"""Decoding Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``) for the kinds that need it.

Contract:
- kube-apiserver's protobuf serializer (``k8s.io/apimachinery/pkg/runtime/serializer/protobuf``) frames an
  object as the 4-byte magic ``k8s\\x00`` followed by a ``runtime.Unknown`` message (``typeMeta`` = 1 with
  ``apiVersion`` = 1 and ``kind`` = 2, ``raw`` = 2: the object's own message, ``contentEncoding`` = 3,
  ``contentType`` = 4). :func:`decode` turns such a body into the JSON object the pipeline decodes next, for
  the kinds in :data:`MESSAGES` (field numbers from their ``generated.proto``).
- Only what client-go's typed clients send as protobuf is decoded: the review kinds
  (``kubectl auth whoami`` / ``auth can-i`` post them as protobuf). Any other kind, or a body that is not
  well-formed protobuf, is :class:`UnsupportedBody`; the HTTP layer answers 415 and names JSON, as before.
- Unknown field numbers are skipped (protobuf's rule); proto2 scalars the Go marshaller always writes (an
  empty string, ``0``, ``false``, a zero ``Time``) read as absent, as Go's zero values are in JSON with
  ``omitempty``.
- Responses are always JSON: every client that sends protobuf lists JSON in its Accept header.
"""

from __future__ import annotations

import datetime
from typing import Any

__all__ = ["MAGIC", "MESSAGES", "UnsupportedBody", "decode"]

MAGIC = b"k8s\x00"


class UnsupportedBody(ValueError):
    """The body is not a protobuf object kubelite decodes."""


# A message is {field number: (JSON name, type)}; a type is "string", "bool", "int", "time", a message name,
# "[]T" (repeated) or "{}T" (map<string, T>).
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
MESSAGES: dict[str, dict[int, tuple[str, str]]] = {
    _META + "ObjectMeta": {
        1: ("name", "string"), 2: ("generateName", "string"), 3: ("namespace", "string"), 5: ("uid", "string"),
        6: ("resourceVersion", "string"), 7: ("generation", "int"), 8: ("creationTimestamp", "time"),
        11: ("labels", "{}string"), 12: ("annotations", "{}string"), 14: ("finalizers", "[]string"),
    },
    _META + "LabelSelectorRequirement": {1: ("key", "string"), 2: ("operator", "string"), 3: ("values", "[]string")},
    _META + "FieldSelectorRequirement": {1: ("key", "string"), 2: ("operator", "string"), 3: ("values", "[]string")},
    # authentication.k8s.io/v1
    "authentication/v1.TokenReview": {1: ("metadata", _META + "ObjectMeta"), 2: ("spec", "authentication/v1.Spec")},
    "authentication/v1.Spec": {1: ("token", "string"), 2: ("audiences", "[]string")},
    "authentication/v1.SelfSubjectReview": {1: ("metadata", _META + "ObjectMeta")},
    # authorization.k8s.io/v1
    "authorization/v1.SubjectAccessReview": {1: ("metadata", _META + "ObjectMeta"),
                                             2: ("spec", "authorization/v1.SubjectAccessReviewSpec")},
    "authorization/v1.LocalSubjectAccessReview": {1: ("metadata", _META + "ObjectMeta"),
                                                  2: ("spec", "authorization/v1.SubjectAccessReviewSpec")},
    "authorization/v1.SelfSubjectAccessReview": {1: ("metadata", _META + "ObjectMeta"),
                                                 2: ("spec", "authorization/v1.SelfSubjectAccessReviewSpec")},
    "authorization/v1.SelfSubjectRulesReview": {1: ("metadata", _META + "ObjectMeta"),
                                                2: ("spec", "authorization/v1.SelfSubjectRulesReviewSpec")},
    "authorization/v1.SubjectAccessReviewSpec": {
        1: ("resourceAttributes", "authorization/v1.ResourceAttributes"),
        2: ("nonResourceAttributes", "authorization/v1.NonResourceAttributes"),
        3: ("user", "string"), 4: ("groups", "[]string"), 5: ("extra", "{}authorization/v1.ExtraValue"),
        6: ("uid", "string"),
    },
    "authorization/v1.SelfSubjectAccessReviewSpec": {
        1: ("resourceAttributes", "authorization/v1.ResourceAttributes"),
        2: ("nonResourceAttributes", "authorization/v1.NonResourceAttributes"),
    },
    "authorization/v1.SelfSubjectRulesReviewSpec": {1: ("namespace", "string")},
    "authorization/v1.ResourceAttributes": {
        1: ("namespace", "string"), 2: ("verb", "string"), 3: ("group", "string"), 4: ("version", "string"),
        5: ("resource", "string"), 6: ("subresource", "string"), 7: ("name", "string"),
        8: ("fieldSelector", "authorization/v1.FieldSelectorAttributes"),
        9: ("labelSelector", "authorization/v1.LabelSelectorAttributes"),
    },
    "authorization/v1.FieldSelectorAttributes": {1: ("rawSelector", "string"),
                                                 2: ("requirements", "[]" + _META + "FieldSelectorRequirement")},
    "authorization/v1.LabelSelectorAttributes": {1: ("rawSelector", "string"),
                                                 2: ("requirements", "[]" + _META + "LabelSelectorRequirement")},
    "authorization/v1.NonResourceAttributes": {1: ("path", "string"), 2: ("verb", "string")},
    "authorization/v1.ExtraValue": {1: ("items", "[]string")},
}
#: (apiVersion, kind) -> the message of the object
_KINDS = {
    ("authentication.k8s.io/v1", "TokenReview"): "authentication/v1.TokenReview",
    ("authentication.k8s.io/v1", "SelfSubjectReview"): "authentication/v1.SelfSubjectReview",
    **{("authorization.k8s.io/v1", k): f"authorization/v1.{k}" for k in (
        "SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview")},
}
_UNKNOWN = {1: ("typeMeta", "TypeMeta"), 2: ("raw", "bytes"), 3: ("contentEncoding", "string"),
            4: ("contentType", "string")}
_TYPE_META = {1: ("apiVersion", "string"), 2: ("kind", "string")}
_TIME = {1: ("seconds", "int"), 2: ("nanos", "int")}


def decode(body: bytes) -> dict[str, Any]:
    """The JSON object of a protobuf-encoded request body (see the module docstring)."""
    if not body.startswith(MAGIC):
        raise UnsupportedBody("the body does not start with the Kubernetes protobuf magic number")
    envelope = _message(body[len(MAGIC):], _UNKNOWN)
    type_meta = envelope.get("typeMeta") or {}
    api_version, kind = type_meta.get("apiVersion", ""), type_meta.get("kind", "")
    if envelope.get("contentEncoding"):
        raise UnsupportedBody(f"content encoding {envelope['contentEncoding']!r} is not supported")
    message = _KINDS.get((api_version, kind))
    if message is None:
        raise UnsupportedBody(f"kubelite decodes no {kind or 'object'} in version {api_version!r} from protobuf")
    obj = _message(envelope.get("raw", b""), MESSAGES[message])
    return {"apiVersion": api_version, "kind": kind, **obj}


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(data) or shift > 63:
            raise UnsupportedBody("truncated or overlong varint")
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value): an int for varints, bytes for length-delimited fields."""
    out: list[tuple[int, int, Any]] = []
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            if i + size > len(data):
                raise UnsupportedBody("a length-delimited field runs past the end of its message")
            value, i = data[i:i + size], i + size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, i = data[i:i + width], i + width
        else:
            raise UnsupportedBody(f"unsupported protobuf wire type {wire}")
        if number == 0:
            raise UnsupportedBody("field number 0")
        out.append((number, wire, value))
    return out


def _scalar(kind: str, wire: int, value: Any) -> Any:
    if kind in ("string", "bytes"):
        if wire != 2:
            raise UnsupportedBody(f"expected a length-delimited {kind}")
        if kind == "bytes":
            return value
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise UnsupportedBody("a string field is not UTF-8") from None
    if kind in ("int", "bool"):
        if wire != 0:
            raise UnsupportedBody(f"expected a varint {kind}")
        if kind == "bool":
            return bool(value)
        return value - (1 << 64) if value >= 1 << 63 else value  # int64 two's complement
    if kind == "time":
        t = _message(value, _TIME)
        if not t.get("seconds") and not t.get("nanos"):
            return None
        return datetime.datetime.fromtimestamp(t.get("seconds", 0), datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if wire != 2:
        raise UnsupportedBody(f"expected an embedded {kind}")
    table = _TYPE_META if kind == "TypeMeta" else MESSAGES[kind]
    return _message(value, table)


def _message(data: bytes, table: dict[int, tuple[str, str]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for number, wire, value in _fields(data):
        spec = table.get(number)
        if spec is None:
            continue  # unknown fields are skipped
        name, kind = spec
        if kind.startswith("[]"):
            obj.setdefault(name, []).append(_scalar(kind[2:], wire, value))
        elif kind.startswith("{}"):
            entry = {n: _scalar("string" if n == 1 else kind[2:], w, v) for n, w, v in _fields(value) if n in (1, 2)}
            item = entry.get(2, "" if kind == "{}string" else {})
            if kind == "{}authorization/v1.ExtraValue":
                item = item.get("items", [])
            obj.setdefault(name, {})[entry.get(1, "")] = item
        else:
            obj[name] = _scalar(kind, wire, value)
    # Go's zero values: omitted, as the JSON encoder's omitempty leaves them out
    return {k: v for k, v in obj.items() if v not in ("", 0, False, None)}
