"""Invalid scenarios give errors that name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubelite.scenario.format import ScenarioError, load_scenario, parse_duration, parse_scenario

HEAD = "name: x\n"

INVALID = [
    ("wrong type", HEAD + "steps:\n  - action: scale\n    target: deployment/web\n    replicas: three\n",
     5, "steps[0].replicas", "Expected int, got str"),
    ("unknown action", HEAD + "steps:\n  - action: scael\n    target: deployment/web\n",
     3, "steps[0].action", "unknown action 'scael' (one of: addNode, apply, breakCni,"),
    ("unknown field", HEAD + "cluster:\n  nodePools:\n    - count: 2\n      colour: red\n",
     5, "cluster.nodePools[0].colour", "unknown field"),
    ("missing field", HEAD + "steps:\n  - action: scale\n    target: deployment/web\n",
     3, "steps[0].replicas", "required field is missing"),
    ("missing name", "until: 5m\n", 1, "name", "required field is missing"),
    ("bad duration", HEAD + "until: 5 minutes\n", 2, "until", "invalid duration '5 minutes'"),
    ("bad expression", HEAD + "expect:\n  - eventually: pod(\"a\").status.phase == Running\n",
     3, "expect[0].eventually", "unknown name 'Running'"),
    ("unknown function", HEAD + "expect:\n  - atEnd: podz(\"a\")\n", 3, "expect[0].atEnd", "unknown function 'podz'"),
    ("no expectation kind", HEAD + "expect:\n  - name: nothing\n", 3, "expect[0]",
     "exactly one of 'eventually', 'always' or 'atEnd'"),
    ("two expectation kinds", HEAD + "expect:\n  - always: 'true'\n    atEnd: 'true'\n", 3, "expect[0]",
     "exactly one of"),
    ("within without eventually", HEAD + "expect:\n  - always: 'true'\n    within: 5s\n", 4, "expect[0].within",
     "'within' goes with 'eventually'"),
    ("at and when", HEAD + "steps:\n  - action: wait\n    duration: 5s\n    at: 1s\n    when: 'true'\n",
     6, "steps[0].when", "either 'at' or 'when'"),
    ("bad target", HEAD + "steps:\n  - action: scale\n    target: web\n    replicas: 2\n", 4, "steps[0].target",
     "invalid target 'web'"),
    ("bad image profile", HEAD + "images:\n  app:1:\n    readyAftr: 5\n", 3, "images.app:1",
     "invalid image profile"),
    ("manifest without kind", HEAD + "manifests:\n  - apiVersion: v1\n    metadata: {name: a}\n", 3,
     "manifests[0].kind", "required field is missing"),
    ("missing manifest file", HEAD + "manifests:\n  - file: nope.yaml\n", 3, "manifests[0].file", "cannot read"),
    ("bad fault", HEAD + "steps:\n  - action: injectFault\n    error: 418\n", 4, "steps[0].error",
     "unsupported error 418"),
    ("invalid YAML", HEAD + "steps: [\n", 3, "", "invalid YAML"),
    ("not a mapping", "- a\n- b\n", 1, "", "a scenario is a mapping"),
]


@pytest.mark.parametrize(("text", "line", "field", "message"), [c[1:] for c in INVALID],
                         ids=[c[0] for c in INVALID])
def test_invalid(text: str, line: int, field: str, message: str) -> None:
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(text, file="bad.yaml")
    e = ei.value
    assert (e.file, e.line, e.field) == ("bad.yaml", line, field)
    assert message in e.message
    assert str(e).startswith(f"bad.yaml:{line}:")


def test_manifest_files_are_split(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
                                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    (tmp_path / "s.yaml").write_text(HEAD + "manifests:\n  - file: app.yaml\n  - apiVersion: v1\n    kind: Pod\n"
                                            "    metadata: {name: p}\n")
    sc = load_scenario(tmp_path / "s.yaml")
    assert [o["metadata"]["name"] for o in sc.objects] == ["a", "b", "p"]


DURATIONS = [("90", 90.0), ("7.5", 7.5), ("90s", 90.0), ("1m30s", 90.0), ("2h", 7200.0), ("500ms", 0.5), ("1.5m", 90.0)]


@pytest.mark.parametrize(("text", "want"), DURATIONS, ids=[d[0] for d in DURATIONS])
def test_durations(text: str, want: float) -> None:
    assert parse_duration(text) == want


@pytest.mark.parametrize("text", ["", "m5", "5 m", "-1s", "1x"], ids=["empty", "unit-first", "space", "negative",
                                                                  "unknown-unit"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


def _laughs() -> str:
    rows = ['  l0: &l0 ["lol"]']
    rows += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    return HEAD + "lol:\n" + "\n".join(rows) + "\n"


LAUGHS = _laughs()

HOSTILE = [
    ("billion laughs under an unknown key", LAUGHS, "more than 200000 YAML nodes once aliases are expanded"),
    ("many aliases", HEAD + "a: &a 1\nb: [" + ", ".join(["*a"] * 101) + "]\n", "more than 100 YAML aliases"),
    ("recursive alias", HEAD + "x: &a [*a]\n", "recursive YAML alias"),
    ("deep nesting", HEAD + "x: " + "[" * 1000 + "]" * 1000 + "\n", "nested deeper than 100 levels"),
    ("infinite until", HEAD + "until: .inf\n", "not a finite number"),
    ("NaN duration", HEAD + "steps:\n  - action: wait\n    duration: .nan\n", "not a finite number"),
    ("huge until", HEAD + "until: 400d\n", "longer than the 30 days"),
    ("NUL byte", HEAD + "description: a\x00b\n", "NUL byte"),
    ("too many nodes", HEAD + "cluster:\n  nodePools: [{count: 100000}]\n", "out of range (0 to 1000)"),
    ("negative replicas", HEAD + "steps:\n  - action: scale\n    target: deployment/web\n    replicas: -1\n",
     "out of range"),
    ("huge rate", HEAD + "steps:\n  - action: startTraffic\n    service: web\n    rate: 1.0e+9\n", "out of range"),
    ("probability above 1", HEAD + "steps:\n  - action: injectFault\n    error: 500\n    probability: 2\n",
     "out of range"),
    ("int beyond int64", HEAD + "seed: 99999999999999999999999\n", "integer out of range"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_input_is_a_clean_error(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(text, file="bad.yaml")
    assert message in str(ei.value)


def test_reading_dev_zero_is_refused() -> None:
    with pytest.raises(ScenarioError, match="not a regular file"):
        load_scenario("/dev/zero")


def test_a_large_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(HEAD + "description: " + "x" * (5 * 1024 * 1024) + "\n")
    with pytest.raises(ScenarioError, match="larger than 4 MiB"):
        load_scenario(big)


def test_every_error_is_reported_at_once() -> None:
    text = (HEAD + "until: 5 minutes\nsteps:\n  - action: scael\n  - action: scale\n    target: web\n"
            "    replicas: 2\nexpect:\n  - atEnd: podz()\n  - eventually: count(\n")
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(text, file="s.yaml")
    lines = str(ei.value).splitlines()
    heads = [ln for ln in lines if ln.startswith("s.yaml:")]
    assert any("steps[0].action: unknown action 'scael'" in h for h in heads), heads
    assert len(ei.value.errors) >= 1
    # the shape error stops conversion; the semantic errors of a well-shaped scenario come all together
    text2 = (HEAD + "until: 5 minutes\nsteps:\n  - action: scale\n    target: web\n    replicas: 2\n"
             "expect:\n  - atEnd: podz()\n  - eventually: count(\n")
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(text2, file="s.yaml")
    fields = [e.field for e in ei.value.errors]
    assert fields == ["until", "steps[0].target", "expect[0].atEnd", "expect[1].eventually"], fields


CARETS = [
    ("plain", "expect:\n  - atEnd: count(pods()) == Running\n", 3, 29, "count(pods()) == Running"),
    ("quoted", "expect:\n  - atEnd: 'count(pods()) == Running'\n", 3, 30, "count(pods()) == Running"),
    ("folded block", "expect:\n  - atEnd: >-\n      count(pods()) == 1\n      and nope(1)\n", 5, 11,
     "and nope(1)"),
    ("literal block", "expect:\n  - atEnd: |\n      count(pods()) == 1\n      and podz(1)\n", 5, 11,
     "and podz(1)"),
]


@pytest.mark.parametrize(("body", "line", "column", "piece"), [c[1:] for c in CARETS], ids=[c[0] for c in CARETS])
def test_expression_errors_point_at_the_file_column(body: str, line: int, column: int, piece: str) -> None:
    text = HEAD + body
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(text, file="s.yaml")
    e = ei.value
    assert (e.line, e.column) == (line, column), str(e)
    src_line = text.splitlines()[line - 1]
    bad = src_line[column - 1:]
    assert bad.startswith(("Running", "nope", "podz")), (src_line, column)
    shown, caret = str(e).splitlines()[1:3]
    assert shown.strip() == piece
    assert caret.index("^") - (len(shown) - len(shown.lstrip())) == piece.index(bad[:4])


def test_durations_are_bounded() -> None:
    for bad in (float("inf"), float("nan"), -1, "99999d"):
        with pytest.raises(ValueError, match="duration"):
            parse_duration(bad)
