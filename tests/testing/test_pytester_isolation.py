"""pytester's in-process runs keep the library modules a run imported (tests/conftest.py).

Plain pytester unloads every module a run imported. A lazy package (kubelite.lazy) imported before the run
keeps the names it cached and the submodules bound on it, so after the run they point at modules that are
gone from ``sys.modules``: every later test in the process then saw ``kubelite.api.types.Pod`` from an
unloaded ``core_v1`` ("name 'meta_v1' is not defined", "Pod is not a registered resource kind"; the suite
passed only because tests/testing ran after the tests that failed so). This test makes its own lazy package,
outside pytest's temporary directories, so it holds whatever ran before it in the process.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

pytest_plugins = ["pytester"]

PACKAGE = "kubelite_isolation_pkg"
ARGS = ("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function")


@pytest.fixture
def lazy_package() -> Iterator[str]:
    """A package with kubelite.lazy exports whose Struct's string annotation names a sibling module."""
    with tempfile.TemporaryDirectory() as root:
        pkg = Path(root) / PACKAGE
        pkg.mkdir()
        (pkg / "__init__.py").write_text(textwrap.dedent(f"""
            from kubelite.lazy import lazy_exports
            __getattr__, __dir__ = lazy_exports(__name__, {{"Thing": "{PACKAGE}.things"}})
        """))
        (pkg / "meta.py").write_text("import msgspec\n\nclass Meta(msgspec.Struct):\n    name: str = ''\n")
        (pkg / "things.py").write_text(textwrap.dedent(f"""
            from __future__ import annotations
            import msgspec
            from {PACKAGE} import meta

            class Thing(msgspec.Struct):
                metadata: meta.Meta = msgspec.field(default_factory=meta.Meta)
        """))
        sys.path.insert(0, root)
        try:
            importlib.import_module(PACKAGE)
            yield PACKAGE
        finally:
            sys.path.remove(root)
            for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                del sys.modules[name]


def test_a_lazy_name_first_read_inside_a_run_stays_usable_after_it(
        lazy_package: str, pytester: pytest.Pytester) -> None:
    package = sys.modules[lazy_package]
    assert f"{lazy_package}.things" not in sys.modules
    pytester.makepyfile(test_inner=f"""
        import {lazy_package}

        def test_reads_the_lazy_name():
            assert {lazy_package}.Thing().metadata.name == ""
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)
    assert "test_inner" not in sys.modules  # the run's own test module is still unloaded
    thing = package.Thing  # cached on the package by the run's first read
    assert sys.modules[f"{lazy_package}.things"].Thing is thing
    # msgspec resolves the string annotation in sys.modules[Thing.__module__]: before, the module was gone
    # and this raised NameError("name 'meta' is not defined")
    assert msgspec.json.decode(b'{"metadata": {"name": "x"}}', type=thing).metadata.name == "x"


def test_the_kubelite_types_a_run_used_are_the_ones_the_process_has(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_types="""
        import msgspec
        from kubelite.api import types

        def test_types():
            assert msgspec.json.decode(b'{"metadata": {"name": "x"}}', type=types.PodDisruptionBudget)
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)
    from kubelite.api import types
    from kubelite.api.resources import Registry

    pdb = types.PodDisruptionBudget
    assert sys.modules[pdb.__module__].PodDisruptionBudget is pdb
    assert msgspec.json.decode(b'{"metadata": {"name": "x"}}', type=pdb).metadata.name == "x"
    assert Registry().for_struct(pdb).plural == "poddisruptionbudgets"
