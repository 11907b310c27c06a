"""The Kubernetes protobuf wire format (``application/vnd.kubernetes.protobuf``) <-> kubelite's JSON objects.

Contract:
- :func:`decode` turns a protobuf body into the JSON object that Go's ``json.Marshal`` would print for the Go
  object kube-apiserver decodes from it, so the object then enters the same pipeline as a JSON body (one
  implementation of semantics). :func:`encode` is its inverse over the same table (for clients that accept only
  protobuf, and for tests): ``decode(encode(obj)) == obj`` for every object whose zero values follow Go's
  ``omitempty`` (a realistic object as the apiserver stores it).
- Framing, as ``k8s.io/apimachinery/pkg/runtime/serializer/protobuf``: the magic ``k8s\\x00`` and a
  ``runtime.Unknown`` (typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4);
  ``raw`` is the kind's own message. A missing apiVersion or kind is defaulted from the endpoint's, as the
  serializer's ``copyKindDefaults``; an empty body or a bad prefix is an error.
- Messages, field numbers and types come from :mod:`kubelite.api.protobuf_tables` (generated from upstream's
  ``generated.proto`` and Go struct tags by ``tools/gen_protobuf.py``). Unknown field numbers are skipped
  (protobuf's rule); a repeated field is read packed or unpacked; a singular message seen twice is merged
  (its payloads concatenated), a singular scalar seen twice keeps the last.
- Presence (proto2 ``optional``): a scalar absent from the wire is absent from the JSON; one present with its
  zero value is kept only if the Go field is a pointer or has no ``omitempty`` (``replicas: 0`` survives,
  ``generation: 0`` does not). Empty repeated and map fields are absent (nil and empty slices decode alike).
- Special types as upstream encodes them: ``Time`` {seconds, nanos} -> RFC 3339 in seconds (upstream drops
  the nanos: ``Time.Unmarshal``), an empty Time -> ``null``; ``MicroTime`` -> RFC 3339 with microseconds;
  ``Duration`` {duration ns} -> Go's ``time.Duration.String``; ``Quantity`` {string}; ``IntOrString``
  {type, intVal, strVal}; ``RawExtension``/``FieldsV1``/apiextensions ``JSON`` {raw} -> the JSON value of raw;
  ``bytes`` fields -> base64 strings; the ``JSONSchemaPropsOr*`` unions; the ``+protobuf.nullable`` list
  wrappers (``ExtraValue``) -> bare lists; embedded Go structs (``json:""``) inline their fields into the parent.
- Every malformed body raises :class:`ProtobufError` (the HTTP layer answers 400, as kube-apiserver does for a
  body its decoder rejects); a kind with no message is :class:`UnknownKind`.
"""

from __future__ import annotations

import base64
import datetime
import json
import struct
from functools import cache
from typing import Any

from kubelite.api.protobuf_tables import KINDS, LISTS, MESSAGES

__all__ = ["MAGIC", "ProtobufError", "UnknownKind", "decode", "decode_message", "decode_watch_frames", "encode",
           "encode_message", "encode_watch_frame"]

MAGIC = b"k8s\x00"

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_INTS = frozenset({"int32", "int64", "uint32", "uint64", "sint32", "sint64"})
_NUMERIC = _INTS | {"bool", "double", "float", "fixed32", "fixed64"}
_SCALARS = _NUMERIC | {"string", "bytes"}
_UNKNOWN = ((1, "typeMeta", "runtime.TypeMeta", ""), (2, "raw", "bytes", ""), (3, "contentEncoding", "string", ""),
            (4, "contentType", "string", ""))
_TYPE_META = ((1, "apiVersion", "string", ""), (2, "kind", "string", ""))
_TYPE_META_KEYS = frozenset({"apiVersion", "kind"})
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


class ProtobufError(ValueError):
    """The body is not a well-formed Kubernetes protobuf object."""


class UnknownKind(ProtobufError):
    """The envelope names a kind kubelite has no protobuf message for."""


@cache
def _table(message: str) -> dict[int, tuple[str, str, str]]:
    rows = _UNKNOWN if message == "runtime.Unknown" else _TYPE_META if message == "runtime.TypeMeta" \
        else MESSAGES[message]
    return {n: (j, t, f) for n, j, t, f in rows}


# --- the wire ---
def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(data):
            raise ProtobufError("unexpected EOF in a varint")
        if shift > 63:
            raise ProtobufError("integer overflow in a varint")
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, i
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value): an int for a varint, bytes for the other wire types."""
    out: list[tuple[int, int, Any]] = []
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if number == 0 or number > 0x1FFFFFFF:
            raise ProtobufError(f"illegal field number {number}")
        value: int | bytes
        if wire == _VARINT:
            value, i = _varint(data, i)
        elif wire == _LEN:
            size, i = _varint(data, i)
            if size > len(data) - i:
                raise ProtobufError("unexpected EOF: a length-delimited field runs past the end of its message")
            value, i = data[i:i + size], i + size
        elif wire in (_I64, _I32):
            width = 8 if wire == _I64 else 4
            if width > len(data) - i:
                raise ProtobufError("unexpected EOF in a fixed-width field")
            value, i = data[i:i + width], i + width
        else:  # 3/4 are the deprecated groups (never in Kubernetes messages), 6/7 do not exist
            raise ProtobufError(f"illegal wire type {wire} for field {number}")
        out.append((number, wire, value))
    return out


def _key(number: int, wire: int) -> bytes:
    return _put_varint(number << 3 | wire)


def _put_varint(v: int) -> bytes:
    v &= 0xFFFFFFFFFFFFFFFF  # negative ints: 10-byte two's complement, as Go writes int32/int64
    out = bytearray()
    while v > 0x7F:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _len(number: int, payload: bytes) -> bytes:
    return _key(number, _LEN) + _put_varint(len(payload)) + payload


# --- scalars ---
def _scalar(kind: str, wire: int, value: Any, where: str) -> Any:
    if kind in ("string", "bytes"):
        if wire != _LEN:
            raise ProtobufError(f"wrong wire type {wire} for {kind} field {where}")
        if kind == "bytes":
            return base64.b64encode(value).decode("ascii")
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtobufError(f"string field {where} is not valid UTF-8") from None
    if kind in ("double", "float", "fixed32", "fixed64"):
        want = _I32 if kind in ("float", "fixed32") else _I64
        if wire != want:
            raise ProtobufError(f"wrong wire type {wire} for {kind} field {where}")
        number = struct.unpack({"double": "<d", "float": "<f", "fixed32": "<I", "fixed64": "<Q"}[kind], value)[0]
        if isinstance(number, float) and number.is_integer() and abs(number) < 1e21:
            return int(number)  # Go's JSON prints an integral float64 without a fraction: 1, not 1.0
        return number
    if wire != _VARINT:
        raise ProtobufError(f"wrong wire type {wire} for {kind} field {where}")
    if kind == "bool":
        return value != 0
    if kind == "sint32" or kind == "sint64":
        return (value >> 1) ^ -(value & 1)
    if kind == "int32":
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value
    if kind == "uint32":
        return value & 0xFFFFFFFF
    if kind == "int64":
        return value - (1 << 64) if value >= 1 << 63 else value
    return value


def _packed(kind: str, data: bytes, where: str) -> list[Any]:
    if kind in ("double", "fixed64"):
        return [_scalar(kind, _I64, data[i:i + 8], where) for i in range(0, len(data) - len(data) % 8, 8)]
    if kind in ("float", "fixed32"):
        return [_scalar(kind, _I32, data[i:i + 4], where) for i in range(0, len(data) - len(data) % 4, 4)]
    out, i = [], 0
    while i < len(data):
        v, i = _varint(data, i)
        out.append(_scalar(kind, _VARINT, v, where))
    return out


def _put_scalar(number: int, kind: str, value: Any, where: str) -> bytes:
    if kind == "string":
        if not isinstance(value, str):
            raise ProtobufError(f"{where}: expected a string, got {type(value).__name__}")
        return _len(number, value.encode("utf-8"))
    if kind == "bytes":
        if not isinstance(value, str):
            raise ProtobufError(f"{where}: expected a base64 string, got {type(value).__name__}")
        return _len(number, base64.b64decode(value, validate=True))
    if kind == "bool":
        if not isinstance(value, bool):
            raise ProtobufError(f"{where}: expected a boolean")
        return _key(number, _VARINT) + (b"\x01" if value else b"\x00")
    if kind in ("double", "float", "fixed32", "fixed64"):
        fmt = {"double": "<d", "float": "<f", "fixed32": "<I", "fixed64": "<Q"}[kind]
        return _key(number, _I32 if kind in ("float", "fixed32") else _I64) + struct.pack(fmt, value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtobufError(f"{where}: expected an integer")
    if kind in ("sint32", "sint64"):
        value = (value << 1) ^ (value >> 63)
    return _key(number, _VARINT) + _put_varint(value)


# --- special messages (their JSON is not an object of their fields) ---
def _time(data: bytes, *, micro: bool) -> str | None:
    if not data:
        return None  # Time.Unmarshal: no bytes is the zero Time, which Go's JSON prints as null
    t = _plain(data, {1: ("seconds", "int64", ""), 2: ("nanos", "int32", "")}, "Time")
    seconds, nanos = t.get("seconds", 0), t.get("nanos", 0) if micro else 0
    try:
        when = _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
    except OverflowError:
        raise ProtobufError(f"timestamp {seconds} is out of range") from None
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


def _put_time(value: str, *, micro: bool) -> bytes:
    try:
        when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise ProtobufError(f"{value!r} is not an RFC 3339 time") from None
    delta = when - _EPOCH
    seconds = delta.days * 86400 + delta.seconds
    out = _key(1, _VARINT) + _put_varint(seconds)
    if micro and delta.microseconds:
        out += _key(2, _VARINT) + _put_varint(delta.microseconds * 1000)
    return out


def go_duration(ns: int) -> str:
    """Go's ``time.Duration.String``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    if ns == 0:
        return "0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _frac(ns, size) + unit
    h, rest = divmod(ns, 3_600_000_000_000)
    m, rest = divmod(rest, 60_000_000_000)
    out = (f"{h}h{m}m" if h else f"{m}m" if m else "") + _frac(rest, 1_000_000_000) + "s"
    return sign + out


def _frac(value: int, unit: int) -> str:
    whole, part = divmod(value, unit)
    digits = str(part).rjust(len(str(unit)) - 1, "0").rstrip("0") if part else ""
    return f"{whole}.{digits}" if digits else str(whole)


def _parse_go_duration(value: str) -> int:
    units = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000,
             "h": 3_600_000_000_000}
    s, sign, total = value, 1, 0
    if s[:1] in "+-":
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    if s == "0":
        return 0
    i = 0
    if not s:
        raise ProtobufError(f"invalid duration {value!r}")
    while i < len(s):
        j = i
        while j < len(s) and (s[j].isdigit() or s[j] == "."):
            j += 1
        k = j
        while k < len(s) and not (s[k].isdigit() or s[k] == "."):
            k += 1
        number, unit = s[i:j], s[j:k]
        if not number or unit not in units:
            raise ProtobufError(f"invalid duration {value!r}")
        whole, _, frac = number.partition(".")
        total += int(whole or "0") * units[unit]
        if frac:
            total += int(frac) * units[unit] // 10 ** len(frac)
        i = k
    return sign * total


def _raw_json(data: bytes, where: str) -> Any:
    raw = {n: v for n, w, v in _fields(data) if n == 1 and w == _LEN}.get(1, b"")
    if not raw:
        return None  # RawExtension.MarshalJSON of no bytes: null
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtobufError(f"{where}: raw bytes are not JSON") from None


def _special(name: str, data: bytes, where: str) -> Any:
    if name == "meta.v1.Time":
        return _time(data, micro=False)
    if name == "meta.v1.MicroTime":
        return _time(data, micro=True)
    if name == "meta.v1.Duration":
        return go_duration(_plain(data, {1: ("duration", "int64", "")}, where).get("duration", 0))
    if name == "resource.Quantity":
        return _plain(data, {1: ("string", "string", "")}, where).get("string", "0")
    if name == "intstr.IntOrString":
        v = _plain(data, {1: ("type", "int64", ""), 2: ("intVal", "int32", ""), 3: ("strVal", "string", "")}, where)
        return v.get("strVal", "") if v.get("type") == 1 else v.get("intVal", 0)
    return _raw_json(data, where)  # RawExtension, FieldsV1, apiextensions JSON


def _put_special(name: str, value: Any, where: str) -> bytes:
    if name in ("meta.v1.Time", "meta.v1.MicroTime"):
        return _put_time(value, micro=name == "meta.v1.MicroTime")
    if name == "meta.v1.Duration":
        return _key(1, _VARINT) + _put_varint(_parse_go_duration(str(value)))
    if name == "resource.Quantity":
        return _len(1, str(value).encode())
    if name == "intstr.IntOrString":
        if isinstance(value, str):
            return _key(1, _VARINT) + b"\x01" + _key(2, _VARINT) + b"\x00" + _len(3, value.encode())
        return _key(1, _VARINT) + b"\x00" + _key(2, _VARINT) + _put_varint(value) + _len(3, b"")
    return _len(1, json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


_SPECIAL = frozenset({"meta.v1.Time", "meta.v1.MicroTime", "meta.v1.Duration", "resource.Quantity",
                      "intstr.IntOrString", "runtime.RawExtension", "meta.v1.FieldsV1", "apiextensions.v1.JSON"})
_UNIONS = {  # apiextensions' JSON unions: the schema if set, else the other member
    "apiextensions.v1.JSONSchemaPropsOrArray": (1, 2),
    "apiextensions.v1.JSONSchemaPropsOrBool": (2, 1),
    "apiextensions.v1.JSONSchemaPropsOrStringArray": (1, 2),
}


# --- messages ---
def _plain(data: bytes, table: dict[int, tuple[str, str, str]], where: str) -> dict[str, Any]:
    """A message of scalars only, every present field kept (the special messages' own fields)."""
    out: dict[str, Any] = {}
    for number, wire, value in _fields(data):
        if number in table:
            name, kind, _ = table[number]
            out[name] = _scalar(kind, wire, value, f"{where}.{name}")
    return out


def _value(kind: str, wire: int, value: Any, where: str) -> Any:
    """One element of a field: a scalar, or a (special) message."""
    if kind in _SCALARS:
        return _scalar(kind, wire, value, where)
    if wire != _LEN:
        raise ProtobufError(f"wrong wire type {wire} for message field {where}")
    if kind in _SPECIAL:
        return _special(kind, value, where)
    if kind in LISTS:
        return decode_message(value, kind).get("items", [])
    return decode_message(value, kind)


def decode_message(data: bytes, message: str) -> dict[str, Any] | Any:
    """The JSON value of one message's bytes (an object, except for the union messages)."""
    table = _table(message)
    singles: dict[int, Any] = {}
    merged: dict[int, bytes] = {}
    many: dict[int, list[Any]] = {}
    maps: dict[int, dict[str, Any]] = {}
    for number, wire, value in _fields(data):
        spec = table.get(number)
        if spec is None:
            continue  # an unknown field: skipped, as the generated Unmarshal does
        name, kind, flags = spec
        where = f"{message}.{name or number}"
        if "m" in flags:
            if wire != _LEN:
                raise ProtobufError(f"wrong wire type {wire} for map field {where}")
            entry = {n: (w, v) for n, w, v in _fields(value)}
            key = _scalar("string", *entry[1], where) if 1 in entry else ""
            if 2 in entry:
                item = _value(kind, *entry[2], where)
            else:  # an entry with no value: the value type's zero
                item = _value(kind, _LEN, b"", where) if kind not in _NUMERIC else _scalar(kind, 0, 0, where)
            maps.setdefault(number, {})[key] = item
        elif "r" in flags:
            if kind in _NUMERIC and wire == _LEN:
                many.setdefault(number, []).extend(_packed(kind, value, where))
            else:
                many.setdefault(number, []).append(_value(kind, wire, value, where))
        elif kind in _SCALARS:
            singles[number] = _scalar(kind, wire, value, where)
        else:
            if wire != _LEN:
                raise ProtobufError(f"wrong wire type {wire} for message field {where}")
            merged[number] = merged.get(number, b"") + value  # a repeated singular message merges
    if message in _UNIONS:
        first, other = _UNIONS[message]
        if first in merged:
            return decode_message(merged[first], table[first][1])
        if first in singles:
            return singles[first]
        if other in singles:
            return singles[other]
        return many.get(other, [])
    obj: dict[str, Any] = {}
    for number, (name, kind, flags) in sorted(table.items()):
        if number in many or number in maps:
            if many.get(number) or maps.get(number):
                obj[name] = many.get(number) or maps[number]
        elif number in singles:
            v = singles[number]
            if "z" in flags or v not in ("", 0, False):  # 0.0 == 0 and False == 0 in Python: one test covers all
                obj[name] = v
        elif number in merged:
            v = _value(kind, _LEN, merged[number], f"{message}.{name or number}")
            if "i" in flags:
                obj.update(v)  # an embedded Go struct: its fields are the parent's in JSON
            else:
                obj[name] = v
    return obj


def encode_message(obj: Any, message: str) -> bytes:
    """The bytes of one message from its JSON value (the inverse of :func:`decode_message`)."""
    table = _table(message)
    if message in _UNIONS:
        first, other = _UNIONS[message]
        if isinstance(obj, dict):
            return _len(first, encode_message(obj, table[first][1]))
        kind = table[other][1]
        if isinstance(obj, list):
            return b"".join(_put_one(other, kind, v, message) for v in obj)
        return _put_scalar(other, kind, obj, message)
    if not isinstance(obj, dict):
        raise ProtobufError(f"{message}: expected an object, got {type(obj).__name__}")
    out: list[bytes] = []
    used: set[str] = set()
    for number, (name, kind, flags) in sorted(table.items()):
        where = f"{message}.{name or number}"
        if "i" in flags:
            inner = _json_names(kind)
            out.append(_len(number, encode_message({k: v for k, v in obj.items() if k in inner}, kind)))
            used |= inner
            continue
        if name not in obj:
            continue
        used.add(name)
        value = obj[name]
        if value is None:
            if kind in ("meta.v1.Time", "meta.v1.MicroTime"):
                out.append(_len(number, b""))  # a zero Time (creationTimestamp: null) is written empty
            continue
        if "m" in flags:
            if not isinstance(value, dict):
                raise ProtobufError(f"{where}: expected an object")
            for k in sorted(value):  # sorted keys, as Go's generated Marshal writes maps
                entry = _len(1, str(k).encode()) + (_put_one(2, kind, value[k], where) if value[k] is not None
                                                    else b"")
                out.append(_len(number, entry))
        elif "r" in flags:
            if not isinstance(value, list):
                raise ProtobufError(f"{where}: expected a list")
            out.extend(_put_one(number, kind, v, where) for v in value)
        else:
            out.append(_put_one(number, kind, value, where))
    extra = set(obj) - used - _TYPE_META_KEYS  # a nested object's TypeMeta has no protobuf tag: Go drops it
    if extra:
        raise ProtobufError(f"{message} has no field {sorted(extra)[0]!r}")
    return b"".join(out)


@cache
def _json_names(message: str) -> frozenset[str]:
    """The JSON keys a message's fields take, its inlined messages' included."""
    names: set[str] = set()
    for name, kind, flags in _table(message).values():
        names |= _json_names(kind) if "i" in flags else {name}
    return frozenset(names)


def _put_one(number: int, kind: str, value: Any, where: str) -> bytes:
    if kind in _SCALARS:
        return _put_scalar(number, kind, value, where)
    if kind in _SPECIAL:
        return _len(number, _put_special(kind, value, where))
    if kind in LISTS:
        return _len(number, encode_message({"items": value}, kind))
    return _len(number, encode_message(value, kind))


# --- objects ---
def _message_of(api_version: str, kind: str) -> str:
    message = KINDS.get((api_version, kind))
    if message is None and kind == "DeleteOptions":  # registered in every group version (AddToGroupVersion)
        message = "meta.v1.DeleteOptions"
    if message is None:
        raise UnknownKind(f'no kind "{kind}" is registered for version "{api_version}"')
    return message


def decode(body: bytes, default: tuple[str, str] = ("", "")) -> dict[str, Any]:
    """The JSON object of a protobuf body; ``default`` is the endpoint's (apiVersion, kind)."""
    if not body:
        raise ProtobufError("empty data")
    if not body.startswith(MAGIC):
        raise ProtobufError(f"provided data does not appear to be a protobuf message, expected prefix {list(MAGIC)}")
    if len(body) == len(MAGIC):
        raise ProtobufError("empty body")
    envelope = decode_message(body[len(MAGIC):], "runtime.Unknown")
    type_meta = envelope.get("typeMeta") or {}
    api_version = type_meta.get("apiVersion") or default[0]
    kind = type_meta.get("kind") or default[1]
    if not kind:
        raise ProtobufError("Object 'Kind' is missing in the protobuf envelope")
    if not api_version:
        raise ProtobufError("Object 'apiVersion' is missing in the protobuf envelope")
    message = _message_of(api_version, kind)
    raw = base64.b64decode(envelope.get("raw", ""))
    obj = decode_message(raw, message)
    return {"apiVersion": api_version, "kind": kind, **obj}


def encode(obj: dict[str, Any]) -> bytes:
    """A protobuf body of a JSON object whose apiVersion and kind kubelite serves (see :func:`decode`)."""
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    message = _message_of(api_version, kind)
    raw = encode_message({k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}, message)
    type_meta = _len(1, api_version.encode()) + _len(2, kind.encode())
    # the serializer writes every field of Unknown, the empty contentEncoding and contentType included
    return MAGIC + _len(1, type_meta) + _len(2, raw) + _len(3, b"") + _len(4, b"")


# --- watch streams ---
def encode_watch_frame(event_type: str, obj: dict[str, Any]) -> bytes:
    """One frame of a protobuf watch stream, as upstream's ``LengthDelimitedFramer`` over the raw (unprefixed)
    stream serializer writes it: a 4-byte big-endian length, then a ``meta.v1.WatchEvent`` {type = 1, object = 2
    (a RawExtension whose raw is the object's own prefixed encoding)}."""
    event = _len(1, event_type.encode()) + _len(2, _len(1, encode(obj)))
    return struct.pack(">I", len(event)) + event


def decode_watch_frames(stream: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The (type, object) events of a protobuf watch stream (:func:`encode_watch_frame`'s inverse)."""
    out: list[tuple[str, dict[str, Any]]] = []
    i = 0
    while i < len(stream):
        if len(stream) - i < 4:
            raise ProtobufError("a watch frame's length is cut short")
        (size,) = struct.unpack(">I", stream[i:i + 4])
        frame, i = stream[i + 4:i + 4 + size], i + 4 + size
        if len(frame) != size:
            raise ProtobufError("a watch frame is cut short")
        fields = {n: v for n, w, v in _fields(frame) if w == _LEN}
        raw = {n: v for n, w, v in _fields(fields.get(2, b"")) if w == _LEN}.get(1, b"")
        out.append((_scalar("string", _LEN, fields.get(1, b""), "WatchEvent.type"), decode(raw)))
    return out
