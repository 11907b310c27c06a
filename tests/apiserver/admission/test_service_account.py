"""ServiceAccount admission (plugin/pkg/admission/serviceaccount): defaulting and the existence check."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import Forbidden, NotFound


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name} if name else {"generateName": "gen-"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {**meta, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


async def test_missing_service_account_is_forbidden_and_nothing_is_stored(cluster: Cluster) -> None:
    with pytest.raises(Forbidden) as e:
        await cluster.client.create(pod(serviceAccountName="builder"))
    assert e.value.message == ('pods "p" is forbidden: error looking up service account default/builder: '
                               'serviceaccount "builder" not found')
    with pytest.raises(NotFound):
        await cluster.client.get("pods", "p", namespace="default")


async def test_generate_name_pod_names_its_prefix(cluster: Cluster) -> None:
    with pytest.raises(Forbidden) as e:
        await cluster.client.create(pod("", serviceAccount="builder"))
    assert e.value.message.startswith('pods "gen-" is forbidden: error looking up service account')


async def test_existing_service_account_is_admitted(cluster: Cluster) -> None:
    c = cluster.client
    await c.create({"apiVersion": "v1", "kind": "ServiceAccount",
                    "metadata": {"name": "builder", "namespace": "default"}})
    out = await c.create(pod(serviceAccountName="builder"))
    assert (out["spec"]["serviceAccountName"], out["spec"]["serviceAccount"]) == ("builder", "builder")


async def test_default_service_account_is_defaulted_even_before_it_exists() -> None:
    async with Cluster(seed=1, controllers=False, scheduler=False) as cluster:
        out = await cluster.client.create(pod())
    assert out["spec"]["serviceAccountName"] == "default"
