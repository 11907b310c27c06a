"""Name, label and annotation rules, with upstream's exact error wording.

Follows ``k8s.io/apimachinery``: ``pkg/util/validation/validation.go`` and ``ip.go`` (DNS names, ports,
IPs, percents), ``pkg/api/validate/content`` (label keys and values, C identifiers), and
``pkg/api/validation/generic.go`` / ``objectmeta.go`` plus ``pkg/apis/meta/v1/validation`` (the
``NameIsDNS*`` name functions, ``ValidateLabels``, ``ValidateAnnotations``).

Contract:
- Every ``is_*`` function returns a list of problem descriptions worded exactly as upstream words them;
  an empty list means valid. Callers wrap them into :class:`kubelite.errors.FieldError` values.
- Lengths are counted in UTF-8 bytes, as Go's ``len`` does.
- Pure functions over immutable inputs; regexes are compiled once at import.

Upstream has two generations of these helpers with different length messages: the ``content`` package
(label keys/values and their DNS prefix) says "must be no more than N bytes", ``util/validation`` (object
names) says "must be no more than N characters". Each function here uses the one upstream calls.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Final

from kubelite.errors import FieldError

__all__ = [
    "TOTAL_ANNOTATION_SIZE_LIMIT",
    "is_c_identifier",
    "is_config_map_key",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_ip",
    "is_valid_label_value",
    "is_valid_percent",
    "is_valid_port_name",
    "is_valid_port_num",
    "name_is_dns1035_label",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "validate_annotations",
    "validate_label_name",
    "validate_labels",
]

TOTAL_ANNOTATION_SIZE_LIMIT: Final = 256 * (1 << 10)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Upstream ``RegexError``, including its double space between examples."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _blen(v: str) -> int:
    return len(v) if v.isascii() else len(v.encode())


# --- DNS names (util/validation) ------------------------------------------------------------------------

_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)

_DNS1123_LABEL_MSG: Final = _regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character",
    _DNS1123_LABEL_FMT, "my-name", "123-abc",
)
_DNS1123_SUBDOMAIN_MSG: Final = _regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character",
    _DNS1123_SUBDOMAIN_FMT, "example.com",
)
_DNS1035_LABEL_MSG: Final = _regex_error(
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character",
    _DNS1035_LABEL_FMT, "my-name", "abc-123",
)


def _dns1123_subdomain(value: str, unit: str) -> list[str]:
    errs = []
    if _blen(value) > 253:
        errs.append(f"must be no more than 253 {unit}")
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_DNS1123_SUBDOMAIN_MSG)
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """``validation.IsDNS1123Subdomain``: object names such as ``example.com``."""
    return _dns1123_subdomain(value, "characters")


def is_dns1123_label(value: str) -> list[str]:
    """``validation.IsDNS1123Label``: namespace names, service names, ..."""
    errs = []
    if _blen(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(_DNS1123_LABEL_MSG)
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """``validation.IsDNS1035Label``."""
    errs = []
    if _blen(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(_DNS1035_LABEL_MSG)
    return errs


# --- label keys and values (api/validate/content) -------------------------------------------------------

_LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT: Final = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_LABEL_KEY_MSG: Final = _regex_error(
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character",
    _LABEL_KEY_FMT, "MyName", "my.name", "123-abc",
)
_LABEL_KEY_SHAPE_MSG: Final = (
    "a valid label key " + _LABEL_KEY_MSG + " with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)
_LABEL_VALUE_MSG: Final = _regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character",
    _LABEL_VALUE_FMT, "MyValue", "my_value", "12345",
)


def is_qualified_name(value: str) -> list[str]:
    """``content.IsLabelKey`` (a.k.a. ``IsQualifiedName``): ``[prefix/]name``."""
    if _LABEL_KEY_RE.fullmatch(value) and len(value) <= 63:  # fast path: no prefix, valid name
        return []
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _dns1123_subdomain(prefix, "bytes"))
    else:
        return [_LABEL_KEY_SHAPE_MSG]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + _LABEL_KEY_MSG)
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """``content.IsLabelValue``: empty, or up to 63 bytes of ``[-A-Za-z0-9_.]`` framed by alphanumerics."""
    errs = []
    if _blen(value) > 63:
        errs.append("must be no more than 63 bytes")
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_LABEL_VALUE_MSG)
    return errs


_C_IDENTIFIER_FMT: Final = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)
_C_IDENTIFIER_MSG: Final = _regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_'",
    _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName",
)


def is_c_identifier(value: str) -> list[str]:
    """``content.IsCIdentifier`` (format only, no length limit)."""
    return [] if _C_IDENTIFIER_RE.fullmatch(value) else [_C_IDENTIFIER_MSG]


# --- ports, percents, config keys, IPs (util/validation) ------------------------------------------------


def is_valid_port_num(port: int) -> list[str]:
    """``validation.IsValidPortNum``: 1..65535."""
    return [] if 1 <= port <= 65535 else ["must be between 1 and 65535, inclusive"]


_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER_RE = re.compile("[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    """``validation.IsValidPortName`` (IANA_SVC_NAME)."""
    errs = []
    if _blen(port) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARSET_RE.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER_RE.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


_PERCENT_FMT: Final = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT_FMT)
_PERCENT_MSG: Final = _regex_error(
    "a valid percent string must be a numeric string followed by an ending '%'", _PERCENT_FMT, "1%", "93%"
)


def is_valid_percent(percent: str) -> list[str]:
    """``validation.IsValidPercent``: ``"25%"``."""
    return [] if _PERCENT_RE.fullmatch(percent) else [_PERCENT_MSG]


_CONFIG_MAP_KEY_FMT: Final = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_RE = re.compile(_CONFIG_MAP_KEY_FMT)
_CONFIG_MAP_KEY_MSG: Final = _regex_error(
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
    _CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name",
)


def is_config_map_key(value: str) -> list[str]:
    """``validation.IsConfigMapKey``: keys of ConfigMap and Secret data."""
    errs = []
    if _blen(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_MAP_KEY_RE.fullmatch(value):
        errs.append(_CONFIG_MAP_KEY_MSG)
    if value == ".":
        errs.append("must not be '.'")
    elif value == "..":
        errs.append("must not be '..'")
    elif value.startswith(".."):
        errs.append("must not start with '..'")
    return errs


_SLOPPY_IPV4_RE = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)")


def _unzero_ipv4(v: str) -> str | None:
    """``v`` with leading zeros dropped from its octets if it is a dotted quad Go's sloppy parser takes."""
    m = _SLOPPY_IPV4_RE.fullmatch(v)
    if m is None or any(int(octet) > 255 for octet in m.groups()):
        return None
    return ".".join(str(int(octet)) for octet in m.groups())


def is_valid_ip(value: str) -> list[str]:
    """``validation.IsValidIP`` (strict): a valid IP, without leading zeros, not IPv4-mapped, canonical."""
    leading_zeros = False
    addr: ipaddress.IPv4Address | ipaddress.IPv6Address | None = None
    if "%" not in value:  # Go's parser has no IPv6 zones
        try:
            addr = ipaddress.ip_address(value)
        except ValueError:
            # netutils.ParseIPSloppy also accepts leading zeros in IPv4 octets (also when embedded in IPv6).
            head, sep, tail = value.rpartition(":")
            fixed = _unzero_ipv4(tail)
            if fixed is not None:
                try:
                    addr = ipaddress.ip_address(head + sep + fixed)
                    leading_zeros = True
                except ValueError:
                    addr = None
    if addr is None:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    errs = []
    if leading_zeros:
        errs.append("must not have leading 0s")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        errs.append("must not be an IPv4-mapped IPv6 address")
    if errs:
        return errs
    canonical = str(addr)
    if value != canonical:
        return [f'must be in canonical form ("{canonical}")']
    return []


# --- object names (api/validation/generic.go) -----------------------------------------------------------


def _mask_trailing_dash(name: str) -> str:
    # Upstream maskTrailingDash: drops the last *two* characters and appends "a" (sic).
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSSubdomain``; with ``prefix`` (a generateName) a trailing '-' is allowed."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSLabel`` (also ``ValidateNamespaceName``)."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNS1035Label`` (service names)."""
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


# --- labels and annotations (meta/v1/validation, api/validation/objectmeta.go) --------------------------


def validate_label_name(name: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``: one Invalid error per problem with the key."""
    return [FieldError.invalid(path, name, msg) for msg in is_qualified_name(name)]


def validate_labels(labels: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: every key a qualified name, every value a label value (errors at ``path``)."""
    errs: list[FieldError] = []
    if not labels:
        return errs
    for k, v in labels.items():
        errs.extend(FieldError.invalid(path, k, msg) for msg in is_qualified_name(k))
        errs.extend(FieldError.invalid(path, v, msg) for msg in is_valid_label_value(v))
    return errs


def validate_annotations(annotations: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys are case-insensitive qualified names; keys+values <= 256 KiB in total."""
    errs: list[FieldError] = []
    if not annotations:
        return errs
    chars = 0
    for k, v in annotations.items():
        errs.extend(FieldError.invalid(path, k, msg) for msg in is_qualified_name(k.lower()))
        chars += len(k) + len(v)
    # UTF-8 needs 1..4 bytes per character: only count bytes when characters alone cannot decide.
    if chars > TOTAL_ANNOTATION_SIZE_LIMIT or (
        chars * 4 > TOTAL_ANNOTATION_SIZE_LIMIT
        and sum(_blen(k) + _blen(v) for k, v in annotations.items()) > TOTAL_ANNOTATION_SIZE_LIMIT
    ):
        errs.append(FieldError.too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs
