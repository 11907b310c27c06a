"""Validation before running: every manifest goes through the apiserver's strict field validation and
admission first (as `kubectl apply --server-side`, fieldValidation=Strict), all errors at once, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubelite.cli import main
from kubelite.scenario import ScenarioError, parse_scenario
from kubelite.scenario.validate import check_manifests

BAD = """\
name: bad-manifests
manifests:
  - apiVersion: v1
    kind: Pod
    metadata: {name: typo}
    spec:
      containers: [{name: c, image: nginx, imagePullPolisy: Always}]
  - apiVersion: v1
    kind: Gadget
    metadata: {name: g}
  - yaml: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web}
      spec:
        replicas: -3
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec: {containers: [{name: c, image: nginx}]}
steps:
  - at: 5s
    action: apply
    manifest:
      apiVersion: v1
      kind: Service
      metadata: {name: svc}
      spec: {ports: [{port: 99999}]}
"""


async def test_every_rejected_manifest_is_reported_with_its_line() -> None:
    sc = parse_scenario(BAD, file="bad.yaml")
    with pytest.raises(ScenarioError) as ei:
        await check_manifests(sc)
    errors = ei.value.errors
    assert [e.line for e in errors] == [3, 8, 12, 22], str(ei.value)
    text = str(ei.value)
    assert 'strict decoding error: unknown field "spec.containers[0].imagePullPolisy"' in text
    assert "gadget/g" in text
    assert "spec.replicas" in text
    assert "spec.ports[0].port" in text


async def test_manifests_may_depend_on_earlier_ones() -> None:
    sc = parse_scenario("""\
name: ordered
manifests:
  - {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
  - apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: shop}
    spec: {priorityClassName: high, containers: [{name: c, image: nginx}]}
""")
    await check_manifests(sc)


def test_cli_exits_2_before_running(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(BAD)
    res = CliRunner().invoke(main, ["run", str(f)])
    assert res.exit_code == 2, res.output
    assert f"{f}:3: pod/typo: Error from server (BadRequest)" in res.output
    assert "Traceback" not in res.output
