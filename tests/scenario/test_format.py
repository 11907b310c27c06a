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
     3, "steps[0].action", "unknown action 'scael' (one of: apply, breakCni,"),
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
    assert str(e).startswith(f"bad.yaml:{line}: ")


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
