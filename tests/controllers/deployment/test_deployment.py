"""The Deployment controller end to end (with the ReplicaSet controller, scheduler and kubelets) on virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.types import Deployment, Pod, ReplicaSet
from kubelite.cluster import Cluster
from kubelite.controllers.deployment import RolloutError, rollback, rollout_status
from kubelite.controllers.deployment.util import (
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    resolve_fenceposts,
)
from kubelite.controllers.podutil import is_pod_ready

from .conftest import untaint


def dep_body(name: str, replicas: int, image: str = "nginx:1.25", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": image}]}}, **spec}}


def set_image(image: str) -> dict[str, Any]:
    return {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}


async def done(c: Cluster, name: str = "web") -> bool:
    return rollout_status(await c.client.get(Deployment, name))[0]


SHAPES = [(4, "25%", "25%"), (5, 1, 0), (6, 0, 2), (3, "50%", "50%")]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("replicas", "surge", "unavailable"), SHAPES, ids=["defaults", "surge-only", "unavail-only",
                                                                            "half"])
async def test_rolling_update_invariants(seed: int, replicas: int, surge: Any, unavailable: Any) -> None:
    s, u = resolve_fenceposts(surge, unavailable, replicas)
    async with Cluster(seed=seed, nodes=2, controllers=["replicaset", "deployment"]) as c:
        await untaint(c)
        await c.client.create(dep_body("web", replicas, strategy={
            "type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}))
        await c.wait_for(lambda: done(c), timeout=60)
        await c.client.patch(Deployment, "web", set_image("nginx:1.26"))
        for _ in range(120):
            await c.advance(1)
            pods = [p for p in await c.client.list(Pod) if p.metadata.deletion_timestamp is None]
            assert len(pods) <= replicas + s
            assert sum(1 for p in pods if is_pod_ready(p)) >= replicas - u
            if await done(c):
                break
        assert await done(c)
        images = {p.spec.containers[0].image for p in await c.client.list(Pod) if p.metadata.deletion_timestamp is None}
        assert images == {"nginx:1.26"}


async def test_first_rollout_names_events_conditions(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(dep_body("web", 3))
    await c.wait_for(lambda: done(c), timeout=60)
    d = await c.client.get(Deployment, "web")
    [rs] = await c.client.list(ReplicaSet)
    h = rs.metadata.labels["pod-template-hash"]
    assert rs.metadata.name == f"web-{h}" and rs.spec.selector.match_labels["pod-template-hash"] == h
    assert rs.metadata.annotations[REVISION_ANNOTATION] == "1" == d.metadata.annotations[REVISION_ANNOTATION]
    assert rs.metadata.annotations["deployment.kubernetes.io/desired-replicas"] == "3"
    assert rs.metadata.annotations["deployment.kubernetes.io/max-replicas"] == "4"
    conds = {x.type: (x.status, x.reason) for x in d.status.conditions}
    assert conds == {"Available": ("True", "MinimumReplicasAvailable"), "Progressing": ("True", "NewReplicaSetAvailable")}
    st = d.status
    # unavailableReplicas: 0 is int32 with omitempty upstream: absent, as kube-apiserver serves it
    assert (st.replicas, st.updated_replicas, st.ready_replicas, st.available_replicas, st.unavailable_replicas) == \
        (3, 3, 3, 3, None)
    msgs = [e["message"] for e in await c.client.list("events") if e["reason"] == "ScalingReplicaSet"]
    assert f"Scaled up replica set web-{h} from 0 to 3" in msgs


async def test_recreate_never_overlaps(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(dep_body("web", 3, strategy={"type": "Recreate"}))
    await c.wait_for(lambda: done(c), timeout=60)
    await c.client.patch(Deployment, "web", set_image("nginx:1.26"))
    for _ in range(240):
        await c.advance(0.25)
        images = {p.spec.containers[0].image for p in await c.client.list(Pod)}
        assert len(images) <= 1  # old pods (even terminating ones) are gone before new ones exist
        if await done(c):
            break
    assert await done(c)
    assert {p.spec.containers[0].image for p in await c.client.list(Pod)} == {"nginx:1.26"}


async def test_rollback_and_history_cleanup(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(dep_body("web", 2, revisionHistoryLimit=1))
    await c.wait_for(lambda: done(c), timeout=60)
    await c.client.patch(Deployment, "web", set_image("nginx:1.26"))
    await c.wait_for(lambda: done(c), timeout=120)
    assert await rollback(c.client, "default", "web") == "deployment.apps/web rolled back"
    await c.wait_for(lambda: done(c), timeout=120)
    d = await c.client.get(Deployment, "web")
    assert d.spec.template.spec.containers[0].image == "nginx:1.25"
    rss = {rs.spec.template.spec.containers[0].image: rs for rs in await c.client.list(ReplicaSet)}
    assert rss["nginx:1.25"].metadata.annotations[REVISION_ANNOTATION] == "3"
    assert rss["nginx:1.25"].metadata.annotations[REVISION_HISTORY_ANNOTATION] == "1"
    with pytest.raises(RolloutError, match="unable to find specified revision 7 in history"):
        await rollback(c.client, "default", "web", to_revision=7)
    await c.client.patch(Deployment, "web", set_image("nginx:1.27"))
    await c.wait_for(lambda: done(c), timeout=120)
    await c.advance(5)
    assert len(await c.client.list(ReplicaSet)) == 2  # the new one plus revisionHistoryLimit=1 old one


@pytest.mark.parametrize("resources", [None, {}], ids=["as-stored", "as-go-clients-send-it"])
async def test_rollback_reuses_the_revisions_replicaset(rs_cluster: Cluster, resources: Any) -> None:
    """``kubectl rollout undo`` JSON-patches the Deployment's template to the old ReplicaSet's, marshalled from
    Go types: every container carries ``resources: {}`` (a value struct there). Upstream's EqualIgnoreHash and
    ComputeHash see the same template, so the old ReplicaSet becomes the new revision: no new ReplicaSet."""
    c = rs_cluster
    await c.client.create(dep_body("web", 2))
    await c.wait_for(lambda: done(c), timeout=60)
    await c.client.patch(Deployment, "web", set_image("nginx:1.26"))
    await c.wait_for(lambda: done(c), timeout=120)
    old = next(rs for rs in await c.client.list("replicasets")
               if rs["metadata"]["annotations"][REVISION_ANNOTATION] == "1")
    template = old["spec"]["template"]
    del template["metadata"]["labels"]["pod-template-hash"]
    assert "resources" not in template["spec"]["containers"][0]
    if resources is not None:
        template["spec"]["containers"][0]["resources"] = resources
    await c.client.patch(Deployment, "web", [{"op": "replace", "path": "/spec/template", "value": template}],
                         patch_type="json")
    await c.wait_for(lambda: done(c), timeout=120)
    rss = await c.client.list(ReplicaSet)
    assert len(rss) == 2
    by_name = {rs.metadata.name: rs for rs in rss}
    assert by_name[old["metadata"]["name"]].metadata.annotations[REVISION_ANNOTATION] == "3"
    assert by_name[old["metadata"]["name"]].spec.replicas == 2

async def test_pause_and_resume(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(dep_body("web", 2))
    await c.wait_for(lambda: done(c), timeout=60)
    await c.client.patch(Deployment, "web", {"spec": {"paused": True}}, patch_type="merge")
    await c.client.patch(Deployment, "web", set_image("nginx:1.26"))
    await c.advance(30)
    assert len(await c.client.list(ReplicaSet)) == 1  # no rollout while paused
    d = await c.client.get(Deployment, "web")
    prog = next(x for x in d.status.conditions if x.type == "Progressing")
    assert (prog.status, prog.reason, prog.message) == ("Unknown", "DeploymentPaused", "Deployment is paused")
    with pytest.raises(RolloutError, match="you cannot rollback a paused deployment"):
        await rollback(c.client, "default", "web")
    await c.client.patch(Deployment, "web", {"spec": {"paused": False}}, patch_type="merge")
    await c.wait_for(lambda: done(c), timeout=120)
    assert len(await c.client.list(ReplicaSet)) == 2


async def test_progress_deadline_exceeded(rs_cluster: Cluster) -> None:
    c = rs_cluster
    await c.client.create(dep_body("web", 2, progressDeadlineSeconds=30))
    await c.wait_for(lambda: done(c), timeout=60)
    await c.client.patch(Deployment, "web", set_image("nowhere/never:does-not-exist"))  # the pull fails forever

    async def timed_out() -> bool:
        d = await c.client.get(Deployment, "web")
        return any(x.type == "Progressing" and x.reason == "ProgressDeadlineExceeded" for x in d.status.conditions)

    await c.wait_for(timed_out, timeout=120)
    d = await c.client.get(Deployment, "web")
    prog = next(x for x in d.status.conditions if x.type == "Progressing")
    assert prog.status == "False" and prog.message.endswith("has timed out progressing.")
    assert c.now - 1735689600 < 90  # reported on time, by the deadline requeue, not a later event
    with pytest.raises(RolloutError, match="exceeded its progress deadline"):
        rollout_status(d)
