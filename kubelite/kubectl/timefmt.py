"""Times as kubectl shows them, computed from virtual time (never the wall clock).

- :func:`human_duration` is apimachinery's ``util/duration.HumanDuration`` ("5s", "2m30s", "10m",
  "3h4m", "5d"); :func:`since` is kubectl's ``translateTimestampSince`` ("<unknown>" for no timestamp).
- :func:`rfc1123z` is the ``time.RFC1123Z`` layout ``kubectl describe`` prints absolute times in
  ("Wed, 01 Jan 2025 00:00:00 +0000"); times are UTC.
Pure functions: ``now`` is always passed in, so the same objects print the same bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from kubelite.clock import parse_time

__all__ = ["human_duration", "rfc1123z", "since", "timestamp"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``: up to 2 s in the future counts as now (clock skew tolerance)."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rest = s % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if rest == 0 else f"{hours // 24 // 365}y{rest}d"
    return f"{hours // 24 // 365}y"


def timestamp(ts: str | None) -> float | None:
    return parse_time(ts) if ts else None


def since(ts: str | None, now: float) -> str:
    """``translateTimestampSince``."""
    t = timestamp(ts)
    return "<unknown>" if t is None else human_duration(now - t)


def rfc1123z(ts: str | None) -> str:
    """``t.Format(time.RFC1123Z)`` in UTC ("<unknown>" without a timestamp)."""
    t = timestamp(ts)
    if t is None:
        return "<unknown>"
    d = datetime.fromtimestamp(t, UTC)
    return f"{_DAYS[d.weekday()]}, {d.day:02d} {_MONTHS[d.month - 1]} {d.year} {d:%H:%M:%S} +0000"
