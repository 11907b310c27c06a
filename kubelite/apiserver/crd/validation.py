"""OpenAPI value validation of a JSON object against a structural schema.

Contract:
- :func:`validate` never mutates ``obj`` or the schema and returns every problem as a
  :class:`~kubelite.errors.FieldError`, in a deterministic order: per node the checks run in
  kube-openapi's validator order (type, allOf/anyOf/oneOf/not, string, format, number, array,
  enum, object), object properties in schema order, additional keys in the object's order;
  the list-type uniqueness errors (``Duplicate value``) come last, as in upstream's custom
  resource strategy.
- Kinds, fields and messages are upstream's: kube-openapi's ``pkg/validation/validate``
  (``SchemaValidator`` and its type/string/format/number/slice/common/object validators,
  messages from ``pkg/validation/errors/schema.go``) as translated to field errors by
  apiextensions-apiserver ``pkg/apiserver/validation/validation.go``
  (``kubeOpenAPIResultToFieldErrors``), plus ``pkg/apiserver/schema/listtype/validation.go``.
  ``path`` is the field-path prefix (upstream's ``fldPath``); messages name the field relative
  to it, exactly as kube-openapi does (``spec.replicas in body must be of type integer``).
- Formats follow ``StripUnsupportedFormatsPostProcessorForVersion``: a format the apiserver
  does not support for the node's type is ignored. Supported string formats are checked with
  Python's stdlib where upstream uses Go's parsers (close, not byte-identical: e.g. ``email``
  and ``uri`` are approximations); ``isbn*`` and ``creditcard`` are not checked.
- Simplification: for a failing ``anyOf``/``oneOf`` upstream reports the branch with the
  highest internal match count; we report the branch with the fewest errors (first on ties).
"""

from __future__ import annotations

import base64
import datetime
import functools
import ipaddress
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

import msgspec

from kubelite.api.schema import Schema
from kubelite.errors import FieldError
from kubelite.memo import memoize

__all__ = ["go_value", "supported_format", "validate", "validate_list_types"]

_IN = "body"
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_FLOAT32_MAX = 3.4028234663852886e38


# --- Go-compatible rendering (messages embed Go's %v / %q) -----------------------------------------


def _go_float(f: float) -> str:
    """Go's ``%v`` for a float64 (strconv 'g', shortest): ``%e`` form when exp < -4 or exp >= 6."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(f)).normalize().as_tuple()
    assert isinstance(exponent, int)
    ds = "".join(map(str, digits))
    dp = len(ds) + exponent  # position of the decimal point relative to the digits
    exp = dp - 1
    neg = "-" if sign else ""
    # strconv.FormatFloat(f, 'g', -1): with the shortest precision the %e cut-off is exponent 6.
    if exp < -4 or exp >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{neg}{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{ds}"
    if dp >= len(ds):
        return neg + ds + "0" * (dp - len(ds))
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


def go_value(v: Any) -> str:
    """Go's ``%v`` for a JSON scalar as kube-openapi prints limits and values."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _go_float(v)
    return str(v)


def _go_quote(s: str) -> str:
    """Go's ``%q``; JSON string quoting matches it for the characters that occur in practice."""
    return msgspec.json.encode(s).decode()


# --- formats --------------------------------------------------------------------------------------

_UUID = {
    "uuid": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
    "uuid3": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
    "uuid4": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
    "uuid5": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
}
_DATETIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
_HOSTNAME_LABEL = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_MAC = re.compile(
    r"^([0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\2){4,18}[0-9A-Fa-f]{2}$"
    r"|^[0-9A-Fa-f]{4}(\.[0-9A-Fa-f]{4}){2,9}$"
)
_DURATION = re.compile(
    r"^([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$"
    r"|^\d+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?"
    r"|days?|weeks?)$"
)
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SIMPLE = {
    "bsonobjectid": re.compile(r"^[0-9a-fA-F]{24}$"),
    "hexcolor": re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
    "rgbcolor": re.compile(r"^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$"),
    "ssn": re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"),
    "email": re.compile(r"^[^@\s<>]+@[^@\s<>]+$|^[^<>]*<[^@\s<>]+@[^@\s<>]+>$"),
}


def _is_datetime(s: str) -> bool:
    m = _DATETIME.match(s)
    if not m:
        return False
    try:
        y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
        datetime.datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return False
    return True


def _is_date(s: str) -> bool:
    if len(s) != 10:
        return False
    try:
        datetime.date.fromisoformat(s)
    except ValueError:
        return False
    return True


def _is_byte(s: str) -> bool:
    try:
        base64.b64decode(s, validate=True)
    except ValueError:
        return False
    return True


def _is_ip(s: str, marker: str) -> bool:
    try:
        ipaddress.ip_address(s)
    except ValueError:
        return False
    return marker in s


def _is_cidr(s: str) -> bool:
    try:
        ipaddress.ip_network(s, strict=False)
    except ValueError:
        return False
    return "/" in s


def _is_hostname(s: str) -> bool:
    if not s or len(s) > 255:
        return False
    return all(_HOSTNAME_LABEL.match(label) for label in s.rstrip(".").split("."))


def _is_uri(s: str) -> bool:
    # net/url.ParseRequestURI: an absolute URI or an absolute path, no fragment-only forms.
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$|^/\S*$", s))


_FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "datetime": _is_datetime,
    "date": _is_date,
    "byte": _is_byte,
    "password": lambda s: True,
    "ipv4": lambda s: _is_ip(s, "."),
    "ipv6": lambda s: _is_ip(s, ":"),
    "cidr": _is_cidr,
    "hostname": _is_hostname,
    "mac": lambda s: bool(_MAC.match(s)),
    "duration": lambda s: bool(_DURATION.match(s)),
    "uri": _is_uri,
    "k8sshortname": lambda s: len(s) <= 63 and bool(_DNS1123_LABEL.match(s)),
    "k8slongname": lambda s: len(s) <= 253 and bool(_DNS1123_SUBDOMAIN.match(s)),
}
for _name, _rx in {**_UUID, **_SIMPLE}.items():
    _FORMAT_CHECKS[_name] = functools.partial(lambda rx, s: rx.match(s) is not None, _rx)


def supported_format(schema_type: str | None, fmt: str | None) -> str | None:
    """The format the apiserver honours for a node, or None (``StripUnsupportedFormats...``)."""
    if not fmt:
        return None
    if schema_type in (None, "", "string"):
        return fmt if fmt.replace("-", "") in _FORMAT_CHECKS else None
    if schema_type == "integer":
        return fmt if fmt in ("int32", "int64") else None
    if schema_type == "number":
        return fmt if fmt in ("float", "double") else None
    return None


# bound: distinct CRD schema patterns
@memoize("apiserver.crd.validation._compile", maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    # Go's RE2 classes (\d, \w, \s, \b) are ASCII-only.
    return re.compile(pattern, re.ASCII)


# --- value helpers --------------------------------------------------------------------------------


def _type_info(v: Any) -> tuple[str, str]:
    """kube-openapi ``schemaInfoForType`` for a decoded JSON value: (type, Go format)."""
    if isinstance(v, bool):
        return "boolean", ""
    if isinstance(v, str):
        return "string", ""
    if isinstance(v, int):
        return "integer", "int64"
    if isinstance(v, float):
        return "number", "float64"
    if isinstance(v, list):
        return "array", ""
    return "object", ""


def _json_equal(a: Any, b: Any) -> bool:
    """Deep equality with JSON semantics: 1 == 1.0 but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _types_of(s: Schema) -> tuple[str, ...]:
    # ConvertJSONSchemaProps: int-or-string becomes the type union ["integer", "string"].
    if s.int_or_string:
        return ("integer", "string")
    t = s.type
    return (t,) if t else ()


def _sub(s: Schema, raw: Mapping[str, Any]) -> Schema:
    """Wrap a nested allOf/anyOf/oneOf/not clause in the owning schema set."""
    return s.sub(raw)


class _Validator:
    """One validation run; ``prefix`` is upstream's fldPath, names are kube-openapi paths."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def _field(self, name: str) -> str:
        name = name.removeprefix(".")
        if not name:
            return self.prefix
        return f"{self.prefix}.{name}" if self.prefix else name

    # Constructors mirroring kubeOpenAPIResultToFieldErrors' mapping of kube-openapi error codes.
    def _type_err(self, name: str, type_name: str, value: str) -> FieldError:
        return FieldError.type_invalid(
            self._field(name), value, f"{name} in {_IN} must be of type {type_name}: {_go_quote(value)}"
        )

    def _invalid(self, name: str, value: Any, msg: str) -> FieldError:
        return FieldError.invalid(self._field(name), "" if value is None else value, msg)

    def _plain(self, msg: str) -> FieldError:
        """A non-Validation kube-openapi error: reported at fldPath with an empty value."""
        return FieldError.invalid(self.prefix, "", msg)

    def run(self, data: Any, s: Schema, name: str, out: list[FieldError]) -> None:
        types = _types_of(s)
        fmt = supported_format(types[0] if len(types) == 1 else None, s.format)
        if data is None:
            if types and not s.nullable:
                out.append(self._type_err(name, ",".join(types), "null"))
            if s.raw.get("enum"):
                self._enum(data, s, name, out)
            return
        if types or fmt:
            self._type(data, types, fmt, name, out)
        raw = s.raw
        if "allOf" in raw or "anyOf" in raw or "oneOf" in raw or "not" in raw:
            self._junctors(data, s, name, out)
        if isinstance(data, str):
            self._string(data, s, name, out)
            if fmt is not None:
                check = _FORMAT_CHECKS.get(fmt.replace("-", ""))
                if check is not None and not check(data):
                    out.append(self._type_err(name, fmt, data))
        elif isinstance(data, int | float) and not isinstance(data, bool):
            self._number(data, s, types, fmt, name, out)
        elif isinstance(data, list):
            self._slice(data, s, name, out)
        if raw.get("enum"):
            self._enum(data, s, name, out)
        if isinstance(data, Mapping):
            self._object(data, s, name, out)

    def _type(self, data: Any, types: tuple[str, ...], fmt: str | None, name: str, out: list[FieldError]) -> None:
        sch_type, go_fmt = _type_info(data)
        is_float_int = sch_type == "number" and float(data).is_integer() and "integer" in types
        is_int_float = sch_type == "integer" and "number" in types
        str_or_slice = isinstance(data, str | list)
        if fmt and not str_or_slice and not (sch_type in types or go_fmt == fmt or is_float_int or is_int_float):
            out.append(self._type_err(name, fmt, go_fmt))
            return
        if fmt and str_or_slice and "number" not in types and "integer" not in types:
            return
        if not (sch_type in types or is_float_int or is_int_float):
            out.append(self._type_err(name, ",".join(types), sch_type))

    def _junctors(self, data: Any, s: Schema, name: str, out: list[FieldError]) -> None:
        """schemaPropsValidator: anyOf, oneOf, allOf, not — in that order."""
        raw = s.raw
        path_q = _go_quote(name)
        any_of = raw.get("anyOf") or ()
        if any_of:
            best: list[FieldError] | None = None
            for clause in any_of:
                res: list[FieldError] = []
                self.run(data, _sub(s, clause), name, res)
                if not res:
                    best = None
                    break
                if best is None or len(res) < len(best):
                    best = res
            else:
                out.append(self._plain(f"{path_q} must validate at least one schema (anyOf)"))
            if best:
                out.extend(best)
        one_of = raw.get("oneOf") or ()
        if one_of:
            valid = 0
            best = None
            for clause in one_of:
                res = []
                self.run(data, _sub(s, clause), name, res)
                if not res:
                    valid += 1
                elif valid == 0 and (best is None or len(res) < len(best)):
                    best = res
            if valid != 1:
                extra = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                out.append(self._plain(f"{path_q} must validate one and only one schema (oneOf). {extra}"))
                if valid == 0 and best:
                    out.extend(best)
        all_of = raw.get("allOf") or ()
        if all_of:
            valid = 0
            for clause in all_of:
                res = []
                self.run(data, _sub(s, clause), name, res)
                if not res:
                    valid += 1
                out.extend(res)
            if valid != len(all_of):
                extra = ". None validated" if valid == 0 else ""
                out.append(self._plain(f"{path_q} must validate all the schemas (allOf){extra}"))
        not_ = raw.get("not")
        if isinstance(not_, Mapping):
            res = []
            self.run(data, _sub(s, not_), name, res)
            if not res:
                out.append(self._plain(f"{path_q} must not validate the schema (not)"))

    def _string(self, data: str, s: Schema, name: str, out: list[FieldError]) -> None:
        # stringValidator stops at the first failing keyword.
        max_len = s.get("maxLength")
        if max_len is not None and len(data) > max_len:
            detail = f"may not be more than {max_len} {'byte' if max_len == 1 else 'bytes'}"
            out.append(FieldError(kind="TooLong", field=self._field(name), detail=detail))
            return
        min_len = s.get("minLength")
        if min_len is not None and len(data) < min_len:
            out.append(self._invalid(name, data, f"{name} in {_IN} should be at least {min_len} chars long"))
            return
        pattern = s.get("pattern")
        if pattern:
            try:
                rx = _compile(pattern)
            except re.error as e:
                out.append(self._invalid(
                    name, data, f"{name} in {_IN} should match '{pattern}, but pattern is invalid: {e}'"
                ))
                return
            if rx.search(data) is None:
                out.append(self._invalid(name, data, f"{name} in {_IN} should match '{pattern}'"))

    def _number(
        self, data: int | float, s: Schema, types: tuple[str, ...], fmt: str | None, name: str,
        out: list[FieldError],
    ) -> None:
        type_name = types[0] if len(types) == 1 and types[0] in ("integer", "number") else ""
        if type_name == "integer":
            lo, hi = _INT32 if fmt == "int32" else _INT64
            if not (float(data).is_integer() and lo <= data <= hi):
                shown = f"with format {fmt}" if fmt else "(default format)"
                out.append(self._plain(f"Checked value must be of type integer {shown} in {name}"))
        elif type_name == "number" and fmt == "float" and abs(data) > _FLOAT32_MAX:
            out.append(self._plain(f"Checked value must be of type number with format float in {name}"))
        is_int = isinstance(data, int)
        factor = s.get("multipleOf")
        if factor is not None:
            self._multiple_of(data, factor, is_int, name, out)
        minimum = s.get("minimum")
        if minimum is not None:
            excl = bool(s.get("exclusiveMinimum"))
            # MinimumNativeType: integer data is compared with the limit truncated to int64.
            lim: int | float = int(minimum) if is_int else float(minimum)
            if data < lim or (excl and data == lim):
                word = "greater than" if excl else "greater than or equal to"
                out.append(self._invalid(name, data, f"{name} in {_IN} should be {word} {go_value(lim)}"))
        maximum = s.get("maximum")
        if maximum is not None:
            excl = bool(s.get("exclusiveMaximum"))
            lim = int(maximum) if is_int else float(maximum)
            if data > lim or (excl and data == lim):
                word = "less than" if excl else "less than or equal to"
                out.append(self._invalid(name, data, f"{name} in {_IN} should be {word} {go_value(lim)}"))

    def _multiple_of(self, data: int | float, factor: float, is_int: bool, name: str, out: list[FieldError]) -> None:
        if is_int and float(factor).is_integer():
            f_int = int(factor)
            if f_int <= 0:
                out.append(self._invalid(name, f_int, f"factor MultipleOf declared for {name} must be positive: {f_int}"))
            elif int(data) % f_int:
                out.append(self._invalid(name, data, f"{name} in {_IN} should be a multiple of {f_int}"))
            return
        f = float(factor)
        if f <= 0:
            out.append(self._invalid(name, f, f"factor MultipleOf declared for {name} must be positive: {_go_float(f)}"))
            return
        mult = (1 / f) * data if f < 1 else data / f
        if not mult.is_integer():
            out.append(self._invalid(name, data, f"{name} in {_IN} should be a multiple of {_go_float(f)}"))

    def _slice(self, data: list[Any], s: Schema, name: str, out: list[FieldError]) -> None:
        items = s.items
        if items is not None:
            for i, v in enumerate(data):
                self.run(v, items, f"{name}[{i}]", out)
        size = len(data)
        min_items = s.get("minItems")
        if min_items is not None and size < min_items:
            out.append(self._invalid(name, size, f"{name} in {_IN} should have at least {min_items} items"))
        max_items = s.get("maxItems")
        if max_items is not None and size > max_items:
            out.append(_too_many(self._field(name), size, max_items))
        if s.get("uniqueItems") and any(
            _json_equal(data[i], data[j]) for i in range(size) for j in range(i)
        ):
            out.append(self._invalid(name, None, f"{name} in {_IN} shouldn't contain duplicates"))

    def _enum(self, data: Any, s: Schema, name: str, out: list[FieldError]) -> None:
        enum = s.enum or []
        if data is not None and any(_json_equal(data, e) for e in enum):
            return
        supported = [e if isinstance(e, str) else msgspec.json.encode(e).decode() for e in enum]
        out.append(FieldError.not_supported(self._field(name), data, supported))

    def _object(self, data: Mapping[str, Any], s: Schema, name: str, out: list[FieldError]) -> None:
        n = len(data)
        min_p = s.get("minProperties")
        if min_p is not None and n < min_p:
            out.append(self._invalid(name, n, f"{name} in {_IN} should have at least {min_p} properties"))
        max_p = s.get("maxProperties")
        if max_p is not None and n > max_p:
            out.append(_too_many(self._field(name), n, max_p))
        props = s.properties
        ap = s.raw.get("additionalProperties")
        if ap is False:
            for k in data:
                if k not in props:
                    out.append(self._invalid(name, k, f"{name}.{k} in {_IN} is a forbidden property"))
        elif isinstance(ap, Mapping):
            ap_schema = s.additional_properties
            assert ap_schema is not None
            for k, v in data.items():
                if k not in props:
                    self.run(v, ap_schema, f"{name}.{k}", out)
        for k, sub in props.items():
            if k in data:
                self.run(data[k], sub, f"{name}.{k}" if name else k, out)
        for k in s.required:
            if k not in data:
                out.append(FieldError.required(self._field(f"{name}.{k}")))


def _too_many(field: str, actual: int, limit: int) -> FieldError:
    items = "item" if limit == 1 else "items"
    return FieldError(kind="TooMany", field=field, detail=f"{actual}: must have at most {limit} {items}")


# --- list-type uniqueness (pkg/apiserver/schema/listtype/validation.go) ----------------------------


def _key_of(v: Any) -> Any:
    """A hashable identity for a JSON value (sets compare compound values by their JSON form)."""
    if isinstance(v, Mapping | list):
        return ("json", msgspec.json.encode(v, order="sorted"))
    if isinstance(v, bool):
        return ("bool", v)
    # Go keys int64(1) and float64(1) apart, and so do we.
    return (type(v).__name__, v)


def _non_unique(keys: list[Any]) -> list[int]:
    """Indices of the second appearance of every repeated key (upstream ``validateListSet``)."""
    seen: dict[Any, int] = {}
    dup: list[int] = []
    for i, k in enumerate(keys):
        times = seen.get(k, 0)
        if times == 1:
            dup.append(i)
        seen[k] = times + 1
    return dup


def validate_list_types(obj: Any, schema: Schema, path: str = "") -> list[FieldError]:
    """``x-kubernetes-list-type`` set/map uniqueness, recursively (``ValidateListSetsAndMaps``)."""
    out: list[FieldError] = []
    _list_walk(obj, schema, path, out)
    return out


def _list_walk(x: Any, s: Schema | None, path: str, out: list[FieldError]) -> None:
    if s is None:
        return
    if isinstance(x, Mapping):
        ap = s.additional_properties
        props = s.properties
        if ap is not None:
            for k, v in x.items():
                _list_walk(v, ap, f"{path}[{k}]", out)
        if props:
            for k, v in x.items():
                sub = props.get(k)
                if sub is not None:
                    _list_walk(v, sub, f"{path}.{k}" if path else k, out)
    elif isinstance(x, list):
        lt = s.list_type
        if lt == "set":
            for i in _non_unique([_key_of(v) for v in x]):
                out.append(FieldError.duplicate(f"{path}[{i}]", x[i]))
        elif lt == "map":
            _list_map(x, s, path, out)
        items = s.items
        if items is not None:
            for i, v in enumerate(x):
                _list_walk(v, items, f"{path}[{i}]", out)


def _list_map(x: list[Any], s: Schema, path: str, out: list[FieldError]) -> None:
    for i, v in enumerate(x):
        if v is not None and not isinstance(v, Mapping):
            out.append(FieldError.invalid(f"{path}[{i}]", v, "must be an object for an array of list-type map"))
            return
    if len(x) <= 1:
        return
    key_fields = s.list_map_keys
    key_maps = [
        {k: v[k] for k in key_fields if k in v} if isinstance(v, Mapping) else {} for v in x
    ]
    for i in _non_unique([_key_of(km) for km in key_maps]):
        out.append(FieldError.duplicate(f"{path}[{i}]", key_maps[i]))


def validate(obj: Any, schema: Schema, *, path: str = "") -> list[FieldError]:
    """Every OpenAPI and list-type violation of ``obj`` against ``schema`` (see module doc)."""
    out: list[FieldError] = []
    _Validator(path).run(obj, schema, "", out)
    out.extend(validate_list_types(obj, schema, path))
    return out
