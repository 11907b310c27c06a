"""Every code block of docs/real-clients.md runs as written (the docs convention: python blocks that define
tests run as a pytest module, sh blocks with bash from the repo root)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "real-clients.md"
BLOCKS = re.findall(r"```(python|sh)\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_doc_has_its_three_examples() -> None:
    assert [lang for lang, _ in BLOCKS] == ["python", "python", "python", "sh"]


def test_python_blocks_pass_as_test_modules(tmp_path: Path) -> None:
    files = []
    for i, (lang, code) in enumerate(BLOCKS):
        if lang == "python":
            f = tmp_path / f"test_block_{i}.py"
            f.write_text(code)
            files.append(str(f))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
                        "-W", "error", "--rootdir", str(tmp_path), *files],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert f"{len(files)} passed" in r.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="bash job control")
def test_sh_block_runs(tmp_path: Path) -> None:
    (code,) = [c for lang, c in BLOCKS if lang == "sh"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    r = subprocess.run(["bash", "-e", "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kube-system" in r.stdout
