"""Shared fixtures: a fresh cluster on virtual time for every test."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import _pytest.pytester
import pytest
from hypothesis import HealthCheck, settings

from kubelite.cluster import Cluster

# Property tests judge behaviour, never speed: no per-example deadline and no "input generation is slow"
# health check, both of which fail on a loaded 2-core machine while the property holds. Derandomized, as
# every test here is deterministic: a failure reproduces on every run (explore with HYPOTHESIS_PROFILE=explore).
settings.register_profile("kubelite", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kubelite"))


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1) as c:
        yield c


class _KeepLibraryModules(_pytest.pytester.SysModulesSnapshot):
    """pytester's snapshot of ``sys.modules`` that unloads only the modules its runs loaded from the test
    directories pytester writes (the throwaway ``test_*.py`` and ``conftest.py`` of each run, so runs never
    see each other's), and keeps every library module a run imported.

    Plain pytester unloads every module imported while a run (or the test holding ``pytester``) ran. A
    package imported before keeps its attributes, though: the submodules the import system bound on it, and
    the names a lazy package (``kubelite.lazy``) cached on first read. Those then point at modules no longer
    in ``sys.modules``, so every later test in the process saw ``kubelite.api.types.Pod`` from an unloaded
    ``core_v1`` (its string annotations no longer resolve: "name 'meta_v1' is not defined"; the resource
    registry knows the re-imported class, not it: "Pod is not a registered resource kind"). Keeping what a
    run imported from outside its test directory is what an eager import would have left behind.
    """

    def __init__(self, preserve: Callable[[str], bool] | None = None, *, throwaway: Path) -> None:
        super().__init__(preserve)
        self._before = set(sys.modules)
        self._throwaway = throwaway

    def restore(self) -> None:
        kept = {name: module for name, module in sys.modules.items()
                if name not in self._before and not _loaded_from(module, self._throwaway)}
        super().restore()
        sys.modules.update(kept)


def _loaded_from(module: types.ModuleType | None, directory: Path) -> bool:
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).is_relative_to(directory)


@pytest.fixture(autouse=True)
def _pytester_keeps_library_modules(request: pytest.FixtureRequest) -> None:
    """Before a test's ``pytester`` is made, its module snapshots become :class:`_KeepLibraryModules`."""
    if "pytester" not in request.fixturenames:
        return
    throwaway = request.getfixturevalue("tmp_path_factory").getbasetemp()
    request.getfixturevalue("monkeypatch").setattr(
        _pytest.pytester, "SysModulesSnapshot",
        lambda preserve=None: _KeepLibraryModules(preserve, throwaway=throwaway))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--test-order", default=None, metavar="MODE",
        help="run the collected tests in another order, to find order dependencies: 'reverse-files' or "
             "'shuffle-files:SEED' (files reordered, each file's tests in their order), 'reverse' or "
             "'shuffle:SEED' (every test)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mode = config.getoption("--test-order")
    if mode:
        items[:] = reorder(items, mode)


def reorder(items: list[pytest.Item], mode: str) -> list[pytest.Item]:
    """``items`` in the order ``--test-order=MODE`` names (see :func:`pytest_addoption`)."""
    import random

    name, _, seed = mode.partition(":")
    rng = random.Random(int(seed or 0))
    if name in ("reverse", "shuffle"):
        out = list(items)
        if name == "reverse":
            out.reverse()
        else:
            rng.shuffle(out)
        return out
    if name not in ("reverse-files", "shuffle-files"):
        raise pytest.UsageError(f"--test-order: unknown mode {mode!r}")
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.partition("::")[0], []).append(item)
    groups = list(files.values())
    if name == "reverse-files":
        groups.reverse()
    else:
        rng.shuffle(groups)
    return [item for group in groups for item in group]
