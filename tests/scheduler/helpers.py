"""Builders for scheduler tests: typed Pods and Nodes, and a running scheduler in a Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import msgspec

from kubelite.api.types import Node, Pod
from kubelite.cluster import Cluster
from kubelite.errors import AlreadyExists
from kubelite.informer.factory import SharedInformerFactory
from kubelite.scheduler import Scheduler
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

_decode_pod = msgspec.json.Decoder(Pod).decode
_decode_node = msgspec.json.Decoder(Node).decode
_encode = msgspec.json.encode


def pod_dict(name: str, *, ns: str = "default", cpu: str | None = None, memory: str | None = None,
             gpu: int | None = None, priority: int | None = None, node_name: str | None = None,
             labels: Mapping[str, str] | None = None, uid: str | None = None, **spec: Any) -> dict[str, Any]:
    req: dict[str, Any] = {}
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    if gpu is not None:
        req["nvidia.com/gpu"] = gpu
    container: dict[str, Any] = {"name": "c", "image": spec.pop("image", "busybox")}
    if req:
        container["resources"] = {"requests": dict(req), **({"limits": {"nvidia.com/gpu": gpu}} if gpu else {})}
    if "ports" in spec:
        container["ports"] = spec.pop("ports")
    s: dict[str, Any] = {"containers": [container], **spec}
    if priority is not None:
        s["priority"] = priority
    if node_name is not None:
        s["nodeName"] = node_name
    meta: dict[str, Any] = {"name": name, "namespace": ns, "uid": uid or f"uid-{ns}-{name}"}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s}


def make_pod(name: str, **kw: Any) -> Pod:
    return _decode_pod(_encode(pod_dict(name, **kw)))


def node_dict(name: str, *, cpu: str = "4", memory: str = "16Gi", pods: int = 110, gpu: int | None = None,
              labels: Mapping[str, str] | None = None, taints: Sequence[Mapping[str, str]] | None = None,
              unschedulable: bool = False, images: Sequence[tuple[str, int]] = ()) -> dict[str, Any]:
    alloc: dict[str, Any] = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    if gpu is not None:
        alloc["nvidia.com/gpu"] = str(gpu)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc),
                              "conditions": [{"type": "Ready", "status": "True"}]}
    if images:
        status["images"] = [{"names": [n], "sizeBytes": s} for n, s in images]
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": spec, "status": status}


def make_node(name: str, **kw: Any) -> Node:
    return _decode_node(_encode(node_dict(name, **kw)))


def node_info(name: str, bound: Sequence[Pod] = (), **kw: Any) -> NodeInfo:
    ni = NodeInfo(make_node(name, **kw))
    for p in bound:
        ni.add_pod(PodInfo(p))
    return ni


async def create_node(cluster: Cluster, name: str, **kw: Any) -> Node:
    """Create a Node and clear the not-ready taint TaintNodesByCondition added (as the node lifecycle
    controller would once the kubelet reports Ready)."""
    body = node_dict(name, **kw)
    await cluster.client.create(body)
    taints = body["spec"].get("taints") or []
    node: Node = await cluster.client.patch(Node, name, {"spec": {"taints": taints or None}}, patch_type="merge")
    return node


async def create_pod(cluster: Cluster, name: str, *, priority: int | None = None, **kw: Any) -> Pod:
    """Create a pod; ``priority`` goes through a PriorityClass ``prio-<n>`` (created on first use),
    since the Priority admission plugin forbids setting ``spec.priority`` directly."""
    body = pod_dict(name, **kw)
    del body["metadata"]["uid"]
    if priority is not None:
        pc = f"prio-{priority}"
        with suppress(AlreadyExists):
            await cluster.client.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                         "metadata": {"name": pc}, "value": priority})
        body["spec"]["priorityClassName"] = pc
    pod: Pod = await cluster.client.create(body)
    return pod


@asynccontextmanager
async def running_scheduler(cluster: Cluster, *, recorder: Any = None,
                            setup: Callable[[Scheduler], None] | None = None,
                            **kw: Any) -> AsyncIterator[Scheduler]:
    factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
    sched = Scheduler(cluster.client, factory, clock=cluster.clock, rng=cluster.rng, recorder=recorder, **kw)
    if setup is not None:
        setup(sched)
    cluster.start_soon(sched.run)
    try:
        yield sched
    finally:
        await factory.shutdown()


async def node_of(cluster: Cluster, name: str, ns: str = "default") -> str | None:
    pod = await cluster.client.get(Pod, name, namespace=ns)
    return pod.spec.node_name if pod.spec is not None else None  # type: ignore[no-any-return]
