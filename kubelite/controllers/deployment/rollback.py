"""What kubectl does on the client side: ``kubectl rollout undo`` and ``kubectl rollout status``
(staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollback.go ``DeploymentRollbacker``, rollout_status.go
``DeploymentStatusViewer``).

The ``deployments/rollback`` subresource is gone upstream; kubectl finds the ReplicaSet of the wanted revision
and JSON-patches the Deployment's template (without pod-template-hash) and annotations back to it, with a
resourceVersion test so a concurrent edit makes the undo fail instead of being overwritten.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.types import Deployment, ReplicaSet
from kubelite.client import Client
from kubelite.controllers.controller_utils import is_controlled_by
from kubelite.controllers.deployment import util

__all__ = ["RolloutError", "rollback", "rollout_status"]


class RolloutError(Exception):
    """kubectl's error for an undo that cannot be done or a rollout that failed."""


async def rollback(client: Client, namespace: str, name: str, to_revision: int = 0) -> str:
    """``kubectl rollout undo deployment/<name> [--to-revision=N]``; returns what kubectl prints."""
    d: Deployment = await client.get(Deployment, name, namespace=namespace)
    assert d.metadata is not None and d.spec is not None
    if d.spec.paused:
        raise RolloutError(f"you cannot rollback a paused deployment; resume it first with 'kubectl rollout "
                           f"resume deployment/{name}' and try again")
    rss = [rs for rs in await client.list(ReplicaSet, namespace=namespace)
           if is_controlled_by(rs, d)]
    target = _rs_for_revision(d, rss, to_revision)
    assert target.spec is not None and target.spec.template is not None
    if util.equal_ignore_hash(target.spec.template, d.spec.template):
        return f"deployment.apps/{name} skipped rollback (current template already matches revision " \
               f"{util.revision(target)})"
    template = msgspec.to_builtins(target.spec.template)
    labels = (template.get("metadata") or {}).get("labels") or {}
    labels.pop(util.DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, None)
    annotations: dict[str, Any] = {k: v for k, v in (d.metadata.annotations or {}).items()
                                   if k in util.SKIPPED_ANNOTATIONS}
    annotations.update({k: v for k, v in (target.metadata.annotations or {}).items()  # type: ignore[union-attr]
                        if k not in util.SKIPPED_ANNOTATIONS})
    patch = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": d.metadata.resource_version},
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ]
    await client.patch(Deployment, name, patch, namespace=namespace, patch_type="json")
    return f"deployment.apps/{name} rolled back"


def _rs_for_revision(d: Deployment, rss: list[ReplicaSet], to_revision: int) -> ReplicaSet:
    name = d.metadata.name if d.metadata else ""
    if to_revision > 0:
        for rs in rss:
            if util.revision(rs) == to_revision:
                return rs
        raise RolloutError(f"unable to find specified revision {to_revision} in history")
    if len(rss) <= 1:
        raise RolloutError(f'no revision found for deployment "{name}"')
    latest = previous = -1
    prev_rs: ReplicaSet | None = None
    latest_rs: ReplicaSet | None = None
    for rs in rss:
        v = util.revision(rs)
        if v > latest:
            previous, prev_rs = latest, latest_rs
            latest, latest_rs = v, rs
        elif previous < v < latest:
            previous, prev_rs = v, rs
    if prev_rs is None or previous <= 0:
        raise RolloutError(f'no rollout history found for deployment "{name}"')
    return prev_rs


def rollout_status(d: Deployment) -> tuple[bool, str]:
    """``kubectl rollout status``: (done, message); RolloutError once the progress deadline is exceeded."""
    name = d.metadata.name if d.metadata else ""
    st = d.status
    gen = (d.metadata.generation or 0) if d.metadata else 0
    if st is None or gen > (st.observed_generation or 0):
        return False, "Waiting for deployment spec update to be observed..."
    cond = util.get_condition(st, util.PROGRESSING)
    if cond is not None and cond.reason == util.TIMED_OUT_REASON:
        raise RolloutError(f'deployment "{name}" exceeded its progress deadline')
    replicas = d.spec.replicas if d.spec is not None else None
    updated = st.updated_replicas or 0
    if replicas is not None and updated < replicas:
        return False, (f'Waiting for deployment "{name}" rollout to finish: {updated} out of {replicas} new '
                       f"replicas have been updated...")
    if (st.replicas or 0) > updated:
        return False, (f'Waiting for deployment "{name}" rollout to finish: {(st.replicas or 0) - updated} old '
                       f"replicas are pending termination...")
    if (st.available_replicas or 0) < updated:
        return False, (f'Waiting for deployment "{name}" rollout to finish: {st.available_replicas or 0} of '
                       f"{updated} updated replicas are available...")
    return True, f'deployment "{name}" successfully rolled out'
