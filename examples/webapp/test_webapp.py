"""The WebApp operator, end to end on a kubelite cluster: each test runs in milliseconds of wall time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from webapp_operator import WEBAPPS, WebAppReconciler, desired_objects

from kubelite.errors import Invalid, NotFound
from kubelite.testing import install_crds, load_manifests, register_reconciler

HERE = Path(__file__).parent
SAMPLE = """
apiVersion: example.com/v1
kind: WebApp
metadata:
  name: shop
  namespace: default
spec:
  image: nginx:1.25
  replicas: 2
"""


async def start_operator(cluster: Any) -> None:
    await install_crds(cluster, HERE / "crd.yaml")
    await register_reconciler(cluster, "webapp", WebAppReconciler(cluster.client), for_=WEBAPPS,
                              owns=["deployments", "services"])


async def get_or_none(cluster: Any, resource: str, name: str) -> Any:
    try:
        return await cluster.client.get(resource, name, namespace="default")
    except NotFound:
        return None


def test_desired_objects_are_owned_by_the_webapp() -> None:
    app = {"metadata": {"name": "shop", "namespace": "default", "uid": "u-1"},
           "spec": {"image": "nginx:1.25", "replicas": 3, "port": 8080}}
    dep, svc = desired_objects(app)
    assert dep["spec"]["replicas"] == 3
    assert svc["spec"]["ports"][0]["targetPort"] == 8080
    assert dep["metadata"]["ownerReferences"][0]["uid"] == "u-1"


@pytest.mark.kubelite(nodes=2)
async def test_webapp_gets_a_deployment_a_service_and_a_ready_status(kubelite_cluster: Any) -> None:
    await start_operator(kubelite_cluster)
    await load_manifests(kubelite_cluster, SAMPLE)

    async def ready() -> Any:
        app = await kubelite_cluster.client.get(WEBAPPS, "shop", namespace="default")
        return (app.get("status") or {}).get("readyReplicas") == 2

    await kubelite_cluster.wait_for(ready, timeout=60)
    dep = await kubelite_cluster.client.get("deployments", "shop", namespace="default")
    svc = await kubelite_cluster.client.get("services", "shop", namespace="default")
    assert dep["metadata"]["ownerReferences"][0]["kind"] == "WebApp"
    assert svc["spec"]["selector"] == {"app.kubernetes.io/name": "shop"}
    app = await kubelite_cluster.client.get(WEBAPPS, "shop", namespace="default")
    assert app["status"]["conditions"][0]["status"] == "True"


@pytest.mark.kubelite(nodes=2)
async def test_scaling_the_webapp_scales_its_deployment(kubelite_cluster: Any) -> None:
    await start_operator(kubelite_cluster)
    await load_manifests(kubelite_cluster, SAMPLE)
    await kubelite_cluster.wait_for(lambda: get_or_none(kubelite_cluster, "deployments", "shop"), timeout=10)
    await kubelite_cluster.client.patch(WEBAPPS, "shop", {"spec": {"replicas": 4}}, patch_type="merge",
                                        namespace="default")

    async def scaled() -> bool:
        dep = await kubelite_cluster.client.get("deployments", "shop", namespace="default")
        return (dep.get("status") or {}).get("readyReplicas") == 4

    await kubelite_cluster.wait_for(scaled, timeout=60)


@pytest.mark.kubelite(nodes=1)
async def test_a_manual_edit_of_the_deployment_is_reverted(kubelite_cluster: Any) -> None:
    await start_operator(kubelite_cluster)
    await load_manifests(kubelite_cluster, SAMPLE)
    await kubelite_cluster.wait_for(lambda: get_or_none(kubelite_cluster, "deployments", "shop"), timeout=10)
    await kubelite_cluster.client.patch("deployments", "shop", {"spec": {"replicas": 7}}, patch_type="merge",
                                        namespace="default")

    async def reverted() -> bool:
        dep = await kubelite_cluster.client.get("deployments", "shop", namespace="default")
        return bool(dep["spec"]["replicas"] == 2)

    await kubelite_cluster.wait_for(reverted, timeout=10)


@pytest.mark.kubelite(nodes=1)
async def test_deleting_the_webapp_deletes_what_it_owns(kubelite_cluster: Any) -> None:
    await start_operator(kubelite_cluster)
    await load_manifests(kubelite_cluster, SAMPLE)
    await kubelite_cluster.wait_for(lambda: get_or_none(kubelite_cluster, "services", "shop"), timeout=10)
    await kubelite_cluster.client.delete(WEBAPPS, "shop", namespace="default")

    async def gone() -> bool:
        return (await get_or_none(kubelite_cluster, "deployments", "shop") is None
                and await get_or_none(kubelite_cluster, "services", "shop") is None)

    await kubelite_cluster.wait_for(gone, timeout=30)


@pytest.mark.kubelite(nodes=0, controllers=False)
async def test_the_crd_schema_rejects_a_webapp_without_an_image(kubelite_cluster: Any) -> None:
    await install_crds(kubelite_cluster, HERE / "crd.yaml")
    with pytest.raises(Invalid) as err:
        await load_manifests(kubelite_cluster, SAMPLE.replace("  image: nginx:1.25\n", ""))
    assert "spec.image: Required value" in str(err.value)
