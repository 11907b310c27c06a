"""LimitRanger and ResourceQuota admission (upstream ``plugin/pkg/admission/limitranger`` and
``resourcequota``) through the client, and the resource quota controller's ``status``."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.api.quota import namespace_usage, resources_of
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Forbidden
from kubelite.store import StoredObject

NS = "default"


def pod(name: str, *, requests: dict[str, str] | None = None, limits: dict[str, str] | None = None,
        deadline: int | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx", "resources": res}]}
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS}, "spec": spec}


def limit_range(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": NS},
            "spec": {"limits": list(items)}}


def quota(name: str, hard: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": NS},
            "spec": {"hard": hard, **spec}}


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=7, nodes=1, controllers=["resourcequota"]) as c:
        yield c


async def test_limit_ranger_fills_defaults_and_annotates(cluster: Cluster) -> None:
    await cluster.client.create(limit_range({"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"},
                                             "defaultRequest": {"cpu": "100m"}}))
    created = await cluster.client.create(pod("a", requests={"memory": "64Mi"}))
    res = created["spec"]["containers"][0]["resources"]
    assert res == {"requests": {"memory": "64Mi", "cpu": "100m"}, "limits": {"cpu": "500m", "memory": "256Mi"}}
    assert created["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container app; cpu limit for container app; "
        "memory limit for container app")


LIMIT_CASES = [
    ("max-exceeded", {"type": "Container", "max": {"cpu": "1"}}, pod("p", limits={"cpu": "2"}),
     'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2'),
    # a Container item's max is also its default limit (SetDefaults_LimitRangeItem); a Pod item has no defaults
    ("pod-max-without-limit", {"type": "Pod", "max": {"memory": "1Gi"}}, pod("p"),
     'pods "p" is forbidden: maximum memory usage per Pod is 1Gi.  No limit is specified'),
    ("min-not-met", {"type": "Container", "min": {"cpu": "200m"}}, pod("p", requests={"cpu": "100m"}),
     'pods "p" is forbidden: minimum cpu usage per Container is 200m, but request is 100m'),
    ("ratio-exceeded", {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}},
     pod("p", requests={"cpu": "100m"}, limits={"cpu": "500m"}),
     'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000'),
    ("pod-sum-and-container-max", {"type": "Pod", "max": {"cpu": "1"}},
     {**pod("p"), "spec": {"containers": [
         {"name": "a", "image": "x", "resources": {"limits": {"cpu": "600m"}}},
         {"name": "b", "image": "x", "resources": {"limits": {"cpu": "600m"}}}]}},
     'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m'),
]


@pytest.mark.parametrize(("item", "obj", "message"), [c[1:] for c in LIMIT_CASES], ids=[c[0] for c in LIMIT_CASES])
async def test_limit_ranger_rejects(cluster: Cluster, item: dict[str, Any], obj: dict[str, Any], message: str) -> None:
    await cluster.client.create(limit_range(item))
    with pytest.raises(Forbidden) as info:
        await cluster.client.create(obj)
    assert str(info.value) == message
    assert await cluster.client.list("pods", namespace=NS) == []  # a rejected create stored nothing


async def test_quota_rejects_over_quota_creates_with_upstreams_message(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(quota("compute", {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"}))
    await c.create(pod("a", requests={"cpu": "400m"}, limits={"memory": "512Mi"}))
    await c.create(pod("b", requests={"cpu": "400m"}, limits={"memory": "256Mi"}))
    with pytest.raises(Forbidden) as info:
        await c.create(pod("c", requests={"cpu": "300m"}, limits={"memory": "512Mi"}))
    assert str(info.value) == (
        'pods "c" is forbidden: exceeded quota: compute, requested: limits.memory=512Mi,pods=1,requests.cpu=300m, '
        "used: limits.memory=768Mi,pods=2,requests.cpu=800m, limited: limits.memory=1Gi,pods=2,requests.cpu=1")
    # deleting a pod frees its share
    await c.delete("pods", "b", namespace=NS)
    await c.create(pod("c", requests={"cpu": "300m"}, limits={"memory": "256Mi"}))


async def test_quota_with_scopes_covers_only_matching_pods(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(quota("batch", {"pods": "1"}, scopes=["Terminating"]))
    await c.create(pod("long-1"))
    await c.create(pod("long-2"))  # NotTerminating: not covered
    await c.create(pod("job-1", deadline=60))
    with pytest.raises(Forbidden, match="exceeded quota: batch, requested: pods=1, used: pods=1, limited: pods=1"):
        await c.create(pod("job-2", deadline=60))


async def test_object_count_quota(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(quota("objects", {"configmaps": "1", "count/secrets": "1"}))
    await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": NS}})
    with pytest.raises(Forbidden) as info:
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": NS}})
    assert str(info.value) == ('configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, '
                               "used: configmaps=1, limited: configmaps=1")


async def test_dry_run_is_checked_too(cluster: Cluster) -> None:
    await cluster.client.create(quota("q", {"pods": "0"}))
    with pytest.raises(ApiError, match="exceeded quota: q"):
        await cluster.client.create(pod("a"), dry_run=True)


async def test_quota_controller_keeps_status_used(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(quota("compute", {"pods": "5", "requests.cpu": "2", "requests.memory": "1Gi"}))
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"] == {"hard": {"pods": "5", "requests.cpu": "2", "requests.memory": "1Gi"},
                             "used": {"pods": "0", "requests.cpu": "0", "requests.memory": "0"}}
    await c.create(pod("a", requests={"cpu": "250m", "memory": "100Mi"}))
    await c.create(pod("b", requests={"cpu": "500m"}))
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"]["used"] == {"pods": "2", "requests.cpu": "750m", "requests.memory": "100Mi"}
    await c.delete("pods", "a", namespace=NS)
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"]["used"] == {"pods": "1", "requests.cpu": "500m", "requests.memory": "0"}


def _quota_plugin(cluster: Cluster) -> Any:
    return next(p for p in cluster.apiserver.admission.validating_plugins if p.name == "ResourceQuota")


def _recount(cluster: Cluster, q: dict[str, Any]) -> dict[str, Any]:
    """What the quota's usage is by definition: namespace_usage over every stored object it charges."""
    tables = cluster.apiserver.tables
    return namespace_usage(q, {gr: tables.read_all(gr[0], gr[1], NS) for gr in resources_of(q)})


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_quota_usage_kept_by_deltas_equals_a_recount(seed: int) -> None:
    """The plugin keeps each quota's usage by charging the deltas of the writes since the last create (as
    upstream's evaluator charges a request's delta), not by recounting: after every one of a seeded mix of
    pod creates, status changes to terminal phases, deletes, service and configmap writes and quota spec
    changes, and compactions of the history, what it charges equals a recount over the stored objects."""
    rng = random.Random(seed)
    async with Cluster(seed=seed, nodes=0, controllers=False) as cluster:
        c = cluster.client
        plugin = _quota_plugin(cluster)
        quotas = [quota("compute", {"pods": "100", "requests.cpu": "100", "limits.memory": "100Gi"}),
                  quota("short", {"pods": "100", "count/services": "60"}, scopes=["Terminating"]),
                  quota("objects", {"configmaps": "60", "services": "60", "services.nodeports": "120"})]
        for q in quotas:
            await c.create(q)
        pods: list[str] = []
        for step in range(60):
            op = rng.choice(["create", "create", "phase", "delete", "service", "configmap", "quota", "compact"])
            if op == "compact":  # the history no longer reaches the plugin's last look: it reads the namespace again
                cluster.apiserver.store.compact()
            elif op == "create" or not pods:
                name = f"p{step}"
                await c.create(pod(name, requests={"cpu": f"{rng.randint(1, 500)}m"},
                                   limits={"memory": f"{rng.randint(1, 512)}Mi"},
                                   deadline=rng.choice([None, 60])))
                pods.append(name)
            elif op == "phase":
                got = await c.get("pods", rng.choice(pods), namespace=NS)
                got["status"] = {"phase": rng.choice(["Running", "Succeeded", "Failed"])}
                await c.replace_status(got)
            elif op == "delete":
                await c.delete("pods", pods.pop(rng.randrange(len(pods))), namespace=NS)
            elif op == "service":
                await c.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"s{step}", "namespace": NS},
                                "spec": {"type": rng.choice(["ClusterIP", "NodePort"]),
                                         "ports": [{"name": f"p{i}", "port": 80 + i} for i in range(rng.randint(1, 2))]}})
            elif op == "configmap":
                await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{step}", "namespace": NS}})
            else:
                got = await c.get("resourcequotas", "compute", namespace=NS)
                got["spec"]["hard"]["requests.cpu"] = str(rng.randint(50, 100))
                if rng.random() < 0.5:
                    got["spec"]["hard"]["requests.memory"] = "100Gi"
                await c.replace(got)
            for q in await c.list("resourcequotas", namespace=NS):
                assert plugin.used(NS, q) == _recount(cluster, q), (step, op, q["metadata"]["name"])


async def test_a_create_under_a_quota_decodes_only_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every pod write cleared the plugin's read cache, so each create under a quota decoded every pod
    of the namespace again (quadratic); now a create decodes the versions written since the last one."""
    async with Cluster(seed=3, nodes=0, controllers=False) as cluster:
        c = cluster.client
        await c.create(quota("compute", {"pods": "1000", "requests.cpu": "1000"}))
        for i in range(150):
            await c.create(pod(f"p{i}", requests={"cpu": "10m"}))
        decodes = 0
        real = StoredObject.decode

        def counting(self: StoredObject) -> dict[str, Any]:
            nonlocal decodes
            if self.key.startswith(f"{NS}/p"):
                decodes += 1
            return real(self)

        monkeypatch.setattr(StoredObject, "decode", counting)
        for i in range(150, 170):
            await c.create(pod(f"p{i}", requests={"cpu": "10m"}))
        assert decodes <= 20, decodes  # each create's admission decodes the one pod the previous create wrote
        monkeypatch.undo()
        (q,) = await c.list("resourcequotas", namespace=NS)
        assert _quota_plugin(cluster).used(NS, q) == _recount(cluster, q)
