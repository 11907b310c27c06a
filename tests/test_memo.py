"""kubelite.memo: the one bounded-cache helper behind every module-level memo table."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

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


def test_a_module_imported_afresh_replaces_its_tables_and_another_module_may_not_take_a_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester's in-process runs unload the modules a run imported, so the next run imports them afresh and
    re-declares the same tables: the fresh ones replace the old. Before, that second import raised "a memo
    table named 'workload.valid_reference' already exists" (tests/testing/test_plugin.py run on its own)."""
    import kubelite.workload

    old = kubelite.workload
    monkeypatch.setattr(kubelite, "workload", old)  # the import below rebinds it; restored afterwards
    monkeypatch.setattr(memo, "_REGISTRY", dict(memo._REGISTRY))  # restored afterwards, with sys.modules
    monkeypatch.setattr(memo, "_OWNERS", dict(memo._OWNERS))
    before = {s.name for s in memo.statistics()}
    monkeypatch.delitem(sys.modules, "kubelite.workload")
    fresh = importlib.import_module("kubelite.workload")
    assert fresh is not old
    assert {s.name for s in memo.statistics()} == before
    assert fresh.valid_reference("nginx:1.25")
    assert next(s for s in memo.statistics() if s.name == "workload.valid_reference").size == 1
    other: dict[str, Any] = {"__name__": "tests.some_other_module"}
    with pytest.raises(ValueError, match=r"'workload\.valid_reference' already exists"):
        exec("from kubelite.memo import memoize\n"
             "@memoize('workload.valid_reference', maxsize=1)\ndef f(x): return x\n", other)


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
