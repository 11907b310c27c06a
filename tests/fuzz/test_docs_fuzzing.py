"""Every code block of docs/fuzzing.md runs as written (the docs convention of tests/test_docs.py: ``python`` blocks
with ``test_*`` functions run as pytest modules, other ``python`` blocks as scripts, ``sh`` blocks with bash
from the repository root and must exit 0; ``text`` blocks are sample output)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fuzzing.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(DOC.read_text()) if m.group(1) in ("python", "sh")]


def env() -> dict[str, str]:
    e = {**os.environ, "KUBELITE_LOG_LEVEL": "error"}
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), e.get("PYTHONPATH", "")) if p)
    return e


BLOCKS = blocks()


def test_the_doc_has_runnable_blocks() -> None:
    kinds = [k for k, _ in BLOCKS]
    assert kinds.count("sh") >= 3 and kinds.count("python") >= 2


@pytest.mark.parametrize(("kind", "code"), BLOCKS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(BLOCKS)])
def test_block_runs(kind: str, code: str, tmp_path: Path) -> None:
    if kind == "sh":
        cmd = ["bash", "-euo", "pipefail", "-c", code]
    elif re.search(r"^(async )?def test_", code, re.M):
        mod = tmp_path / "test_doc_block.py"
        mod.write_text(code)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={tmp_path}", str(mod)]
    else:
        script = tmp_path / "doc_block.py"
        script.write_text(code)
        cmd = [sys.executable, str(script)]
    r = subprocess.run(cmd, cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
