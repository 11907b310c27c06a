"""The garbage collector: deletes objects whose owners are gone, and runs the foregroundDeletion and
orphan finalizers.

Follows ``pkg/controller/garbagecollector/garbagecollector.go`` (``attemptToDeleteItem``,
``classifyReferences``, ``processDeletingDependentsItem``, ``attemptToOrphanWorker``) and
``graph_builder.go`` (which changes wake which objects). Guarantees:

- **Background.** An object all of whose owners are gone (absent, or present with another uid: a
  *dangling* reference) is deleted, with the propagation its own finalizers ask for (``orphan`` ->
  Orphan, ``foregroundDeletion`` -> Foreground, else Background) and a uid precondition. An owner is
  only declared gone after a live GET confirms the cache (upstream ``isDangling``), so a stale cache
  never deletes a dependent of a new owner.
- **Partly owned.** An object with at least one live ("solid") owner keeps living; references to
  dangling owners, and to owners waiting for their dependents, are removed from it.
- **Foreground.** An owner with a deletionTimestamp and the ``foregroundDeletion`` finalizer waits
  for its dependents: they are deleted (Foreground themselves when they have dependents of their own),
  and the finalizer is removed once no dependent with ``blockOwnerDeletion: true`` remains, so the
  apiserver then removes the owner. Non-blocking dependents are deleted but not waited for.
- **Orphan.** An owner with the ``orphan`` finalizer has its uid removed from every dependent's
  ownerReferences, then the finalizer removed.
- An object being deleted without either finalizer is left to whoever holds it.

The graph is the monitored informers' caches (see :mod:`.graph`); requests name one object as
``Request(namespace, "<resource>.<group>/<name>")``. Every write carries a resourceVersion or uid
precondition; a 409 retries from a fresh read. Reconciles are level-based: a restarted collector
finds every orphan again from its informers' initial lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.client import Client
from kubelite.controllers.garbagecollector.discovery import Discovery
from kubelite.controllers.garbagecollector.graph import (
    FOREGROUND,
    ORPHAN,
    OWNER_UID_INDEX,
    UID_INDEX,
    ObjectMeta,
    OwnerRef,
    meta,
)
from kubelite.controllers.handler import unwrap
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import Conflict, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import Indexer
from kubelite.logs import get_logger

__all__ = ["GarbageCollector", "Monitor"]

log = get_logger("kubelite.garbagecollector")

Enqueue = Callable[[Request], None]


class Monitor:
    """One monitored resource: its discovery record and its informer's cache."""

    __slots__ = ("gr", "indexer", "info")

    def __init__(self, info: ResourceInfo, indexer: Indexer) -> None:
        self.info, self.indexer, self.gr = info, indexer, info.group_resource

    def key(self, namespace: str, name: str) -> str:
        return f"{namespace}/{name}" if namespace else name


def _request(gr: str, m: ObjectMeta) -> Request:
    return Request(m.namespace, f"{gr}/{m.name}")


class GarbageCollector:
    """The reconciler plus the informer event handlers that stand in for upstream's GraphBuilder."""

    def __init__(self, *, client: Client, discovery: Discovery, recorder: EventRecorder) -> None:
        self.client, self.discovery, self.recorder = client, discovery, recorder
        self.monitors: dict[str, Monitor] = {}
        self.enqueue: Enqueue = lambda _r: None  # set once the controller exists

    # --- graph queries ---
    def monitor_for(self, ref: OwnerRef) -> Monitor | None:
        info = self.discovery.by_kind(ref.api_version, ref.kind)
        return self.monitors.get(info.group_resource) if info is not None else None

    def dependents(self, uid: str) -> Iterator[tuple[Monitor, Any]]:
        for mon in self.monitors.values():
            for obj in mon.indexer.by_index(OWNER_UID_INDEX, uid):
                yield mon, obj

    def has_dependents(self, uid: str) -> bool:
        return any(mon.indexer.index_keys(OWNER_UID_INDEX, uid) for mon in self.monitors.values())

    def cached_owner(self, ref: OwnerRef) -> tuple[Monitor, Any] | None:
        mon = self.monitor_for(ref)
        if mon is None:
            return None
        found = mon.indexer.by_index(UID_INDEX, ref.uid)
        return (mon, found[0]) if found else None

    # --- event handlers (graph_builder.go processGraphChanges) ---
    def handler(self, gr: str) -> _GraphHandler:
        return _GraphHandler(self, gr)

    def owner_missing(self, m: ObjectMeta) -> bool:
        return any(self.cached_owner(r) is None for r in m.owners)

    def enqueue_dependents(self, uid: str) -> None:
        for mon, obj in self.dependents(uid):
            self.enqueue(_request(mon.gr, meta(obj)))

    def enqueue_waiting_owners(self, refs: tuple[OwnerRef, ...]) -> None:
        """Owners in foreground deletion re-check their blocking dependents."""
        for ref in refs:
            found = self.cached_owner(ref)
            if found is not None and meta(found[1]).deleting_dependents:
                self.enqueue(_request(found[0].gr, meta(found[1])))

    # --- reconcile (attemptToDeleteItem) ---
    async def reconcile(self, req: Request) -> Result | None:
        gr, _, name = req.name.partition("/")
        mon = self.monitors.get(gr)
        if mon is None:
            return None
        obj = mon.indexer.get_by_key(mon.key(req.namespace, name))
        if obj is None:
            return None
        m = meta(obj)
        if m.deleting_dependents:
            await self._process_deleting_dependents(mon, m)
            return None
        if m.orphaning:
            await self._orphan_dependents(mon, m)
            return None
        if m.deleting or not m.owners:
            return None
        return await self._attempt_to_delete(mon, obj, m)

    async def _owner_state(self, mon: Monitor, obj: Any, m: ObjectMeta, ref: OwnerRef) -> str | None:
        """"solid", "dangling" or "waiting" (``classifyReferences``); None if the kind is unknown."""
        info = self.discovery.by_kind(ref.api_version, ref.kind)
        if info is None:
            return None
        if info.namespaced and not mon.info.namespaced:
            self.recorder.event(obj, "Warning", "OwnerRefInvalidNamespace",
                                f"ownerRef [{ref.api_version}/{ref.kind}, namespace: , name: {ref.name}, "
                                f"uid: {ref.uid}] does not exist in namespace \"\"")
            return "dangling"
        ns = m.namespace if info.namespaced else ""
        cached = self.cached_owner(ref)
        if cached is not None:
            owner_meta = meta(cached[1])
        else:  # absent from the cache, maybe only from the cache: ask the apiserver
            try:
                live = await self.client.get(info.group_resource, ref.name, namespace=ns)
            except NotFound:
                return "dangling"
            owner_meta = meta(live)
            if owner_meta.uid != ref.uid:
                return "dangling"
        return "waiting" if owner_meta.deleting_dependents else "solid"

    async def _attempt_to_delete(self, mon: Monitor, obj: Any, m: ObjectMeta) -> Result | None:
        solid: list[OwnerRef] = []
        gone: list[OwnerRef] = []
        waiting: list[OwnerRef] = []
        unknown = False
        for ref in m.owners:
            state = await self._owner_state(mon, obj, m, ref)
            if state is None:
                unknown = True
                solid.append(ref)
            else:
                {"solid": solid, "dangling": gone, "waiting": waiting}[state].append(ref)
        if solid:
            if gone or waiting:
                drop = {r.uid for r in (*gone, *waiting)}
                await self._patch_owner_refs(mon, m, [r for r in m.owners if r.uid not in drop])
            # an owner of a kind discovery does not know yet (a CRD on its way) is checked again later
            return Result(requeue_after=30.0) if unknown else None
        if waiting and self.has_dependents(m.uid):
            if any(meta(d).deleting_dependents for _, d in self.dependents(m.uid)):
                # a possible cycle: unblock our references before deleting (upstream does the same)
                await self._patch_owner_refs(mon, m, [r._replace(block_owner_deletion=False) for r in m.owners])
            await self._delete(mon, m, "Foreground")
            return None
        policy = "Orphan" if ORPHAN in m.finalizers else "Foreground" if FOREGROUND in m.finalizers else "Background"
        await self._delete(mon, m, policy)
        return None

    # --- foreground (processDeletingDependentsItem) ---
    async def _process_deleting_dependents(self, mon: Monitor, m: ObjectMeta) -> None:
        blocking: list[tuple[Monitor, Any]] = []
        for dmon, dep in self.dependents(m.uid):
            dm = meta(dep)
            if any(r.uid == m.uid and r.block_owner_deletion for r in dm.owners):
                blocking.append((dmon, dm))
        if not blocking:
            await self._patch_finalizers(mon, m, [f for f in m.finalizers if f != FOREGROUND])
            return
        for dmon, dm in blocking:
            if not dm.deleting_dependents:
                self.enqueue(_request(dmon.gr, dm))

    # --- orphan (attemptToOrphanWorker) ---
    async def _orphan_dependents(self, mon: Monitor, m: ObjectMeta) -> None:
        for dmon, dep in list(self.dependents(m.uid)):
            dm = meta(dep)
            await self._patch_owner_refs(dmon, dm, [r for r in dm.owners if r.uid != m.uid])
        await self._patch_finalizers(mon, m, [f for f in m.finalizers if f != ORPHAN])

    # --- writes ---
    async def _patch_owner_refs(self, mon: Monitor, m: ObjectMeta, refs: list[OwnerRef]) -> None:
        try:
            await self.client.patch(mon.gr, m.name, {"metadata": {
                "resourceVersion": m.resource_version, "ownerReferences": [r.as_dict() for r in refs] or None}},
                namespace=m.namespace or None, patch_type="merge")
        except NotFound:
            return

    async def _patch_finalizers(self, mon: Monitor, m: ObjectMeta, finalizers: list[str]) -> None:
        try:
            await self.client.patch(mon.gr, m.name, {"metadata": {
                "resourceVersion": m.resource_version, "finalizers": finalizers or None}},
                namespace=m.namespace or None, patch_type="merge")
        except NotFound:
            return

    async def _delete(self, mon: Monitor, m: ObjectMeta, policy: str) -> None:
        log.info("gc_delete", resource=mon.gr, namespace=m.namespace, name=m.name, propagation=policy)
        try:
            await self.client.delete(mon.gr, m.name, namespace=m.namespace or None, cascade=policy,
                                     preconditions={"uid": m.uid})
        except NotFound:
            return
        except Conflict:  # the uid precondition failed: a new object of that name is not ours to delete
            return


class _GraphHandler:
    """Which objects an informer event wakes (``processGraphChanges`` + ``processTransitions``)."""

    __slots__ = ("gc", "gr")

    def __init__(self, gc: GarbageCollector, gr: str) -> None:
        self.gc, self.gr = gc, gr

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        m = meta(unwrap(obj))
        if m.deleting_dependents or m.orphaning:
            enqueue(_request(self.gr, m))
            if m.deleting_dependents:
                self.gc.enqueue_dependents(m.uid)
        elif m.owners and self.gc.owner_missing(m):
            enqueue(_request(self.gr, m))

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        mo, mn = meta(unwrap(old)), meta(unwrap(new))
        if mn.deleting_dependents or mn.orphaning:
            enqueue(_request(self.gr, mn))
            if mn.deleting_dependents and not mo.deleting_dependents:
                self.gc.enqueue_dependents(mn.uid)
            return
        if mo.owners != mn.owners:
            enqueue(_request(self.gr, mn))
            self.gc.enqueue_waiting_owners(mo.owners)

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        m = meta(unwrap(obj))
        self.gc.enqueue_dependents(m.uid)
        self.gc.enqueue_waiting_owners(m.owners)
