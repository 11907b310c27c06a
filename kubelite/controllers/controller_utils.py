"""The controller toolkit every built-in controller builds on (pkg/controller/controller_utils.go and
controller_ref_manager.go).

Contract:
- **Owner resolution** (:func:`resolve_controller_ref`, upstream ``resolveControllerRef``): an object's
  controllerRef names its owner by Kind, name and UID; the owner is the cached object of that Kind and name
  whose UID matches. The apiVersion is *not* compared (upstream compares only Kind and UID, so an owner
  written as ``extensions/v1beta1`` or ``apps/v1`` resolves alike).
- **Adoption and orphaning** (:func:`claim_objects`, :func:`recheck_deletion_timestamp`): see
  :mod:`kubelite.controllers.controller_ref_manager`. Adoption first re-reads the owner from the API, never
  from the cache.
- **Owned-object events** (:class:`OwnedObjectHandler`): the ``addPod``/``updatePod``/``deletePod`` shape
  shared by the ReplicaSet, Deployment, Job, CronJob, DaemonSet and StatefulSet controllers: an owned object's
  events wake its resolved owner and lower its expectations; an orphan's wake every owner whose selector
  matches it, so one can adopt it.
- **Expectations** (:class:`ControllerExpectations`, :class:`UIDTrackingControllerExpectations`, defined in
  :mod:`kubelite.controllers.expectations`), **slow-start batches** (:func:`slow_start_batch`),
  :func:`owner_reference` (``metav1.NewControllerRef``), :func:`label_selector`
  (``metav1.LabelSelectorAsSelector``, memoised in a bounded cache), the ``controllerUID`` informer index and
  :class:`PodControl` (``RealPodControl``: pod creates and deletes with their events).
Everything here reads cache objects and never mutates them; the handlers are sync code (informer task).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import msgspec

from kubelite.api.labels import Selector, selector_from_label_selector, selector_from_set
from kubelite.controllers.controller_ref_manager import (
    ClaimResult,
    adopt_patch,
    claim_objects,
    controller_ref,
    owner_reference,
    recheck_deletion_timestamp,
    release_patch,
)
from kubelite.controllers.expectations import ControllerExpectations, UIDTrackingControllerExpectations
from kubelite.controllers.handler import Enqueue, unwrap
from kubelite.controllers.podutil import is_pod_ready
from kubelite.controllers.reconcile import Request
from kubelite.errors import ApiError, NotFound
from kubelite.events import EventRecorder
from kubelite.informer import NAMESPACE_INDEX, Indexer
from kubelite.memo import BoundedCache

__all__ = [
    "CONTROLLER_UID_INDEX",
    "SLOW_START_INITIAL_BATCH_SIZE",
    "ClaimResult",
    "ControllerExpectations",
    "OwnedObjectHandler",
    "PodControl",
    "UIDTrackingControllerExpectations",
    "adopt_patch",
    "claim_objects",
    "controller_ref",
    "controller_uid_index_func",
    "is_controlled_by",
    "label_selector",
    "namespace_terminating",
    "object_key",
    "orphan_index_key",
    "owner_reference",
    "recheck_deletion_timestamp",
    "release_patch",
    "resolve_controller_ref",
    "slow_start_batch",
]

CONTROLLER_UID_INDEX = "controllerUID"
SLOW_START_INITIAL_BATCH_SIZE = 1

#: LabelSelectorAsSelector results by the selector's JSON encoding. A cluster has one selector per workload
#: (a few thousand at most); beyond that the least recently used are recomputed.
_selectors: BoundedCache[bytes, Selector] = BoundedCache("controllers.label_selector", maxsize=4096)
_encode = msgspec.json.encode


def label_selector(ls: Any) -> Selector:
    """``metav1.LabelSelectorAsSelector`` for a typed LabelSelector (None selects nothing); a plain mapping
    (a ReplicationController's selector) is ``labels.Set(selector).AsSelectorPreValidated()``."""
    if isinstance(ls, dict):
        return selector_from_set(ls)
    key = _encode(ls)
    sel = _selectors.get(key)
    if sel is None:
        sel = selector_from_label_selector(msgspec.to_builtins(ls) if ls is not None else None)
        _selectors.put(key, sel)
    return sel


def object_key(obj: Any) -> str:
    """``namespace/name`` (``name`` for cluster-scoped objects), the informer cache's key."""
    m = obj.metadata
    return f"{m.namespace}/{m.name}" if m.namespace else (m.name or "")


def orphan_index_key(namespace: str) -> str:
    return f"orphan/{namespace}"


def controller_uid_index_func(obj: Any) -> list[str]:
    """The ``controllerUID`` index: the managing controller's uid, or ``orphan/<namespace>`` for objects without
    one, so a controller reads its own objects and the orphans it may adopt without scanning the namespace."""
    ref = controller_ref(obj)
    if ref is not None:
        return [ref.uid or ""]
    meta = obj.metadata
    return [orphan_index_key((meta.namespace or "") if meta is not None else "")]


def is_controlled_by(obj: Any, owner: Any) -> bool:
    """``metav1.IsControlledBy``: ``obj``'s controllerRef carries ``owner``'s uid."""
    ref = controller_ref(obj)
    return ref is not None and ref.uid == owner.metadata.uid


def resolve_controller_ref(owners: Indexer, namespace: str, ref: Any, kind: str) -> Any | None:
    """``resolveControllerRef``: the cached owner of ``kind`` that ``ref`` names, or None. Only Kind and UID are
    compared, as upstream does (a controllerRef of another Kind cannot name ours; a same-named object with
    another UID is a different object)."""
    if ref is None or ref.kind != kind:
        return None
    name = ref.name or ""
    owner = owners.get_by_key(f"{namespace}/{name}" if namespace else name)
    if owner is None or owner.metadata is None or owner.metadata.uid != ref.uid:
        return None
    return owner


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
        async with anyio.create_task_group() as tg:  # structured: no call outlives its batch
            for _ in range(batch):
                tg.start_soon(_collect_error, fn, errors)
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None


def namespace_terminating(e: ApiError) -> bool:
    """The create was refused because its namespace is terminating (``v1.NamespaceTerminatingCause``)."""
    return any(c.reason == "NamespaceTerminating" for c in e.causes)


class PodControl:
    """``RealPodControl``: pod creates and deletes on behalf of an owner, recording upstream's events on it:
    ``SuccessfulCreate`` "Created pod: <name>", ``FailedCreate`` "Error creating: <error>" (not when the
    namespace is terminating), ``SuccessfulDelete`` "Deleted pod: <name>", ``FailedDelete`` "Error deleting:
    <error>" (not for a pod already gone). Errors are raised after their event; the caller settles its
    expectations."""

    def __init__(self, client: Any, recorder: EventRecorder) -> None:
        self.client = client
        self.recorder = recorder

    async def create_pod(self, owner: Any, body: dict[str, Any]) -> dict[str, Any]:
        try:
            created: dict[str, Any] = await self.client.create(body)
        except ApiError as e:
            if not namespace_terminating(e):
                self.recorder.event(owner, "Warning", "FailedCreate", f"Error creating: {e}")
            raise
        self.recorder.event(owner, "Normal", "SuccessfulCreate", f"Created pod: {created['metadata']['name']}")
        return created

    async def delete_pod(self, owner: Any, pod: Any) -> None:
        m = pod.metadata
        try:
            await self.client.delete(type(pod), m.name or "", namespace=m.namespace)
        except NotFound:
            raise
        except ApiError as e:
            self.recorder.event(owner, "Warning", "FailedDelete", f"Error deleting: {e}")
            raise
        self.recorder.event(owner, "Normal", "SuccessfulDelete", f"Deleted pod: {m.name}")


def _request(obj: Any) -> Request:
    m = obj.metadata
    return Request(m.namespace or "", m.name or "")


class OwnedObjectHandler:
    """Events of objects owned through controllerRefs → requests for their owners (upstream ``addPod``,
    ``updatePod``, ``deletePod`` of the workload controllers, and ``addReplicaSet``… of the Deployment one).

    - add: a terminating object counts as deleted; one with a controllerRef lowers its resolved owner's
      creation expectations and wakes it; an orphan wakes every owner whose selector matches it (creations
      are not observed for orphans: no owner waits for them).
    - update: a resync (same resourceVersion) is ignored; a terminating object counts as deleted (and, if its
      labels changed, so does the old version: another owner may have been waiting for it); when the
      controllerRef changed the old owner is woken; with a controllerRef that is all (plus, for an object that
      just became Ready under an owner with ``minReadySeconds``, a wake-up ``minReadySeconds + 1`` s later:
      upstream's "avoid milliseconds skew" second); an orphan whose labels or controllerRef changed wakes the
      matching owners.
    - delete: the resolved owner's deletion expectations are lowered (by object key for
      :class:`UIDTrackingControllerExpectations`, so a deletion seen twice counts once) and it is woken.

    Owners are resolved by Kind and UID (:func:`resolve_controller_ref`). Subclasses adjust the bookkeeping
    through :meth:`creation_observed` and :meth:`deletion_observed`. ``orphans=False`` leaves orphans alone
    (owners without a selector, such as CronJobs). ``enqueue_after(request, delay)`` enables the
    minReadySeconds wake-up. ``terminating_counted_once=True`` (for counting, not key-tracking, expectations)
    treats only the first update of a terminating object as its deletion (and never its old version), later
    ones as ordinary updates.
    """

    def __init__(
        self, owner_kind: str, owners: Indexer, *, expectations: ControllerExpectations | None = None,
        orphans: bool = True, enqueue_after: Callable[[Request, float], None] | None = None,
        terminating_counted_once: bool = False,
    ) -> None:
        self.owner_kind = owner_kind
        self.owners = owners
        self.expectations = expectations
        self.orphans = orphans
        self.enqueue_after = enqueue_after
        self.terminating_counted_once = terminating_counted_once

    # --- bookkeeping hooks ---------------------------------------------------------------------------------------

    def creation_observed(self, owner_key: str, obj: Any) -> None:
        if self.expectations is not None:
            self.expectations.creation_observed(owner_key)

    def deletion_observed(self, owner_key: str, owner: Any, obj: Any, *, final: bool) -> bool:
        """Lower ``owner``'s deletion expectations for ``obj``; False if the owner should not be woken."""
        exp = self.expectations
        if isinstance(exp, UIDTrackingControllerExpectations):
            exp.deletion_observed_uid(owner_key, object_key(obj))
        elif exp is not None:
            exp.deletion_observed(owner_key)
        return True

    # --- lookups ---------------------------------------------------------------------------------------------

    def resolve(self, obj: Any, ref: Any) -> Any | None:
        return resolve_controller_ref(self.owners, obj.metadata.namespace or "", ref, self.owner_kind)

    def matching_owners(self, obj: Any) -> list[Any]:
        """``getPodReplicaSets`` & co.: the owners in ``obj``'s namespace whose non-empty selector matches it."""
        if not self.orphans:
            return []
        m = obj.metadata
        out = []
        for owner in self.owners.by_index(NAMESPACE_INDEX, m.namespace or ""):
            spec = owner.spec
            if spec is not None and spec.selector is not None:
                sel = label_selector(spec.selector)
                if not sel.empty() and sel.matches(m.labels):
                    out.append(owner)
        return out

    # --- EventHandler ----------------------------------------------------------------------------------------

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        obj = unwrap(obj)
        m = obj.metadata
        if m.deletion_timestamp is not None:
            # created already terminating (a restarted controller sees it in its first list)
            self.deleted(obj, enqueue, final=False)
            return
        ref = controller_ref(obj)
        if ref is not None:
            owner = self.resolve(obj, ref)
            if owner is not None:
                self.creation_observed(object_key(owner), obj)
                enqueue(_request(owner))
            return
        for owner in self.matching_owners(obj):
            enqueue(_request(owner))

    def update(self, old_obj: Any, new_obj: Any, enqueue: Enqueue) -> None:
        old, cur = unwrap(old_obj), unwrap(new_obj)
        om, cm = old.metadata, cur.metadata
        if om.resource_version == cm.resource_version:
            return  # periodic resync: nothing changed
        label_changed = om.labels != cm.labels
        if cm.deletion_timestamp is not None and (om.deletion_timestamp is None or not self.terminating_counted_once):
            # graceful deletion: the object goes later, but for its owner it is gone now
            self.deleted(cur, enqueue, final=False)
            if label_changed and not self.terminating_counted_once:
                self.deleted(old, enqueue, final=False)
            return
        cur_ref, old_ref = controller_ref(cur), controller_ref(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            owner = self.resolve(old, old_ref)
            if owner is not None:
                enqueue(_request(owner))
        if cur_ref is not None:
            owner = self.resolve(cur, cur_ref)
            if owner is None:
                return
            enqueue(_request(owner))
            if self.enqueue_after is not None:
                mrs = getattr(owner.spec, "min_ready_seconds", None)
                if mrs and not is_pod_ready(old) and is_pod_ready(cur):
                    self.enqueue_after(_request(owner), mrs + 1.0)
            return
        if label_changed or ref_changed:
            for owner in self.matching_owners(cur):
                enqueue(_request(owner))

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        self.deleted(unwrap(obj), enqueue, final=True)

    def deleted(self, obj: Any, enqueue: Enqueue, *, final: bool) -> None:
        ref = controller_ref(obj)
        if ref is None:
            return  # no controller waits for an orphan's deletion
        owner = self.resolve(obj, ref)
        if owner is not None and self.deletion_observed(object_key(owner), owner, obj, final=final):
            enqueue(_request(owner))

