"""Adoption and orphaning through ownerReferences (pkg/controller/controller_ref_manager.go
``BaseControllerRefManager.ClaimObject``, ``PodControllerRefManager.ClaimPods``, ``ClaimReplicaSets``).

Contract, per candidate object (the candidates are the owner's own objects plus the orphans of its namespace):
- owned by another controller (a controllerRef with another uid): ignored;
- owned by us and the selector still matches: claimed;
- owned by us, selector no longer matches, owner not being deleted: released (the ownerReference is removed
  with a strategic-merge ``$patch: delete`` carrying the object's uid as a precondition);
- orphan, selector matches, neither owner nor object being deleted, and ``can_adopt()`` passes (a fresh read
  of the owner: same uid, no deletionTimestamp; ``RecheckDeletionTimestamp``): adopted with a patch adding
  ``controller: true, blockOwnerDeletion: true``.
Objects that vanished (404) or changed identity (422 on the uid precondition) are skipped, as upstream does.
Cache objects are never mutated; adopted objects are returned as the cached copies.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kubelite.api.labels import Selector
from kubelite.client import Client
from kubelite.controllers.podutil import controller_ref
from kubelite.errors import Invalid, NotFound

__all__ = ["ClaimResult", "adopt_patch", "claim_objects", "owner_reference"]


def owner_reference(owner: Any) -> dict[str, Any]:
    """``metav1.NewControllerRef``: controller=true and blockOwnerDeletion=true."""
    m = owner.metadata
    return {"apiVersion": owner.api_version, "kind": owner.kind, "name": m.name, "uid": m.uid,
            "controller": True, "blockOwnerDeletion": True}


def adopt_patch(owner: Any, uid: str) -> dict[str, Any]:
    """``ownerRefControllerPatch``."""
    return {"metadata": {"ownerReferences": [owner_reference(owner)], "uid": uid}}


def _release_patch(owner_uid: str, uid: str) -> dict[str, Any]:
    """``GenerateDeleteOwnerRefStrategicMergeBytes``."""
    return {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": uid}}


class ClaimResult:
    __slots__ = ("claimed", "errors")

    def __init__(self) -> None:
        self.claimed: list[Any] = []
        self.errors: list[Exception] = []


async def claim_objects(
    client: Client, resource: Any, owner: Any, selector: Selector, candidates: Iterable[Any],
    can_adopt: Callable[[], Awaitable[None]],
) -> ClaimResult:
    """Claim, adopt and release as the module docstring says. ``can_adopt`` raises when adoption is not
    allowed; it is called at most once, and only if there is something to adopt."""
    out = ClaimResult()
    om = owner.metadata
    owner_uid = om.uid
    owner_deleting = om.deletion_timestamp is not None
    adopt_checked: Exception | bool | None = False
    matches = selector.matches
    for obj in candidates:
        m = obj.metadata
        ref = controller_ref(obj)
        if ref is not None:
            if ref.uid != owner_uid:
                continue
            if matches(m.labels):
                out.claimed.append(obj)
                continue
            if owner_deleting:
                continue
            try:
                await client.patch(resource, m.name, _release_patch(owner_uid, m.uid), namespace=m.namespace)
            except (NotFound, Invalid):
                pass
            except Exception as e:
                out.errors.append(e)
            continue
        if owner_deleting or m.deletion_timestamp is not None or not matches(m.labels):
            continue
        if adopt_checked is False:
            try:
                await can_adopt()
                adopt_checked = None
            except Exception as e:
                adopt_checked = e
        if adopt_checked is not None:
            out.errors.append(adopt_checked)  # type: ignore[arg-type]
            continue
        try:
            await client.patch(resource, m.name, adopt_patch(owner, m.uid), namespace=m.namespace)
        except (NotFound, Invalid):
            continue
        except Exception as e:
            out.errors.append(e)
            continue
        out.claimed.append(obj)
    return out
