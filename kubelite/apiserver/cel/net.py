"""Kubernetes' CEL URL, IP and CIDR libraries (``urls.go``, ``ip.go``, ``cidr.go``).

URLs: ``url(s)`` (Go's ``url.ParseRequestURI`` rules: absolute URI or absolute path), ``isURL(s)``,
``getScheme``, ``getHost``, ``getHostname``, ``getPort``, ``getEscapedPath``, ``getQuery``.
IPs: ``ip(s)``, ``isIP(s)``, ``ip.isCanonical(s)``, ``family``, ``isUnspecified``, ``isLoopback``,
``isLinkLocalMulticast``, ``isLinkLocalUnicast``, ``isGlobalUnicast``; CIDRs: ``cidr(s)``, ``isCIDR(s)``,
``containsIP``, ``containsCIDR``, ``ip()``, ``masked()``, ``prefixLength()``. ``string(x)`` of an IP or
CIDR is not supported (celpy's ``string()`` is closed). Zone-scoped IPv6 addresses are rejected, as upstream.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Any

from celpy import celtypes

from kubelite.apiserver.cel.environment import error, register, register_namespace

__all__ = ["CIDR", "IP", "URL"]

_S = celtypes.StringType
_B = celtypes.BoolType


class URL:
    __slots__ = ("parts",)

    def __init__(self, parts: urllib.parse.SplitResult) -> None:
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.parts == self.parts

    def __hash__(self) -> int:
        return hash(self.parts)


def _parse_url(s: str) -> URL | None:
    if not s or (":" not in s.split("/", 1)[0] and not s.startswith("/")):
        return None
    try:
        parts = urllib.parse.urlsplit(s)
        _ = parts.port
    except ValueError:
        return None
    if not parts.scheme and not s.startswith("/"):
        return None
    return URL(parts)


def _url(s: Any) -> Any:
    if not isinstance(s, str):
        raise TypeError("no such overload")
    u = _parse_url(str(s))
    return u if u is not None else error(f"URL parse error during conversion from string: parse \"{s}\": "
                                          "invalid URI for request")


def _u(v: Any) -> urllib.parse.SplitResult:
    if not isinstance(v, URL):
        raise TypeError("no such overload")
    return v.parts


def _get_query(v: Any) -> celtypes.MapType:
    query = urllib.parse.parse_qs(_u(v).query, keep_blank_values=True)
    return celtypes.MapType({_S(k): celtypes.ListType([_S(x) for x in vals]) for k, vals in query.items()})


class IP:
    __slots__ = ("addr",)

    def __init__(self, addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.addr = addr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.addr == self.addr

    def __hash__(self) -> int:
        return hash(self.addr)


class CIDR:
    __slots__ = ("addr", "net")

    def __init__(self, addr: IP, net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> None:
        self.addr = addr
        self.net = net

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and other.addr == self.addr and other.net == self.net

    def __hash__(self) -> int:
        return hash(self.net)


def _parse_ip(s: str) -> IP | None:
    if "%" in s:
        return None
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None and "." in s:
        return None  # upstream rejects IPv4-mapped IPv6 in dotted form
    return IP(addr)


def _parse_cidr(s: str) -> CIDR | None:
    if "/" not in s:
        return None
    host, _, _bits = s.partition("/")
    ip = _parse_ip(host)
    if ip is None:
        return None
    try:
        net = ipaddress.ip_network(s, strict=False)
    except ValueError:
        return None
    return CIDR(ip, net)


class _Namespace:
    __slots__ = ()


def _ip(v: Any) -> Any:
    if isinstance(v, CIDR):
        return v.addr
    if not isinstance(v, str):
        raise TypeError("no such overload")
    ip = _parse_ip(str(v))
    return ip if ip is not None else error(f"IP Address '{v}' parse error during conversion from string: "
                                           f"ParseAddr(\"{v}\"): unable to parse IP")


def _ipv(v: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if not isinstance(v, IP):
        raise TypeError("no such overload")
    return v.addr


def _is_canonical(ns: Any, s: Any) -> Any:
    ip = _parse_ip(str(s)) if isinstance(s, str) else None
    if ip is None:
        return error(f"IP Address '{s}' parse error during conversion from string")
    return _B(str(ip.addr) == str(s))


def _cidr(v: Any) -> Any:
    if not isinstance(v, str):
        raise TypeError("no such overload")
    c = _parse_cidr(str(v))
    return c if c is not None else error(f"network address parse error during conversion from string: "
                                         f"network address parse error: {v}")


def _c(v: Any) -> CIDR:
    if not isinstance(v, CIDR):
        raise TypeError("no such overload")
    return v


def _contains_ip(c: Any, ip: Any) -> Any:
    if isinstance(ip, str):
        ip = _parse_ip(str(ip))
        if ip is None:
            return error("IP Address parse error during conversion from string")
    addr = _ipv(ip)
    return _B(addr.version == _c(c).net.version and addr in _c(c).net)


def _contains_cidr(c: Any, other: Any) -> Any:
    if isinstance(other, str):
        other = _parse_cidr(str(other))
        if other is None:
            return error("network address parse error during conversion from string")
    net, sub = _c(c).net, _c(other).net
    return _B(net.version == sub.version and sub.subnet_of(net))  # type: ignore[arg-type]


def _masked(c: Any) -> CIDR:
    net = _c(c).net
    return CIDR(IP(net.network_address), net)


register("url", _url)
register("isURL", lambda s: _B(isinstance(s, str) and _parse_url(str(s)) is not None))
register("getScheme", lambda u: _S(_u(u).scheme), cost=False)
register("getHost", lambda u: _S(_u(u).netloc.rpartition("@")[2]), cost=False)
register("getHostname", lambda u: _S(_u(u).hostname or ""), cost=False)
register("getPort", lambda u: _S(str(_u(u).port) if _u(u).port is not None else ""), cost=False)
register("getEscapedPath", lambda u: _S(urllib.parse.quote(urllib.parse.unquote(_u(u).path), safe="/:@!$&'()*+,;=-._~")),
         cost=False)
register("getQuery", _get_query, cost=False)
register_namespace("ip", _Namespace())
register("ip", _ip)
register("isIP", lambda s: _B(isinstance(s, str) and _parse_ip(str(s)) is not None))
register("isCanonical", _is_canonical)
register("family", lambda v: celtypes.IntType(_ipv(v).version), cost=False)
register("isUnspecified", lambda v: _B(_ipv(v).is_unspecified), cost=False)
register("isLoopback", lambda v: _B(_ipv(v).is_loopback), cost=False)
register("isLinkLocalMulticast", lambda v: _B(_ipv(v).is_multicast and (
    _ipv(v) in ipaddress.ip_network("224.0.0.0/24") if _ipv(v).version == 4
    else _ipv(v) in ipaddress.ip_network("ff02::/16"))), cost=False)
register("isLinkLocalUnicast", lambda v: _B(_ipv(v).is_link_local and not _ipv(v).is_multicast), cost=False)
register("isGlobalUnicast", lambda v: _B(not (_ipv(v).is_unspecified or _ipv(v).is_loopback or _ipv(v).is_multicast
                                              or _ipv(v).is_link_local
                                              or (_ipv(v).version == 4 and str(_ipv(v)) == "255.255.255.255"))),
         cost=False)
register("cidr", _cidr)
register("isCIDR", lambda s: _B(isinstance(s, str) and _parse_cidr(str(s)) is not None))
register("containsIP", _contains_ip, cost=False)
register("containsCIDR", _contains_cidr, cost=False)
register("masked", _masked, cost=False)
register("prefixLength", lambda c: celtypes.IntType(_c(c).net.prefixlen), cost=False)
