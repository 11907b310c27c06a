"""pod_requests/pod_limits against upstream's resourcehelper table cases."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.podresources import pod_limits, pod_requests
from kubelite.api.types.core_v1 import Pod
from kubelite.api.views import freeze, is_frozen


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
    # the typed Pod (what the kubelet's and the scheduler's informers hold, a frozen shared view) sums the same
    typed = freeze(msgspec.convert({"spec": spec}, Pod))
    assert is_frozen(typed)
    assert pod_requests(typed) == expected


def test_pod_limits_only_counts_limits() -> None:
    pod = {"spec": {"containers": [c({"cpu": "1"}, {"memory": "256Mi"}), c(limits={"memory": "256Mi"})]}}
    assert pod_limits(pod) == {"memory": 512 * 2**20}
    assert pod_limits(msgspec.convert(pod, Pod)) == {"memory": 512 * 2**20}


def test_a_typed_pod_without_spec_or_resources_requests_nothing() -> None:
    assert pod_requests(Pod()) == {}
    assert pod_requests(msgspec.convert({"spec": {"containers": [{"name": "x"}]}}, Pod)) == {}
