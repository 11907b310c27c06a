"""A pod's ``status.qosClass`` at create, as ``qos.GetPodQOS`` (pkg/apis/core/helper/qos/qos.go) computes it;
cases after upstream's ``qos_test.go`` (``TestGetPodQOS``). Each case is created twice with a spec of its own
(a first sight, the memo tables keyed on encodings off) and from a template (its third create is a memo hit),
and every answer must be the table's."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster


def _c(name: str, requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "nginx", "resources": resources}


CASES = [
    pytest.param([_c("a")], "BestEffort", id="no-resources"),
    pytest.param([_c("a", {"cpu": "0", "memory": "0"})], "BestEffort", id="zero-requests-are-not-set"),
    pytest.param([_c("a", {"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"})], "BestEffort",
                 id="only-cpu-and-memory-count"),
    pytest.param([_c("a", {"cpu": "100m", "memory": "100Mi"}, {"cpu": "100m", "memory": "100Mi"})], "Guaranteed",
                 id="limits-equal-requests"),
    pytest.param([_c("a", None, {"cpu": "1", "memory": "1Gi"})], "Guaranteed", id="requests-default-to-limits"),
    pytest.param([_c("a", {"cpu": "1000m"}, {"cpu": "1", "memory": "1Gi"})], "Guaranteed",
                 id="equal-after-canonicalising"),
    pytest.param([_c("a", {"cpu": "100m"}, {"cpu": "200m", "memory": "1Gi"})], "Burstable", id="request-below-limit"),
    pytest.param([_c("a", {"cpu": "100m"})], "Burstable", id="requests-only"),
    pytest.param([_c("a", None, {"cpu": "1"})], "Burstable", id="cpu-limit-only"),
    pytest.param([_c("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}), _c("b")], "Burstable",
                 id="one-guaranteed-one-besteffort"),
    pytest.param([_c("a", {"cpu": "0"}, {"cpu": "0", "memory": "0"})], "BestEffort", id="zero-limits"),
]


@pytest.mark.parametrize(("containers", "qos"), CASES)
async def test_qos_class_at_create(containers: list[dict[str, Any]], qos: str) -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        templates = cluster.apiserver.generic_store.templates
        got = []
        for i in range(4):
            spec = {"containers": containers}
            if i == 0:  # a spec text of its own
                spec["hostname"] = "own"
            created = await cluster.client.create(
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"}, "spec": spec})
            got.append(created["status"]["qosClass"])
        assert got == [qos] * 4
        assert templates.first_sights == 2 and templates.served == 1
