"""The DaemonSet controller (pkg/controller/daemon/daemon_controller.go ``syncDaemonSet``, ``manage``,
``podsShouldBeOnNode``, ``syncNodes``, ``updateDaemonSetStatus``; update.go ``rollingUpdate``,
``constructHistory``, ``cleanupHistory``).

Guarantees:
- One daemon pod per node that should run it (:func:`kubelite.controllers.daemonset.util.should_run`),
  none elsewhere. Pods are created with a required node affinity on ``metadata.name`` and the default
  DaemonSet tolerations, and are bound by the default scheduler (upstream's scheduler-based placement).
- **No duplicate creates on a stale cache**: expectations per DaemonSet (creates counted, deletions by
  pod key), as the ReplicaSet controller does; while unsatisfied a sync only refreshes status.
- Failed daemon pods are deleted (``FailedDaemonPod`` warning) and recreated; extra pods on a node are
  pruned down to the oldest (with surge: one old plus one new while the new one is not yet ready).
- RollingUpdate replaces old pods within ``maxUnavailable`` (or, with ``maxSurge``, starts the new pod
  first and deletes the old one once the new is available); OnDelete only replaces pods users delete.
- Each template is snapshotted in a ControllerRevision ``<ds>-<hash>`` whose hash labels the pods
  (``controller-revision-hash``); at most ``revisionHistoryLimit`` (10) unused old revisions are kept.
Events: SuccessfulCreate "Created pod: x", SuccessfulDelete "Deleted pod: x", FailedDaemonPod.
"""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec

from kubelite.api.types import ControllerRevision, DaemonSet, Node, Pod
from kubelite.api.types.apps_v1 import DaemonSetStatus
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.controller import Controller
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    OwnedObjectHandler,
    PodControl,
    UIDTrackingControllerExpectations,
    claim_objects,
    controller_ref,
    label_selector,
    namespace_terminating,
    object_key,
    orphan_index_key,
    owner_reference,
    slow_start_batch,
)
from kubelite.controllers.daemonset.util import (
    REVISION_HASH_LABEL,
    add_default_tolerations,
    node_affinity_for,
    should_run,
    target_node_name,
)
from kubelite.controllers.deployment.util import compute_hash, scaled_value
from kubelite.controllers.history import (
    controller_revision_name,
    revision_data,
    sort_controller_revisions,
    template_patch,
)
from kubelite.controllers.podutil import is_pod_available, is_pod_ready, parse_timestamp
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import AlreadyExists, ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer
from kubelite.supervise import gather

__all__ = ["BURST_REPLICAS", "DaemonSetController"]

BURST_REPLICAS = 250


def _key(ns: str, name: str) -> str:
    return f"{ns}/{name}"


def _by_creation_and_phase(p: Pod) -> tuple[int, float, str]:
    """``podByCreationTimestampAndPhase``: scheduled pods first, then the oldest, then by name."""
    m = p.metadata
    ts = m.creation_timestamp if m is not None else None
    return (0 if p.spec is not None and p.spec.node_name else 1,
            parse_timestamp(ts) if ts else 0.0, (m.name or "") if m is not None else "")


def _hash_of(p: Pod) -> str | None:
    labels = p.metadata.labels if p.metadata is not None else None
    return (labels or {}).get(REVISION_HASH_LABEL)


class DaemonSetController:
    def __init__(self, *, client: Client, pods: SharedIndexInformer, daemonsets: SharedIndexInformer,
                 nodes: SharedIndexInformer, revisions: SharedIndexInformer, clock: Clock,
                 recorder: EventRecorder) -> None:
        self.client = client
        self.pods = pods.get_indexer()
        self.dss = daemonsets.get_indexer()
        self.nodes = nodes.get_indexer()
        self.revisions = revisions.get_indexer()
        self.clock = clock
        self.recorder = recorder
        self.expectations = UIDTrackingControllerExpectations(clock=clock)
        self.controller: Controller | None = None
        #: ``addPod`` / ``updatePod`` / ``deletePod`` and ``addHistory`` / ``updateHistory`` / ``deleteHistory``
        self.pod_handler = OwnedObjectHandler("DaemonSet", self.dss, expectations=self.expectations,
                                              enqueue_after=self.enqueue_after)
        self.history_handler = OwnedObjectHandler("DaemonSet", self.dss)
        self.pod_control = PodControl(client, recorder)

    # --- handlers (sync) -----------------------------------------------------------------------------------------

    def enqueue_after(self, req: Request, delay: float) -> None:
        if self.controller is not None:
            self.controller.queue.add_after(req, delay)

    def node_requests(self, node: Any) -> list[Request]:
        """Every DaemonSet, for a node added, removed or changed in labels, taints or schedulability."""
        return [Request(d.metadata.namespace or "", d.metadata.name or "") for d in self.dss.list()
                if d.metadata is not None]

    # --- sync ----------------------------------------------------------------------------------------------------

    async def reconcile(self, req: Request) -> Result | None:
        """``syncDaemonSet``."""
        key = _key(req.namespace, req.name)
        ds: DaemonSet | None = self.dss.get_by_key(key)
        if ds is None:
            self.expectations.delete(key)
            return None
        meta, spec = ds.metadata, ds.spec
        assert meta is not None and spec is not None
        selector = label_selector(spec.selector)
        if selector.empty():
            self.recorder.event(ds, "Warning", "SelectingAll",
                                "This daemon set is selecting all pods. A non-empty selector is required.")
            return None
        nodes: list[Node] = sorted(self.nodes.list(), key=lambda n: (n.metadata.name if n.metadata else None) or "")
        by_node = await self._pods_by_node(ds, selector)
        if meta.deletion_timestamp is not None:
            return await self._update_status(ds, nodes, by_node, None)
        cur_hash, old_revs = await self._construct_history(ds)
        requeue: float | None = None
        if self.expectations.satisfied(key):
            requeue = await self._manage(ds, nodes, by_node, cur_hash)
            if self.expectations.satisfied(key) and (spec.update_strategy is None
                                                      or spec.update_strategy.type in (None, "RollingUpdate")):
                by_node = await self._pods_by_node(ds, selector)
                await self._rolling_update(ds, nodes, by_node, cur_hash)
        await self._cleanup_history(ds, old_revs, by_node)
        result = await self._update_status(ds, nodes, by_node, cur_hash)
        if requeue is not None and (result is None or requeue < result.requeue_after):
            return Result(requeue_after=requeue)
        return result

    async def _pods_by_node(self, ds: DaemonSet, selector: Any) -> dict[str, list[Pod]]:
        """``getNodesToDaemonPods``: claimed pods by the node they run on or are pinned to."""
        meta = ds.metadata
        assert meta is not None
        cands = list(self.pods.by_index(CONTROLLER_UID_INDEX, meta.uid or ""))
        cands += self.pods.by_index(CONTROLLER_UID_INDEX, orphan_index_key(meta.namespace or ""))

        claimed = await claim_objects(self.client, Pod, ds, selector, cands)
        if claimed.errors:
            raise claimed.errors[0]
        out: dict[str, list[Pod]] = {}
        for p in claimed.claimed:
            n = target_node_name(p)
            if n is not None:
                out.setdefault(n, []).append(p)
        return out

    def _tolerations(self, ds: DaemonSet) -> list[dict[str, Any]]:
        ts = ds.spec.template.spec if ds.spec is not None and ds.spec.template is not None else None
        tols = [msgspec.to_builtins(t) for t in (ts.tolerations if ts is not None else None) or ()]
        return add_default_tolerations(tols, bool(ts is not None and ts.host_network))

    async def _manage(self, ds: DaemonSet, nodes: list[Node], by_node: dict[str, list[Pod]], h: str) -> float | None:
        """``manage`` + ``podsShouldBeOnNode``: returns when to look again (a failed-pod backoff), if ever."""
        spec = ds.spec
        assert spec is not None and spec.template is not None and spec.template.spec is not None
        tols = self._tolerations(ds)
        surge = _allows_surge(ds)
        create_on: list[str] = []
        delete: list[Pod] = []
        for node in nodes:
            name = node.metadata.name or "" if node.metadata is not None else ""
            run, keep = should_run(node, spec.template.spec, tols)
            pods = by_node.get(name, [])
            if run and not pods:
                create_on.append(name)
            elif keep:
                running = []
                for p in pods:
                    if p.metadata is not None and p.metadata.deletion_timestamp is not None:
                        continue
                    phase = p.status.phase if p.status is not None else None
                    if phase == "Failed":
                        self.recorder.event(ds, "Warning", "FailedDaemonPod",
                                            f"Found failed daemon pod {object_key(p)} on node {name}, will try to kill it")
                        delete.append(p)
                    elif phase == "Succeeded":
                        delete.append(p)
                    else:
                        running.append(p)
                running.sort(key=_by_creation_and_phase)
                if not surge:
                    delete += running[1:]
                    continue
                new = [p for p in running if _hash_of(p) == h]
                old = [p for p in running if _hash_of(p) != h]
                delete += new[1:] + old[1:]
                if new and old and (not is_pod_ready(old[0]) or is_pod_ready(new[0])):
                    delete.append(old[0])
            elif pods:
                delete += [p for p in pods if p.metadata is not None and p.metadata.deletion_timestamp is None]
        await self._sync_nodes(ds, delete, create_on, h)
        return None

    async def _sync_nodes(self, ds: DaemonSet, delete: list[Pod], create_on: list[str], h: str) -> None:
        """``syncNodes``: bounded creates in slow-start batches and concurrent deletes, with expectations."""
        meta = ds.metadata
        assert meta is not None
        key = _key(meta.namespace or "", meta.name or "")
        create_on = create_on[:BURST_REPLICAS]
        delete = delete[:BURST_REPLICAS]
        # expect before acting: the informer may deliver the events before the calls return
        self.expectations.expect_deletions_of(key, [object_key(p) for p in delete])
        self.expectations.raise_expectations(key, len(create_on), 0)
        errors: list[Exception] = []
        if create_on:
            base = self._pod_body(ds, h)
            queue = list(create_on)

            async def create_one() -> None:
                node = queue.pop(0)
                body = {**base, "spec": {**base["spec"], "affinity": node_affinity_for(base["spec"].get("affinity"), node)}}
                try:
                    await self.pod_control.create_pod(ds, body)
                except ApiError as e:
                    self.expectations.creation_observed(key)
                    if not namespace_terminating(e):
                        raise

            _, err = await slow_start_batch(len(create_on), 1, create_one)
            for _ in queue:
                self.expectations.creation_observed(key)
            if err is not None:
                errors.append(err)

        async def delete_one(p: Pod) -> None:
            try:
                await self.pod_control.delete_pod(ds, p)
            except ApiError as e:
                self.expectations.deletion_observed_uid(key, object_key(p))
                if not isinstance(e, NotFound):
                    errors.append(e)

        await gather("daemonset", *(delete_one(p) for p in delete))
        if errors:
            raise errors[0]

    def _pod_body(self, ds: DaemonSet, h: str) -> dict[str, Any]:
        """``controller.GetPodFromTemplate`` + ``util.CreatePodTemplate``: default tolerations, hash label."""
        meta, spec = ds.metadata, ds.spec
        assert meta is not None and spec is not None and spec.template is not None
        tmpl = msgspec.to_builtins(spec.template)
        tm = tmpl.get("metadata") or {}
        labels = {**(tm.get("labels") or {}), REVISION_HASH_LABEL: h}
        pm: dict[str, Any] = {"generateName": f"{meta.name}-", "namespace": meta.namespace, "labels": labels,
                              "ownerReferences": [owner_reference(ds)]}
        for k in ("annotations", "finalizers"):
            if tm.get(k):
                pm[k] = tm[k]
        pod_spec = dict(tmpl.get("spec") or {})
        pod_spec["tolerations"] = self._tolerations(ds)
        return {"apiVersion": "v1", "kind": "Pod", "metadata": pm, "spec": pod_spec}

    # --- rolling update ------------------------------------------------------------------------------------------

    async def _rolling_update(self, ds: DaemonSet, nodes: list[Node], by_node: dict[str, list[Pod]], h: str) -> None:
        """``rollingUpdate``."""
        spec = ds.spec
        assert spec is not None and spec.template is not None and spec.template.spec is not None
        now = self.clock.now()
        mrs = spec.min_ready_seconds or 0
        tols = self._tolerations(ds)
        desired = 0
        for n in nodes:  # updatedDesiredNodeCounts: a node that should run a pod and has none counts too
            if should_run(n, spec.template.spec, tols)[0]:
                desired += 1
                by_node.setdefault(n.metadata.name or "" if n.metadata is not None else "", [])
        max_surge, max_unavailable = _surge_and_unavailable(ds, desired)
        node_by_name = {n.metadata.name: n for n in nodes if n.metadata is not None}
        old_to_delete: list[Pod] = []
        if max_surge == 0:
            unavailable = 0
            allowed: list[Pod] = []
            candidates: list[Pod] = []
            for name in sorted(by_node):
                found = _updated_pods_on_node(by_node[name], h)
                if found is None:
                    unavailable += 1
                    continue
                new, old = found
                if (old is None) == (new is None):
                    unavailable += 1  # the manage loop creates or prunes here
                elif new is not None:
                    if not is_pod_available(new, mrs, now):
                        unavailable += 1
                elif old is not None:
                    if not is_pod_available(old, mrs, now):
                        allowed.append(old)
                    elif unavailable < max_unavailable:
                        candidates.append(old)
            remaining = min(max(max_unavailable - unavailable, 0), len(candidates))
            old_to_delete = allowed + candidates[:remaining]
            await self._sync_nodes(ds, old_to_delete, [], h)
            return
        surge = 0
        allowed_new: list[str] = []
        candidate_new: list[str] = []
        for name in sorted(by_node):
            found = _updated_pods_on_node(by_node[name], h)
            if found is None:
                surge += 1
                continue
            new, old = found
            if old is None:
                continue
            if new is None:
                if not is_pod_available(old, mrs, now):
                    node = node_by_name.get(name)
                    if node is None or not should_run(node, spec.template.spec, tols)[0]:
                        old_to_delete.append(old)
                        continue
                    allowed_new.append(name)
                elif surge < max_surge:
                    candidate_new.append(name)
                continue
            if not is_pod_available(new, mrs, now):
                surge += 1
                continue
            old_to_delete.append(old)
        remaining = min(max(max_surge - surge, 0), len(candidate_new))
        await self._sync_nodes(ds, old_to_delete, allowed_new + candidate_new[:remaining], h)

    # --- history -------------------------------------------------------------------------------------------------

    def _owned_revisions(self, ds: DaemonSet) -> list[ControllerRevision]:
        meta = ds.metadata
        assert meta is not None
        out = []
        for r in self.revisions.by_index("namespace", meta.namespace or ""):
            ref = controller_ref(r)
            if ref is not None and ref.uid == meta.uid:
                out.append(r)
        return out

    async def _construct_history(self, ds: DaemonSet) -> tuple[str, list[ControllerRevision]]:
        """``constructHistory``: the current revision's hash (creating the snapshot if needed) and the old ones."""
        meta, spec = ds.metadata, ds.spec
        assert meta is not None and spec is not None
        data = template_patch(spec.template)
        want = revision_data(data)
        revs = sort_controller_revisions(self._owned_revisions(ds))
        current = [r for r in revs if revision_data(r.data) == want]
        old = [r for r in revs if revision_data(r.data) != want]
        next_rev = max((r.revision or 0 for r in old), default=0) + 1
        if current:
            cur = current[-1]
            for dup in current[:-1]:
                await self._delete_revision(dup)
            if (cur.revision or 0) < next_rev:
                await self.client.replace(msgspec.structs.replace(cur, revision=next_rev))
            labels = (cur.metadata.labels if cur.metadata is not None else None) or {}
            return labels.get(REVISION_HASH_LABEL) or "", old
        collision = ds.status.collision_count if ds.status is not None else None
        h = compute_hash(spec.template, collision)
        tl = spec.template.metadata.labels if spec.template is not None and spec.template.metadata else None
        body: dict[str, Any] = {
            "apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": controller_revision_name(meta.name or "", h), "namespace": meta.namespace,
                         "labels": {**(tl or {}), REVISION_HASH_LABEL: h}, "ownerReferences": [owner_reference(ds)]},
            "data": data, "revision": next_rev}
        if meta.annotations:
            body["metadata"]["annotations"] = meta.annotations
        try:
            await self.client.create(body)
        except AlreadyExists:
            existing: ControllerRevision = await self.client.get(ControllerRevision, body["metadata"]["name"],
                                                                 namespace=meta.namespace)
            if revision_data(existing.data) != want:
                # a hash collision: bump collisionCount so the next attempt gets another name
                st = ds.status or DaemonSetStatus()
                st = msgspec.structs.replace(st, collision_count=(st.collision_count or 0) + 1)
                await self.client.replace_status(msgspec.structs.replace(ds, status=st))
                raise RuntimeError(f"found a stale ControllerRevision {body['metadata']['name']}") from None
        return h, old

    async def _delete_revision(self, r: ControllerRevision) -> None:
        m = r.metadata
        assert m is not None
        with contextlib.suppress(NotFound):
            await self.client.delete(ControllerRevision, m.name or "", namespace=m.namespace)

    async def _cleanup_history(self, ds: DaemonSet, old: list[ControllerRevision], by_node: dict[str, list[Pod]]) -> None:
        """``cleanupHistory``: delete the oldest unused revisions beyond revisionHistoryLimit."""
        spec = ds.spec
        assert spec is not None
        limit = spec.revision_history_limit if spec.revision_history_limit is not None else 10
        to_kill = len(old) - limit
        if to_kill <= 0:
            return
        live = {_hash_of(p) for pods in by_node.values() for p in pods}
        for r in old:  # sorted oldest first
            if to_kill <= 0:
                break
            labels = (r.metadata.labels if r.metadata is not None else None) or {}
            if labels.get(REVISION_HASH_LABEL) in live:
                continue
            await self._delete_revision(r)
            to_kill -= 1

    # --- status --------------------------------------------------------------------------------------------------

    async def _update_status(self, ds: DaemonSet, nodes: list[Node], by_node: dict[str, list[Pod]],
                             h: str | None) -> Result | None:
        """``updateDaemonSetStatus``."""
        meta, spec = ds.metadata, ds.spec
        assert meta is not None and spec is not None and spec.template is not None
        now = self.clock.now()
        mrs = spec.min_ready_seconds or 0
        tols = self._tolerations(ds)
        desired = current = misscheduled = ready = available = updated = 0
        for node in nodes:
            name = node.metadata.name or "" if node.metadata is not None else ""
            run, _ = should_run(node, spec.template.spec, tols)
            pods = by_node.get(name, [])
            if run:
                desired += 1
                if pods:
                    current += 1
                    p = sorted(pods, key=_by_creation_and_phase)[0]
                    if is_pod_ready(p):
                        ready += 1
                        if is_pod_available(p, mrs, now):
                            available += 1
                    if h is not None and _hash_of(p) == h:
                        updated += 1
            elif pods:
                misscheduled += 1
        old = ds.status or DaemonSetStatus()
        st = msgspec.structs.replace(
            old, desired_number_scheduled=desired, current_number_scheduled=current,
            number_misscheduled=misscheduled, number_ready=ready, number_available=available or None,
            updated_number_scheduled=updated or None, number_unavailable=(desired - available) or None,
            observed_generation=meta.generation)
        if st != ds.status:
            await self.client.replace_status(msgspec.structs.replace(ds, status=st))
        if mrs > 0 and ready != available:
            return Result(requeue_after=float(mrs))
        return None


def _allows_surge(ds: DaemonSet) -> bool:
    spec = ds.spec
    ru = spec.update_strategy.rolling_update if spec is not None and spec.update_strategy is not None else None
    return ru is not None and ru.max_surge not in (None, 0, "0%")


def _surge_and_unavailable(ds: DaemonSet, desired: int) -> tuple[int, int]:
    """``surgeCount`` and ``unavailableCount`` (both rounded up; 0/0 means one unavailable)."""
    spec = ds.spec
    ru = spec.update_strategy.rolling_update if spec is not None and spec.update_strategy is not None else None
    surge = scaled_value(ru.max_surge if ru is not None else None, desired, True)
    mu = ru.max_unavailable if ru is not None and ru.max_unavailable is not None else 1
    unavailable = scaled_value(mu, desired, True)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _updated_pods_on_node(pods: list[Pod], h: str) -> tuple[Pod | None, Pod | None] | None:
    """``findUpdatedPodsOnNode``: (new, old) live pods; None when a node has more than one of either."""
    new: Pod | None = None
    old: Pod | None = None
    for p in pods:
        if p.metadata is not None and p.metadata.deletion_timestamp is not None:
            continue
        if _hash_of(p) == h:
            if new is not None:
                return None
            new = p
        else:
            if old is not None:
                return None
            old = p
    return new, old
