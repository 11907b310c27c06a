"""Times as kubectl shows them, computed from virtual time (never the wall clock).

- :func:`human_duration` is apimachinery's ``util/duration.HumanDuration`` ("5s", "2m30s", "10m",
  "3h4m", "5d"); :func:`since` is kubectl's ``translateTimestampSince`` ("<unknown>" for no timestamp).
- :func:`rfc1123z` is the ``time.RFC1123Z`` layout ``kubectl describe`` prints absolute times in
  ("Wed, 01 Jan 2025 00:00:00 +0000"); times are UTC.
Pure functions: ``now`` is always passed in, so the same objects print the same bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from kubelite.api.duration import human_duration
from kubelite.clock import parse_time

__all__ = ["human_duration", "rfc1123z", "since", "timestamp"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


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
