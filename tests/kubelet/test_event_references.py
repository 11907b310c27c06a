"""The kubelet's Event references are upstream's ``ref.GetReference`` / ``GetPartialReference`` of the pod it
saw: apiVersion, kind, namespace, name, uid and the pod's resourceVersion (container events add their
fieldPath); its Node events name the node with the node's name as uid and no resourceVersion."""

from __future__ import annotations

from kubelite.cluster import Cluster


async def test_kubelet_event_references_carry_the_pods_resource_version() -> None:
    async with Cluster(seed=1, nodes=1) as cluster:
        c = cluster.client
        created = await c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                                  "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}},
                                 namespace="default")
        await cluster.wait_for(lambda: (cluster.apiserver.read("", "pods", "default", "web") or {}).get(
            "status", {}).get("phase") == "Running", timeout=120)
        pod = await c.get("pods", "web", namespace="default")
        events = [e for e in await c.list("events", namespace="default")
                  if e["source"].get("component") == "kubelet" and e["involvedObject"]["kind"] == "Pod"]
    assert [e["reason"] for e in events] == ["Pulling", "Pulled", "Created", "Started"]
    first, last = int(created["metadata"]["resourceVersion"]), int(pod["metadata"]["resourceVersion"])
    for e in events:
        ref = e["involvedObject"]
        assert set(ref) == {"apiVersion", "kind", "namespace", "name", "uid", "resourceVersion", "fieldPath"}
        assert (ref["apiVersion"], ref["name"], ref["uid"]) == ("v1", "web", pod["metadata"]["uid"])
        assert ref["fieldPath"] == "spec.containers{app}"
        assert first <= int(ref["resourceVersion"]) <= last  # a version of the pod the kubelet saw


async def test_an_events_reference_is_one_atomic_field_in_managed_fields() -> None:
    """k8s.io/api's ObjectReference is ``+structType=atomic``: whoever sets an Event's involvedObject owns it
    whole, so its managedFields entry is ``f:involvedObject: {}`` for a create and a PUT that creates alike."""
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "default"},
             "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u1", "apiVersion": "v1"},
             "reason": "R", "message": "m", "type": "Normal", "source": {"component": "x"}, "count": 1}
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        put = await cluster.client.replace(event)
        created = await cluster.client.create({**event, "metadata": {"name": "e2", "namespace": "default"}})
    for out in (put, created):
        (entry,) = out["metadata"]["managedFields"]
        assert entry["fieldsV1"]["f:involvedObject"] == {}
        assert entry["fieldsV1"]["f:source"] == {".": {}, "f:component": {}}  # EventSource is a granular struct
