"""The namespace controller: a deleted namespace is emptied, then finalized, then gone.

Follows ``pkg/controller/namespace/namespace_controller.go`` and ``deletion/namespaced_resources_deleter.go``
(``Delete``, ``deleteAllContent``, ``deleteAllContentForGroupVersionResource``, ``finalizeNamespace``)
with ``deletion/status_condition_utils.go`` for the conditions:

- Deleting a namespace makes the apiserver set its deletionTimestamp and phase ``Terminating``; its
  ``spec.finalizers`` still hold ``kubernetes``. For such a namespace (read live, not from the cache),
  the controller deletes every namespaced resource discovery knows, custom resources included
  (``deletecollection`` where served, else list and delete one by one; Background propagation), then
  lists what is left.
- It records upstream's five conditions on the namespace status: ``NamespaceDeletionDiscoveryFailure``,
  ``NamespaceDeletionGroupVersionParsingFailure``, ``NamespaceDeletionContentFailure`` (True with
  ``ContentDeletionFailed`` when a delete or list failed), ``NamespaceContentRemaining`` ("Some
  resources are remaining: pods. has 2 resource instances") and ``NamespaceFinalizersRemaining`` ("Some
  content in the namespace has finalizers remaining: example.com/x in 1 resource instances").
- While anything remains it looks again after ``estimate/2 + 1`` seconds, ``estimate`` being the
  longest remaining pod grace period (upstream ``ResourcesRemainingError``); failures retry with backoff.
- When nothing remains it removes ``kubernetes`` from ``spec.finalizers`` through ``namespaces/finalize``;
  the apiserver deletes the namespace once both ``spec.finalizers`` and ``metadata.finalizers`` are empty.

The controller writes only the namespace's status and its ``kubernetes`` finalizer, and deletes only
objects inside namespaces that are being deleted.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.types import CustomResourceDefinition, Namespace
from kubelite.clock import parse_time
from kubelite.controllers.garbagecollector.discovery import Discovery
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, Conflict, NotFound

__all__ = ["NAME", "NamespaceController", "register"]

NAME = "namespace"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})
FINALIZER = "kubernetes"

# type -> (ok reason, ok message, failed reason); upstream's conditionTypes and their reasons
_CONDITIONS: dict[str, tuple[str, str, str]] = {
    "NamespaceDeletionDiscoveryFailure": ("ResourcesDiscovered", "All resources successfully discovered",
                                          "DiscoveryFailed"),
    "NamespaceDeletionGroupVersionParsingFailure": ("ParsedGroupVersions",
                                                    "All legacy kube types successfully parsed",
                                                    "GroupVersionParsingFailed"),
    "NamespaceDeletionContentFailure": ("ContentDeleted",
                                        "All content successfully deleted, may be waiting on finalization",
                                        "ContentDeletionFailed"),
    "NamespaceContentRemaining": ("ContentRemoved", "All content successfully removed", "SomeResourcesRemain"),
    "NamespaceFinalizersRemaining": ("ContentHasNoFinalizers", "All content-preserving finalizers finished",
                                     "SomeFinalizersRemain"),
}


class NamespaceController:
    def __init__(self, ctx: ControllerContext, *, discovery: Discovery) -> None:
        self.client, self.clock, self.discovery = ctx.client, ctx.clock, discovery

    async def reconcile(self, req: Request) -> Result | None:
        try:
            ns: dict[str, Any] = await self.client.get("namespaces", req.name)
        except NotFound:
            return None
        if not ns["metadata"].get("deletionTimestamp"):
            return None
        if FINALIZER not in ((ns.get("spec") or {}).get("finalizers") or ()):
            return None
        failures, remaining, finalizers, estimate = await self._delete_all_content(req.name)
        await self._update_conditions(ns, failures, remaining, finalizers)
        if failures:
            raise RuntimeError("; ".join(failures))
        if remaining:
            return Result(requeue_after=estimate // 2 + 1)
        await self._finalize(req.name)
        return None

    async def _delete_all_content(self, namespace: str) -> tuple[list[str], dict[str, int], dict[str, int], int]:
        failures: list[str] = []
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        estimate = 0
        now = self.clock.now()
        for info in self.discovery.resources():
            if not info.namespaced or "delete" not in info.verbs or "list" not in info.verbs:
                continue
            gr = info.group_resource
            try:
                if "deletecollection" in info.verbs:
                    await self.client.delete_collection(gr, namespace=namespace, cascade="Background")
                else:
                    for obj in await self.client.list(gr, namespace=namespace):
                        try:
                            await self.client.delete(gr, obj["metadata"]["name"], namespace=namespace,
                                                     cascade="Background")
                        except NotFound:
                            continue
                left: list[dict[str, Any]] = await self.client.list(gr, namespace=namespace)
            except ApiError as e:
                failures.append(f"{gr}: {e.message}")
                continue
            if not left:
                continue
            remaining[f"{info.plural}.{info.group}"] = len(left)
            for obj in left:
                meta = obj["metadata"]
                for f in meta.get("finalizers") or ():
                    finalizers[f] = finalizers.get(f, 0) + 1
                if gr == "pods" and meta.get("deletionTimestamp"):
                    estimate = max(estimate, int(parse_time(meta["deletionTimestamp"]) - now))
        return failures, remaining, finalizers, estimate

    async def _update_conditions(self, ns: dict[str, Any], failures: list[str], remaining: dict[str, int],
                                 finalizers: dict[str, int]) -> None:
        """``updateNamespaceStatusFunc`` + the condition updater: write only when something changed."""
        failed: dict[str, str] = {}
        if failures:
            failed["NamespaceDeletionContentFailure"] = "Failed to delete all resource types, " + \
                f"{len(failures)} remaining: " + ", ".join(sorted(failures))
        if remaining:
            failed["NamespaceContentRemaining"] = "Some resources are remaining: " + ", ".join(
                f"{gr} has {n} resource instances" for gr, n in sorted(remaining.items()))
        if finalizers:
            failed["NamespaceFinalizersRemaining"] = "Some content in the namespace has finalizers remaining: " + \
                ", ".join(f"{f} in {n} resource instances" for f, n in sorted(finalizers.items()))
        status = ns.get("status") or {}
        old = {c.get("type"): c for c in status.get("conditions") or ()}
        ts = self.clock.timestamp()
        conds = []
        for typ, (ok_reason, ok_msg, bad_reason) in _CONDITIONS.items():
            bad = typ in failed
            c = {"type": typ, "status": "True" if bad else "False", "reason": bad_reason if bad else ok_reason,
                 "message": failed[typ] if bad else ok_msg}
            prev = old.get(typ)
            c["lastTransitionTime"] = prev["lastTransitionTime"] if prev and prev.get("status") == c["status"] and \
                prev.get("lastTransitionTime") else ts
            conds.append(c)
        if conds == status.get("conditions") and status.get("phase") == "Terminating":
            return
        body = dict(ns, status=dict(status, phase="Terminating", conditions=conds))
        try:
            await self.client.replace_status(body)
        except (Conflict, NotFound):
            return  # the next pass writes them

    async def _finalize(self, name: str) -> None:
        """``finalizeNamespace``: remove our token from ``spec.finalizers`` via ``namespaces/finalize``."""
        ns: dict[str, Any] = await self.client.get("namespaces", name)
        spec = ns.get("spec") or {}
        fins = [f for f in spec.get("finalizers") or () if f != FINALIZER]
        ns["spec"] = dict(spec, finalizers=fins)
        await self.client.replace(ns, subresource="finalize")


def register(ctx: ControllerContext) -> None:
    crds = ctx.informers.informer_for(CustomResourceDefinition).get_indexer()
    ctrl = NamespaceController(ctx, discovery=Discovery(crds))
    ctx.manager.controller("namespace-controller").for_(Namespace).watches(
        CustomResourceDefinition, lambda _crd: []).with_max_concurrent_reconciles(
        int(ctx.option(NAME, "workers", 10))).complete(ctrl)
