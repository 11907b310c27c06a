"""The resource quota controller: keeps every ResourceQuota's ``status`` (``hard`` and ``used``) current.

Follows ``pkg/controller/resourcequota/resource_quota_controller.go``. ``syncResourceQuota``: ``status.hard``
is ``spec.hard``; ``status.used`` is recalculated from the objects (the pods' cache, the other resources
through the API) for every hard resource, zero when unused, by the evaluators ResourceQuota admission
charges with (:mod:`kubelite.api.quota`); the status is written only when it changes, with the cached
quota's resourceVersion (a conflict, e.g. with an admission charge, retries on the next version).

Between syncs ``status.used`` is what admission charged to it: creates raise it, and nothing lowers it but
a sync. A sync runs, as upstream's:

- when a quota is added, or its ``spec.hard`` changes (``UpdateFunc`` ignores status-only updates: those
  are admission's charges and this controller's own writes);
- on replenishment: a pod is deleted, or stops counting (it reached Succeeded or Failed), for the quotas of
  its namespace that charge pods (``resource_quota_monitor.go``'s pod ``UpdateFunc`` and ``DeleteFunc``);
- on the full resync, every quota every ``resync_period`` (``--resource-quota-sync-period``, 5 minutes),
  which also catches deletions of the other charged resources (Services, ConfigMaps, claims, ...), whose
  replenishment upstream's monitors trigger earlier.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.api.quota import namespace_usage, resources_of
from kubelite.api.types import Pod, ResourceQuota
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.predicate import Funcs
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
        """``replenishQuota``: the quotas of the pod's namespace that charge pods."""
        ns = pod.metadata.namespace or "" if pod.metadata is not None else ""
        for q in self.quotas.by_index(NAMESPACE_INDEX, ns):
            if ("", "pods") in resources_of({"spec": {"hard": (q.spec.hard if q.spec is not None else None) or {}}}):
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
        return Result(requeue_after=self.resync_period)  # the full resync


def register(ctx: ControllerContext) -> ResourceQuotaController:
    quotas = ctx.informers.informer_for(ResourceQuota).get_indexer()
    pods = ctx.informers.informer_for(Pod).get_indexer()
    rqc = ResourceQuotaController(ctx, quotas=quotas, pods=pods,
                                  resync_period=float(ctx.option(NAME, "resync_period", RESYNC_PERIOD)))
    ctx.manager.controller(NAME).for_(ResourceQuota, Funcs(update=_hard_changed)).watches(
        Pod, rqc.quotas_of_pod, Funcs(create=lambda _: False, update=_pod_released),
    ).with_max_concurrent_reconciles(ctx.option(NAME, "workers", 5)).complete(rqc)
    return rqc


def _hard(q: ResourceQuota) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in ((q.spec.hard if q.spec is not None else None) or {}).items():
        try:
            out[k] = parse_quantity(v)
        except (TypeError, ValueError):
            out[k] = v
    return out


def _hard_changed(old: ResourceQuota, new: ResourceQuota) -> bool:
    """The quota informer's ``UpdateFunc``: only a change of ``spec.hard`` (compared as quantities) syncs."""
    return _hard(old) != _hard(new)


def _counts(pod: Pod) -> bool:
    """``QuotaV1Pod``: a pod counts against quota until it is Succeeded or Failed."""
    return (pod.status.phase if pod.status is not None else None) not in ("Succeeded", "Failed")


def _pod_released(old: Pod, new: Pod) -> bool:
    """The pod monitor's ``UpdateFunc``: replenish when a pod stops counting."""
    return _counts(old) and not _counts(new)
