"""``kubelite.fuzz`` is a promised API: every name in ``__all__`` resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import kubelite.fuzz


def test_every_public_name_resolves() -> None:
    for name in kubelite.fuzz.__all__:
        assert getattr(kubelite.fuzz, name) is not None, name
    assert callable(kubelite.fuzz.shrink) and callable(kubelite.fuzz.fuzz)


def test_importing_the_package_imports_no_submodule() -> None:
    code = "import sys, kubelite.fuzz; print(sorted(m for m in sys.modules if m.startswith('kubelite.fuzz.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
