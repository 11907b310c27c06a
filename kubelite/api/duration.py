"""apimachinery's ``util/duration.HumanDuration``: "5s", "2m30s", "10m", "3h4m", "5d", "2y10d".

Pure: the caller passes the elapsed seconds (on cluster time), so the same objects print the same bytes.
Used by server-side printing (Tables) and by kubectl's printers.
"""

from __future__ import annotations

__all__ = ["human_duration"]


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
