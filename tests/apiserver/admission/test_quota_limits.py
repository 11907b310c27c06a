"""LimitRanger and ResourceQuota admission (upstream ``plugin/pkg/admission/limitranger`` and
``resourcequota``) through the client, and the resource quota controller's ``status``."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.api.quantity import parse_quantity
from kubelite.api.quota import namespace_usage, resources_of
from kubelite.apiserver.admission.resource_quota import RETRIES
from kubelite.cluster import Cluster
from kubelite.controllers.resourcequota import RESYNC_PERIOD
from kubelite.errors import AlreadyExists, ApiError, Conflict, Forbidden
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


async def create_quota(cluster: Cluster, q: dict[str, Any]) -> None:
    """Create ``q`` and let the resource quota controller write its first status (until then upstream's
    admission has no ``status.hard`` to enforce)."""
    await cluster.client.create(q)
    await cluster.wait_for(lambda: _status(cluster, q["metadata"]["name"]).get("hard") is not None, timeout=10)


def _status(cluster: Cluster, name: str) -> dict[str, Any]:
    return dict((cluster.apiserver.read("", "resourcequotas", NS, name) or {}).get("status") or {})


def used(cluster: Cluster, name: str) -> dict[str, str]:
    return dict(_status(cluster, name).get("used") or {})


async def set_status(cluster: Cluster, name: str, hard: dict[str, str], used: dict[str, str]) -> None:
    """Write a quota's status as the resource quota controller would (for clusters that do not run it)."""
    got = await cluster.client.get("resourcequotas", name, namespace=NS)
    got["status"] = {"hard": hard, "used": used}
    await cluster.client.replace_status(got)


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
    await create_quota(cluster, quota("compute", {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"}))
    await c.create(pod("a", requests={"cpu": "400m"}, limits={"memory": "512Mi"}))
    await c.create(pod("b", requests={"cpu": "400m"}, limits={"memory": "256Mi"}))
    with pytest.raises(Forbidden) as info:
        await c.create(pod("c", requests={"cpu": "300m"}, limits={"memory": "512Mi"}))
    assert str(info.value) == (
        'pods "c" is forbidden: exceeded quota: compute, requested: limits.memory=512Mi,pods=1,requests.cpu=300m, '
        "used: limits.memory=768Mi,pods=2,requests.cpu=800m, limited: limits.memory=1Gi,pods=2,requests.cpu=1")
    # deleting a pod frees its share once the controller's replenishment has recalculated status.used
    await c.delete("pods", "b", namespace=NS)
    await cluster.wait_for(lambda: used(cluster, "compute")["pods"] == "1", timeout=10)
    await c.create(pod("c", requests={"cpu": "300m"}, limits={"memory": "256Mi"}))


async def test_quota_with_scopes_covers_only_matching_pods(cluster: Cluster) -> None:
    c = cluster.client
    await create_quota(cluster, quota("batch", {"pods": "1"}, scopes=["Terminating"]))
    await c.create(pod("long-1"))
    await c.create(pod("long-2"))  # NotTerminating: not covered
    await c.create(pod("job-1", deadline=60))
    with pytest.raises(Forbidden, match="exceeded quota: batch, requested: pods=1, used: pods=1, limited: pods=1"):
        await c.create(pod("job-2", deadline=60))


async def test_object_count_quota(cluster: Cluster) -> None:
    c = cluster.client
    await create_quota(cluster, quota("objects", {"configmaps": "1", "count/secrets": "1"}))
    await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": NS}})
    with pytest.raises(Forbidden) as info:
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": NS}})
    assert str(info.value) == ('configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, '
                               "used: configmaps=1, limited: configmaps=1")
    assert used(cluster, "objects") == {"configmaps": "1", "count/secrets": "0"}  # admission charged it


async def test_dry_run_is_checked_but_not_charged(cluster: Cluster) -> None:
    await create_quota(cluster, quota("q", {"pods": "1"}))
    await cluster.client.create(pod("a"), dry_run=True)
    assert used(cluster, "q") == {"pods": "0"}
    await cluster.client.create(pod("a"))
    with pytest.raises(ApiError, match="exceeded quota: q"):
        await cluster.client.create(pod("b"), dry_run=True)
    assert used(cluster, "q") == {"pods": "1"}


async def test_quota_controller_keeps_status_used(cluster: Cluster) -> None:
    c = cluster.client
    await c.create(quota("compute", {"pods": "5", "requests.cpu": "2", "requests.memory": "1Gi"}))
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"] == {"hard": {"pods": "5", "requests.cpu": "2", "requests.memory": "1Gi"},
                             "used": {"pods": "0", "requests.cpu": "0", "requests.memory": "0"}}
    await c.create(pod("a", requests={"cpu": "250m", "memory": "100Mi"}))
    await c.create(pod("b", requests={"cpu": "500m", "memory": "10Mi"}))
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"]["used"] == {"pods": "2", "requests.cpu": "750m", "requests.memory": "110Mi"}
    await c.delete("pods", "a", namespace=NS)
    await cluster.advance(1)
    got = await c.get("resourcequotas", "compute", namespace=NS)
    assert got["status"]["used"] == {"pods": "1", "requests.cpu": "500m", "requests.memory": "10Mi"}


def _quota_plugin(cluster: Cluster) -> Any:
    return next(p for p in cluster.apiserver.admission.validating_plugins if p.name == "ResourceQuota")


def _recount(cluster: Cluster, q: dict[str, Any]) -> dict[str, str]:
    """What the quota's usage is by definition: namespace_usage over every stored object it charges."""
    tables = cluster.apiserver.tables
    usage = namespace_usage(q, {gr: tables.read_all(gr[0], gr[1], NS) for gr in resources_of(q)})
    return {k: str(v) for k, v in usage.items()}


# --- upstream's usage bookkeeping: admission charges status.used, the controller recalculates it ---

async def _fresh_quota(cluster: Cluster) -> None:
    await cluster.client.create(quota("q", {"pods": "1"}))


async def _synced_quota(cluster: Cluster) -> None:
    await _fresh_quota(cluster)
    await set_status(cluster, "q", {"pods": "1"}, {"pods": "0"})


async def _used_not_reported(cluster: Cluster) -> None:
    await _fresh_quota(cluster)
    await set_status(cluster, "q", {"pods": "1", "count/pods": "1"}, {"pods": "0"})


async def _lowered_in_spec_only(cluster: Cluster) -> None:
    await cluster.client.create(quota("q", {"pods": "5"}))
    await set_status(cluster, "q", {"pods": "5"}, {"pods": "0"})
    got = await cluster.client.get("resourcequotas", "q", namespace=NS)
    got["spec"]["hard"]["pods"] = "0"
    await cluster.client.replace(got)


async def _charged_then_deleted(cluster: Cluster) -> None:
    await _synced_quota(cluster)
    await cluster.client.create(pod("first"))
    await cluster.client.delete("pods", "first", namespace=NS)


async def _stored_over_the_limit(cluster: Cluster) -> None:
    await cluster.client.create(pod("first"))
    await cluster.client.create(pod("second"))
    await _synced_quota(cluster)  # status says nothing is used: admission believes the status


@pytest.mark.parametrize(("setup", "outcome", "used_after"), [
    pytest.param(_fresh_quota, None, None, id="a-new-quota-has-no-status-hard-so-covers-nothing"),
    pytest.param(_synced_quota, None, {"pods": "1"}, id="a-synced-quota-admits-and-charges"),
    pytest.param(_used_not_reported, 'pods "p" is forbidden: status unknown for quota: q, resources: count/pods,pods',
                 {"pods": "0"}, id="status-used-missing-a-covered-resource"),
    pytest.param(_lowered_in_spec_only, None, {"pods": "1"}, id="spec-lowered-but-status-hard-not-yet"),
    pytest.param(_charged_then_deleted, 'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
                 "limited: pods=1", {"pods": "1"}, id="a-deletes-share-comes-back-only-with-the-controller"),
    pytest.param(_stored_over_the_limit, None, {"pods": "1"}, id="stored-objects-are-not-recounted-by-admission"),
])
async def test_admission_checks_and_charges_status_used(setup: Any, outcome: str | None,
                                                       used_after: dict[str, str] | None) -> None:
    """Without the resource quota controller (so status changes only as the case writes it and admission
    charges it): upstream's CheckRequest reads ``status.hard`` and ``status.used``, never the stored objects."""
    async with Cluster(seed=5, nodes=0, controllers=False) as cluster:
        await setup(cluster)
        if outcome is None:
            await cluster.client.create(pod("p"))
        else:
            with pytest.raises(Forbidden) as info:
                await cluster.client.create(pod("p"))
            assert str(info.value) == outcome
        assert (_status(cluster, "q").get("used")) == used_after


async def test_pods_must_state_the_compute_resources_a_quota_limits() -> None:
    """podEvaluator.Constraints: with requests.cpu or limits.memory quota'd, every container states them."""
    async with Cluster(seed=5, nodes=0, controllers=False) as cluster:
        await cluster.client.create(quota("compute", {"requests.cpu": "4", "limits.memory": "4Gi"}))
        await set_status(cluster, "compute", {"requests.cpu": "4", "limits.memory": "4Gi"},
                         {"requests.cpu": "0", "limits.memory": "0"})
        with pytest.raises(Forbidden) as info:
            await cluster.client.create(pod("p", requests={"cpu": "1"}))
        assert str(info.value) == 'pods "p" is forbidden: failed quota: compute: must specify limits.memory for: app'
        await cluster.client.create(pod("p", requests={"cpu": "1"}, limits={"memory": "1Gi"}))
        assert used(cluster, "compute") == {"requests.cpu": "1", "limits.memory": "1Gi"}


async def test_concurrent_creates_near_the_limit_take_the_last_unit_once() -> None:
    """Eight creates at once for the last two units: a namespace's admissions are checked and charged one at a
    time (upstream's evaluator works a namespace's waiting attempts on one worker), each against the charges
    before it, so exactly two are admitted, none conflicts, and status.used ends at the limit."""
    async with Cluster(seed=5, nodes=0, controllers=False) as cluster:
        await cluster.client.create(quota("q", {"pods": "3"}))
        await set_status(cluster, "q", {"pods": "3"}, {"pods": "1"})
        plugin = _quota_plugin(cluster)
        write = plugin.update_status
        conflicts = 0

        async def counting(q: dict[str, Any]) -> Any:
            nonlocal conflicts
            await asyncio.sleep(0)  # let the other creates reach admission before this charge lands
            try:
                return await write(q)
            except Conflict:
                conflicts += 1
                raise

        plugin.update_status = counting
        results = await asyncio.gather(*(cluster.client.create(pod(f"p{i}")) for i in range(8)),
                                       return_exceptions=True)
        admitted = [r for r in results if not isinstance(r, BaseException)]
        rejected = [r for r in results if isinstance(r, BaseException)]
        assert len(admitted) == 2
        assert len(rejected) == 6 and all(
            isinstance(r, Forbidden) and "exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3"
            in str(r) for r in rejected), rejected
        assert conflicts == 0
        assert used(cluster, "q") == {"pods": "3"}
        assert len(await cluster.client.list("pods", namespace=NS)) == 2


async def test_a_charge_that_conflicts_with_another_writer_is_checked_again() -> None:
    """The controller recalculates between admission's read and its charge (here: status.used drops to 0 as
    pods were deleted): the charge conflicts, the quota is read again and the request is charged on the new
    status (checkQuotas' retry), not on the stale one."""
    async with Cluster(seed=5, nodes=0, controllers=False) as cluster:
        await cluster.client.create(quota("q", {"pods": "3"}))
        await set_status(cluster, "q", {"pods": "3"}, {"pods": "2"})
        plugin = _quota_plugin(cluster)
        write = plugin.update_status
        calls: list[str] = []

        async def controller_first(q: dict[str, Any]) -> Any:
            calls.append(q["status"]["used"]["pods"])
            if len(calls) == 1:
                await set_status(cluster, "q", {"pods": "3"}, {"pods": "0"})
            return await write(q)

        plugin.update_status = controller_first
        await cluster.client.create(pod("p"))
        assert calls == ["3", "1"]  # the stale charge, then the one on the recalculated status
        assert used(cluster, "q") == {"pods": "1"}


async def test_a_charge_that_keeps_conflicting_fails_the_create() -> None:
    async with Cluster(seed=5, nodes=0, controllers=False) as cluster:
        await cluster.client.create(quota("q", {"pods": "3"}))
        await set_status(cluster, "q", {"pods": "3"}, {"pods": "0"})
        plugin = _quota_plugin(cluster)
        calls = 0

        async def always_stale(q: dict[str, Any]) -> Any:
            nonlocal calls
            calls += 1
            raise Conflict.make("the object has been modified")

        plugin.update_status = always_stale
        with pytest.raises(Conflict):
            await cluster.client.create(pod("p"))
        assert calls == RETRIES + 1
        assert await cluster.client.list("pods", namespace=NS) == []


async def test_a_create_that_fails_after_admission_stays_charged_until_the_resync(cluster: Cluster) -> None:
    """The charge is written before the object: an AlreadyExists leaves status.used one too high until the
    controller's full resync (it syncs on spec changes and replenishment only), as upstream."""
    await create_quota(cluster, quota("q", {"pods": "5"}))
    await cluster.client.create(pod("a"))
    with pytest.raises(AlreadyExists):
        await cluster.client.create(pod("a"))
    await cluster.advance(1)
    assert used(cluster, "q") == {"pods": "2"}
    await cluster.advance(RESYNC_PERIOD)
    assert used(cluster, "q") == {"pods": "1"}


async def test_the_controller_syncs_on_spec_changes_and_terminal_pods(cluster: Cluster) -> None:
    c = cluster.client
    await create_quota(cluster, quota("q", {"pods": "5"}))
    await c.create(pod("a"))
    got = await c.get("resourcequotas", "q", namespace=NS)
    got["spec"]["hard"]["requests.cpu"] = "2"
    await c.replace(got)
    await cluster.advance(1)
    assert _status(cluster, "q") == {"hard": {"pods": "5", "requests.cpu": "2"},
                                     "used": {"pods": "1", "requests.cpu": "0"}}
    a = await c.get("pods", "a", namespace=NS)
    a["status"] = {"phase": "Succeeded"}
    await c.replace_status(a)
    await cluster.advance(1)
    assert used(cluster, "q") == {"pods": "0", "requests.cpu": "0"}


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_status_used_equals_a_recount_after_the_resync(seed: int) -> None:
    """After a seeded mix of pod creates, terminal phases, deletes, failed creates, service and configmap
    writes and quota spec changes, the controller's full resync leaves every quota's status.used equal to a
    recount over the stored objects, and admission never charged a quota past its hard limit."""
    rng = random.Random(seed)
    async with Cluster(seed=seed, nodes=0, controllers=["resourcequota"]) as cluster:
        c = cluster.client
        quotas = [quota("compute", {"pods": "40", "requests.cpu": "100", "limits.memory": "100Gi"}),
                  quota("short", {"pods": "30", "count/services": "60"}, scopes=["Terminating"]),
                  quota("objects", {"configmaps": "60", "services": "60", "services.nodeports": "120"})]
        for q in quotas:
            await create_quota(cluster, q)
        pods: list[str] = []
        for step in range(60):
            op = rng.choice(["create", "create", "phase", "delete", "service", "configmap", "quota", "again"])
            if op == "create" or not pods:
                name = f"p{step}"
                try:
                    await c.create(pod(name, requests={"cpu": f"{rng.randint(1, 500)}m"},
                                       limits={"memory": f"{rng.randint(1, 512)}Mi"}, deadline=rng.choice([None, 60])))
                    pods.append(name)
                except Forbidden:
                    pass
            elif op == "again":
                with pytest.raises((AlreadyExists, Forbidden)):
                    await c.create(pod(rng.choice(pods), requests={"cpu": "1m"}, limits={"memory": "1Mi"}))
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
                st = q.get("status") or {}
                for k, v in (st.get("used") or {}).items():
                    assert parse_quantity(v) <= parse_quantity(st["hard"][k]), (step, op, q["metadata"]["name"], k)
        await cluster.advance(RESYNC_PERIOD + 1)
        for q in await c.list("resourcequotas", namespace=NS):
            assert q["status"]["used"] == _recount(cluster, q), q["metadata"]["name"]


async def test_a_create_under_a_quota_decodes_no_stored_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admission reads the namespace's quotas and charges the request to their status: no create under a
    quota decodes the namespace's pods (before upstream's bookkeeping, usage was counted from them)."""
    async with Cluster(seed=3, nodes=0, controllers=False) as cluster:
        c = cluster.client
        await c.create(quota("compute", {"pods": "1000", "requests.cpu": "1000"}))
        await set_status(cluster, "compute", {"pods": "1000", "requests.cpu": "1000"}, {"pods": "0", "requests.cpu": "0"})
        for i in range(50):
            await c.create(pod(f"p{i}", requests={"cpu": "10m"}))
        decodes = 0
        real = StoredObject.decode

        def counting(self: StoredObject) -> dict[str, Any]:
            nonlocal decodes
            if self.key.startswith(f"{NS}/p"):
                decodes += 1
            return real(self)

        monkeypatch.setattr(StoredObject, "decode", counting)
        for i in range(50, 70):
            await c.create(pod(f"p{i}", requests={"cpu": "10m"}))
        assert decodes == 0, decodes
        monkeypatch.undo()
        assert used(cluster, "compute") == {"pods": "70", "requests.cpu": "700m"}
