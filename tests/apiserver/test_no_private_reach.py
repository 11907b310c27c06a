"""No module of the apiserver reaches into another's privates, and the server-side apply oracle depends
only on public functions (issue 13: the registry split and one path per behaviour).

Checked on the source: an ``import`` of an underscore name from another package, or an attribute access
``x._name`` on anything but ``self``/``cls`` (``NamedTuple._replace`` and friends are public API).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APISERVER = ROOT / "kubelite" / "apiserver"
ORACLE = ROOT / "tests" / "apiserver" / "ssa" / "ssa_reference.py"
_PUBLIC_UNDERSCORE = {"_replace", "_asdict", "_fields", "_make"}


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])


def private_reaches(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    own = _package_of(path) if path.is_relative_to(ROOT / "kubelite") else None
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubelite"):
            source_package = node.module.rpartition(".")[0]
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__") and source_package != own:
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if node.attr in _PUBLIC_UNDERSCORE:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            out.append(f"{path.relative_to(ROOT)}:{node.lineno} reads {ast.unparse(node)}")
    return out


SOURCES = [*sorted(APISERVER.rglob("*.py")), ORACLE]


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_private_reach(path: Path) -> None:
    assert private_reaches(path) == []


def test_the_checker_finds_both_kinds(tmp_path: Path) -> None:
    bad = ROOT / "kubelite" / "apiserver" / "_probe_for_test.py"
    try:
        bad.write_text("from kubelite.store.store import _secret\n\ndef f(srv):\n    return srv._tables\n")
        found = private_reaches(bad)
    finally:
        bad.unlink()
    assert len(found) == 2 and "imports kubelite.store.store._secret" in found[0] and "srv._tables" in found[1]
