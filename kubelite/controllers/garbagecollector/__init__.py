"""kube-controller-manager's ``garbagecollector`` controller (see :mod:`.garbagecollector`).

Monitors: every resource in :data:`MONITORED` (the built-in kinds that own or are owned by something
in practice; typed informers, shared with the other controllers) plus every custom resource, added
as its CRD appears (dict informers). Options (``controller_options={"garbagecollector": {...}}``):
``workers`` (default 20, upstream ``--concurrent-gc-syncs``).
"""

from __future__ import annotations

from typing import Any

from kubelite.api.resources import BUILTIN, ResourceInfo
from kubelite.api.types import CustomResourceDefinition
from kubelite.controllers.garbagecollector.discovery import Discovery, crd_resource
from kubelite.controllers.garbagecollector.garbagecollector import GarbageCollector, Monitor
from kubelite.controllers.garbagecollector.graph import OWNER_UID_INDEX, UID_INDEX, owner_uid_index, uid_index
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request
from kubelite.informer import Indexers

__all__ = ["MONITORED", "NAME", "GarbageCollector", "register"]

NAME = "garbagecollector"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})

#: (group, plural) of the built-in resources the collector watches.
MONITORED: tuple[tuple[str, str], ...] = (
    ("", "pods"), ("apps", "replicasets"), ("apps", "deployments"), ("apps", "statefulsets"),
    ("apps", "daemonsets"), ("batch", "jobs"), ("batch", "cronjobs"), ("", "configmaps"), ("", "secrets"),
    ("", "services"), ("discovery.k8s.io", "endpointslices"), ("", "persistentvolumeclaims"),
    ("apps", "controllerrevisions"), ("", "nodes"), ("coordination.k8s.io", "leases"), ("", "serviceaccounts"),
    ("policy", "poddisruptionbudgets"), ("autoscaling", "horizontalpodautoscalers"),
)
_INDEXERS: Indexers = {OWNER_UID_INDEX: owner_uid_index, UID_INDEX: uid_index}


def _no_requests(_obj: Any) -> list[Request]:
    return []


def register(ctx: ControllerContext) -> None:
    crd_informer = ctx.informers.informer_for(CustomResourceDefinition)
    discovery = Discovery(crd_informer.get_indexer())
    gc = GarbageCollector(client=ctx.client, discovery=discovery, recorder=ctx.recorder("garbage-collector"))
    builder = ctx.manager.controller("garbage-collector-controller").with_max_concurrent_reconciles(
        int(ctx.option(NAME, "workers", 20)))
    wanted = set(MONITORED)
    for info in BUILTIN:
        if (info.group, info.plural) not in wanted:
            continue
        informer = ctx.informers.informer_for(info.struct if info.struct is not None else info.group_resource,
                                              indexers=_INDEXERS)
        gc.monitors[info.group_resource] = Monitor(info, informer.get_indexer())
        builder.watches(informer.resource, gc.handler(info.group_resource))

    def add_custom(crd: Any) -> list[Request]:
        """A new CRD: start monitoring its resource (upstream resyncs monitors from discovery)."""
        info: ResourceInfo | None = crd_resource(crd)
        if info is None or info.group_resource in gc.monitors:
            return []
        informer = ctx.informers.informer_for(info.group_resource, indexers=_INDEXERS)
        gc.monitors[info.group_resource] = Monitor(info, informer.get_indexer())
        controller.watch(informer, gc.handler(info.group_resource))
        ctx.informers.start()
        return []

    builder.watches(CustomResourceDefinition, add_custom)
    controller = builder.complete(gc)

    def enqueue(req: Request) -> None:
        controller.queue.add(req)

    gc.enqueue = enqueue
