"""Ages as apimachinery's duration.HumanDuration prints them, and RFC 1123Z times."""

from __future__ import annotations

import pytest

from kubelite.clock import EPOCH
from kubelite.kubectl.timefmt import human_duration, rfc1123z, since


@pytest.mark.parametrize(
    ("seconds", "want"),
    [(-5, "<invalid>"), (-1, "0s"), (0, "0s"), (5.9, "5s"), (119, "119s"), (120, "2m"), (150, "2m30s"),
     (599, "9m59s"), (600, "10m"), (179 * 60, "179m"), (3 * 3600 + 4 * 60, "3h4m"), (5 * 3600, "5h"),
     (8 * 3600, "8h"), (47 * 3600, "47h"), (5 * 86400, "5d"), (5 * 86400 + 3 * 3600, "5d3h"),
     (30 * 86400, "30d"), (3 * 365 * 86400, "3y"), (3 * 365 * 86400 + 86400, "3y1d"), (9 * 365 * 86400, "9y")],
    ids=lambda v: str(v),
)
def test_human_duration(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


def test_since_and_rfc1123z() -> None:
    assert since("2025-01-01T00:00:00Z", EPOCH + 75) == "75s"
    assert since(None, EPOCH) == "<unknown>"
    assert rfc1123z("2025-01-01T00:01:05Z") == "Wed, 01 Jan 2025 00:01:05 +0000"
    assert rfc1123z(None) == "<unknown>"
