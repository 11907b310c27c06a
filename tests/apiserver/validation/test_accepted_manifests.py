"""Manifests upstream accepts that kubelite once refused (public examples)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import Invalid


def statefulset(volume_mounts: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "serviceName": "nginx", "replicas": 1, "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [
                {"name": "nginx", "image": "nginx", "volumeMounts": volume_mounts}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
            **spec,
        },
    }


async def test_statefulset_mounting_a_claim_template_is_accepted(cluster: Cluster) -> None:
    """ValidatePodTemplateSpecForStatefulSet leaves the PodSpec alone (claim templates are not pod volumes)."""
    out = await cluster.client.create(statefulset([{"name": "www", "mountPath": "/usr/share/nginx/html"}]))
    assert out["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "www"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param({"template": {"metadata": {"labels": {"app": "other"}}, "spec": {"containers": []}}},
                     "spec.template.metadata.labels", id="selector-mismatch"),
        pytest.param({"template": {"metadata": {"labels": {"app": "nginx"}, "annotations": {"bad key": "v"}},
                                   "spec": {"containers": []}}},
                     "spec.template.annotations", id="bad-template-annotation"),
    ],
)
async def test_statefulset_template_metadata_is_still_validated(
    cluster: Cluster, change: dict[str, Any], field: str,
) -> None:
    with pytest.raises(Invalid) as e:
        await cluster.client.create(statefulset([], **change))
    assert field in [c.field for c in e.value.causes]


async def test_statefulset_pods_get_their_claim_volumes() -> None:
    async with Cluster(seed=1, nodes=1) as cluster:
        c = cluster.client
        await c.create(statefulset([{"name": "www", "mountPath": "/data"}]))

        async def pod_created() -> Any:
            pods = await c.list("pods", namespace="default")
            return pods[0] if pods else None

        await cluster.wait_for(pod_created, timeout=60)
        p = (await c.list("pods", namespace="default"))[0]
        volumes = {v["name"]: v for v in p["spec"]["volumes"]}
        assert volumes["www"]["persistentVolumeClaim"]["claimName"] == "www-web-0"


FLEX = {"driver": "example.com/lvm", "fsType": "ext4", "options": {"volumeID": "vol1"}}


async def test_flex_volume_is_accepted_in_pods_and_pvs(cluster: Cluster) -> None:
    c = cluster.client
    p = await c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                        "spec": {"containers": [{"name": "c", "image": "nginx"}],
                                 "volumes": [{"name": "v", "flexVolume": FLEX}]}})
    assert p["spec"]["volumes"][0]["flexVolume"]["driver"] == "example.com/lvm"
    pv = await c.create({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
                         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                  "flexVolume": FLEX}})
    assert pv["spec"]["flexVolume"]["fsType"] == "ext4"


@pytest.mark.parametrize(
    ("flex", "field", "kind"),
    [
        pytest.param({"fsType": "ext4"}, "spec.volumes[0].flexVolume.driver", "FieldValueRequired", id="no-driver"),
        pytest.param({"driver": "d", "options": {"kubernetes.io/secret": "x"}},
                     "spec.volumes[0].flexVolume.options[kubernetes.io/secret]", "FieldValueInvalid",
                     id="reserved-option"),
        pytest.param({"driver": "d", "options": {"foo.k8s.io/x": "x"}},
                     "spec.volumes[0].flexVolume.options[foo.k8s.io/x]", "FieldValueInvalid", id="reserved-k8s-io"),
    ],
)
async def test_flex_volume_validation(cluster: Cluster, flex: dict[str, Any], field: str, kind: str) -> None:
    with pytest.raises(Invalid) as e:
        await cluster.client.create({"apiVersion": "v1", "kind": "Pod",
                                     "metadata": {"name": "p", "namespace": "default"},
                                     "spec": {"containers": [{"name": "c", "image": "nginx"}],
                                              "volumes": [{"name": "v", "flexVolume": flex}]}})
    assert [(c.field, c.reason) for c in e.value.causes] == [(field, kind)]
