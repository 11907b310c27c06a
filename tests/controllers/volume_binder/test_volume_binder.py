"""The PersistentVolume binder and the built-in provisioner end to end on virtual time: static binding,
pre-binding, dynamic provisioning (Immediate and WaitForFirstConsumer), reclaim, and a StatefulSet whose
volumeClaimTemplates bind with nobody patching anything."""

from __future__ import annotations

from typing import Any

from kubelite.cluster import Cluster

CTRL = ["persistentvolume-binder", "nodelifecycle"]
NS = "default"


def pv(name: str, size: str, *, klass: str = "manual", policy: str = "Retain",
       claim: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                            "storageClassName": klass, "persistentVolumeReclaimPolicy": policy,
                            "hostPath": {"path": f"/data/{name}"}}
    if claim is not None:
        spec["claimRef"] = claim
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def pvc(name: str, size: str = "1Gi", *, klass: str | None = "manual", volume: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    if klass is not None:
        spec["storageClassName"] = klass
    if volume is not None:
        spec["volumeName"] = volume
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": NS},
            "spec": spec}


def storage_class(name: str, *, mode: str = "Immediate", policy: str = "Delete",
                  provisioner: str = "kubelite.io/hostpath") -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": mode, "reclaimPolicy": policy}


def pod(name: str, claim: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS}, "spec": {
        "containers": [{"name": "app", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]}}


async def get_pvc(c: Cluster, name: str) -> dict[str, Any]:
    out: dict[str, Any] = await c.client.get("persistentvolumeclaims", name, namespace=NS)
    return out


async def get_pv(c: Cluster, name: str) -> dict[str, Any] | None:
    for v in await c.client.list("persistentvolumes"):
        if v["metadata"]["name"] == name:
            return v  # type: ignore[no-any-return]
    return None


async def bound(c: Cluster, name: str) -> bool:
    return bool((await get_pvc(c, name)).get("status", {}).get("phase") == "Bound")


async def events(c: Cluster, name: str) -> list[tuple[str, str, str]]:
    return [(e["type"], e["reason"], e["message"]) for e in await c.client.list("events", namespace="*")
            if e["involvedObject"]["name"] == name]


async def running(c: Cluster, name: str) -> bool:
    p = await c.client.get("pods", name, namespace=NS)
    return (p.get("status") or {}).get("phase") == "Running"


async def test_static_binding_picks_smallest_fitting_volume_and_writes_both_sides() -> None:
    async with Cluster(seed=1, nodes=1, controllers=CTRL) as c:
        for name, size in (("pv-1g", "1Gi"), ("pv-10g", "10Gi"), ("pv-5g", "5Gi"), ("pv-4g", "4Gi")):
            await c.client.create(pv(name, size))
        await c.wait_for(lambda: _all_available(c, 4), timeout=10)
        await c.client.create(pvc("data", "3Gi"))
        await c.wait_for(lambda: bound(c, "data"), timeout=10)
        claim = await get_pvc(c, "data")
        assert claim["spec"]["volumeName"] == "pv-4g"
        assert claim["status"]["capacity"] == {"storage": "4Gi"}
        assert claim["status"]["accessModes"] == ["ReadWriteOnce"]
        assert claim["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes",
                                                    "pv.kubernetes.io/bound-by-controller": "yes"}
        vol = await get_pv(c, "pv-4g")
        assert vol is not None and vol["status"]["phase"] == "Bound"
        ref = vol["spec"]["claimRef"]
        assert (ref["kind"], ref["namespace"], ref["name"], ref["uid"]) == \
            ("PersistentVolumeClaim", NS, "data", claim["metadata"]["uid"])
        assert ref["resourceVersion"]
        assert vol["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
        others = [await get_pv(c, n) for n in ("pv-1g", "pv-5g", "pv-10g")]
        assert [o["status"]["phase"] for o in others if o is not None] == ["Available"] * 3
        # a pod using the claim runs
        await c.client.create(pod("app", "data"))
        await c.wait_for(lambda: running(c, "app"), timeout=60)


async def _all_available(c: Cluster, n: int) -> bool:
    vols = await c.client.list("persistentvolumes")
    return len(vols) == n and all(v["status"]["phase"] == "Available" for v in vols)


async def test_no_class_waits_with_failed_binding_until_a_volume_appears() -> None:
    async with Cluster(seed=2, nodes=0, controllers=CTRL) as c:
        await c.client.create(pvc("data", klass=""))
        await c.advance(2)
        assert not await bound(c, "data")
        assert ("Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set") \
            in await events(c, "data")
        await c.client.create(pv("late", "2Gi", klass=""))
        await c.wait_for(lambda: bound(c, "data"), timeout=10)
        assert (await get_pvc(c, "data"))["spec"]["volumeName"] == "late"


async def test_pre_bound_claim_and_pre_bound_volume_are_honoured() -> None:
    async with Cluster(seed=3, nodes=0, controllers=CTRL) as c:
        await c.client.create(pv("small", "1Gi"))
        await c.client.create(pv("chosen", "8Gi"))
        await c.client.create(pv("reserved", "1Gi", claim={"namespace": NS, "name": "owner"}))
        await c.client.create(pv("tiny", "100Mi"))
        await c.client.create(pvc("wants-chosen", volume="chosen"))
        await c.client.create(pvc("other", "1Gi"))
        await c.client.create(pvc("too-big", "5Gi", volume="tiny"))
        await c.wait_for(lambda: _both_bound(c, "wants-chosen", "other"), timeout=10)
        assert (await get_pvc(c, "wants-chosen"))["spec"]["volumeName"] == "chosen"
        # the user chose the volume: the claim carries bind-completed only
        assert (await get_pvc(c, "wants-chosen"))["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}
        assert (await get_pvc(c, "other"))["spec"]["volumeName"] == "small"  # never the reserved one
        reserved = await get_pv(c, "reserved")
        assert reserved is not None and reserved["status"]["phase"] == "Available"
        await c.client.create(pvc("owner", "1Gi"))
        await c.wait_for(lambda: bound(c, "owner"), timeout=10)
        assert (await get_pvc(c, "owner"))["spec"]["volumeName"] == "reserved"
        reserved = await get_pv(c, "reserved")
        assert reserved is not None and "annotations" not in reserved["metadata"]  # the user pre-bound it
        assert not await bound(c, "too-big")
        assert ("Warning", "VolumeMismatch", 'Cannot bind to requested volume "tiny": requested PV is too small') \
            in await events(c, "too-big")


async def _both_bound(c: Cluster, a: str, b: str) -> bool:
    return await bound(c, a) and await bound(c, b)


async def test_immediate_class_provisions_at_once_and_takes_virtual_time() -> None:
    opts = {"persistentvolume-binder": {"provisioning_delay": 3.0}}
    async with Cluster(seed=4, nodes=1, controllers=CTRL, controller_options=opts) as c:
        await c.client.create(storage_class("fast", policy="Retain"))
        await c.client.create(pvc("data", "2Gi", klass="fast"))
        start = c.clock.now()
        await c.wait_for(lambda: bound(c, "data"), timeout=20, interval=0.05)
        assert c.clock.now() - start >= 3.0
        claim = await get_pvc(c, "data")
        uid = claim["metadata"]["uid"]
        assert claim["spec"]["volumeName"] == f"pvc-{uid}"
        ann = claim["metadata"]["annotations"]
        assert ann["volume.kubernetes.io/storage-provisioner"] == "kubelite.io/hostpath"
        assert ann["volume.beta.kubernetes.io/storage-provisioner"] == "kubelite.io/hostpath"
        vol = await get_pv(c, f"pvc-{uid}")
        assert vol is not None
        assert vol["metadata"]["annotations"] == {"pv.kubernetes.io/provisioned-by": "kubelite.io/hostpath"}
        assert vol["spec"]["capacity"] == {"storage": "2Gi"} and vol["spec"]["storageClassName"] == "fast"
        assert vol["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        assert "nodeAffinity" not in vol["spec"]
        assert vol["spec"]["claimRef"]["uid"] == uid and vol["status"]["phase"] == "Bound"
        evs = await events(c, "data")
        reasons = [r for _, r, _ in evs]
        assert "ExternalProvisioning" in reasons
        assert ("Normal", "Provisioning", 'External provisioner is provisioning volume for claim "default/data"') in evs
        assert ("Normal", "ProvisioningSucceeded", f"Successfully provisioned volume pvc-{uid}") in evs
        await c.client.create(pod("app", "data"))
        await c.wait_for(lambda: running(c, "app"), timeout=60)


async def test_wait_for_first_consumer_provisions_on_the_scheduled_node() -> None:
    async with Cluster(seed=5, nodes=3, controllers=CTRL) as c:
        await c.client.create(storage_class("local", mode="WaitForFirstConsumer"))
        await c.client.create(pvc("data", klass="local"))
        await c.advance(5)
        claim = await get_pvc(c, "data")
        assert claim["status"]["phase"] == "Pending" and "volumeName" not in claim["spec"]
        assert not await c.client.list("persistentvolumes")
        assert ("Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding") \
            in await events(c, "data")
        await c.client.create(pod("app", "data"))
        await c.wait_for(lambda: running(c, "app"), timeout=60)
        node = (await c.client.get("pods", "app", namespace=NS))["spec"]["nodeName"]
        claim = await get_pvc(c, "data")
        assert claim["status"]["phase"] == "Bound"
        assert claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
        vol = await get_pv(c, claim["spec"]["volumeName"])
        assert vol is not None
        assert vol["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]


async def test_no_provisioner_class_reports_provisioning_failed() -> None:
    async with Cluster(seed=6, nodes=0, controllers=CTRL) as c:
        await c.client.create(storage_class("static", provisioner="kubernetes.io/no-provisioner"))
        await c.client.create(pvc("data", klass="static"))
        await c.client.create(pvc("nothing", klass="missing"))
        await c.advance(3)
        assert ("Warning", "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner") \
            in await events(c, "data")
        assert ("Warning", "ProvisioningFailed", 'storageclass.storage.k8s.io "missing" not found') \
            in await events(c, "nothing")
        assert not await c.client.list("persistentvolumes")


async def test_reclaim_delete_removes_the_volume_and_retain_keeps_it_released() -> None:
    async with Cluster(seed=7, nodes=0, controllers=CTRL) as c:
        await c.client.create(storage_class("gone"))
        await c.client.create(storage_class("kept", policy="Retain"))
        await c.client.create(pvc("a", klass="gone"))
        await c.client.create(pvc("b", klass="kept"))
        await c.client.create(pv("static", "1Gi", policy="Delete"))
        await c.client.create(pvc("s", "1Gi"))
        await c.wait_for(lambda: _all_bound(c, "a", "b", "s"), timeout=20)
        names = {n: (await get_pvc(c, n))["spec"]["volumeName"] for n in ("a", "b", "s")}
        for n in names:
            await c.client.delete("persistentvolumeclaims", n, namespace=NS)

        async def reclaimed() -> bool:
            a, b, s = [await get_pv(c, names[n]) for n in ("a", "b", "s")]
            return a is None and b is not None and b["status"]["phase"] == "Released" \
                and s is not None and s["status"]["phase"] == "Failed"

        await c.wait_for(reclaimed, timeout=20)
        kept = await get_pv(c, names["b"])
        assert kept is not None and kept["spec"]["claimRef"]["name"] == "b"  # Retain: data stays, not reusable
        failed = await get_pv(c, "static")
        assert failed is not None
        assert failed["status"]["message"] == \
            'error getting deleter volume plugin for volume "static": no deletable volume plugin matched'
        assert ("Warning", "VolumeFailedDelete", failed["status"]["message"]) in await events(c, "static")
        # a new claim does not get the Released volume
        await c.client.create(pvc("b2", klass="kept"))
        await c.wait_for(lambda: bound(c, "b2"), timeout=20)
        assert (await get_pvc(c, "b2"))["spec"]["volumeName"] != names["b"]


async def _all_bound(c: Cluster, *names: str) -> bool:
    for n in names:
        if not await bound(c, n):
            return False
    return True


async def test_statefulset_volume_claim_templates_become_ready_without_patching() -> None:
    async with Cluster(seed=8, nodes=2, controllers=[*CTRL, "statefulset"]) as c:
        # the cluster's default "standard" class (WaitForFirstConsumer) serves the claim templates
        await c.client.create({
            "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": NS},
            "spec": {"replicas": 3, "serviceName": "web", "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
                     "volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
                         "accessModes": ["ReadWriteOnce"], "storageClassName": "standard",
                         "resources": {"requests": {"storage": "1Gi"}}}}]}})

        async def ready() -> bool:
            st = (await c.client.get("statefulsets", "web", namespace=NS)).get("status") or {}
            return st.get("readyReplicas") == 3

        await c.wait_for(ready, timeout=120)
        claims = await c.client.list("persistentvolumeclaims", namespace=NS)
        assert sorted(p["metadata"]["name"] for p in claims) == ["www-web-0", "www-web-1", "www-web-2"]
        assert all(p["status"]["phase"] == "Bound" for p in claims)
        vols = await c.client.list("persistentvolumes")
        assert len(vols) == 3 and all(v["status"]["phase"] == "Bound" for v in vols)
        pods = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in await c.client.list("pods", namespace=NS)}
        for p in claims:
            node = p["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]
            assert pods[p["metadata"]["name"].removeprefix("www-")] == node


async def test_half_done_binding_is_finished_after_a_crash_between_the_two_sides() -> None:
    """The volume side was written (claimRef with uid, bound-by-controller) but the claim never was."""
    async with Cluster(seed=9, nodes=0, controllers=CTRL) as c:
        await c.client.create(pv("decoy", "1Gi"))
        await c.wait_for(lambda: _all_available(c, 1), timeout=10)
        claim = await c.client.create(pvc("data", "1Gi", klass="other"))  # no volume of class "other" yet
        body = pv("half", "2Gi", klass="other", claim={
            "kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": NS, "name": "data",
            "uid": claim["metadata"]["uid"]})
        body["metadata"]["annotations"] = {"pv.kubernetes.io/bound-by-controller": "yes"}
        await c.client.create(body)
        await c.wait_for(lambda: bound(c, "data"), timeout=10)
        claim = await get_pvc(c, "data")
        assert claim["spec"]["volumeName"] == "half"
        assert claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
        vol = await get_pv(c, "half")
        assert vol is not None and vol["status"]["phase"] == "Bound"


async def test_bound_claim_whose_volume_is_deleted_is_lost() -> None:
    async with Cluster(seed=10, nodes=0, controllers=CTRL) as c:
        await c.client.create(pv("v", "1Gi"))
        await c.client.create(pvc("data"))
        await c.wait_for(lambda: bound(c, "data"), timeout=10)
        await c.client.delete("persistentvolumes", "v")

        async def lost() -> bool:
            return bool((await get_pvc(c, "data"))["status"]["phase"] == "Lost")

        await c.wait_for(lost, timeout=10)
        assert ("Warning", "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!") \
            in await events(c, "data")
        claim = await get_pvc(c, "data")
        assert "capacity" not in claim["status"] and "accessModes" not in claim["status"]
