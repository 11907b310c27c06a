"""The Deployment controller (pkg/controller/deployment/deployment_controller.go).

Guarantees:
- Level-based: each sync reads the Deployment, claims its ReplicaSets (adopting orphans whose labels match,
  releasing ones that no longer match) and drives them toward the spec; nothing is remembered between syncs
  except the queue's backoff. A stale cache can only cause a 409 on a ReplicaSet or status write, retried.
- Dispatch as ``syncDeployment``: an all-selecting selector is refused (``SelectingAll`` warning); a Deployment
  being deleted only gets status; paused ones and scaling events are scaled proportionally without a
  rollout; otherwise the strategy (:mod:`.rolling`, :mod:`.recreate`) runs.
- Writes: ReplicaSets by PUT with their resourceVersion; the Deployment's status by PUT on ``/status``. The
  revision annotation is written on the main resource first when it changes (upstream folds it into the
  status update; kubelite's status strategy, like the generic one, keeps metadata from ``/status`` writes).
- Events: ``ScalingReplicaSet`` "Scaled up replica set web-6d4cf56db6 from 0 to 3", ``FailedCreate``,
  ``SelectingAll``.
The ReplicaSet and Pod handlers only map events to requests (informer task, sync code).
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from kubelite.api.types import Deployment, Pod, ReplicaSet
from kubelite.api.types.apps_v1 import DeploymentStatus
from kubelite.api.views import thaw
from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.controller import Controller
from kubelite.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    OwnedObjectHandler,
    claim_objects,
    controller_ref,
    label_selector,
    orphan_index_key,
    resolve_controller_ref,
)
from kubelite.controllers.deployment.recreate import rollout_recreate
from kubelite.controllers.deployment.rolling import rollout_rolling
from kubelite.controllers.deployment.sync import check_paused_conditions as _check_paused
from kubelite.controllers.deployment.sync import (
    get_all_replica_sets_and_sync_revision,
    is_scaling_event,
    sync,
    sync_deployment_status,
)
from kubelite.controllers.handler import Enqueue, unwrap
from kubelite.controllers.reconcile import Request, Result
from kubelite.events import EventRecorder
from kubelite.informer import SharedIndexInformer

__all__ = ["DeploymentController"]

S = TypeVar("S", bound=msgspec.Struct)


class DeploymentController:
    """Reconciler plus ReplicaSet/Pod handlers (see the module docstring)."""

    def __init__(self, *, client: Client, deployments: SharedIndexInformer, replicasets: SharedIndexInformer,
                 pods: SharedIndexInformer, clock: Clock, recorder: EventRecorder) -> None:
        self.client = client
        self.deployments = deployments.get_indexer()
        self.rss = replicasets.get_indexer()
        self.pods = pods.get_indexer()
        self.clock = clock
        self.recorder = recorder
        self.controller: Controller | None = None
        #: ``addReplicaSet`` / ``updateReplicaSet`` / ``deleteReplicaSet``
        self.rs_handler = OwnedObjectHandler("Deployment", self.deployments)
        self.pod_handler = _PodHandler(self)

    # --- helpers used by the sync modules --------------------------------------------------------------------

    @staticmethod
    def clone(obj: S) -> S:
        """A private deep copy of a (cached) object."""
        return thaw(obj)  # type: ignore[no-any-return]

    async def update_replica_set(self, rs: ReplicaSet) -> ReplicaSet:
        return await self.client.replace(rs)  # type: ignore[no-any-return]

    async def update_deployment_status(self, d: Deployment) -> Deployment:
        """Write ``d``'s annotations (if they changed) and status; ``d``'s resourceVersion follows the writes."""
        m = d.metadata
        assert m is not None
        cached: Deployment | None = self.deployments.get_by_key(f"{m.namespace}/{m.name}")
        cached_ann = cached.metadata.annotations if cached is not None and cached.metadata is not None else None
        if (m.annotations or None) != (cached_ann or None):
            written = await self.client.replace(d)
            m.resource_version = written.metadata.resource_version
        written = await self.client.replace_status(d)
        m.resource_version = written.metadata.resource_version
        return written  # type: ignore[no-any-return]

    @staticmethod
    def _request(d: Deployment) -> Request:
        m = d.metadata
        assert m is not None
        return Request(m.namespace or "", m.name or "")

    def enqueue_after(self, d: Deployment, delay: float) -> None:
        if self.controller is not None:
            self.controller.queue.add_after(self._request(d), delay)

    def enqueue_rate_limited(self, d: Deployment) -> None:
        if self.controller is not None:
            self.controller.queue.add_rate_limited(self._request(d))

    def pod_map(self, d: Deployment, rss: list[ReplicaSet]) -> dict[str, list[Pod]]:
        """``getPodMapForDeployment``: the Deployment's pods (selector match) grouped by owning RS uid."""
        sel = label_selector(d.spec.selector if d.spec else None)
        out: dict[str, list[Pod]] = {}
        for rs in rss:
            uid = rs.metadata.uid if rs.metadata else None
            if uid:
                out[uid] = [p for p in self.pods.by_index(CONTROLLER_UID_INDEX, uid)
                            if sel.matches(p.metadata.labels if p.metadata else None)]
        return out

    # --- sync ------------------------------------------------------------------------------------------------------

    async def reconcile(self, req: Request) -> Result | None:
        """``syncDeployment``."""
        cached: Deployment | None = self.deployments.get_by_key(f"{req.namespace}/{req.name}")
        if cached is None:
            return None
        d = self.clone(cached)
        assert d.spec is not None and d.metadata is not None
        sel = d.spec.selector
        if sel is None or (not sel.match_labels and not sel.match_expressions):
            self.recorder.event(d, "Warning", "SelectingAll",
                                "This deployment is selecting all pods. A non-empty selector is required.")
            st = d.status or DeploymentStatus()
            if (st.observed_generation or 0) < (d.metadata.generation or 0):
                d.status = msgspec.structs.replace(st, observed_generation=d.metadata.generation)
                await self.update_deployment_status(d)
            return None
        rss = await self._replica_sets_for(d)
        if d.metadata.deletion_timestamp is not None:
            new_rs, old_rss = await get_all_replica_sets_and_sync_revision(self, d, rss, False)
            await sync_deployment_status(self, [*old_rss, *([new_rs] if new_rs else [])], new_rs, d)
            return None
        await _check_paused(self, d)
        if d.spec.paused or await is_scaling_event(self, d, rss):
            await sync(self, d, rss)
            return None
        if d.spec.strategy is not None and d.spec.strategy.type == "Recreate":
            await rollout_recreate(self, d, rss)
        else:
            await rollout_rolling(self, d, rss)
        return None

    async def _replica_sets_for(self, d: Deployment) -> list[ReplicaSet]:
        """``getReplicaSetsForDeployment``: claim (adopt/release) the namespace's ReplicaSets."""
        m, spec = d.metadata, d.spec
        assert m is not None and spec is not None
        selector = label_selector(spec.selector)
        candidates = [*self.rss.by_index(CONTROLLER_UID_INDEX, m.uid or ""),
                      *self.rss.by_index(CONTROLLER_UID_INDEX, orphan_index_key(m.namespace or ""))]

        claimed = await claim_objects(self.client, ReplicaSet, d, selector, candidates)
        if claimed.errors:
            raise claimed.errors[0]
        return claimed.claimed


class _PodHandler:
    """``deletePod``: a Recreate Deployment waits for its old pods to be gone, so their deletion wakes it."""

    def __init__(self, dc: DeploymentController) -> None:
        self.dc = dc

    def create(self, obj: Any, enqueue: Enqueue) -> None:
        return

    def update(self, old: Any, new: Any, enqueue: Enqueue) -> None:
        return

    def delete(self, obj: Any, enqueue: Enqueue) -> None:
        pod: Pod = unwrap(obj)
        ns = (pod.metadata.namespace if pod.metadata else "") or ""
        ref = controller_ref(pod)
        rs = resolve_controller_ref(self.dc.rss, ns, ref, "ReplicaSet")
        if rs is None:
            return
        d = resolve_controller_ref(self.dc.deployments, ns, controller_ref(rs), "Deployment")
        if d is not None and d.spec is not None and d.spec.strategy is not None \
                and d.spec.strategy.type == "Recreate":
            enqueue(DeploymentController._request(d))
