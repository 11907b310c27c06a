"""Writes through ``/scale``: upstream's ScaleREST updates the parent through the kind's own store, and the
request scope's subresource is "scale", so managedFields record the writer with ``subresource: scale``
(fieldmanager's printManager then names it in apply conflicts) and the parent's generation is bumped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import Conflict


def deployment(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, nodes=0, controllers=False) as c:
        yield c


async def test_a_scale_write_is_recorded_as_the_scale_subresource(cluster: Cluster) -> None:
    c = cluster.client
    await c.apply(deployment(3), field_manager="ci")
    await c.patch("deployments", "web", {"spec": {"replicas": 5}}, subresource="scale", patch_type="merge",
                  field_manager="kubectl")
    got = await c.get("deployments", "web", namespace="default")
    assert got["spec"]["replicas"] == 5
    assert got["metadata"]["generation"] == 2  # the deployment strategy's PrepareForUpdate ran
    entries = {(m["manager"], m["operation"], m.get("subresource", "")): m["fieldsV1"]
               for m in got["metadata"]["managedFields"]}
    assert entries[("kubectl", "Update", "scale")] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in entries[("ci", "Apply", "")].get("f:spec", {})
    with pytest.raises(Conflict) as e:
        await c.apply(deployment(2), field_manager="ci")
    assert e.value.message == ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" '
                               "using apps/v1: .spec.replicas")
