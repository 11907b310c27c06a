"""pod_requests/pod_limits against upstream's resourcehelper table cases."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.podresources import pod_limits, pod_requests


def c(requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": "x", "resources": {"requests": requests or {}, "limits": limits or {}}, **extra}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"containers": [c({"cpu": "100m", "memory": "1Gi"}), c({"cpu": "1"})]},
         {"cpu": 1100, "memory": 2**30}),
        ({"containers": [c({"cpu": "100m"})], "initContainers": [c({"cpu": "2"})]}, {"cpu": 2000}),
        ({"containers": [c({"cpu": "100m"})], "initContainers": [c({"cpu": "50m"})]}, {"cpu": 100}),
        # a sidecar (restartable init container) adds to the app containers and to later init containers
        ({"containers": [c({"cpu": "100m"})],
          "initContainers": [c({"cpu": "200m"}, restartPolicy="Always"), c({"cpu": "250m"})]}, {"cpu": 450}),
        ({"containers": [c(limits={"nvidia.com/gpu": "2"})]}, {"nvidia.com/gpu": 2}),
        ({"containers": [c({"cpu": "100m"})], "overhead": {"cpu": "10m"}}, {"cpu": 110}),
        ({"containers": [c({"cpu": "1.5m"})]}, {"cpu": 2}),
    ],
    ids=["sum-containers", "init-max-wins", "containers-win", "sidecar", "limit-defaults-request", "overhead",
         "rounds-up"],
)
def test_pod_requests(spec: dict[str, Any], expected: dict[str, int]) -> None:
    assert pod_requests({"spec": spec}) == expected


def test_pod_limits_only_counts_limits() -> None:
    pod = {"spec": {"containers": [c({"cpu": "1"}, {"memory": "256Mi"}), c(limits={"memory": "256Mi"})]}}
    assert pod_limits(pod) == {"memory": 512 * 2**20}
