"""``pods/binding`` as upstream's BindingREST does it (``pkg/registry/core/pod/storage/storage.go``):
admission sees a CREATE of the Binding, then one storage GuaranteedUpdate of the pod
(``setPodHostAndAnnotations``) past the pod strategy and the field manager.

The conflict cases are upstream's ``TestEtcdCreateBinding*`` / ``TestEtcdCreateWithSchedulingGates`` and the
storage preconditions the Binding's ``metadata.uid`` / ``resourceVersion`` set.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster
from kubelite.errors import Conflict


@pytest.fixture
async def bare() -> AsyncIterator[Cluster]:
    """API only: nothing but the test binds or writes pods."""
    async with Cluster(seed=1, scheduler=False, controllers=False) as c:
        yield c


def pod(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


def binding(name: str = "web", node: str = "node-1", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, **meta},
            "target": {"kind": "Node", "name": node}}


async def _stored(c: Cluster, name: str = "web") -> dict[str, Any]:
    out: dict[str, Any] = await c.client.get("pods", name, namespace="default")
    return out


async def _bound_already(c: Cluster) -> dict[str, Any]:
    await c.client.bind("default", "web", "node-0")
    return binding()


async def _deleting(c: Cluster) -> dict[str, Any]:
    p = await _stored(c)
    p["metadata"]["finalizers"] = ["example.com/hold"]
    await c.client.replace(p)
    await c.client.delete("pods", "web", namespace="default")
    return binding()


async def _gated(c: Cluster) -> dict[str, Any]:
    await c.client.delete("pods", "web", namespace="default")
    await c.client.create(pod(schedulingGates=[{"name": "example.com/wait"}]))
    return binding()


async def _other_uid(c: Cluster) -> dict[str, Any]:
    return binding(uid="00000000-0000-4000-8000-000000000000")


async def _stale_rv(c: Cluster) -> dict[str, Any]:
    p = await _stored(c)
    p["metadata"]["labels"] = {"moved": "on"}
    await c.client.replace(p)
    return binding(resourceVersion=p["metadata"]["resourceVersion"])


CONFLICTS = {
    "already-assigned": (_bound_already, 'Operation cannot be fulfilled on pods/binding "web": pod web is already '
                                         'assigned to node "node-0"'),
    "being-deleted": (_deleting, 'Operation cannot be fulfilled on pods/binding "web": pod web is being deleted, '
                                 "cannot be assigned to a host"),
    "scheduling-gated": (_gated, 'Operation cannot be fulfilled on pods/binding "web": pod web has non-empty '
                                 ".spec.schedulingGates"),
    "uid-precondition": (_other_uid, 'Operation cannot be fulfilled on pods "web": Precondition failed: UID in '
                                     "precondition: 00000000-0000-4000-8000-000000000000, UID in object meta: "),
    "resource-version-precondition": (_stale_rv, 'Operation cannot be fulfilled on pods "web": Precondition '
                                                 "failed: ResourceVersion in precondition: "),
}


@pytest.mark.parametrize("case", list(CONFLICTS), ids=list(CONFLICTS))
async def test_a_binding_assignPod_refuses_is_409_and_writes_nothing(bare: Cluster, case: str) -> None:
    setup, message = CONFLICTS[case]
    await bare.client.create(pod())
    body = await setup(bare)
    before = await _stored(bare)
    with pytest.raises(Conflict) as e:
        await bare.client.create_subresource("pods", "web", "binding", body, namespace="default")
    assert e.value.message.startswith(message)
    assert await _stored(bare) == before


async def test_matching_preconditions_bind(bare: Cluster) -> None:
    created = await bare.client.create(pod())
    meta = created["metadata"] if isinstance(created, dict) else None
    assert meta is not None
    await bare.client.create_subresource(
        "pods", "web", "binding", binding(uid=meta["uid"], resourceVersion=meta["resourceVersion"]),
        namespace="default")
    assert (await _stored(bare))["spec"]["nodeName"] == "node-1"


async def test_binding_is_one_storage_update_of_the_pod(bare: Cluster) -> None:
    """Only nodeName, the binding's annotations and PodScheduled change: no generation bump, no
    managedFields entry for the binder, one new resourceVersion."""
    await bare.client.create(pod())
    before = await _stored(bare)
    await bare.client.create_subresource(
        "pods", "web", "binding", binding(annotations={"example.com/picked": "yes"}), namespace="default")
    after = await _stored(bare)
    assert after["spec"] == {**before["spec"], "nodeName": "node-1"}
    assert after["metadata"]["annotations"] == {"example.com/picked": "yes"}
    assert after["metadata"].get("generation") == before["metadata"].get("generation")
    assert after["metadata"]["managedFields"] == before["metadata"]["managedFields"]
    assert int(after["metadata"]["resourceVersion"]) == int(before["metadata"]["resourceVersion"]) + 1
    assert [c["type"] for c in after["status"]["conditions"]] == ["PodScheduled"]


async def test_pod_scheduled_is_replaced_where_it_stands(bare: Cluster) -> None:
    """podutil.UpdatePodCondition: an earlier PodScheduled=False (the scheduler's Unschedulable) is replaced
    in place, its reason and message cleared and its transition time moved; other conditions keep order."""
    await bare.client.create(pod())
    p = await _stored(bare)
    p["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/0 nodes",
         "lastTransitionTime": "2020-01-01T00:00:00Z"},
        {"type": "example.com/Ready", "status": "True"},
    ]
    await bare.client.replace_status(p)
    await bare.client.bind("default", "web", "node-1")
    conds = (await _stored(bare))["status"]["conditions"]
    assert [(c["type"], c["status"]) for c in conds] == [("PodScheduled", "True"), ("example.com/Ready", "True")]
    assert "reason" not in conds[0] and "message" not in conds[0]
    assert conds[0]["lastTransitionTime"] != "2020-01-01T00:00:00Z"


async def test_admission_sees_a_create_of_the_binding_not_an_update_of_the_pod(bare: Cluster) -> None:
    """Upstream's create handler admits the Binding (operation CREATE, kind Binding, subresource binding);
    the pod write after it is storage's, which no admission sees. A mutating hook's change to the Binding
    is what gets bound, and a validating denial leaves the pod unbound."""
    seen: list[tuple[str, str, str]] = []

    async def steer(req: AdmissionRequest) -> None:
        seen.append((req.operation, req.kind, req.subresource))
        assert req.object is not None
        req.object["target"]["name"] = "node-steered"

    bare.apiserver.admission.register(steer, resources=[("", "pods")], operations=["*"],
                                      subresources=["binding"], mutating=True, name="steer")
    await bare.client.create(pod())
    await bare.client.bind("default", "web", "node-1")
    assert seen == [("CREATE", "Binding", "binding")]
    assert (await _stored(bare))["spec"]["nodeName"] == "node-steered"


async def test_a_dry_run_binding_writes_nothing(bare: Cluster) -> None:
    await bare.client.create(pod())
    before = await _stored(bare)
    out = await bare.client.create_subresource("pods", "web", "binding", binding(), namespace="default",
                                               dry_run=True)
    assert out["status"] == "Success"
    assert await _stored(bare) == before


async def test_the_legacy_bindings_resource_is_admitted_as_what_its_url_names(bare: Cluster) -> None:
    """POST /api/v1/namespaces/{ns}/bindings: admission sees a CREATE of ``bindings`` (no subresource)."""
    seen: list[tuple[str, str, str, str]] = []

    async def watch(req: AdmissionRequest) -> None:
        seen.append((req.operation, req.kind, req.resource, req.subresource))

    bare.apiserver.admission.register(watch, resources=["*"], operations=["CREATE"], subresources=["*"],
                                      name="watch")
    await bare.client.create(pod())
    seen.clear()
    await bare.client.create({**binding(), "metadata": {"name": "web", "namespace": "default"}})
    assert seen == [("CREATE", "Binding", "bindings", "")]
    assert (await _stored(bare))["spec"]["nodeName"] == "node-1"
