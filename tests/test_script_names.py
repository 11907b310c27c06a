"""No script directory shadows a module: ``python bench/X.py`` puts ``bench/`` first on ``sys.path``, so a
``bench/http.py`` was what ``import http`` found for every library the script loaded (PyJWT's
``http.client``, uvicorn's ``http.HTTPStatus``), and each script had to edit ``sys.path`` to run at all."""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the directories whose files are run as scripts (``python bench/http_api.py``, ``python tools/gen_api.py``)
SCRIPT_DIRS = ("bench", "tools", "examples/webapp")


@pytest.fixture(scope="module")
def taken() -> set[str]:
    """The standard library's module names and every top-level module importable here."""
    scripts = {str(ROOT / d) for d in SCRIPT_DIRS}
    path = [p for p in sys.path if str(Path(p or ".").resolve()) not in scripts]
    return set(sys.stdlib_module_names) | {m.name for m in pkgutil.iter_modules(path)}


@pytest.mark.parametrize("directory", SCRIPT_DIRS)
def test_no_script_is_named_after_a_stdlib_or_installed_module(directory: str, taken: set[str]) -> None:
    assert {"http", "yaml", "msgspec"} <= taken
    scripts = sorted(p.stem for p in (ROOT / directory).glob("*.py"))
    assert scripts, f"{directory} has no scripts: the check would pass on nothing"
    assert [name for name in scripts if name in taken] == []
