"""The resource quota controller: keeps every ResourceQuota's ``status`` (``hard`` and ``used``) current.

Follows ``pkg/controller/resourcequota/resource_quota_controller.go`` (``syncResourceQuota``): ``status.hard``
is ``spec.hard``; ``status.used`` holds every hard resource's usage in the quota's namespace, zero when
unused, computed by the same evaluators the ResourceQuota admission plugin uses
(:mod:`kubelite.api.quota`), so admission and status agree. The status is written only when it changes.

Triggers: a quota's own events, and every pod event in its namespace (upstream's replenishment controllers
react to pod deletions and terminal pods). Quotas on other objects (``count/...``, ``services``,
``requests.storage``) are recounted through the API every ``resync_period`` (upstream
``--resource-quota-sync-period``, 5 minutes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from kubelite.api.quota import namespace_usage, resources_of
from kubelite.api.types import Pod, ResourceQuota
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import Conflict, NotFound
from kubelite.informer import NAMESPACE_INDEX, Indexer

__all__ = ["NAME", "RESYNC_PERIOD", "ResourceQuotaController", "register"]

NAME = "resourcequota"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"resync_period", "workers"})
RESYNC_PERIOD = 300.0


class ResourceQuotaController:
    def __init__(self, ctx: ControllerContext, *, quotas: Indexer, pods: Indexer, resync_period: float) -> None:
        self.client = ctx.client
        self.quotas = quotas
        self.pods = pods
        self.resync_period = resync_period

    def quotas_of_pod(self, pod: Any) -> Iterable[Request]:
        ns = pod.metadata.namespace or "" if pod.metadata is not None else ""
        for q in self.quotas.by_index(NAMESPACE_INDEX, ns):
            yield Request(namespace=ns, name=q.metadata.name)

    async def _objects(self, quota: dict[str, Any], namespace: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
        out: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for group, plural in sorted(resources_of(quota)):
            if (group, plural) == ("", "pods"):
                out[(group, plural)] = [msgspec.to_builtins(p) for p in self.pods.by_index(NAMESPACE_INDEX, namespace)]
                continue
            try:
                items = await self.client.list(f"{plural}.{group}" if group else plural, namespace=namespace)
            except (KeyError, NotFound):
                continue  # a count of a resource this cluster does not serve stays 0
            out[(group, plural)] = [o if isinstance(o, dict) else msgspec.to_builtins(o) for o in items]
        return out

    async def reconcile(self, req: Request) -> Result | None:
        """``syncResourceQuota``."""
        cached: ResourceQuota | None = self.quotas.get_by_key(f"{req.namespace}/{req.name}")
        if cached is None or (cached.metadata is not None and cached.metadata.deletion_timestamp):
            return None
        quota: dict[str, Any] = msgspec.to_builtins(cached)
        objects = await self._objects(quota, req.namespace)
        used = namespace_usage(quota, objects)
        status = {"hard": dict((quota.get("spec") or {}).get("hard") or {}),
                  "used": {k: str(v) for k, v in sorted(used.items())}}
        if (quota.get("status") or {}) != status:
            quota["status"] = status
            try:
                await self.client.replace_status(msgspec.convert(quota, ResourceQuota))
            except NotFound:
                return None
            except Conflict:
                return Result(requeue_after=0.0)  # the cache lags: retry on the next version
        others = resources_of(quota) - {("", "pods")}
        return Result(requeue_after=self.resync_period) if others else None


def register(ctx: ControllerContext) -> ResourceQuotaController:
    quotas = ctx.informers.informer_for(ResourceQuota).get_indexer()
    pods = ctx.informers.informer_for(Pod).get_indexer()
    rqc = ResourceQuotaController(ctx, quotas=quotas, pods=pods,
                                  resync_period=float(ctx.option(NAME, "resync_period", RESYNC_PERIOD)))
    ctx.manager.controller(NAME).for_(ResourceQuota).watches(Pod, rqc.quotas_of_pod).with_max_concurrent_reconciles(
        ctx.option(NAME, "workers", 5)).complete(rqc)
    return rqc
