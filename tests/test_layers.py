"""The architecture's layer rules, checked on the source (ARCHITECTURE.md).

The contracts themselves live in ``pyproject.toml`` (``[tool.importlinter]``) and are checked by import-linter,
as kopf does; the AST scan below is a second, independent check of the most important rule.

Components (informers, workqueues, controllers, scheduler, kubelets, network, events, leader election)
talk to the cluster only through the API: none of them may import the store or the apiserver, not even
inside a function. Lower layers never import higher ones.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent / "kubelite"

COMPONENTS = ("informer", "workqueue", "controllers", "scheduler", "kubelet", "network", "metricsserver", "events",
              "leaderelection")
FORBIDDEN_FOR_COMPONENTS = ("kubelite.store", "kubelite.apiserver")
# (package, modules it must not import): lower layers stay ignorant of the ones above them
LOWER_LAYERS = {
    "api": ("kubelite.store", "kubelite.apiserver", "kubelite.client", "kubelite.cluster", *(
        f"kubelite.{c}" for c in COMPONENTS)),
    "store": ("kubelite.apiserver", "kubelite.client", "kubelite.cluster", *(f"kubelite.{c}" for c in COMPONENTS)),
    "apiserver": ("kubelite.client", "kubelite.cluster", *(f"kubelite.{c}" for c in COMPONENTS)),
}


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, mod in imports_of(path):
            if any(mod == f or mod.startswith(f + ".") for f in forbidden):
                out.append(f"{path.relative_to(ROOT.parent)}:{line} imports {mod}")
    return out


@pytest.mark.parametrize("package", COMPONENTS, ids=COMPONENTS)
def test_components_only_talk_through_the_api(package: str) -> None:
    assert (ROOT / package).is_dir()
    assert violations(package, FORBIDDEN_FOR_COMPONENTS) == []


@pytest.mark.parametrize("package", sorted(LOWER_LAYERS), ids=sorted(LOWER_LAYERS))
def test_lower_layers_do_not_import_higher_ones(package: str) -> None:
    assert violations(package, LOWER_LAYERS[package]) == []


def test_the_checker_finds_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from kubelite.store import Store\n")
    assert imports_of(bad) == [(2, "kubelite.store")]


def test_import_linter_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """Every contract of ``[tool.importlinter]`` holds (run ``lint-imports`` for the details of a break)."""
    cwd = os.getcwd()
    os.chdir(ROOT.parent)
    try:
        code = lint_imports(config_filename="pyproject.toml", no_cache=True, no_logo=True)
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "0 broken" in out, out
    assert code == 0


def test_import_linter_finds_a_layer_violation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    pkg = tmp_path / "layered"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from layered import high\n")
    (pkg / "high.py").write_text("from layered import low\n")
    cfg = tmp_path / "contracts.ini"
    cfg.write_text("[importlinter]\nroot_package = layered\n\n[importlinter:contract:layers]\nname = layers\n"
                   "type = layers\nlayers =\n    layered.high\n    layered.low\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert lint_imports(config_filename=str(cfg), no_cache=True, no_logo=True) == 1
    assert "layered.low is not allowed to import layered.high" in capsys.readouterr().out
