"""The StatefulSet controller end to end on virtual time: ordered creation and deletion, stable names
and storage after a pod is deleted, claims from volumeClaimTemplates, partitioned rolling updates,
Parallel pod management."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster

CTRL = ["statefulset", "nodelifecycle"]


def sts(name: str = "web", replicas: int = 3, claims: bool = False, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}, **spec}}
    if claims:
        body["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "www"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
            "resources": {"requests": {"storage": "1Gi"}}}}]
    return body


async def bind_claims(c: Cluster) -> None:
    """Stands in for the missing PV provisioner: every claim is bound at once."""
    for pvc in await c.client.list("persistentvolumeclaims", namespace="default"):
        if (pvc.get("status") or {}).get("phase") != "Bound":
            await c.client.patch_status("persistentvolumeclaims", pvc["metadata"]["name"],
                                        {"status": {"phase": "Bound"}}, namespace="default", patch_type="merge")


async def pods(c: Cluster) -> dict[str, dict[str, Any]]:
    return {p["metadata"]["name"]: p for p in await c.client.list("pods", namespace="default")}


def ready(p: dict[str, Any]) -> bool:
    return any(x["type"] == "Ready" and x["status"] == "True" for x in (p.get("status") or {}).get("conditions") or ())


async def status(c: Cluster, name: str = "web") -> dict[str, Any]:
    s: dict[str, Any] = await c.client.get("statefulsets", name, namespace="default")
    return s.get("status") or {}


async def all_ready(c: Cluster, n: int, name: str = "web") -> bool:
    st = await status(c, name)
    return st.get("replicas") == n and st.get("readyReplicas") == n and st.get("updatedReplicas") == n \
        and st.get("currentRevision") == st.get("updateRevision")


async def test_ordered_creation_and_deletion() -> None:
    async with Cluster(seed=1, nodes=2, controllers=CTRL) as c:
        await c.client.create(sts(replicas=3))
        order: list[str] = []

        async def watch_order() -> bool:
            ps = await pods(c)
            for name in sorted(ps):
                if name not in order:
                    order.append(name)
                    # every lower ordinal was Running and Ready before this one was created
                    for lower in range(int(name.rsplit("-", 1)[1])):
                        assert ready(ps[f"web-{lower}"])
            return await all_ready(c, 3)

        await c.wait_for(watch_order, timeout=60, interval=0.1)
        assert order == ["web-0", "web-1", "web-2"]
        ps = await pods(c)
        assert ps["web-1"]["spec"]["hostname"] == "web-1" and ps["web-1"]["spec"]["subdomain"] == "web"
        assert ps["web-1"]["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
        await c.client.patch("statefulsets", "web", {"spec": {"replicas": 0}}, namespace="default",
                             patch_type="merge")
        gone: list[str] = []

        async def watch_deletes() -> bool:
            ps = await pods(c)
            for name in ("web-2", "web-1", "web-0"):
                if name not in ps and name not in gone:
                    gone.append(name)
            return not ps

        await c.wait_for(watch_deletes, timeout=120, interval=0.1)
        assert gone == ["web-2", "web-1", "web-0"]
        msgs = [e["message"] for e in await c.client.list("events", namespace="default")
                if e["involvedObject"]["kind"] == "StatefulSet"]
        assert "create Pod web-0 in StatefulSet web successful" in msgs
        assert "delete Pod web-2 in StatefulSet web successful" in msgs


async def test_claims_from_templates_and_stable_identity_after_deletion() -> None:
    async with Cluster(seed=2, nodes=2, controllers=CTRL) as c:
        await c.client.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                               "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
                               "volumeBindingMode": "WaitForFirstConsumer"})
        await c.client.create(sts(replicas=2, claims=True))

        async def up() -> bool:
            await bind_claims(c)
            return await all_ready(c, 2)

        await c.wait_for(up, timeout=60, interval=0.2)
        claims = {p["metadata"]["name"]: p for p in await c.client.list("persistentvolumeclaims", namespace="default")}
        assert sorted(claims) == ["www-web-0", "www-web-1"]
        assert claims["www-web-0"]["metadata"]["labels"] == {"app": "web"}
        ps = await pods(c)
        vol = next(v for v in ps["web-1"]["spec"]["volumes"] if v["name"] == "www")
        assert vol["persistentVolumeClaim"]["claimName"] == "www-web-1"
        old_uid = ps["web-1"]["metadata"]["uid"]
        await c.client.delete("pods", "web-1", namespace="default")

        async def back() -> bool:
            p = (await pods(c)).get("web-1")
            return p is not None and p["metadata"]["uid"] != old_uid and ready(p)

        await c.wait_for(back, timeout=60, interval=0.2)
        p = (await pods(c))["web-1"]
        assert next(v for v in p["spec"]["volumes"] if v["name"] == "www")["persistentVolumeClaim"]["claimName"] \
            == "www-web-1"
        assert len(await c.client.list("persistentvolumeclaims", namespace="default")) == 2


async def test_partitioned_rolling_update_goes_from_the_highest_ordinal_down() -> None:
    async with Cluster(seed=3, nodes=2, controllers=CTRL) as c:
        await c.client.create(sts(replicas=4, updateStrategy={"type": "RollingUpdate",
                                                              "rollingUpdate": {"partition": 2}}))
        await c.wait_for(lambda: all_ready(c, 4), timeout=60)
        rev1 = (await status(c))["currentRevision"]
        await c.client.patch("statefulsets", "web", {"spec": {"template": {"metadata": {"labels": {"v": "2"}}}}},
                             namespace="default")
        updated_order: list[str] = []

        async def progress() -> bool:
            ps = await pods(c)
            not_ready = [n for n, p in ps.items() if not ready(p) or p["metadata"].get("deletionTimestamp")]
            assert len(not_ready) <= 1  # one at a time
            for n in ("web-3", "web-2"):
                p = ps.get(n)
                if p is not None and p["metadata"]["labels"].get("v") == "2" and n not in updated_order:
                    updated_order.append(n)
            st = await status(c)
            return st.get("updatedReplicas") == 2 and st.get("readyReplicas") == 4

        await c.wait_for(progress, timeout=120, interval=0.1)
        assert updated_order == ["web-3", "web-2"]
        ps = await pods(c)
        assert "v" not in ps["web-0"]["metadata"]["labels"] and "v" not in ps["web-1"]["metadata"]["labels"]
        st = await status(c)
        assert st["currentRevision"] == rev1 and st["updateRevision"] != rev1 and st["currentReplicas"] == 2
        # a pod below the partition is recreated at the current revision
        await c.client.delete("pods", "web-0", namespace="default")
        await c.wait_for(lambda: all_ready_partial(c), timeout=60)
        assert "v" not in (await pods(c))["web-0"]["metadata"]["labels"]
        # partition 0 finishes the rollout and the update revision becomes current
        await c.client.patch("statefulsets", "web", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}},
                             namespace="default", patch_type="merge")
        await c.wait_for(lambda: all_ready(c, 4), timeout=120)
        st = await status(c)
        assert st["currentRevision"] == st["updateRevision"] != rev1
        assert len(await c.client.list("controllerrevisions", namespace="default")) == 2


async def all_ready_partial(c: Cluster) -> bool:
    st = await status(c)
    return st.get("readyReplicas") == 4 and st.get("replicas") == 4


async def test_parallel_pod_management_creates_all_at_once() -> None:
    async with Cluster(seed=4, nodes=2, controllers=CTRL) as c:
        await c.client.create(sts(replicas=3, podManagementPolicy="Parallel"))
        await c.advance(0.5)
        assert sorted(await pods(c)) == ["web-0", "web-1", "web-2"]
        await c.wait_for(lambda: all_ready(c, 3), timeout=60)
