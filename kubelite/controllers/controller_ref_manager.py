"""Adoption and orphaning through ownerReferences (pkg/controller/controller_ref_manager.go
``BaseControllerRefManager.ClaimObject``, ``PodControllerRefManager.ClaimPods``, ``ClaimReplicaSets``,
``RecheckDeletionTimestamp``). Part of the controller toolkit: import it from
:mod:`kubelite.controllers.controller_utils`.

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
from kubelite.api.types import OwnerReference
from kubelite.client import Client
from kubelite.errors import Invalid, NotFound

__all__ = ["ClaimResult", "adopt_patch", "claim_objects", "controller_ref", "owner_reference",
           "recheck_deletion_timestamp", "release_patch"]


def controller_ref(obj: Any) -> OwnerReference | None:
    """The ownerReference with ``controller: true``, or None (``metav1.GetControllerOf``)."""
    meta = obj.metadata
    refs = meta.owner_references if meta is not None else None
    if refs:
        for r in refs:
            if r.controller:
                return r  # type: ignore[no-any-return]
    return None


def owner_reference(owner: Any) -> dict[str, Any]:
    """``metav1.NewControllerRef``: controller=true and blockOwnerDeletion=true."""
    m = owner.metadata
    return {"apiVersion": owner.api_version, "kind": owner.kind, "name": m.name, "uid": m.uid,
            "controller": True, "blockOwnerDeletion": True}


def adopt_patch(owner: Any, uid: str) -> dict[str, Any]:
    """``ownerRefControllerPatch``."""
    return {"metadata": {"ownerReferences": [owner_reference(owner)], "uid": uid}}


def release_patch(owner_uid: str, uid: str) -> dict[str, Any]:
    """``GenerateDeleteOwnerRefStrategicMergeBytes``."""
    return {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": uid}}


def recheck_deletion_timestamp(client: Client, owner: Any) -> Callable[[], Awaitable[None]]:
    """``RecheckDeletionTimestamp`` over a fresh (uncached) read of ``owner`` (a typed object), as every workload controller builds
    its ``canAdoptFunc``: adoption is refused when the owner is gone, was replaced (another uid) or is being
    deleted. The read happens only when called, i.e. only when there is an orphan to adopt."""
    m = owner.metadata

    async def check() -> None:
        fresh = await client.get(type(owner), m.name or "", namespace=m.namespace)
        fm = fresh.metadata
        if fm.uid != m.uid:
            raise NotFound.make(f"original {owner.kind} {m.namespace}/{m.name} is gone: got uid {fm.uid}, "
                                f"wanted {m.uid}")
        if fm.deletion_timestamp is not None:
            raise RuntimeError(f"{m.namespace}/{m.name} has just been deleted at {fm.deletion_timestamp}")
    return check


class ClaimResult:
    __slots__ = ("claimed", "errors")

    def __init__(self) -> None:
        self.claimed: list[Any] = []
        self.errors: list[Exception] = []


async def _patch(client: Client, resource: Any, m: Any, body: dict[str, Any], out: ClaimResult) -> bool:
    """Apply an adopt or release patch; False when it did not apply. An object that vanished (404) or changed
    identity (422 on the uid precondition) is skipped silently; any other error is collected in ``out``."""
    try:
        await client.patch(resource, m.name, body, namespace=m.namespace)
    except (NotFound, Invalid):
        return False
    except Exception as e:
        out.errors.append(e)
        return False
    return True


async def claim_objects(
    client: Client, resource: Any, owner: Any, selector: Selector, candidates: Iterable[Any],
    can_adopt: Callable[[], Awaitable[None]] | None = None,
) -> ClaimResult:
    """Claim, adopt and release as the module docstring says. ``can_adopt`` (by default
    :func:`recheck_deletion_timestamp` on ``owner``) raises when adoption is not allowed; it is called at most
    once, and only if there is something to adopt."""
    if can_adopt is None:
        can_adopt = recheck_deletion_timestamp(client, owner)
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
            elif not owner_deleting:
                await _patch(client, resource, m, release_patch(owner_uid, m.uid), out)
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
        elif await _patch(client, resource, m, adopt_patch(owner, m.uid), out):
            out.claimed.append(obj)
    return out
