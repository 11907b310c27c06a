"""kubelite.memo: the one bounded-cache helper behind every module-level memo table."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

import kubelite.cluster
import kubelite.controllers.controller_utils
import kubelite.controllers.podutil  # noqa: F401
from kubelite import memo
from kubelite.memo import BoundedCache, CacheStatistics, memoize

ROOT = Path(__file__).resolve().parent.parent / "kubelite"


def test_bounded_cache_evicts_the_least_recently_used() -> None:
    c: BoundedCache[str, int] = BoundedCache(None, maxsize=2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # "a" is now the most recent
    c.put("c", 3)
    assert "b" not in c and c.get("a") == 1 and c.get("c") == 3
    assert c.get("b") is None
    st = c.statistics()
    assert (st.size, st.hits, st.misses, st.evictions, st.maxsize) == (2, 3, 1, 1, 2)
    with pytest.raises(AttributeError):
        st.hits = 0  # type: ignore[misc]  # a frozen record, not live counters


def test_statistics_are_a_snapshot() -> None:
    c: BoundedCache[int, int] = BoundedCache(None, maxsize=4)
    before = c.statistics()
    c.put(1, 1)
    c.get(1)
    assert before.hits == 0 and c.statistics().hits == 1


def test_memoize_bounds_and_counts() -> None:
    calls = []

    @memoize("tests.memo.square", maxsize=2)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    for x in (1, 2, 1, 3, 2):
        square(x)
    assert calls == [1, 2, 3, 2]  # 2 was evicted by 3 (1 had been used more recently)
    st = next(s for s in memo.statistics() if s.name == "tests.memo.square")
    assert (st.size, st.hits, st.misses, st.evictions) == (2, 1, 4, 2)


def test_names_are_unique_and_bounds_positive() -> None:
    BoundedCache("tests.memo.dup", maxsize=1)
    with pytest.raises(ValueError, match="already exists"):
        BoundedCache("tests.memo.dup", maxsize=1)
    with pytest.raises(ValueError, match="at least 1"):
        BoundedCache(None, maxsize=0)


def test_every_memo_table_is_bounded_and_registered() -> None:
    """No module keeps its own ad-hoc cache: functools caches with a size and module-level dict caches go
    through kubelite.memo, so each has a bound and shows up in memo.statistics()."""
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "memo.py":
            continue
        text = path.read_text()
        for m in re.finditer(r"functools\.lru_cache|^_\w*(?:CACHE|cache|_decoders)\w*\s*:\s*dict\[", text, re.M):
            offenders.append(f"{path.relative_to(ROOT.parent)}: {m.group(0)}")
    assert offenders == []
    names = {s.name for s in memo.statistics()}
    assert {"controllers.label_selector", "apiserver.rbac.rules", "api.quantity.parse_quantity",
            "api.codec.json_decoder", "controllers.podutil.parse_timestamp"} <= names
    assert all(isinstance(s, CacheStatistics) and s.size <= s.maxsize for s in memo.statistics())
    assert msgspec.structs.asdict(memo.statistics()[0]).keys() == {"name", "maxsize", "size", "hits", "misses",
                                                                    "evictions"}
