"""API semantics through the public client, organised by behaviour (issue #2's list).

Each test names the upstream behaviour it follows.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.api.types import ConfigMap, Deployment, ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, PodSpec
from kubelite.cluster import Cluster
from kubelite.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Expired,
    Forbidden,
    Invalid,
    NotFound,
    TooManyRequests,
)


def pod(name: str = "web", **labels: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, labels=dict(labels) or None),
        spec=PodSpec(containers=[Container(name="c", image="nginx:1.25")]),
    )


def deployment(name: str = "web", replicas: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}},
        },
    }


def snapshot(cluster: Cluster) -> tuple[int, dict[Any, Any]]:
    return cluster.store.revision, {
        k: {kk: vv.data for kk, vv in t.objects.items()} for k, t in cluster.store.tables.items()
    }


# --- object semantics ---------------------------------------------------------------------------------

async def test_create_fills_system_fields_and_defaults(cluster: Cluster) -> None:
    p = await cluster.client.create(pod())
    assert p.metadata.uid and p.metadata.resource_version
    assert p.metadata.creation_timestamp == "2025-01-01T00:00:00Z"
    assert p.metadata.generation == 1
    assert p.spec.restart_policy == "Always"  # SetDefaults_PodSpec
    assert p.spec.containers[0].image_pull_policy == "IfNotPresent"  # tagged image
    assert p.spec.service_account_name == "default"  # ServiceAccount admission
    assert p.spec.priority == 0  # Priority admission
    assert p.status.phase == "Pending" and p.status.qos_class == "BestEffort"  # PrepareForCreate
    assert {t.key for t in p.spec.tolerations} == {  # DefaultTolerationSeconds
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}


async def test_generate_name_is_seeded() -> None:
    async def first_name(seed: int) -> str:
        async with Cluster(seed=seed) as c:
            p = await c.client.create(Pod(metadata=ObjectMeta(generate_name="web-"), spec=pod().spec))
            return str(p.metadata.name)

    a, b, other = await first_name(1), await first_name(1), await first_name(2)
    assert a.startswith("web-") and len(a) == len("web-") + 5
    assert a == b
    assert a != other


async def test_generation_bumps_on_spec_change_only(cluster: Cluster) -> None:
    d = await cluster.client.create(deployment())
    assert d["metadata"]["generation"] == 1
    d["metadata"]["labels"] = {"x": "y"}
    d = await cluster.client.replace(d)
    assert d["metadata"]["generation"] == 1
    d["spec"]["replicas"] = 3
    d = await cluster.client.replace(d)
    assert d["metadata"]["generation"] == 2


async def test_stale_resource_version_is_409(cluster: Cluster) -> None:
    cm = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c"), data={"a": "1"}))
    cm.data = {"a": "2"}
    await cluster.client.replace(cm)
    cm.data = {"a": "3"}
    with pytest.raises(Conflict) as e:
        await cluster.client.replace(cm)  # still carries the old resourceVersion
    assert e.value.status.code == 409


async def test_noop_update_is_not_a_write(cluster: Cluster) -> None:
    cm = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c"), data={"a": "1"}))
    rev = cluster.store.revision
    same = await cluster.client.replace(cm)
    assert same.metadata.resource_version == cm.metadata.resource_version
    assert cluster.store.revision == rev


async def test_caller_mutation_cannot_change_the_store(cluster: Cluster) -> None:
    body = pod(app="web")
    created = await cluster.client.create(body)
    body.metadata.labels["app"] = "evil"  # type: ignore[index]
    created.metadata.labels["app"] = "evil"  # type: ignore[index]
    fetched = await cluster.client.get(Pod, "web")
    fetched.spec.containers.append(Container(name="x", image="y"))
    again = await cluster.client.get(Pod, "web")
    assert again.metadata.labels == {"app": "web"}
    assert len(again.spec.containers) == 1


# --- status subresource ----------------------------------------------------------------------------

async def test_status_subresource_split(cluster: Cluster) -> None:
    d = await cluster.client.create(deployment())
    # main resource update ignores status
    d["status"] = {"replicas": 5}
    d["spec"]["replicas"] = 2
    d = await cluster.client.replace(d)
    assert d["spec"]["replicas"] == 2 and d.get("status", {}).get("replicas") is None
    # /status update ignores everything but status
    d["status"] = {"replicas": 7}
    d["spec"]["replicas"] = 9
    d["metadata"]["labels"] = {"sneaky": "yes"}
    d = await cluster.client.replace_status(d)
    assert d["status"]["replicas"] == 7
    assert d["spec"]["replicas"] == 2
    assert "labels" not in d["metadata"]
    assert d["metadata"]["generation"] == 2


# --- deletion, finalizers --------------------------------------------------------------------------

async def test_finalizer_flow(cluster: Cluster) -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="c", finalizers=["example.com/hold"]))
    await cluster.client.create(cm)
    await cluster.client.delete(ConfigMap, "c")
    held = await cluster.client.get(ConfigMap, "c")
    assert held.metadata.deletion_timestamp == "2025-01-01T00:00:00Z"
    assert held.metadata.deletion_grace_period_seconds == 0
    # a second delete is a no-op; adding finalizers while terminating is allowed, removing the last deletes
    await cluster.client.delete(ConfigMap, "c")
    await cluster.client.patch(ConfigMap, "c", {"metadata": {"finalizers": None}}, patch_type="merge")
    with pytest.raises(NotFound):
        await cluster.client.get(ConfigMap, "c")


async def test_bound_pod_deletion_is_graceful(cluster: Cluster) -> None:
    await cluster.client.create(pod())
    await cluster.client.bind("default", "web", "node-1")
    await cluster.client.delete(Pod, "web")
    p = await cluster.client.get(Pod, "web")
    assert p.metadata.deletion_grace_period_seconds == 30
    assert p.metadata.deletion_timestamp == "2025-01-01T00:00:30Z"
    # the kubelet confirms with grace period 0
    await cluster.client.delete(Pod, "web", grace_period=0)
    with pytest.raises(NotFound):
        await cluster.client.get(Pod, "web")


async def test_unbound_pod_is_deleted_at_once(cluster: Cluster) -> None:
    await cluster.client.create(pod())
    await cluster.client.delete(Pod, "web")
    with pytest.raises(NotFound):
        await cluster.client.get(Pod, "web")


@pytest.mark.parametrize(
    ("policy", "finalizer"),
    [("Orphan", "orphan"), ("Foreground", "foregroundDeletion")],
    ids=["orphan", "foreground"],
)
async def test_propagation_policy_adds_gc_finalizer(cluster: Cluster, policy: str, finalizer: str) -> None:
    await cluster.client.create(deployment())
    await cluster.client.delete("deployments", "web", cascade=policy)
    d = await cluster.client.get("deployments", "web")
    assert d["metadata"]["finalizers"] == [finalizer]
    assert d["metadata"]["deletionTimestamp"]


async def test_delete_preconditions(cluster: Cluster) -> None:
    cm = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c")))
    with pytest.raises(Conflict) as e:
        await cluster.client.delete(ConfigMap, "c", preconditions={"uid": "nope"})
    assert "Precondition failed: UID in precondition: nope" in e.value.message
    await cluster.client.delete(ConfigMap, "c", preconditions={"uid": cm.metadata.uid})


# --- patches -----------------------------------------------------------------------------------------

async def test_strategic_merge_patch_merges_containers_by_name(cluster: Cluster) -> None:
    d = deployment()
    d["spec"]["template"]["spec"]["containers"].append({"name": "side", "image": "busybox"})
    await cluster.client.create(d)
    out = await cluster.client.patch("deployments", "web", {
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:1.26"}]}}}})
    images = {c["name"]: c["image"] for c in out["spec"]["template"]["spec"]["containers"]}
    assert images == {"c": "nginx:1.26", "side": "busybox"}


@pytest.mark.parametrize(
    ("patch_type", "patch"),
    [
        ("merge", {"data": {"b": "2"}}),
        ("json", [{"op": "add", "path": "/data/b", "value": "2"}]),
        ("strategic", {"data": {"b": "2"}}),
    ],
    ids=["merge", "json", "strategic"],
)
async def test_patch_types(cluster: Cluster, patch_type: str, patch: Any) -> None:
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c"), data={"a": "1"}))
    out = await cluster.client.patch(ConfigMap, "c", patch, patch_type=patch_type)
    assert out.data == {"a": "1", "b": "2"}


async def test_server_side_apply_conflicts_and_force(cluster: Cluster) -> None:
    await cluster.client.apply(deployment(replicas=2), field_manager="alice")
    bob = deployment(replicas=5)
    with pytest.raises(Conflict) as e:
        await cluster.client.apply(bob, field_manager="bob")
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas' or \
        '.spec.replicas' in e.value.message
    assert any(c.field == ".spec.replicas" for c in e.value.causes)
    out = await cluster.client.apply(bob, field_manager="bob", force=True)
    assert out["spec"]["replicas"] == 5
    owners = {m["manager"] for m in out["metadata"]["managedFields"]}
    assert owners == {"alice", "bob"}


async def test_apply_requires_field_manager(cluster: Cluster) -> None:
    with pytest.raises(BadRequest):
        await cluster.client.apply(deployment())


# --- lists, selectors, watches ------------------------------------------------------------------------

async def test_label_and_field_selectors(cluster: Cluster) -> None:
    await cluster.client.create(pod("a", app="web"))
    await cluster.client.create(pod("b", app="db"))
    await cluster.client.bind("default", "b", "node-1")
    assert [p.metadata.name for p in await cluster.client.list(Pod, labels="app=web")] == ["a"]
    assert [p.metadata.name for p in await cluster.client.list(Pod, labels="app in (web,db)")] == ["a", "b"]
    assert [p.metadata.name for p in await cluster.client.list(Pod, fields="spec.nodeName=node-1")] == ["b"]
    assert [p.metadata.name for p in await cluster.client.list(Pod, fields="spec.nodeName=")] == ["a"]


async def test_unsupported_field_selector_is_400(cluster: Cluster) -> None:
    with pytest.raises(BadRequest) as e:
        await cluster.client.list(Pod, fields="spec.hostname=x")
    assert e.value.status.code == 400
    assert e.value.message == "field label not supported: spec.hostname"


async def test_pagination_through_client(cluster: Cluster) -> None:
    for i in range(7):
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name=f"c{i}")))
    page = await cluster.client.list_page(ConfigMap, limit=3)
    assert len(page.items) == 3 and page.continue_ and page.remaining_item_count == 4
    assert len(await cluster.client.list(ConfigMap, chunk_size=3)) == 7


async def test_watch_resumes_from_resource_version(cluster: Cluster) -> None:
    first = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="a")))
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="b")))
    await cluster.client.delete(ConfigMap, "a")
    stream = await cluster.client.open_watch(ConfigMap, resource_version=first.metadata.resource_version)
    seen = []
    with stream:
        while (ev := stream.poll()) is not None:
            seen.append((ev[0], ev[1].metadata.name))
    assert seen == [("ADDED", "b"), ("DELETED", "a")]


async def test_410_after_compaction_then_relist(cluster: Cluster) -> None:
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="a")))
    old = (await cluster.client.list_page(ConfigMap)).resource_version
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="b")))
    cluster.compact()
    with pytest.raises(Expired) as e:
        await cluster.client.open_watch(ConfigMap, resource_version=old)
    assert e.value.status.code == 410
    fresh = await cluster.client.list_page(ConfigMap)
    assert [c.metadata.name for c in fresh.items] == ["a", "b"]
    stream = await cluster.client.open_watch(ConfigMap, resource_version=fresh.resource_version)
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c")))
    assert stream.poll()[1].metadata.name == "c"  # type: ignore[index]


async def test_watch_iterates_with_virtual_time(cluster: Cluster) -> None:
    got: list[str] = []

    async def consume() -> None:
        async for typ, obj in cluster.client.watch(ConfigMap):
            got.append(f"{typ}:{obj.metadata.name}")
            if len(got) == 2:
                return

    task = asyncio.ensure_future(consume())
    await cluster.settle()
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="x")))
    await cluster.advance(5)
    await cluster.client.delete(ConfigMap, "x")
    await asyncio.wait_for(task, 1)  # returns as soon as events arrive; the timeout never elapses
    assert got == ["ADDED:x", "DELETED:x"]


# --- errors, validation, admission --------------------------------------------------------------------

async def test_invalid_object_is_422_with_field_causes_and_writes_nothing(cluster: Cluster) -> None:
    before = snapshot(cluster)
    bad = Pod(metadata=ObjectMeta(name="Bad_Name"), spec=PodSpec(containers=[Container(name="c")]))
    with pytest.raises(Invalid) as e:
        await cluster.client.create(bad)
    fields = {c.field for c in e.value.causes}
    assert "metadata.name" in fields and "spec.containers[0].image" in fields
    assert e.value.status.code == 422
    assert snapshot(cluster) == before


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [("Strict", "error"), ("Warn", "warning"), ("Ignore", "silent"), (None, "warning")],
    ids=["strict", "warn", "ignore", "default-warn"],
)
async def test_unknown_fields_follow_field_validation(cluster: Cluster, mode: str | None, outcome: str) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}, "bogus": 1}
    before = snapshot(cluster)
    if outcome == "error":
        with pytest.raises(BadRequest) as e:
            await cluster.client.create(body, field_validation=mode)
        assert e.value.message == 'strict decoding error: unknown field "bogus"'
        assert snapshot(cluster) == before
        return
    out = await cluster.client.create(body, field_validation=mode)
    assert "bogus" not in out
    assert (cluster.client.warnings == ['unknown field "bogus"']) == (outcome == "warning")


async def test_admission_rejection_writes_nothing(cluster: Cluster) -> None:
    from kubelite.apiserver.admission import AdmissionDenied

    async def deny_latest(req: Any) -> None:
        for c in req.object["spec"]["containers"]:
            if c["image"].endswith(":latest"):
                raise AdmissionDenied("images must be pinned")

    cluster.apiserver.admission.register(deny_latest, resources=[("", "pods")], name="pin.example.com")
    before = snapshot(cluster)
    bad = pod()
    bad.spec.containers[0].image = "nginx:latest"
    with pytest.raises(ApiError) as e:
        await cluster.client.create(bad)
    assert e.value.message == 'admission webhook "pin.example.com" denied the request: images must be pinned'
    assert snapshot(cluster) == before
    assert (await cluster.client.create(pod())).metadata.name == "web"


async def test_mutating_hook_changes_object(cluster: Cluster) -> None:
    async def add_label(req: Any) -> None:
        req.object["metadata"].setdefault("labels", {})["injected"] = "yes"

    cluster.apiserver.admission.register(add_label, resources=[("", "configmaps")], mutating=True)
    cm = await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c")))
    assert cm.metadata.labels == {"injected": "yes"}


async def test_namespace_lifecycle(cluster: Cluster) -> None:
    with pytest.raises(NotFound) as e:
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c", namespace="nope")))
    assert e.value.message == 'namespaces "nope" not found'
    with pytest.raises(Forbidden):
        await cluster.client.delete("namespaces", "kube-system")


# --- RBAC ---------------------------------------------------------------------------------------------

async def test_rbac_denial_and_grant(cluster: Cluster) -> None:
    bob = cluster.client_as("bob")
    with pytest.raises(Forbidden) as e:
        await bob.get(Pod, "web")
    assert e.value.message == (
        'pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "default"'
    )
    await cluster.client.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "bob-view", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}],
    })
    await cluster.client.create(pod())
    assert (await bob.get(Pod, "web")).metadata.name == "web"
    with pytest.raises(Forbidden):
        await bob.delete(Pod, "web")


async def test_token_authentication(cluster: Cluster) -> None:
    cluster.add_token("s3cret", "carol", ["system:masters"])
    assert (await cluster.client_with_token("s3cret").list(Pod)) == []
    with pytest.raises(ApiError) as e:
        cluster.client_with_token("wrong")
    assert e.value.status.code == 401


# --- fault injection ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("error", "exc", "code"),
    [(409, Conflict, 409), (429, TooManyRequests, 429), (500, ApiError, 500), ("timeout", ApiError, 504)],
    ids=["conflict", "throttle", "internal", "timeout"],
)
async def test_error_injection(cluster: Cluster, error: Any, exc: type, code: int) -> None:
    cluster.faults.inject(error, verb="create", resource="configmaps", times=1)
    before = snapshot(cluster)
    with pytest.raises(exc) as e:
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c")))
    assert e.value.status.code == code
    assert snapshot(cluster) == before
    await cluster.client.create(ConfigMap(metadata=ObjectMeta(name="c")))  # fired once, then gone


async def test_close_watches_fault(cluster: Cluster) -> None:
    stream = await cluster.client.open_watch(ConfigMap)
    assert cluster.close_watches() >= 1
    assert stream.closed and stream.close_reason == "closed by fault injection"


# --- dry run, delete collection, scale, binding -----------------------------------------------------

async def test_dry_run_writes_nothing(cluster: Cluster) -> None:
    before = snapshot(cluster)
    out = await cluster.client.create(pod(), dry_run=True)
    assert out.metadata.uid and out.status.phase == "Pending"
    assert snapshot(cluster) == before


async def test_delete_collection_by_label(cluster: Cluster) -> None:
    for name, app in [("a", "x"), ("b", "x"), ("c", "y")]:
        await cluster.client.create(ConfigMap(metadata=ObjectMeta(name=name, labels={"app": app})))
    await cluster.client.delete_collection(ConfigMap, labels="app=x")
    assert [c.metadata.name for c in await cluster.client.list(ConfigMap)] == ["c"]


async def test_scale_subresource(cluster: Cluster) -> None:
    await cluster.client.create(deployment(replicas=1))
    scale = await cluster.client.get(Deployment, "web", subresource="scale")
    assert scale.spec.replicas == 1 and scale.status.selector == "app=web"
    await cluster.client.patch(Deployment, "web", {"spec": {"replicas": 4}}, subresource="scale", patch_type="merge")
    assert (await cluster.client.get(Deployment, "web")).spec.replicas == 4


async def test_binding_sets_node_once(cluster: Cluster) -> None:
    await cluster.client.create(pod())
    await cluster.client.bind("default", "web", "node-1")
    p = await cluster.client.get(Pod, "web")
    assert p.spec.node_name == "node-1"
    assert [(c.type, c.status) for c in p.status.conditions] == [("PodScheduled", "True")]
    with pytest.raises(Conflict) as e:
        await cluster.client.bind("default", "web", "node-2")
    assert 'already assigned to node "node-1"' in e.value.message


async def test_already_exists(cluster: Cluster) -> None:
    await cluster.client.create(pod())
    with pytest.raises(AlreadyExists) as e:
        await cluster.client.create(pod())
    assert e.value.message == 'pods "web" already exists'


async def test_namespace_is_held_by_spec_finalizers_until_finalize() -> None:
    # upstream: deleting a namespace marks it Terminating; the namespace controller empties it and then removes
    # "kubernetes" from spec.finalizers through namespaces/finalize, which deletes it (played by hand here)
    async with Cluster(seed=1, controllers=False) as cluster:
        await _finalize_flow(cluster)


async def _finalize_flow(cluster: Cluster) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    await cluster.client.delete("namespaces", "team")
    ns = await cluster.client.get("namespaces", "team")
    assert ns["status"]["phase"] == "Terminating"
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    # a status write or a main-resource update neither deletes it nor drops spec.finalizers
    ns["status"]["conditions"] = [{"type": "NamespaceContentRemaining", "status": "False"}]
    await cluster.client.replace_status(ns)
    ns = await cluster.client.get("namespaces", "team")
    ns["spec"]["finalizers"] = []
    ns = await cluster.client.replace(ns)
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    ns["spec"]["finalizers"] = []
    await cluster.client.replace(ns, subresource="finalize")
    with pytest.raises(NotFound):
        await cluster.client.get("namespaces", "team")


async def test_job_selector_and_namespace_label_are_generated(cluster: Cluster) -> None:
    # pkg/registry/batch/job/strategy.go generateSelector; namespace strategy's kubernetes.io/metadata.name
    job = await cluster.client.create({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "pi", "image": "perl:5.34"}]}}},
    })
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert labels["batch.kubernetes.io/job-name"] == "pi" and labels["controller-uid"] == uid
    ns = await cluster.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "t-"}})
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": ns["metadata"]["name"]}


async def test_service_cluster_ip_allocation(cluster: Cluster) -> None:
    # pkg/registry/core/service: a ClusterIP from the service range, "None" for headless, 422 for a taken IP
    def svc(name: str, **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec}}

    a = await cluster.client.create(svc("a"))
    assert a["spec"]["clusterIP"].startswith("10.") and a["spec"]["clusterIPs"] == [a["spec"]["clusterIP"]]
    headless = await cluster.client.create(svc("h", clusterIP="None"))
    assert headless["spec"]["clusterIP"] == "None"
    with pytest.raises(Invalid) as e:
        await cluster.client.create(svc("b", clusterIP=a["spec"]["clusterIP"]))
    assert "provided IP is already allocated" in e.value.message
    await cluster.client.delete("services", "a")
    again = await cluster.client.create(svc("b", clusterIP=a["spec"]["clusterIP"]))  # released on delete
    assert again["spec"]["clusterIP"] == a["spec"]["clusterIP"]


async def test_reapply_of_ports_without_protocol_keys_them_with_the_default(cluster: Cluster) -> None:
    # list-map keys are completed with schema defaults (ContainerPort.protocol defaults to TCP upstream)
    d = deployment()
    d["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80}, {"containerPort": 443}]
    await cluster.client.apply(d, field_manager="kubectl")
    out = await cluster.client.apply(d, field_manager="kubectl")
    ports = out["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert [(p["containerPort"], p["protocol"]) for p in ports] == [(80, "TCP"), (443, "TCP")]
