"""Kubernetes' CEL format library (``k8s.io/apiserver/pkg/cel/library/format.go``).

``format.<name>()`` is a format; ``format.named(name)`` an optional of one; ``<format>.validate(s)`` is
``optional.none()`` when ``s`` is valid, else ``optional.of(<list of apimachinery's messages>)``. The
formats are upstream's: dns1123Label, dns1123Subdomain, dns1035Label, qualifiedName, dns1123LabelPrefix,
dns1123SubdomainPrefix, dns1035LabelPrefix, labelValue, uri, uuid, byte, date, datetime.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

from celpy import celtypes

from kubelite.api import names
from kubelite.apiserver.cel.environment import register, register_namespace
from kubelite.apiserver.cel.optional import NONE, Optional

__all__ = ["FORMATS", "Format"]

_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.IGNORECASE)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _uri(s: str) -> list[str]:
    # Go's url.ParseRequestURI: an absolute URI or an absolute path
    parsed = urllib.parse.urlsplit(s)
    if not s or (not parsed.scheme and not s.startswith("/")):
        return [f'parse "{s}": invalid URI for request']
    return []


def _uuid(s: str) -> list[str]:
    return [] if _UUID.match(s) else ["does not match the UUID format"]


def _byte(s: str) -> list[str]:
    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(s: str) -> list[str]:
    try:
        if not _DATE.match(s):
            raise ValueError(s)
        datetime.date.fromisoformat(s)
    except ValueError:
        return ["invalid date"]
    return []


def _datetime(s: str) -> list[str]:
    m = _DATETIME.match(s)
    try:
        if m is None:
            raise ValueError(s)
        datetime.date.fromisoformat(m.group(1))
        if int(m.group(2)) > 23 or int(m.group(3)) > 59 or int(m.group(4)) > 60:
            raise ValueError(s)
    except ValueError:
        return ["invalid datetime"]
    return []


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": lambda s: names.name_is_dns_label(s, False),
    "dns1123Subdomain": lambda s: names.name_is_dns_subdomain(s, False),
    "dns1035Label": lambda s: names.name_is_dns1035_label(s, False),
    "qualifiedName": names.is_qualified_name,
    "dns1123LabelPrefix": lambda s: names.name_is_dns_label(s, True),
    "dns1123SubdomainPrefix": lambda s: names.name_is_dns_subdomain(s, True),
    "dns1035LabelPrefix": lambda s: names.name_is_dns1035_label(s, True),
    "labelValue": names.is_valid_label_value,
    "uri": _uri,
    "uuid": _uuid,
    "byte": _byte,
    "date": _date,
    "datetime": _datetime,
}


class Format:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Format) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"format.{self.name}()"


class _Namespace:
    __slots__ = ()


def _validate(fmt: Any, s: Any) -> Optional:
    if not isinstance(fmt, Format) or not isinstance(s, str):
        raise TypeError("no such overload")
    errs = FORMATS[fmt.name](str(s))
    if not errs:
        return NONE
    return Optional(celtypes.ListType([celtypes.StringType(e) for e in errs]))


def _named(ns: Any, name: Any) -> Optional:
    if not isinstance(ns, _Namespace) or not isinstance(name, str):
        raise TypeError("no such overload")
    return Optional(Format(str(name))) if str(name) in FORMATS else NONE


def _constructor(name: str) -> Callable[[Any], Format]:
    def make(ns: Any) -> Format:
        if not isinstance(ns, _Namespace):
            raise TypeError("no such overload")
        return Format(name)
    return make


register_namespace("format", _Namespace())
register("validate", _validate)
register("named", _named, cost=False)
for _name in FORMATS:
    register(_name, _constructor(_name), cost=False)
