"""The ReplicaSet controller (pkg/controller/replicaset/replica_set.go).

Guarantees:
- **No duplicate creates on a stale cache.** Before creating or deleting pods for a ReplicaSet the
  controller records how many pod adds (or which pod deletions) it expects its informer to deliver
  (``UIDTrackingControllerExpectations``); until they arrive (or expire after 5 minutes) a sync only
  refreshes status and never acts on replica counts (``syncReplicaSet``'s ``rsNeedsSync``).
- **Bounded bursts.** At most ``burst_replicas`` (500) creates or deletes per sync; creates go out in
  slow-start batches of 1, 2, 4, ... (``slowStartBatch``) so a failing quota or webhook costs one
  request, not hundreds; creates never attempted are un-expected at once (``skippedPods``).
- **Which pods go first** on scale-down: ``getPodsToDelete`` through
  :func:`kubelite.controllers.podutil.pods_to_delete` (upstream's ``ActivePodsWithRanks``).
- **Ownership**: pods are claimed, adopted and released with controllerRefs, and their events mapped to
  ReplicaSets, by the controller toolkit (:mod:`kubelite.controllers.controller_utils`); created pods carry
  ``controller: true, blockOwnerDeletion: true``.
- Events as upstream's ``RealPodControl`` records them: ``SuccessfulCreate`` "Created pod: <name>",
  ``FailedCreate`` "Error creating: <error>", ``SuccessfulDelete`` "Deleted pod: <name>",
  ``FailedDelete`` "Error deleting: <error>".
The pod handlers run in the informer's task and only touch the expectations and the queue (sync code).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.types import Pod, ReplicaSet
from kubelite.api.types.apps_v1 import ReplicaSetStatus
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.controller import Controller
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    SLOW_START_INITIAL_BATCH_SIZE,
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
from kubelite.controllers.handler import Enqueue, unwrap
from kubelite.controllers.podutil import is_pod_active, pods_to_delete
from kubelite.controllers.reconcile import Request, Result
from kubelite.controllers.replicaset.pod_tracker import PodTracker
from kubelite.controllers.replicaset.status import calculate_status, update_status
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer
from kubelite.supervise import gather

__all__ = ["BURST_REPLICAS", "ReplicaSetController"]

BURST_REPLICAS = 500


def _min_ready_requeue(min_ready_seconds: int | None) -> float:
    """Upstream requeues after exactly minReadySeconds; ready times have whole-second precision and availability
    needs ``ready + minReadySeconds < now`` strictly, so on a virtual clock the check could land exactly on the
    boundary and fail. One more second (the slack upstream's pod handler uses) makes the recheck conclusive."""
    return float(min_ready_seconds or 0) + 1.0


def _rs_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


class PodHandler(OwnedObjectHandler):
    """The toolkit's owned-pod handler plus the :class:`PodTracker` feed. The tracker is the handler's view of
    the cache, so it is emptied whenever the controller registers the handler (start or restart: the informer
    then replays its cache as adds). It tracks only pods whose controllerRef names this controller's kind: the
    only owners it is asked about (the ReplicationController manager ignores ReplicaSet pods, as upstream's
    ``resolveControllerRef`` compares the Kind)."""

    def __init__(self, rsc: ReplicaSetController) -> None:
        super().__init__(rsc.kind.__name__, rsc.rss, expectations=rsc.expectations, enqueue_after=rsc.enqueue_after)
        self.tracker = rsc.tracker

    def reset(self) -> None:
        self.tracker.clear()

    def _ours(self, pod: Any) -> bool:
        ref = controller_ref(pod)
        return ref is not None and ref.kind == self.owner_kind

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        pod = unwrap(obj)
        if self._ours(pod):
            self.tracker.observe(pod)
        super().create(obj, enqueue)

    def update(self, old_obj: Any, new_obj: Any, enqueue: Enqueue) -> None:
        old, cur = unwrap(old_obj), unwrap(new_obj)
        if old.metadata.resource_version != cur.metadata.resource_version:
            if controller_ref(cur) != controller_ref(old) and self._ours(old):
                self.tracker.forget(old)
            if self._ours(cur):
                self.tracker.observe(cur)
        super().update(old, cur, enqueue)

    def deleted(self, obj: Any, enqueue: Enqueue, *, final: bool) -> None:
        if self._ours(obj):
            self.tracker.forget(obj)
        super().deleted(obj, enqueue, final=final)


class ReplicaSetController:
    """The reconciler plus its pod event handler (see the module docstring).

    ``kind`` and ``status_type`` are the owner kind it manages: the ReplicationController controller is this
    one with ``ReplicationController`` (upstream runs the ReplicaSet code over converted RCs,
    ``pkg/controller/replication/conversion.go``); its map selector is read with ``labels.Set.AsSelector``."""

    kind: type[Any] = ReplicaSet
    status_type: type[Any] = ReplicaSetStatus

    def __init__(
        self, *, client: Client, pods: SharedIndexInformer, replicasets: SharedIndexInformer, clock: Clock,
        recorder: EventRecorder, burst_replicas: int = BURST_REPLICAS,
    ) -> None:
        self.client = client
        self.pods = pods.get_indexer()
        self.rss = replicasets.get_indexer()
        self.clock = clock
        self.recorder = recorder
        self.burst_replicas = burst_replicas
        self.expectations = UIDTrackingControllerExpectations(clock=clock)
        self.tracker = PodTracker()
        self.controller: Controller | None = None
        self.pod_handler = PodHandler(self)
        self.pod_control = PodControl(client, recorder)

    def enqueue_after(self, req: Request, delay: float) -> None:
        if self.controller is not None:
            self.controller.queue.add_after(req, delay)

    # --- sync ---------------------------------------------------------------------------------------------------

    async def reconcile(self, req: Request) -> Result | None:
        """``syncReplicaSet``."""
        key = _rs_key(req.namespace, req.name)
        rs: ReplicaSet | None = self.rss.get_by_key(key)
        if rs is None:
            self.expectations.delete(key)
            return None
        fast = self._fast_status(rs, key)
        if fast is not None:
            return await self._update_and_requeue(rs, fast)
        meta, spec = rs.metadata, rs.spec
        assert meta is not None and spec is not None
        needs_sync = self.expectations.satisfied(key)
        try:
            selector = label_selector(spec.selector)
        except ValueError:
            return None  # invalid selectors are rejected by validation; nothing sensible to do
        # the RS's own pods plus the namespace's orphans: everything ClaimPods could claim
        candidates = [p for p in self.pods.by_index(CONTROLLER_UID_INDEX, meta.uid or "") if is_pod_active(p)]
        candidates += [p for p in self.pods.by_index(CONTROLLER_UID_INDEX, orphan_index_key(req.namespace))
                       if is_pod_active(p)]
        claimed = await claim_objects(self.client, Pod, rs, selector, candidates)
        if claimed.errors:
            raise claimed.errors[0]
        active = claimed.claimed
        manage_error: Exception | None = None
        if needs_sync and meta.deletion_timestamp is None:
            manage_error = await self._manage_replicas(active, rs)
        now = self.clock.now()
        status = self._owner_status(calculate_status(rs, active, manage_error, now=now,
                                                     timestamp=self.clock.timestamp()))
        rs = await update_status(self.client, rs, status)
        if manage_error is not None:
            raise manage_error
        replicas = spec.replicas if spec.replicas is not None else 1
        if (spec.min_ready_seconds or 0) > 0 and status.ready_replicas == replicas \
                and status.available_replicas != replicas:
            return Result(requeue_after=_min_ready_requeue(spec.min_ready_seconds))
        return None

    def _owner_status(self, status: Any) -> Any:
        """``status`` as the managed kind's status type (the two kinds' statuses have the same fields)."""
        if isinstance(status, self.status_type):
            return status
        return msgspec.convert(msgspec.to_builtins(status), self.status_type)

    async def _update_and_requeue(self, rs: ReplicaSet, status: ReplicaSetStatus) -> Result | None:
        spec = rs.spec
        assert spec is not None
        await update_status(self.client, rs, status)
        replicas = spec.replicas if spec.replicas is not None else 1
        if (spec.min_ready_seconds or 0) > 0 and status.ready_replicas == replicas \
                and status.available_replicas != replicas:
            return Result(requeue_after=_min_ready_requeue(spec.min_ready_seconds))
        return None

    def _fast_status(self, rs: ReplicaSet, key: str) -> ReplicaSetStatus | None:
        """Status from the tracker's counts when this sync would neither act nor claim anything (see
        :mod:`.pod_tracker`); None when the full ``syncReplicaSet`` path is needed."""
        meta, spec = rs.metadata, rs.spec
        assert meta is not None and spec is not None
        if spec.min_ready_seconds or meta.deletion_timestamp is not None:
            return None
        try:
            selector = label_selector(spec.selector)
        except ValueError:
            return None
        tmpl = spec.template.metadata.labels if spec.template and spec.template.metadata else None
        counts = self.tracker.counts(meta.uid or "", selector, tmpl)
        replicas = spec.replicas if spec.replicas is not None else 1
        if counts.mismatched or (counts.claimed != replicas and self.expectations.satisfied(key)):
            return None
        for p in self.pods.by_index(CONTROLLER_UID_INDEX, orphan_index_key(meta.namespace or "")):
            if is_pod_active(p) and selector.matches(p.metadata.labels if p.metadata else None):
                return None  # an orphan to adopt
        old = rs.status
        failure = [c for c in (old.conditions if old else None) or () if c.type == "ReplicaFailure"]
        if failure:
            return None  # clearing ReplicaFailure is the full path's business
        status = msgspec.structs.replace(
            old or self.status_type(), replicas=counts.claimed, fully_labeled_replicas=counts.fully,
            ready_replicas=counts.ready, available_replicas=counts.ready)
        return status  # type: ignore[no-any-return]

    async def _manage_replicas(self, active: list[Pod], rs: ReplicaSet) -> Exception | None:
        """``manageReplicas``: create or delete pods toward spec.replicas; returns the first error."""
        meta, spec = rs.metadata, rs.spec
        assert meta is not None and spec is not None
        key = _rs_key(meta.namespace or "", meta.name or "")
        replicas = spec.replicas if spec.replicas is not None else 1
        diff = len(active) - replicas
        if diff < 0:
            diff = min(-diff, self.burst_replicas)
            # expect before creating: the adds may be observed before the create calls return
            self.expectations.expect_creations(key, diff)
            body = self._pod_body(rs)
            ok, err = await slow_start_batch(diff, SLOW_START_INITIAL_BATCH_SIZE, lambda: self._create_pod(rs, body))
            for _ in range(diff - ok):
                # creations that failed or never went out will never be observed
                self.expectations.creation_observed(key)
            return err
        if diff > 0:
            diff = min(diff, self.burst_replicas)
            victims = pods_to_delete(active, self._related_pods(rs), diff, self.clock.now())
            self.expectations.expect_deletions_of(key, [object_key(p) for p in victims])
            results = await gather("replicaset", *(self._delete_pod(rs, key, p) for p in victims))
            return next((e for e in results if e is not None), None)
        return None

    def _related_pods(self, rs: ReplicaSet) -> list[Pod]:
        """``getIndirectlyRelatedPods``: the pods of every ReplicaSet sharing this one's controller."""
        ref = controller_ref(rs)
        meta = rs.metadata
        assert meta is not None
        if ref is None:
            return list(self.pods.by_index(CONTROLLER_UID_INDEX, meta.uid or ""))
        out: list[Pod] = []
        for other in self.rss.by_index(CONTROLLER_UID_INDEX, ref.uid or ""):
            if other.metadata is not None and other.metadata.namespace == meta.namespace:
                out.extend(self.pods.by_index(CONTROLLER_UID_INDEX, other.metadata.uid or ""))
        return out

    @staticmethod
    def _pod_body(rs: ReplicaSet) -> dict[str, Any]:
        """``GetPodFromTemplate``: one body reused for every create (the client copies what it sends)."""
        meta, spec = rs.metadata, rs.spec
        assert meta is not None and spec is not None and spec.template is not None
        tmpl = spec.template
        tm = tmpl.metadata
        pm: dict[str, Any] = {"generateName": f"{meta.name}-", "namespace": meta.namespace,
                              "ownerReferences": [owner_reference(rs)]}
        if tm is not None:
            if tm.labels:
                pm["labels"] = tm.labels
            if tm.annotations:
                pm["annotations"] = tm.annotations
            if tm.finalizers:
                pm["finalizers"] = tm.finalizers
        return {"apiVersion": "v1", "kind": "Pod", "metadata": pm,
                "spec": msgspec.to_builtins(tmpl.spec) if tmpl.spec is not None else {}}

    async def _create_pod(self, rs: ReplicaSet, body: dict[str, Any]) -> None:
        try:
            await self.pod_control.create_pod(rs, body)
        except ApiError as e:
            if not namespace_terminating(e):
                raise  # upstream: creating in a terminating namespace is not a failure worth reporting

    async def _delete_pod(self, rs: ReplicaSet, key: str, pod: Pod) -> Exception | None:
        try:
            await self.pod_control.delete_pod(rs, pod)
        except ApiError as e:
            # the deletion will never be observed
            self.expectations.deletion_observed_uid(key, object_key(pod))
            return None if isinstance(e, NotFound) else e
        return None
