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
- **Ownership**: pods are claimed, adopted and released with controllerRefs
  (:mod:`kubelite.controllers.replicaset.ref_manager`); created pods carry
  ``controller: true, blockOwnerDeletion: true``.
- Events as upstream's ``RealPodControl`` records them: ``SuccessfulCreate`` "Created pod: <name>",
  ``FailedCreate`` "Error creating: <error>", ``SuccessfulDelete`` "Deleted pod: <name>",
  ``FailedDelete`` "Error deleting: <error>".
The pod handlers run in the informer's task and only touch the expectations and the queue (sync code).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import msgspec

from kubelite.api.labels import Selector, selector_from_label_selector
from kubelite.api.types import Pod, ReplicaSet
from kubelite.api.types.apps_v1 import ReplicaSetStatus
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.controller import Controller
from kubelite.controllers.expectations import UIDTrackingControllerExpectations
from kubelite.controllers.handler import Enqueue, unwrap
from kubelite.controllers.podutil import (
    CONTROLLER_UID_INDEX,
    controller_ref,
    is_pod_active,
    is_pod_ready,
    orphan_index_key,
    pods_to_delete,
)
from kubelite.controllers.reconcile import Request, Result
from kubelite.controllers.replicaset.pod_tracker import PodTracker
from kubelite.controllers.replicaset.ref_manager import claim_objects, owner_reference
from kubelite.controllers.replicaset.status import calculate_status, update_status
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer

__all__ = ["BURST_REPLICAS", "SLOW_START_INITIAL_BATCH_SIZE", "ReplicaSetController", "label_selector", "slow_start_batch"]

BURST_REPLICAS = 500
SLOW_START_INITIAL_BATCH_SIZE = 1

_selector_cache: dict[bytes, Selector] = {}


def label_selector(ls: Any) -> Selector:
    """``metav1.LabelSelectorAsSelector`` for a typed LabelSelector, cached by its encoding."""
    key = msgspec.json.encode(ls)
    sel = _selector_cache.get(key)
    if sel is None:
        if len(_selector_cache) > 4096:
            _selector_cache.clear()
        sel = _selector_cache[key] = selector_from_label_selector(msgspec.to_builtins(ls) if ls is not None else None)
    return sel


async def _collect_error(fn: Callable[[], Awaitable[None]], errors: list[Exception]) -> None:
    try:
        await fn()
    except Exception as e:  # a failed call is a value here (upstream collects them in errCh)
        errors.append(e)


async def slow_start_batch(count: int, initial: int, fn: Callable[[], Awaitable[None]]) -> tuple[int, Exception | None]:
    """``slowStartBatch``: call ``fn`` ``count`` times in batches of doubling size, each batch concurrently;
    stop after the first batch with an error. Returns (successes, first error)."""
    remaining = count
    successes = 0
    batch = min(remaining, initial)
    while batch > 0:
        errors: list[Exception] = []
        async with anyio.create_task_group() as tg:
            for _ in range(batch):
                tg.start_soon(_collect_error, fn, errors)
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None


def _min_ready_requeue(min_ready_seconds: int | None) -> float:
    """Upstream requeues after exactly minReadySeconds; ready times have whole-second precision and availability
    needs ``ready + minReadySeconds < now`` strictly, so on a virtual clock the check could land exactly on the
    boundary and fail. One more second (the slack upstream's pod handler uses) makes the recheck conclusive."""
    return float(min_ready_seconds or 0) + 1.0


def _rs_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def _pod_key(pod: Pod) -> str:
    m = pod.metadata
    assert m is not None
    return f"{m.namespace}/{m.name}"


class ReplicaSetController:
    """The reconciler plus its pod event handler (see the module docstring)."""

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
        self._queue: object = None

    # --- informer handlers (sync; informer task) --------------------------------------------------------------

    def _resolve(self, namespace: str, ref: Any) -> ReplicaSet | None:
        """``resolveControllerRef``: the cached ReplicaSet a controllerRef names, if the uid matches."""
        if ref.kind != "ReplicaSet" or not (ref.api_version or "").startswith("apps/"):
            return None
        rs: ReplicaSet | None = self.rss.get_by_key(_rs_key(namespace, ref.name or ""))
        if rs is None or rs.metadata is None or rs.metadata.uid != ref.uid:
            return None
        return rs

    def _matching_rss(self, pod: Pod) -> list[ReplicaSet]:
        """``getPodReplicaSets``: every ReplicaSet of the pod's namespace whose selector matches it."""
        m = pod.metadata
        assert m is not None
        out = []
        for rs in self.rss.by_index("namespace", m.namespace or ""):
            if rs.spec is not None and rs.spec.selector is not None:
                sel = label_selector(rs.spec.selector)
                if not sel.empty() and sel.matches(m.labels):
                    out.append(rs)
        return out

    @staticmethod
    def _request(rs: ReplicaSet) -> Request:
        m = rs.metadata
        assert m is not None
        return Request(m.namespace or "", m.name or "")

    def _check_restart(self, enqueue: Enqueue) -> None:
        """A new queue means the controller (re)started and the informer replays its cache: start counting afresh."""
        q = getattr(enqueue, "__self__", None)
        if q is not self._queue:
            self._queue = q
            self.tracker.clear()

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        pod: Pod = unwrap(obj)
        m = pod.metadata
        assert m is not None
        self._check_restart(enqueue)
        self.tracker.observe(pod)
        if m.deletion_timestamp is not None:
            # a pod created already terminating (a restarted controller sees it in its first list)
            self.delete(pod, enqueue)
            return
        ref = controller_ref(pod)
        if ref is not None:
            rs = self._resolve(m.namespace or "", ref)
            if rs is not None:
                self.expectations.creation_observed(_rs_key(m.namespace or "", ref.name or ""))
                enqueue(self._request(rs))
            return
        for rs in self._matching_rss(pod):
            enqueue(self._request(rs))

    def update(self, old_obj: Any, new_obj: Any, enqueue: Enqueue) -> None:
        old: Pod = unwrap(old_obj)
        cur: Pod = unwrap(new_obj)
        om, cm = old.metadata, cur.metadata
        assert om is not None and cm is not None
        if om.resource_version == cm.resource_version:
            return  # periodic resync: nothing changed
        self._check_restart(enqueue)
        cur_ref, old_ref = controller_ref(cur), controller_ref(old)
        if cur_ref != old_ref:
            self.tracker.forget(old)
        self.tracker.observe(cur)
        label_changed = om.labels != cm.labels
        if cm.deletion_timestamp is not None:
            # graceful deletion: the kubelet removes the pod later, but for the RS it is gone now
            self.delete(cur, enqueue)
            if label_changed:
                self.delete(old, enqueue)
            return
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            rs = self._resolve(om.namespace or "", old_ref)
            if rs is not None:
                enqueue(self._request(rs))
        if cur_ref is not None:
            rs = self._resolve(cm.namespace or "", cur_ref)
            if rs is None:
                return
            enqueue(self._request(rs))
            mrs = rs.spec.min_ready_seconds if rs.spec is not None else None
            if mrs and not is_pod_ready(old) and is_pod_ready(cur) and self.controller is not None:
                # it becomes available minReadySeconds from now: look again then
                self.controller.queue.add_after(self._request(rs), mrs + 1.0)
            return
        if label_changed or ref_changed:
            for rs in self._matching_rss(cur):
                enqueue(self._request(rs))

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        pod: Pod = unwrap(obj)
        m = pod.metadata
        assert m is not None
        self._check_restart(enqueue)
        self.tracker.forget(pod)
        ref = controller_ref(pod)
        if ref is None:
            return
        rs = self._resolve(m.namespace or "", ref)
        if rs is None:
            return
        self.expectations.deletion_observed_uid(_rs_key(m.namespace or "", ref.name or ""), _pod_key(pod))
        enqueue(self._request(rs))

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
        claimed = await claim_objects(self.client, Pod, rs, selector, candidates, self._can_adopt(rs))
        if claimed.errors:
            raise claimed.errors[0]
        active = claimed.claimed
        manage_error: Exception | None = None
        if needs_sync and meta.deletion_timestamp is None:
            manage_error = await self._manage_replicas(active, rs)
        now = self.clock.now()
        status = calculate_status(rs, active, manage_error, now=now, timestamp=self.clock.timestamp())
        rs = await update_status(self.client, rs, status)
        if manage_error is not None:
            raise manage_error
        replicas = spec.replicas if spec.replicas is not None else 1
        if (spec.min_ready_seconds or 0) > 0 and status.ready_replicas == replicas \
                and status.available_replicas != replicas:
            return Result(requeue_after=_min_ready_requeue(spec.min_ready_seconds))
        return None

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
            old or ReplicaSetStatus(), replicas=counts.claimed, fully_labeled_replicas=counts.fully,
            ready_replicas=counts.ready, available_replicas=counts.ready)
        return status

    def _can_adopt(self, rs: ReplicaSet) -> Callable[[], Awaitable[None]]:
        async def check() -> None:
            """``RecheckDeletionTimestamp`` on a fresh (uncached) read."""
            m = rs.metadata
            assert m is not None
            fresh = await self.client.get(ReplicaSet, m.name or "", namespace=m.namespace)
            fm = fresh.metadata
            if fm.uid != m.uid:
                raise NotFound.make(f"original ReplicaSet {m.namespace}/{m.name} is gone: got uid {fm.uid}, "
                                    f"wanted {m.uid}")
            if fm.deletion_timestamp is not None:
                raise RuntimeError(f"{m.namespace}/{m.name} has just been deleted at {fm.deletion_timestamp}")
        return check

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
            self.expectations.expect_deletions_of(key, [_pod_key(p) for p in victims])
            results = await asyncio.gather(*(self._delete_pod(rs, key, p) for p in victims))
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
            pod = await self.client.create(body)
        except ApiError as e:
            if any(c.reason == "NamespaceTerminating" for c in e.causes):
                return  # upstream: creating in a terminating namespace is not a failure worth reporting
            self.recorder.event(rs, "Warning", "FailedCreate", f"Error creating: {e}")
            raise
        self.recorder.event(rs, "Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}")

    async def _delete_pod(self, rs: ReplicaSet, key: str, pod: Pod) -> Exception | None:
        m = pod.metadata
        assert m is not None
        try:
            await self.client.delete(Pod, m.name or "", namespace=m.namespace)
        except ApiError as e:
            # the deletion will never be observed
            self.expectations.deletion_observed_uid(key, _pod_key(pod))
            if isinstance(e, NotFound):
                return None
            self.recorder.event(rs, "Warning", "FailedDelete", f"Error deleting: {e}")
            return e
        self.recorder.event(rs, "Normal", "SuccessfulDelete", f"Deleted pod: {m.name}")
        return None
