"""tests/conftest.py's ``--test-order``: the collected tests in another order, to find order dependencies
(``python -m pytest --test-order=reverse-files tests/...``)."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ITEMS = ["a.py::t1", "a.py::t2", "b.py::t1", "c.py::t1", "c.py::t2"]


def _conftest(config: pytest.Config) -> ModuleType:
    return next(p for p in config.pluginmanager.get_plugins()
                if isinstance(p, ModuleType) and (p.__file__ or "").endswith("tests/conftest.py"))


def _order(config: pytest.Config, mode: str) -> list[str]:
    items: list[Any] = [SimpleNamespace(nodeid=n) for n in ITEMS]
    return [i.nodeid for i in _conftest(config).reorder(items, mode)]


@pytest.mark.parametrize(("mode", "expected"), [
    ("reverse-files", ["c.py::t1", "c.py::t2", "b.py::t1", "a.py::t1", "a.py::t2"]),
    ("reverse", list(reversed(ITEMS))),
], ids=["reverse-files", "reverse"])
def test_reversed_orders(pytestconfig: pytest.Config, mode: str, expected: list[str]) -> None:
    assert _order(pytestconfig, mode) == expected


def test_shuffles_are_seeded_and_keep_each_files_tests_together(pytestconfig: pytest.Config) -> None:
    orders = {tuple(_order(pytestconfig, f"shuffle-files:{seed}")) for seed in range(20)}
    assert len(orders) > 1 and tuple(_order(pytestconfig, "shuffle-files:3")) in orders
    for order in orders:
        files = [n.partition("::")[0] for n in order]
        assert sorted(order) == sorted(ITEMS)
        runs = [f for i, f in enumerate(files) if i == 0 or files[i - 1] != f]
        assert len(runs) == len(set(runs)) == 3  # each file's tests run together
        assert [n for n in order if n.startswith("c.py")] == ["c.py::t1", "c.py::t2"]
    assert _order(pytestconfig, "shuffle:5") == _order(pytestconfig, "shuffle:5")


def test_an_unknown_mode_is_a_usage_error(pytestconfig: pytest.Config) -> None:
    with pytest.raises(pytest.UsageError, match="unknown mode 'sideways'"):
        _order(pytestconfig, "sideways")
