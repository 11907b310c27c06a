"""The StatefulSet controller (pkg/controller/statefulset: stateful_set.go ``sync``,
stateful_set_control.go ``updateStatefulSet``, ``getStatefulSetRevisions``, ``updateStatefulSetStatus``).

Guarantees:
- **Stable identity**: ordinal ``i`` is always the pod ``<set>-<i>`` with the claims ``<t>-<set>-<i>``;
  a deleted pod comes back with the same name and storage. Claims are created before their pod and are
  never deleted by this controller (``persistentVolumeClaimRetentionPolicy`` ``whenDeleted: Delete``
  makes the set their owner, so the GC removes them with the set; ``whenScaled: Delete`` hands a
  condemned pod's claims to the pod before it is deleted).
- **OrderedReady** (default): pods are created in ordinal order, each only once every lower ordinal is
  Running and Ready (and available for ``minReadySeconds``); scale-down deletes the highest ordinal
  first, one at a time, each after the previous one is gone. **Parallel** does both without waiting.
- **RollingUpdate** replaces pods from the highest ordinal down to ``partition``, one at a time, waiting
  for each to be Running and Ready; ``OnDelete`` only replaces pods users delete. Pods below the
  partition are recreated from the current revision.
- Revisions: the template is snapshotted in ControllerRevisions (``history.new_controller_revision``);
  status carries currentRevision/updateRevision, and the update completes (current := update) once every
  replica is updated and ready. At most ``revisionHistoryLimit`` (10) unused revisions are kept.
Events: SuccessfulCreate "create Pod web-0 in StatefulSet web successful", SuccessfulDelete "delete Pod
..." and "create Claim www-web-0 Pod web-0 in StatefulSet web success".
"""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec

from kubelite.api.types import ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet
from kubelite.api.types.apps_v1 import StatefulSetStatus
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers import history
from kubelite.controllers.controller import Controller
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    OwnedObjectHandler,
    claim_objects,
    label_selector,
    orphan_index_key,
    owner_reference,
)
from kubelite.controllers.podutil import is_pod_available, is_pod_ready
from kubelite.controllers.reconcile import Request, Result
from kubelite.controllers.statefulset.pods import claim_bodies, ordinal, pod_body, revision_of
from kubelite.errors import AlreadyExists, ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer
from kubelite.supervise import gather

__all__ = ["StatefulSetController"]


def _running_and_ready(p: Pod, mrs: int, now: float) -> bool:
    """``isRunningAndReady`` (and ``isRunningAndAvailable`` with minReadySeconds)."""
    return p.status is not None and p.status.phase == "Running" and is_pod_available(p, mrs, now)


def _terminating(p: Pod) -> bool:
    return p.metadata is not None and p.metadata.deletion_timestamp is not None


def _finished(p: Pod) -> bool:
    return p.status is not None and p.status.phase in ("Failed", "Succeeded")


class StatefulSetController:
    def __init__(self, *, client: Client, pods: SharedIndexInformer, sets: SharedIndexInformer,
                 revisions: SharedIndexInformer, claims: SharedIndexInformer, clock: Clock,
                 recorder: EventRecorder) -> None:
        self.client = client
        self.pods = pods.get_indexer()
        self.sets = sets.get_indexer()
        self.revisions = revisions.get_indexer()
        self.claims = claims.get_indexer()
        self.clock = clock
        self.recorder = recorder
        self.controller: Controller | None = None
        #: ``addPod`` / ``updatePod`` / ``deletePod``
        self.pod_handler = OwnedObjectHandler("StatefulSet", self.sets, enqueue_after=self.enqueue_after)
        self.revision_handler = OwnedObjectHandler("StatefulSet", self.sets)

    def enqueue_after(self, req: Request, delay: float) -> None:
        if self.controller is not None:
            self.controller.queue.add_after(req, delay)

    async def reconcile(self, req: Request) -> Result | None:
        """``sync`` + ``updateStatefulSet``."""
        s: StatefulSet | None = self.sets.get_by_key(f"{req.namespace}/{req.name}")
        if s is None:
            return None
        meta, spec = s.metadata, s.spec
        assert meta is not None and spec is not None
        selector = label_selector(spec.selector)
        pods = await self._claim_pods(s, selector)
        revs = history.sort_controller_revisions(
            history.owned_revisions(self.revisions.by_index("namespace", meta.namespace or ""), s, selector))
        current, update, collision = await self._revisions(s, revs)
        requeue: float | None = None
        if meta.deletion_timestamp is None:
            requeue = await self._update_pods(s, pods, current, update)
            pods = await self._claim_pods(s, selector)
        await self._update_status(s, pods, current, update, collision)
        await self._truncate_history(s, pods, revs, current, update)
        if requeue is not None:
            return Result(requeue_after=requeue)
        return None

    async def _claim_pods(self, s: StatefulSet, selector: Any) -> list[Pod]:
        """``getPodsForStatefulSet``: own pods plus adoptable orphans (``isMemberOf``: named ``<set>-<n>``)."""
        meta = s.metadata
        assert meta is not None
        cands = list(self.pods.by_index(CONTROLLER_UID_INDEX, meta.uid or ""))
        cands += [p for p in self.pods.by_index(CONTROLLER_UID_INDEX, orphan_index_key(meta.namespace or ""))
                  if ordinal(meta.name or "", p) >= 0]

        claimed = await claim_objects(self.client, Pod, s, selector, cands)
        if claimed.errors:
            raise claimed.errors[0]
        return claimed.claimed

    async def _revisions(self, s: StatefulSet, revs: list[ControllerRevision]) -> tuple[
            ControllerRevision, ControllerRevision, int]:
        """``getStatefulSetRevisions``: (current, update, collisionCount), creating or re-numbering the
        update revision as needed."""
        spec, st = s.spec, s.status
        assert spec is not None
        collision = (st.collision_count if st is not None else None) or 0
        data = history.template_patch(spec.template)
        tl = spec.template.metadata.labels if spec.template is not None and spec.template.metadata else None
        body = history.new_controller_revision(s, tl, data, history.next_revision(revs), collision,
                                               annotations=s.metadata.annotations if s.metadata else None)
        probe = msgspec.convert(body, ControllerRevision)
        equal = history.find_equal_revisions(revs, probe)
        if equal and revs and equal[-1].revision == revs[-1].revision:
            update = revs[-1]
        elif equal:
            update = await history.update_controller_revision(self.client, equal[-1], body["revision"])
        else:
            update, collision = await history.create_controller_revision(self.client, s, body, collision)
        cur_name = st.current_revision if st is not None else None
        current = next((r for r in revs if r.metadata is not None and r.metadata.name == cur_name), update)
        return current, update, collision

    def _template_of(self, rev: ControllerRevision) -> dict[str, Any]:
        """``ApplyRevision``: the template a revision recorded."""
        tmpl = dict(((rev.data or {}).get("spec") or {}).get("template") or {})
        tmpl.pop("$patch", None)
        return tmpl

    async def _update_pods(self, s: StatefulSet, pods: list[Pod], current: ControllerRevision,
                           update: ControllerRevision) -> float | None:
        """The body of ``updateStatefulSet``; returns when to look again (minReadySeconds), if ever."""
        meta, spec = s.metadata, s.spec
        assert meta is not None and spec is not None
        name = meta.name or ""
        now = self.clock.now()
        mrs = spec.min_ready_seconds or 0
        replicas = spec.replicas if spec.replicas is not None else 1
        monotonic = spec.pod_management_policy != "Parallel"
        strategy = spec.update_strategy
        rolling = strategy is None or strategy.type in (None, "RollingUpdate")
        partition = (strategy.rolling_update.partition or 0) if rolling and strategy is not None \
            and strategy.rolling_update is not None else 0
        cur_name = current.metadata.name if current.metadata is not None else ""
        upd_name = update.metadata.name if update.metadata is not None else ""
        slots: list[Pod | None] = [None] * replicas
        condemned: list[tuple[int, Pod]] = []
        for pod in pods:
            o = ordinal(name, pod)
            if 0 <= o < replicas:
                slots[o] = pod
            elif o >= replicas:
                condemned.append((o, pod))
        condemned.sort(key=lambda x: -x[0])
        cur_tmpl = self._template_of(current)
        upd_tmpl = self._template_of(update)
        requeue: float | None = None
        for i in range(replicas):
            p = slots[i]
            if p is not None and _finished(p) and not _terminating(p):
                await self._delete_pod(s, p)
                if monotonic:
                    return None
                continue
            if p is None:
                # newVersionedStatefulSetPod: below the partition pods keep the current revision
                from_current = rolling and cur_name != upd_name and i < partition
                tmpl, rev = (cur_tmpl, cur_name) if from_current else (upd_tmpl, upd_name)
                await self._create_pod(s, pod_body(s, tmpl, rev or "", i), i)
                if monotonic:
                    return None
                continue
            if _terminating(p) and monotonic:
                return None
            if not _running_and_ready(p, mrs, now) and monotonic:
                if mrs and is_pod_ready(p):
                    requeue = float(mrs)
                return requeue
        for o, victim in condemned:
            if _terminating(victim):
                if monotonic:
                    return None
                continue
            if monotonic and not _running_and_ready(victim, mrs, now) and o != condemned[0][0]:
                return None  # only the highest condemned ordinal may go while unhealthy
            await self._delete_condemned(s, victim, o)
            if monotonic:
                return None
        if not rolling:
            return None
        for i in range(replicas - 1, max(partition, 0) - 1, -1):
            p = slots[i]
            if p is None:
                continue
            if revision_of(p) != upd_name and not _terminating(p):
                await self._delete_pod(s, p)
                return None
            if not _running_and_ready(p, mrs, now):
                return None  # wait for the updated pod before touching the next ordinal
        return requeue

    async def _create_pod(self, s: StatefulSet, body: dict[str, Any], ord_: int) -> None:
        """``CreateStatefulPod``: claims first (``createPersistentVolumeClaims``), then the pod."""
        meta = s.metadata
        assert meta is not None
        pod_name = body["metadata"]["name"]
        for claim in claim_bodies(s, ord_):
            cname = claim["metadata"]["name"]
            if self.claims.get_by_key(f"{meta.namespace}/{cname}") is not None:
                continue
            try:
                await self.client.create(claim)
            except AlreadyExists:
                continue
            except ApiError as e:
                self.recorder.event(s, "Warning", "FailedCreate",
                                    f"create Claim {cname} for Pod {pod_name} in StatefulSet {meta.name} failed "
                                    f"error: {e}")
                raise
            self.recorder.event(s, "Normal", "SuccessfulCreate",
                                f"create Claim {cname} Pod {pod_name} in StatefulSet {meta.name} success")
        try:
            await self.client.create(body)
        except AlreadyExists:
            return  # the cache lags; the next sync sees it
        except ApiError as e:
            self.recorder.event(s, "Warning", "FailedCreate",
                                f"create Pod {pod_name} in StatefulSet {meta.name} failed error: {e}")
            raise
        self.recorder.event(s, "Normal", "SuccessfulCreate", f"create Pod {pod_name} in StatefulSet {meta.name} successful")

    async def _delete_pod(self, s: StatefulSet, p: Pod) -> None:
        m = p.metadata
        assert m is not None
        try:
            await self.client.delete(Pod, m.name or "", namespace=m.namespace,
                                     preconditions={"uid": m.uid} if m.uid else None)
        except NotFound:
            return
        except ApiError as e:
            self.recorder.event(s, "Warning", "FailedDelete",
                                f"delete Pod {m.name} in StatefulSet {s.metadata.name if s.metadata else ''} failed "
                                f"error: {e}")
            raise
        self.recorder.event(s, "Normal", "SuccessfulDelete",
                            f"delete Pod {m.name} in StatefulSet {s.metadata.name if s.metadata else ''} successful")

    async def _delete_condemned(self, s: StatefulSet, p: Pod, ord_: int) -> None:
        """With ``whenScaled: Delete`` the pod first becomes the owner of its claims (the GC deletes them)."""
        spec = s.spec
        assert spec is not None
        policy = spec.persistent_volume_claim_retention_policy
        if policy is not None and policy.when_scaled == "Delete":
            ref = owner_reference(p)
            ref["controller"] = False
            for claim in claim_bodies(s, ord_):
                with contextlib.suppress(NotFound):
                    await self.client.patch(PersistentVolumeClaim, claim["metadata"]["name"],
                                            {"metadata": {"ownerReferences": [ref]}},
                                            namespace=claim["metadata"]["namespace"], patch_type="merge")
        await self._delete_pod(s, p)

    async def _update_status(self, s: StatefulSet, pods: list[Pod], current: ControllerRevision,
                             update: ControllerRevision, collision: int) -> None:
        """``computeReplicaStatus`` + ``completeRollingUpdate`` + ``updateStatefulSetStatus``."""
        meta, spec = s.metadata, s.spec
        assert meta is not None and spec is not None
        now = self.clock.now()
        mrs = spec.min_ready_seconds or 0
        cur_name = current.metadata.name if current.metadata is not None else None
        upd_name = update.metadata.name if update.metadata is not None else None
        n = ready = available = cur = upd = 0
        for p in pods:
            if ordinal(meta.name or "", p) < 0:
                continue
            n += 1
            if p.status is not None and p.status.phase == "Running" and is_pod_ready(p):
                ready += 1
                if is_pod_available(p, mrs, now):
                    available += 1
            if not _terminating(p):
                rev = revision_of(p)
                if rev == cur_name:
                    cur += 1
                if rev == upd_name:
                    upd += 1
        rolling = spec.update_strategy is None or spec.update_strategy.type in (None, "RollingUpdate")
        replicas = spec.replicas if spec.replicas is not None else 1
        if rolling and upd == n == replicas and ready == n:
            cur_name, cur = upd_name, upd
        old = s.status or StatefulSetStatus()
        st = msgspec.structs.replace(
            old, replicas=n, ready_replicas=ready or None, available_replicas=available,
            current_replicas=cur or None, updated_replicas=upd or None, current_revision=cur_name,
            update_revision=upd_name, collision_count=collision, observed_generation=meta.generation)
        if st != s.status:
            await self.client.replace_status(msgspec.structs.replace(s, status=st))

    async def _truncate_history(self, s: StatefulSet, pods: list[Pod], revs: list[ControllerRevision],
                                current: ControllerRevision, update: ControllerRevision) -> None:
        """``truncateHistory``: keep the revisions live pods use, current, update and ``limit`` others."""
        spec = s.spec
        assert spec is not None
        limit = spec.revision_history_limit if spec.revision_history_limit is not None else 10
        live = {revision_of(p) for p in pods}
        keep = {r.metadata.name for r in (current, update) if r.metadata is not None}
        old = [r for r in revs if r.metadata is not None and r.metadata.name not in live and r.metadata.name not in keep]
        doomed = old[:max(len(old) - limit, 0)]
        await gather("statefulset", *(self._delete_revision(r) for r in doomed))

    async def _delete_revision(self, r: ControllerRevision) -> None:
        m = r.metadata
        assert m is not None
        with contextlib.suppress(NotFound):
            await self.client.delete(ControllerRevision, m.name or "", namespace=m.namespace)
