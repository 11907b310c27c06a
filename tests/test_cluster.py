"""The Cluster lifecycle: components start with it and every task it started ends with it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.cluster import Cluster


async def test_exit_leaves_no_tasks_behind() -> None:
    before = set(asyncio.all_tasks())
    async with Cluster(seed=1, nodes=2) as cluster:
        await cluster.advance(5)
        assert cluster.scheduler is not None and cluster.network is not None
        assert len(set(asyncio.all_tasks()) - before) > 10  # informers, kubelets, controllers are running
    await asyncio.sleep(0)
    assert set(asyncio.all_tasks()) - before == set()


async def test_components_can_be_turned_off() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        assert cluster.scheduler is None and cluster.controller_manager is None and cluster.network is None
        assert cluster.controllers_started == []


async def test_controller_manager_crash_and_restart_converges_from_the_api() -> None:
    async with Cluster(seed=5, nodes=2) as cluster:
        c = cluster.client
        await c.create({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}},
        })

        async def pods() -> list[str]:
            return sorted(p["metadata"]["name"] for p in await c.list("pods", labels="app=web")
                          if not p["metadata"].get("deletionTimestamp"))

        async def three() -> bool:
            return len(await pods()) == 3

        await cluster.wait_for(three, timeout=120)
        await cluster.crash_controller_manager()
        victim = (await pods())[0]
        await c.delete("pods", victim, grace_period=0)
        await cluster.advance(60)
        assert len(await pods()) == 2  # nobody is reconciling while the controller manager is down
        await cluster.restart_controller_manager()
        await cluster.wait_for(three, timeout=120)
        assert victim not in await pods()


@pytest.mark.parametrize("how", ["cluster-switch", "manager-crash"], ids=["cluster-switch", "manager-crash"])
async def test_crashing_kube_controller_manager_leaves_user_managers_running(how: str) -> None:
    """Any manager crashes and restarts (``cluster.managers``): the built-in one through the cluster's switch or
    its own ``crash()``/``restart()`` (its controllers are built again on the new informers); a user's
    manager is another process and keeps reconciling meanwhile."""
    from kubelite.controllers import Manager, Request

    async with Cluster(seed=3, nodes=1, controllers=["replicaset", "deployment"], network=False) as cluster:
        c = cluster.client
        seen: list[str] = []

        async def reconcile(req: Request) -> None:
            seen.append(req.name)

        mine = Manager(c, clock=cluster.clock, rng=cluster.rng, name="mine")
        mine.controller("cms").for_("configmaps").complete(reconcile)
        await mine.start()
        kcm = cluster.controller_manager
        assert kcm is not None and cluster.managers == [kcm, mine]
        await c.create({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
                        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "rs"}},
                                 "template": {"metadata": {"labels": {"app": "rs"}},
                                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})

        async def pods() -> int:
            return len([p for p in await c.list("pods", labels="app=rs") if not p["metadata"].get("deletionTimestamp")])

        await cluster.wait_for(lambda: _eq(pods(), 2), timeout=60)
        if how == "cluster-switch":
            await cluster.crash_controller_manager()
        else:
            await kcm.crash()
        await c.delete("pods", (await c.list("pods", labels="app=rs"))[0]["metadata"]["name"], grace_period=0)
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}})
        await cluster.advance(30)
        assert await pods() == 1 and seen == ["cm"]  # the built-in controllers are down; mine is not
        if how == "cluster-switch":
            await cluster.restart_controller_manager()
        else:
            await kcm.restart()
        await cluster.wait_for(lambda: _eq(pods(), 2), timeout=60)
        await mine.stop()


async def _eq(aw: Any, value: Any) -> bool:
    return bool(await aw == value)


#: what a first cluster (the default one: apiserver, every built-in controller, the scheduler, the data
#: plane, no nodes) must not import, and why each loads later (issue #17, cold start)
_NOT_AT_START = {
    # CEL (cel-python and its lark grammar, ~0.4 s): with the first CRD rule or admission policy; it used to
    # be imported, and its environment built, with the apiserver (about a second of a cold start)
    "celpy": "CEL", "lark": "CEL", "kubelite.apiserver.crd.cel": "CEL",
    # the HTTP server, kubectl printers, the scenario and fuzz layers and the CLI: when used
    "uvicorn": "HTTP", "kubelite.http": "HTTP", "kubelite.kubectl": "kubectl printers",
    "kubelite.scenario": "scenarios", "kubelite.fuzz": "fuzzing", "kubelite.cli": "the CLI",
    # cryptography (~50 ms): with the first certificate the CSR signer issues or checks
    "cryptography": "the CSR signer",
    # structlog (and rich and pygments through structlog.dev, ~150 ms): with the first line to render
    "structlog": "logging", "rich": "logging", "pygments": "logging",
    # kubelets: with the first node (the default cluster has none)
    "kubelite.kubelet.kubelet": "nodes", "kubelite.kubelet.pool": "nodes",
    # custom resources' schema validation and defaulting and the CRD checks: with the first CRD
    "kubelite.apiserver.crd.validation": "CRDs", "kubelite.apiserver.crd.definition": "CRDs",
    "kubelite.apiserver.crd.structural": "CRDs", "kubelite.apiserver.crd.defaulting": "CRDs",
    # the built-in controllers of kcm.LOAD_ON_FIRST: with the first object of their kind (a Deployment loads
    # the deployment controller, not the CronJob or HPA one)
    **{m: "controllers" for m in (
        "kubelite.controllers.replication", "kubelite.controllers.replicaset", "kubelite.controllers.deployment",
        "kubelite.controllers.job", "kubelite.controllers.cronjob", "kubelite.controllers.certificates.signer",
        "kubelite.controllers.certificates.cleaner", "kubelite.controllers.daemonset",
        "kubelite.controllers.statefulset", "kubelite.controllers.history", "kubelite.controllers.disruption",
        "kubelite.controllers.horizontal", "kubelite.controllers.resourcequota",
        "kubelite.controllers.nodelifecycle", "kubelite.controllers.ttlafterfinished",
        "kubelite.controllers.volume_binder")},
    # the PATCH formats (JSON patch, merge patch, strategic merge patch): with the first PATCH
    **{m: "PATCH" for m in ("kubelite.apiserver.patch", "kubelite.apiserver.patch.json_patch",
                            "kubelite.apiserver.patch.merge_patch", "kubelite.apiserver.patch.strategic_merge")},
    # the subresources and resources a start never requests: with their first request
    **{f"kubelite.apiserver.rest.{m}": "REST" for m in ("binding", "eviction", "finalize", "approval", "reviews",
                                                         "scale")},
    # the validation rules of kinds a start never writes: with their kind's first validation
    **{f"kubelite.apiserver.validation.{m}": "validation" for m in (
        "apps", "batch", "core", "networking", "replication", "service", "volumes", "admissionregistration",
        "resource", "certificates")},
    # the strategies of the ValidatingAdmissionPolicy (with its CEL type checking), DRA and CSR kinds: with their
    # kind's first request
    **{m: "strategies" for m in ("kubelite.apiserver.registry.admissionregistration",
                                 "kubelite.apiserver.admission.policy_typecheck", "kubelite.apiserver.registry.resource",
                                 "kubelite.apiserver.registry.certificates")},
    # HorizontalPodAutoscaler autoscaling/v1 <-> v2 conversion: with the first HPA
    "kubelite.apiserver.registry.autoscaling_v1": "HPA conversion",
    # PyYAML (~10 ms of imports and regex compiles): with the first YAML manifest read or written, or the
    # first YAML workload-profile annotation
    "yaml": "YAML",
    # zoneinfo (and sysconfig): with the first CronJob naming a spec.timeZone
    "zoneinfo": "CronJob time zones",
    # generated types of kinds nothing at start decodes into a Struct: with the first use of their class
    # (the resource registry names every kind's Struct without importing it)
    **{f"kubelite.api.types.{m}": "generated types" for m in (
        "admissionregistration_v1", "apiregistration_v1", "authentication_v1", "authorization_v1",
        "autoscaling_v1", "flowcontrol_v1", "networking_v1", "rbac_v1", "resource_v1", "scheduling_v1")},
}

_COLD_START_SCRIPT = """
import asyncio, json, re, sys

# kubelite's own long regular expressions compiled so far (a pattern's compile costs with its length: the image
# reference grammar's 330 characters took 10 ms); imports and start-up must leave them to their first use
LONG = []
_compile = re.compile
def compile(pattern, flags=0):
    frame = sys._getframe(1)
    while frame.f_code.co_filename.endswith("/kubelite/memo.py"):  # memo.compiled: its caller's pattern
        frame = frame.f_back
    caller = frame.f_code.co_filename
    if "/kubelite/" in caller and len(pattern) > 200:
        LONG.append(caller.rpartition("/kubelite/")[2])
    return _compile(pattern, flags)
re.compile = compile

from kubelite import Cluster

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "size": {"type": "integer", "minimum": 1}}}}}}}]}}

def loaded(why=None):
    return sorted(m for m, w in json.loads(sys.argv[1]).items() if m in sys.modules and why in (None, w))

async def main():
    async with Cluster(seed=1):
        pass
    out = {"first cluster": loaded(), "long patterns compiled": LONG[:]}
    async with Cluster(seed=1) as cluster:
        await cluster.client.create(CRD)
        await cluster.client.create({"apiVersion": "example.com/v1", "kind": "Widget",
                                     "metadata": {"name": "w", "namespace": "default"}, "spec": {"size": 2}})
        out["a custom resource without CEL rules"] = loaded("CEL")
    async with Cluster(seed=1, nodes=1) as cluster:
        await cluster.client.create({"apiVersion": "apps/v1", "kind": "Deployment",
                                     "metadata": {"name": "web", "namespace": "default"},
                                     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                                              "template": {"metadata": {"labels": {"app": "web"}},
                                                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        await cluster.wait_for(lambda: ((cluster.apiserver.read("apps", "deployments", "default", "web") or {})
                                               .get("status") or {}).get("availableReplicas") == 1, timeout=300)
        out["a Deployment on a node"] = loaded("controllers")
        out["long patterns, with a pod"] = LONG[:]
    print(json.dumps(out))

asyncio.run(main())
"""


def test_the_first_cluster_does_not_load_what_it_does_not_use() -> None:
    """Issue #17 cold start: everything in ``_NOT_AT_START`` loads when first used, not with the first cluster;
    and a CRD without ``x-kubernetes-validations`` does not load CEL for its custom resources (it did: a kopf
    test's first custom resource paid ~0.4 s for CEL's grammar); the controllers of ``kcm.LOAD_ON_FIRST`` load
    with their kind's first object (a Deployment on a node loads the deployment, ReplicaSet and node lifecycle
    controllers, and it becomes available)."""
    import importlib.util
    import json
    import subprocess
    import sys

    # a misspelt name would never be loaded and pass unseen: each one names a module that exists
    assert [m for m in _NOT_AT_START if importlib.util.find_spec(m) is None] == []
    out = subprocess.run([sys.executable, "-c", _COLD_START_SCRIPT, json.dumps(_NOT_AT_START)],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {
        "first cluster": [], "a custom resource without CEL rules": [], "long patterns compiled": [],
        # the image reference grammar, with the first container image checked
        "long patterns, with a pod": ["workload.py"],
        # the Deployment's controller and its ReplicaSets', the node's lifecycle controller, nothing else
        "a Deployment on a node": ["kubelite.controllers.deployment", "kubelite.controllers.nodelifecycle",
                                   "kubelite.controllers.replicaset"],
    }, out.stderr


_GC_FREEZE_SCRIPT = """
import asyncio, gc, json, sys
from kubelite import Cluster

async def main():
    counts = [gc.get_freeze_count()]
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False, gc_freeze=sys.argv[1] == "on"):
        counts.append(gc.get_freeze_count())
    async with Cluster(seed=1, controllers=False, scheduler=False, network=False):
        counts.append(gc.get_freeze_count())
    print(json.dumps(counts))

asyncio.run(main())
"""


@pytest.mark.parametrize(("mode", "frozen"), [("on", True), ("off", False)], ids=["default", "gc_freeze=False"])
def test_the_first_cluster_freezes_the_import_heap_once(mode: str, frozen: bool) -> None:
    """Issue #17 cold start: the first cluster in a process moves the objects alive at its start (the import
    heap) to the collector's permanent generation, so the first full collection does not walk them; later
    clusters freeze nothing more, and ``gc_freeze=False`` leaves the collector alone (a later default cluster
    then freezes once)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _GC_FREEZE_SCRIPT, mode], capture_output=True, text=True,
                         check=True)
    before, first, second = json.loads(out.stdout)
    assert before == 0, out.stderr
    if frozen:
        # modules' classes and functions: tens of thousands; a second cluster freezes none (some frozen ones are freed)
        assert first > 10_000 and first - 100 < second <= first
    else:
        assert first == 0 and second > 10_000  # the later default cluster froze once
