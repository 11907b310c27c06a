"""Encoding and decoding of API objects: JSON bytes, plain dicts, typed Structs and kubectl YAML.

Contract:
- Every function returns a value that shares no mutable part with its input, except
  :func:`from_dict`, whose result may share ``Any``-typed leaves (a CRD's ``default``/``example``
  values, ``enum`` lists) with the dict it was given; callers that keep mutating the dict pass
  a copy (``to_dict``) instead.
- Decoding into a Struct is strict like upstream's strict decoding: an unknown field or a value
  of the wrong type raises :class:`kubelite.errors.BadRequest` whose message names the field
  path, in the words kube-apiserver uses (``transformDecodeError`` in
  ``k8s.io/apiserver/pkg/endpoints/handlers/rest.go``).
- YAML is read as kubectl reads it: multi-document streams, empty documents skipped, ``kind:
  List`` (and typed ``*List``) expanded into their items.
- One Encoder, and one Decoder per target type, are built once and reused (msgspec's perf tips);
  the decoder cache is bounded by the number of distinct types asked for.
- The one exception to "nothing is shared" is :mod:`kubelite.api.views` (one decoded object per stored
  version, shared by the control plane's informers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

import msgspec

from kubelite.api.resources import Registry
from kubelite.errors import ApiError, BadRequest
from kubelite.memo import memoize

__all__ = [
    "decode_json",
    "dump_yaml",
    "encode_json",
    "from_dict",
    "json_decoder",
    "load_objects",
    "load_yaml",
    "to_dict",
]

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_untyped_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder()


# bound: one decoder per Struct type decoded (the generated API types plus a few records)
@memoize("api.codec.json_decoder", maxsize=1024)
def json_decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """The msgspec JSON decoder for ``tp``, built once per type. A shared view's read-only twin class
    (:mod:`kubelite.api.views`) decodes as its generated class: decoding makes a private, mutable copy."""
    return msgspec.json.Decoder(getattr(tp, "__thawed__", tp))


def encode_json(obj: Any) -> bytes:
    """Compact JSON of a Struct, dict or list (fields left at their default are omitted)."""
    return _encoder.encode(obj)


@overload
def decode_json(data: bytes | str, type: None = None) -> Any: ...
@overload
def decode_json(data: bytes | str, type: type[T]) -> T: ...
def decode_json(data: bytes | str, type: Any = None) -> Any:
    """Decode JSON into plain Python values, or strictly into ``type`` (a Struct class)."""
    if type is None:
        try:
            return _untyped_decoder.decode(data)
        except msgspec.DecodeError as exc:
            raise BadRequest.make(f"invalid JSON: {exc}") from exc
    try:
        return json_decoder(type).decode(data)
    except msgspec.ValidationError as exc:
        raise _decode_error(exc, type) from exc
    except msgspec.DecodeError as exc:
        raise BadRequest.make(f"invalid JSON: {exc}") from exc


def to_dict(obj: Any) -> dict[str, Any]:
    """A fresh plain dict of a Struct or dict; nothing in it is shared with ``obj``."""
    out = msgspec.to_builtins(obj)
    if not isinstance(out, dict):
        raise TypeError(f"expected an object, got {type(obj).__name__}")
    return out


def from_dict(d: Mapping[str, Any], type: type[T]) -> T:
    """Strictly convert a JSON-like dict into ``type`` (see the module contract on sharing)."""
    try:
        return msgspec.convert(d, type)
    except msgspec.ValidationError as exc:
        raise _decode_error(exc, type) from exc


# msgspec's messages: "Object contains unknown field `foo` - at `$.spec`",
# "Expected `int | null`, got `str` - at `$.spec.replicas`".
_UNKNOWN_FIELD = re.compile(r"Object contains unknown field `(?P<field>[^`]*)`(?: - at `\$(?P<path>[^`]*)`)?")
_WRONG_TYPE = re.compile(r"Expected `(?P<want>[^`]*)`, got `(?P<got>[^`]*)`(?: - at `\$(?P<path>[^`]*)`)?")
# msgspec's names of JSON value types -> encoding/json's ("cannot unmarshal string into ...").
_JSON_TYPE_NAMES = {"str": "string", "int": "number", "float": "number", "bool": "bool", "array": "array",
                    "object": "object", "null": "null"}


def _field_path(path: str | None, leaf: str = "") -> str:
    """``.spec.template`` + ``foo`` -> ``spec.template.foo`` (upstream's strict-decoding path)."""
    p = (path or "").lstrip(".")
    if leaf:
        p = f"{p}.{leaf}" if p else leaf
    return p


def _decode_error(exc: msgspec.ValidationError, cls: Any) -> ApiError:
    """Upstream's ``<Kind> in version "<v>" cannot be handled as a <Kind>: <reason>``."""
    message = str(exc)
    m = _UNKNOWN_FIELD.match(message)
    if m:
        reason = f'strict decoding error: unknown field "{_field_path(m["path"], m["field"])}"'
    else:
        m = _WRONG_TYPE.match(message)
        if m:
            want = " | ".join("string" if w == "str" else w for w in m["want"].split(" | ") if w != "null")
            got = _JSON_TYPE_NAMES.get(m["got"], m["got"])
            reason = (f"json: cannot unmarshal {got} into Go struct field "
                      f"{_field_path(m['path'])} of type {want}")
        else:
            reason = message
    kind = getattr(cls, "__name__", str(cls))
    version = _version_of(cls)
    return BadRequest.make(f'{kind} in version "{version}" cannot be handled as a {kind}: {reason}')


def _version_of(cls: Any) -> str:
    """``v1`` for ``kubelite.api.types.apps_v1.Deployment`` (the module names the version)."""
    module = getattr(cls, "__module__", "")
    return module.rsplit("_", 1)[-1] if "_v" in module else ""


# --- YAML ---
# kubectl parses YAML with sigs.k8s.io/yaml on top of go-yaml v2, a YAML 1.1 reader: unquoted
# on/off/yes/no are booleans and 0777 is octal, which is also what PyYAML's SafeLoader does, so
# manifests mean the same thing in both. Two go-yaml differences are patched below: timestamps
# stay strings (go-yaml only parses them into time.Time targets, and sigs.k8s.io/yaml decodes
# into interface{}), and base-60 numbers like 1:30 are plain strings. Non-string mapping keys
# become strings, as sigs.k8s.io/yaml's JSON conversion makes them.
# PyYAML (with its regex-heavy resolver, ~10 ms) is imported, and these classes built, with the first
# YAML read or written: a cluster that is only given objects never needs it (issue #17, cold start).


def _scalar_string(loader: Any, node: Any) -> str:
    return str(loader.construct_scalar(node))


def _number_or_string(construct: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def constructor(loader: Any, node: Any) -> Any:
        if ":" in node.value:  # YAML 1.1 sexagesimal; go-yaml v2 reads it as a string
            return str(node.value)
        return construct(loader, node)
    return constructor


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def _mapping(loader: Any, node: Any) -> dict[str, Any]:
    loader.flatten_mapping(node)  # resolves `<<` merge keys, as go-yaml does
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        out[_key(key)] = loader.construct_object(value_node, deep=True)
    return out


def _str_presenter(dumper: Any, value: str) -> Any:
    # Multi-line strings (scripts, config files in ConfigMaps) as literal blocks, like kubectl.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_YAML: tuple[Any, Any, Any] | None = None


def _yaml() -> tuple[Any, Any, Any]:
    """``(yaml, loader class, dumper class)``: PyYAML and kubectl's reading and writing of it, built once."""
    global _YAML
    if _YAML is None:
        import yaml

        class _KubeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
            pass

        _KubeLoader.add_constructor("tag:yaml.org,2002:timestamp", _scalar_string)
        _KubeLoader.add_constructor("tag:yaml.org,2002:int", _number_or_string(yaml.SafeLoader.construct_yaml_int))
        _KubeLoader.add_constructor("tag:yaml.org,2002:float",
                                    _number_or_string(yaml.SafeLoader.construct_yaml_float))
        _KubeLoader.add_constructor("tag:yaml.org,2002:map", _mapping)

        class _KubeDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
            pass

        _KubeDumper.add_representer(str, _str_presenter)
        _YAML = (yaml, _KubeLoader, _KubeDumper)
    return _YAML


def load_yaml(text: str | bytes) -> list[dict[str, Any]]:
    """Every object in a (multi-document) manifest, ``List`` kinds expanded, empty documents skipped."""
    yaml, loader, _ = _yaml()
    try:
        docs = list(yaml.load_all(text, Loader=loader))
    except yaml.YAMLError as exc:
        raise BadRequest.make(f"error converting YAML to JSON: {exc}") from exc
    out: list[dict[str, Any]] = []
    for doc in docs:
        if doc is None or doc == {}:
            continue
        if not isinstance(doc, dict):
            raise BadRequest.make(f"error unmarshaling JSON: cannot unmarshal {_json_type(doc)} into an object")
        _expand(doc, out)
    return out


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


def _expand(doc: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """kubectl's resource builder: ``kind: List`` and typed lists (``PodList``) are flattened,
    typed-list items inheriting the list's apiVersion and item kind when they omit them."""
    kind = doc.get("kind")
    items = doc.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        item_kind = kind[: -len("List")]
        for item in items:
            if not isinstance(item, dict):
                raise BadRequest.make(f"error unmarshaling JSON: {kind} item is not an object")
            if item_kind:
                item.setdefault("apiVersion", doc.get("apiVersion"))
                item.setdefault("kind", item_kind)
            _expand(item, out)
    else:
        out.append(doc)


def load_objects(text: str | bytes, registry: Registry) -> list[Any]:
    """The objects of a manifest: Structs for registered built-in kinds, dicts for the rest."""
    objects: list[Any] = []
    for doc in load_yaml(text):
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        missing = [f"{f} not set" for f, v in (("apiVersion", api_version), ("kind", kind)) if not v]
        if missing:
            raise BadRequest.make(f"error validating data: [{', '.join(missing)}]")
        try:
            info = registry.by_kind(str(api_version), str(kind))
        except KeyError:
            objects.append(doc)
            continue
        objects.append(from_dict(doc, info.struct) if info.struct is not None else doc)
    return objects


# Top-level keys come in kubectl's order; every nested mapping is sorted, as kubectl prints it
# (it marshals through Go maps, which encoding/json sorts).
_TOP_ORDER = {"apiVersion": 0, "kind": 1, "metadata": 2, "spec": 3, "status": 4}


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def dump_yaml(obj: Any) -> str:
    """YAML of a Struct or dict (or a list of them, as a multi-document stream), kubectl-style."""
    if isinstance(obj, list):
        return "---\n".join(dump_yaml(o) for o in obj)
    d = to_dict(obj)
    ordered = {k: _sorted(d[k]) for k in sorted(d, key=lambda k: (_TOP_ORDER.get(k, 5), k))}
    yaml, _, dumper = _yaml()
    text: str = yaml.dump(ordered, Dumper=dumper, sort_keys=False, default_flow_style=False,
                          allow_unicode=True, width=1 << 30)
    return text
