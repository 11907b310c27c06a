"""The README's test command prints pytest's summary line (``N passed in Xs``) on a green run, and so does a
``-q`` run, as the guide's targeted runs use: pyproject's ``addopts`` must not already hold a ``-q``, which a
second ``-q`` turns into ``-qq`` (verbosity -2), where pytest prints no summary line at all."""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> list[str]:
    """The arguments of the README quick start's ``python -m pytest`` line."""
    (line,) = re.findall(r"^python3? -m pytest\b(.*)$", (ROOT / "README.md").read_text(), re.MULTILINE)
    return shlex.split(line)


def _toml_value(v: object) -> str:
    return "[" + ", ".join(_toml_value(x) for x in v) + "]" if isinstance(v, list) else repr(v).replace("'", '"')


@pytest.mark.parametrize("extra", [[], ["-q"]], ids=["as-written", "with-q"])
def test_a_green_run_prints_the_summary_line(pytester: pytest.Pytester, extra: list[str]) -> None:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    ini = {k: v for k, v in ini.items() if k != "testpaths"}  # this run collects the module below only
    pytester.makefile(".toml", pyproject="[tool.pytest.ini_options]\n" +
                      "".join(f"{k} = {_toml_value(v)}\n" for k, v in ini.items()))
    pytester.makepyfile(test_green="def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    result = pytester.runpytest_inprocess(*readme_test_command(), *extra, "-p", "no:cacheprovider", "test_green.py")
    assert result.ret == 0
    assert any(re.fullmatch(r"=*\s*2 passed in [\d.]+s( \([\d:]+\))?\s*=*", line) for line in result.outlines), (
        f"no summary line in:\n{result.stdout.str()}\n(addopts: {ini.get('addopts')!r}, python {sys.version_info[:2]})")
