"""Every whole scenario in docs/scenarios.md validates (shape, expressions, manifests through the
apiserver) and does what its text says: each one passes when run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kubelite.scenario import parse_scenario, run_scenario_async

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
BLOCKS = [m.group(1) for m in re.finditer(r"```yaml\n(.*?)```", DOC.read_text(), re.S)]
SCENARIOS = [b for b in BLOCKS if isinstance(yaml.safe_load(b), dict) and "name" in yaml.safe_load(b)]


def test_the_docs_have_scenarios() -> None:
    assert len(SCENARIOS) >= 6


@pytest.mark.parametrize("text", SCENARIOS, ids=[yaml.safe_load(b)["name"] for b in SCENARIOS])
async def test_doc_scenario_validates_and_passes(text: str) -> None:
    sc = parse_scenario(text, file=str(DOC), base=DOC.parent)
    result = await run_scenario_async(sc, stall_seconds=None)
    failed = [(e.name, e.diagnosis) for e in result.expectations if not e.passed]
    assert result.passed, failed
