"""Components talk to the API with their own identities (upstream's bootstrap policy), so RBAC checks what
each may do and a missing permission fails: kube-scheduler as ``system:kube-scheduler``, every
kube-controller-manager controller as its ``kube-system`` service account (``--use-service-account-credentials``),
kubelets as ``system:node:<name>`` in ``system:nodes``."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster


def rs_body(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


async def events(c: Cluster, reason: str) -> list[str]:
    return [e["message"] for e in await c.client.list("events", namespace="default") if e["reason"] == reason]


async def test_components_run_as_their_own_users() -> None:
    async with Cluster(seed=2, nodes=2, controllers=["replicaset"]) as c:
        assert c.scheduler.client.user.name == "system:kube-scheduler"
        assert c.controller_manager.client.user.name == "system:kube-controller-manager"
        kubelet = c.node_pools[0]["node-1"]
        assert kubelet.client.user.name == "system:node:node-1"
        assert "system:nodes" in kubelet.client.user.groups


@pytest.mark.parametrize(("binding", "user"), [
    ("system:controller:replicaset-controller", "system:serviceaccount:kube-system:replicaset-controller"),
], ids=["replicaset-controller"])
async def test_a_controller_without_its_role_is_forbidden(binding: str, user: str) -> None:
    """Each controller writes as its service account: take its ClusterRoleBinding away and its writes fail with
    upstream's Forbidden message, while other identities are unaffected."""
    async with Cluster(seed=2, nodes=1, controllers=["replicaset"]) as c:
        await c.client.delete("clusterrolebindings", binding)
        await c.client.create(rs_body("web"))
        await c.advance(5)
        assert await c.client.list("pods", namespace="default") == []
        failed = await events(c, "FailedCreate")
        assert failed, "the controller should have reported its failed creates"
        assert f'User "{user}" cannot create resource "pods"' in failed[0]


async def test_controllers_with_their_roles_work() -> None:
    async with Cluster(seed=2, nodes=1, controllers=["replicaset"]) as c:
        await c.client.create(rs_body("web"))
        await c.advance(5)
        assert len(await c.client.list("pods", namespace="default")) == 2
        assert await events(c, "FailedCreate") == []


async def test_the_scheduler_without_its_role_cannot_bind() -> None:
    async with Cluster(seed=2, nodes=1, controllers=False) as c:
        await c.client.delete("clusterrolebindings", "system:kube-scheduler")
        await c.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})
        await c.advance(5)
        pod = await c.client.get("pods", "p", namespace="default")
        assert not pod["spec"].get("nodeName")



#: the managedFields a real cluster shows, as ``(manager, operation, subresource)`` in the stored order:
#: kube-apiserver names a manager after the writer's User-Agent product when it sends no fieldManager
#: (managerOrUserAgent: ``kubelet``, ``kube-scheduler``, ``kube-controller-manager``), and a binding writes the
#: pod past the field manager (BindingREST's storage GuaranteedUpdate), so a bound pod shows no scheduler entry
MANAGED_FIELDS: dict[str, list[tuple[str, str, str]]] = {
    "deployment": [("kubectl", "Apply", ""), ("kube-controller-manager", "Update", ""),
                   ("kube-controller-manager", "Update", "status")],
    "bound pod": [("kube-controller-manager", "Update", ""), ("kubelet", "Update", "status")],
    "unschedulable pod": [("admin", "Update", ""), ("kube-scheduler", "Update", "status")],
    "node": [("kube-controller-manager", "Update", ""), ("kubelet", "Update", ""), ("kubelet", "Update", "status")],
    "lease": [("kubelet", "Update", "")],
}


async def test_managed_fields_name_each_component_as_upstream_does() -> None:
    async with Cluster(seed=2, nodes=1) as c:
        admin = c.client.with_field_manager("admin")
        await admin.apply(
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
             "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                      "template": {"metadata": {"labels": {"app": "web"}},
                                   "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}},
            field_manager="kubectl")
        await admin.create({"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": "unschedulable", "namespace": "default"},
                            "spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                                     "resources": {"requests": {"cpu": "1000"}}}]}})

        async def running() -> list[dict[str, Any]]:
            pods = await c.client.list("pods", namespace="default", labels={"app": "web"})
            return [p for p in pods if p["status"].get("phase") == "Running"]

        (pod,) = await c.wait_for(running)
        await c.advance(20)  # a lease renewal and the scheduler's retry of the unschedulable pod
        objs = {
            "deployment": await c.client.get("deployments", "web", namespace="default"),
            "bound pod": await c.client.get("pods", pod["metadata"]["name"], namespace="default"),
            "unschedulable pod": await c.client.get("pods", "unschedulable", namespace="default"),
            "node": await c.client.get("nodes", "node-0"),
            "lease": await c.client.get("leases", "node-0", namespace="kube-node-lease"),
        }
        got = {k: [(m["manager"], m["operation"], m.get("subresource", "")) for m in o["metadata"]["managedFields"]]
               for k, o in objs.items()}
        assert got == MANAGED_FIELDS
