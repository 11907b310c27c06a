"""Every fenced code block of README.md and docs/*.md runs as written (the project's docs convention):

- ``python`` blocks that define ``test_*`` functions run as a pytest module (pytest-asyncio auto mode,
  the kubelite plugin loaded); other ``python`` blocks run as a script (a complete program);
- ``sh`` / ``bash`` / ``shell`` blocks run with bash (``-e -o pipefail``) from the repository root and must
  exit 0. Two commands are checked rather than run, because this test is already running inside what
  they do: ``python -m pip install ...`` (CI installed the package before running the suite; re-running it
  would re-point the environment's install) and a bare ``python -m pytest`` (the suite itself: running it
  here would recurse). The rest of such a block runs;
- ``yaml`` blocks must parse; a block that is a whole scenario must also validate;
- ``text``, ``console`` and blocks without a language are sample output and are not run.

Every ``python`` block, and the example operator in ``examples/``, must also pass ``mypy --strict`` as
written (one mypy run over all of them; a failure names the block's file and line).

Each block is its own test, named ``FILE:LINE-LANG``; a failure names the file and line of the block
and shows its output. Blocks in one file are independent (each runs in a fresh process).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_AS_PYTHON = {"python", "py", "python3"}
RUN_AS_SHELL = {"sh", "bash", "shell"}
PARSE_AS_YAML = {"yaml", "yml"}
NOT_RUN = {"", "text", "console", "output", "json", "diff", "ini", "toml", "html"}
TIMEOUT = 300
#: the mypy runs' bound, in CPU seconds of mypy itself (``ulimit -t``), not wall seconds: a wall-clock timeout
#: measured the machine's load (300 s wall was hit at load 16 by a run that needs ~40 CPU s with a cold
#: cache), while CPU time is what a runaway mypy spends. A full re-check of kubelite costs ~30 CPU s here.
MYPY_CPU_SECONDS = 900
#: and a wall-clock guard against a mypy that waits forever, far beyond CI's own 15-minute limit
MYPY_WALL_SECONDS = 3600
#: top-level keys of a scenario file besides ``name`` (kubelite.scenario.format.Scenario)
SCENARIO_KEYS = {"cluster", "manifests", "timeline", "expect", "until", "workloads", "images", "seed"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")


class Block(NamedTuple):
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def fenced_blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file (CommonMark fences: ``` or ~~~, 3 or more, closed by a
    fence of the same character at least as long; indentation of the opening fence is removed)."""
    out: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        lang = (m["info"].strip().split() or [""])[0].lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            close = _FENCE.match(lines[j])
            if close is not None and close["fence"][0] == fence[0] and len(close["fence"]) >= len(fence) \
                    and not close["info"].strip():
                break
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == "" else line)
            j += 1
        else:
            raise AssertionError(f"{path.relative_to(ROOT)}:{i + 1}: unclosed code fence")
        out.append(Block(path, i + 1, lang, "\n".join(body) + "\n"))
        i = j + 1
    return out


def all_blocks() -> list[Block]:
    return [b for p in DOC_FILES if p.exists() for b in fenced_blocks(p)]


def _defines_tests(source: str) -> bool:
    tree = ast.parse(source)
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test_")
               for n in tree.body)


def _env(tmp_path: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if tmp_path is not None:  # mktemp and tempfile in a block make their files under the test's own directory
        env["TMPDIR"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _run(cmd: list[str], block: Block, cwd: Path, tmp_path: Path) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=_env(tmp_path), capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{block.where}: the {block.lang} block did not finish within {TIMEOUT}s\n{e.stdout or ''}",
                    pytrace=False)
    if proc.returncode != 0:
        numbered = "\n".join(f"{block.line + n:5d} | {t}" for n, t in enumerate(block.text.splitlines(), 1))
        pytest.fail(f"{block.where}: the {block.lang} block exited with {proc.returncode}\n"
                    f"--- block ---\n{numbered}\n--- stdout ---\n{proc.stdout[-4000:]}\n"
                    f"--- stderr ---\n{proc.stderr[-4000:]}", pytrace=False)


_PIP_INSTALL = re.compile(r"python3? -m pip install [^&;|\n]*(?:&&[ \t]*)?")
_WHOLE_SUITE = re.compile(r"^[ \t]*python3? -m pytest[ \t]*$", re.MULTILINE)


def shell_for_test(text: str) -> str:
    """The block as run by this test: package installs and the whole-suite command become no-ops (see
    the module docstring); everything else is kept, line for line."""
    return _WHOLE_SUITE.sub(":", _PIP_INSTALL.sub("", text))


def _is_scenario(doc: object) -> bool:
    return isinstance(doc, dict) and "name" in doc and "apiVersion" not in doc and bool(SCENARIO_KEYS & set(doc))


def run_block(block: Block, tmp_path: Path) -> None:
    if block.lang in RUN_AS_PYTHON:
        try:
            is_test = _defines_tests(block.text)
        except SyntaxError as e:
            pytest.fail(f"{block.where}: the python block does not parse: line {block.line + (e.lineno or 0)}: "
                        f"{e.msg}", pytrace=False)
        if is_test:
            path = tmp_path / f"test_doc_block_{block.line}.py"
            path.write_text(block.text)
            _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "kubelite.testing.plugin",
                  "-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function",
                  "--rootdir", str(tmp_path), str(path)], block, ROOT, tmp_path)
        else:
            path = tmp_path / f"doc_block_{block.line}.py"
            path.write_text(block.text)
            _run([sys.executable, str(path)], block, ROOT, tmp_path)
    elif block.lang in RUN_AS_SHELL:
        _run(["bash", "-e", "-o", "pipefail", "-c", shell_for_test(block.text)], block, ROOT, tmp_path)
    elif block.lang in PARSE_AS_YAML:
        try:
            docs = list(yaml.safe_load_all(block.text))
        except yaml.YAMLError as e:
            pytest.fail(f"{block.where}: the yaml block does not parse: {e}", pytrace=False)
        if len(docs) == 1 and _is_scenario(docs[0]):
            from kubelite.scenario.format import parse_scenario

            try:
                parse_scenario(block.text, file=block.where, base=ROOT)
            except Exception as e:
                pytest.fail(f"{block.where}: the scenario does not validate: {e}", pytrace=False)
    else:
        raise AssertionError(f"{block.where}: unknown code block language {block.lang!r} (see tests/test_docs.py)")


BLOCKS = [b for b in all_blocks() if b.lang not in NOT_RUN]


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.where}-{b.lang}" for b in BLOCKS])
def test_doc_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    run_block(block, tmp_path)


def mypy_command() -> list[str]:
    """mypy as this test runs it: the project's configuration and cache, and no option that changes what the
    cache holds. ``--strict`` on the command line was one: it overrides the configuration's
    ``warn_unused_ignores = false``, so every run here threw away CI's mypy step's analysis of kubelite,
    re-checked all of it (most of this test's 44 s) and left a cache the next ``mypy`` re-checked again."""
    return [sys.executable, "-m", "mypy", "--no-color-output", "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(ROOT / ".mypy_cache")]


def test_the_docs_mypy_runs_reuse_the_projects_mypy_cache() -> None:
    """The options that decide whether a cached module is fresh are those of ``mypy`` run as CI runs it."""
    from mypy.main import process_options

    def cache_options(args: list[str]) -> object:
        _, options = process_options(args, require_targets=False)
        return options.clone_for_module("kubelite.cluster").select_options_affecting_cache()

    ci = cache_options(["--config-file", str(ROOT / "pyproject.toml")])
    assert cache_options([*mypy_command()[3:], "doc_block.py"]) == ci
    assert cache_options(["--strict", *mypy_command()[3:], "doc_block.py"]) != ci  # the old command


def test_python_blocks_and_examples_type_check(tmp_path: Path) -> None:
    """``mypy --strict`` over every python block and ``examples/`` (what a user's CI would run)."""
    names: dict[str, Block] = {}
    for b in BLOCKS:
        if b.lang in RUN_AS_PYTHON:
            name = f"doc_{re.sub(r'[^A-Za-z0-9]', '_', b.path.stem)}_line{b.line}.py"
            (tmp_path / name).write_text(b.text)
            names[name] = b
    # the doc blocks from the repository root (they import examples.* as the docs say); each example
    # directory on its own, from inside it (its modules import their siblings, as its README runs them)
    runs = [(ROOT, sorted(str(tmp_path / n) for n in names))]
    for d in sorted({p.parent for p in (ROOT / "examples").rglob("*.py")}):
        runs.append((d, sorted(p.name for p in d.glob("*.py"))))
    out = ""
    for cwd, files in runs:
        # one configuration for every run (the project's, which CI's own mypy step uses too): a run with other
        # options would re-check all of kubelite and overwrite the shared cache the next run then re-checks
        proc = subprocess.run(["bash", "-c", f'ulimit -t {MYPY_CPU_SECONDS} && exec "$@"', "mypy",
                               *mypy_command(), *files],
                              cwd=cwd, env=_env(), capture_output=True, text=True, timeout=MYPY_WALL_SECONDS,
                              check=False)
        if proc.returncode < 0 or proc.returncode > 128:
            pytest.fail(f"mypy was killed (exit {proc.returncode}; over {MYPY_CPU_SECONDS} CPU s?)\n{proc.stderr}",
                        pytrace=False)
        if proc.returncode != 0:
            out += f"(in {cwd.relative_to(ROOT.parent)})\n{proc.stdout}"
    if out:
        for name, b in names.items():  # name the doc file and its line, not the temporary file
            out = re.sub(rf"\S*{re.escape(name)}:(\d+)",
                         lambda m, b=b: f"{b.path.relative_to(ROOT)}:{b.line + int(m.group(1))}", out)
        pytest.fail(f"mypy --strict fails on the docs' python blocks or examples/:\n{out}", pytrace=False)


def test_the_runner_finds_blocks_and_names_their_lines(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# t\n\n```python\nprint(1)\n```\n\n- item\n\n  ~~~~sh\n  echo hi\n  ~~~~\n\n```\nplain\n```\n")
    blocks = fenced_blocks(doc)
    assert [(b.line, b.lang, b.text) for b in blocks] == [(3, "python", "print(1)\n"), (9, "sh", "echo hi\n"),
                                                        (13, "", "plain\n")]


def test_a_failing_block_names_its_file_and_line(tmp_path: Path) -> None:
    block = Block(ROOT / "README.md", 42, "python", "raise SystemExit(3)\n")
    with pytest.raises(pytest.fail.Exception, match=r"README.md:42: the python block exited with 3"):
        run_block(block, tmp_path)
    with pytest.raises(pytest.fail.Exception, match=r"README.md:42: the yaml block does not parse"):
        run_block(Block(ROOT / "README.md", 42, "yaml", "a: [\n"), tmp_path)


@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("python -m pip install -e '.[test]' && kubelite run x.yaml\npython -m pytest\n", "kubelite run x.yaml\n:\n"),
        ("python -m pytest tests/test_cluster.py\n", "python -m pytest tests/test_cluster.py\n"),
        ("echo ok\n", "echo ok\n"),
    ],
    ids=["quick-start", "targeted-pytest-runs", "plain"],
)
def test_shell_blocks_skip_only_installs_and_the_whole_suite(text: str, run: str) -> None:
    assert shell_for_test(text) == run


def test_every_documented_language_is_known() -> None:
    unknown = [f"{b.where} {b.lang!r}" for b in all_blocks()
               if b.lang not in NOT_RUN | RUN_AS_PYTHON | RUN_AS_SHELL | PARSE_AS_YAML]
    assert unknown == []


#: a path a block would share with every other run of it on the machine (the docs once wrote fuzz schedules
#: to /tmp/kubelite-fuzz-demo, so two suites running side by side raced on the same files)
_FIXED_TMP = re.compile(r"(?<![\w$])/tmp/[\w.-]+")


def test_no_block_writes_to_a_fixed_path_under_tmp() -> None:
    shared = [f"{b.where}: {m.group(0)}" for b in BLOCKS if b.lang in RUN_AS_SHELL | RUN_AS_PYTHON
              for m in _FIXED_TMP.finditer(b.text)]
    assert shared == [], "use mktemp -d (tempfile in python) so parallel runs never share files"
    assert _FIXED_TMP.search("--out /tmp/kubelite-fuzz-demo") and not _FIXED_TMP.search('--out "$out"')
