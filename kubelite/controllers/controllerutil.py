"""What operator authors reach for in controller-runtime's ``pkg/controller/controllerutil``: owner and
controller references, finalizers, ``CreateOrUpdate`` and ``CreateOrPatch``.

Every helper takes typed objects (generated Structs) and plain dicts (custom resources) alike.

- **References.** :func:`set_controller_reference` makes ``owner`` the managing controller of ``obj``
  (``controller: true``, ``blockOwnerDeletion: true``) and raises :class:`AlreadyOwnedError` if another
  object already is; :func:`set_owner_reference` adds a plain (non-controller) reference. Both
  upsert: a reference to the same owner (same API group, kind and name) is replaced, not duplicated.
  Cross-namespace owners, and namespaced owners of cluster-scoped objects, are rejected as upstream
  (the garbage collector would ignore them).
- **Finalizers.** :func:`add_finalizer` / :func:`remove_finalizer` return whether they changed the
  object; :func:`contains_finalizer` asks. They only edit the object you pass: write it back yourself.
- **CreateOrUpdate / CreateOrPatch.** Get the object named by ``obj``'s name and namespace; if absent,
  run ``mutate`` on ``obj`` and create it; else run ``mutate`` on the stored object and write only if it
  changed (update: a PUT with the read resourceVersion as precondition; patch: JSON merge patches of
  the object and, separately, of its status subresource). The result says what happened
  (:class:`OperationResult`, upstream's values). ``mutate`` must not change the name or namespace.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Any, TypeVar

import msgspec

from kubelite.client import Client
from kubelite.errors import NotFound

__all__ = [
    "AlreadyOwnedError",
    "OperationResult",
    "add_finalizer",
    "contains_finalizer",
    "create_merge_patch",
    "create_or_patch",
    "create_or_update",
    "has_controller_reference",
    "has_owner_reference",
    "remove_controller_reference",
    "remove_finalizer",
    "remove_owner_reference",
    "set_controller_reference",
    "set_owner_reference",
]

T = TypeVar("T")
Obj = Any  # a generated Struct or a dict


class OperationResult(StrEnum):
    """What :func:`create_or_update` / :func:`create_or_patch` did (upstream's string values)."""

    NONE = "unchanged"
    CREATED = "created"
    UPDATED = "updated"
    UPDATED_STATUS = "updatedStatus"
    UPDATED_STATUS_ONLY = "updatedStatusOnly"


class AlreadyOwnedError(Exception):
    """``obj`` already has a controller reference to another owner (upstream ``AlreadyOwnedError``)."""

    def __init__(self, obj: Obj, owner: dict[str, Any]) -> None:
        self.object = obj
        self.owner = owner
        ns, name = _namespace(obj), _name(obj)
        super().__init__(f"Object {ns}/{name} is already owned by another {owner.get('kind')} controller "
                         f"{owner.get('name')}")


# --- object access for Structs and dicts ---
def _meta(obj: Obj, create: bool = False) -> Any:
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if meta is None and create:
            meta = obj["metadata"] = {}
        return meta
    meta = obj.metadata
    if meta is None and create:
        from kubelite.api.types import ObjectMeta

        meta = obj.metadata = ObjectMeta()
    return meta


def _get(meta: Any, key: str, attr: str) -> Any:
    if meta is None:
        return None
    return meta.get(key) if isinstance(meta, dict) else getattr(meta, attr)


def _name(obj: Obj) -> str:
    return _get(_meta(obj), "name", "name") or ""


def _namespace(obj: Obj) -> str:
    return _get(_meta(obj), "namespace", "namespace") or ""


def _api_version_kind(obj: Obj) -> tuple[str, str]:
    if isinstance(obj, dict):
        av, kind = obj.get("apiVersion"), obj.get("kind")
    else:
        av, kind = getattr(obj, "api_version", None), getattr(obj, "kind", None)
    if not av or not kind:
        raise ValueError(f"{type(obj).__name__} has no apiVersion/kind: cannot reference it as an owner")
    return str(av), str(kind)


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def _owner_refs(obj: Obj) -> list[dict[str, Any]]:
    """``obj``'s ownerReferences as dicts (a copy)."""
    refs = _get(_meta(obj), "ownerReferences", "owner_references") or []
    return [r if isinstance(r, dict) else msgspec.to_builtins(r) for r in refs]


def _set_owner_refs(obj: Obj, refs: list[dict[str, Any]]) -> None:
    meta = _meta(obj, create=True)
    if isinstance(meta, dict):
        meta["ownerReferences"] = refs
        return
    from kubelite.api.types import OwnerReference

    meta.owner_references = [msgspec.convert(r, OwnerReference) for r in refs] or None


def _same_owner(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """upstream ``referSameObject``: same API group, kind and name (the version may differ)."""
    return (_group(a.get("apiVersion") or "") == _group(b.get("apiVersion") or "") and a.get("kind") == b.get("kind")
            and a.get("name") == b.get("name"))


def _reference(owner: Obj) -> dict[str, Any]:
    av, kind = _api_version_kind(owner)
    uid = _get(_meta(owner), "uid", "uid")
    if not _name(owner) or not uid:
        raise ValueError(f"the owner {kind} needs a name and a uid (read it from the API first)")
    return {"apiVersion": av, "kind": kind, "name": _name(owner), "uid": uid}


def _check_namespaces(owner: Obj, obj: Obj, namespaced_owner: bool | None) -> None:
    """upstream ``validateOwner``: a namespaced owner must live in the object's namespace."""
    owner_ns = _namespace(owner)
    if namespaced_owner is False or not owner_ns:
        return
    obj_ns = _namespace(obj)
    if not obj_ns:
        raise ValueError(f"cluster-scoped resource must not have a namespace-scoped owner, owner's namespace "
                         f"{owner_ns}")
    if owner_ns != obj_ns:
        raise ValueError(f"cross-namespace owner references are disallowed, owner's namespace {owner_ns}, "
                         f"obj's namespace {obj_ns}")


def _upsert(refs: list[dict[str, Any]], ref: dict[str, Any]) -> list[dict[str, Any]]:
    for i, existing in enumerate(refs):
        if _same_owner(existing, ref):
            refs[i] = ref
            return refs
    refs.append(ref)
    return refs


# --- references ---
def set_controller_reference(owner: Obj, obj: Obj, *, block_owner_deletion: bool = True) -> None:
    """Make ``owner`` the controller of ``obj`` (upstream ``SetControllerReference``): an owner reference
    with ``controller: true`` and ``blockOwnerDeletion``. Raises :class:`AlreadyOwnedError` if another
    owner is already its controller, ``ValueError`` for a cross-namespace owner."""
    ref = _reference(owner)
    _check_namespaces(owner, obj, None)
    refs = _owner_refs(obj)
    for existing in refs:
        if existing.get("controller") and not _same_owner(existing, ref):
            raise AlreadyOwnedError(obj, existing)
    ref["controller"] = True
    ref["blockOwnerDeletion"] = block_owner_deletion
    _set_owner_refs(obj, _upsert(refs, ref))


def set_owner_reference(owner: Obj, obj: Obj) -> None:
    """Add ``owner`` as a (non-controller) owner of ``obj`` (upstream ``SetOwnerReference``); an existing
    reference to the same owner is replaced."""
    ref = _reference(owner)
    _check_namespaces(owner, obj, None)
    _set_owner_refs(obj, _upsert(_owner_refs(obj), ref))


def remove_owner_reference(owner: Obj, obj: Obj) -> None:
    """Remove ``owner``'s reference from ``obj`` (upstream ``RemoveOwnerReference``); ``ValueError`` if
    there is none."""
    ref = _reference(owner)
    refs = _owner_refs(obj)
    kept = [r for r in refs if not _same_owner(r, ref)]
    if len(kept) == len(refs):
        raise ValueError(f"{type(obj).__name__} does not have an owner reference for {ref['kind']} {ref['name']}")
    _set_owner_refs(obj, kept)


def remove_controller_reference(owner: Obj, obj: Obj) -> None:
    """Remove ``owner``'s reference if it is ``obj``'s controller (upstream ``RemoveControllerReference``);
    ``ValueError`` if ``obj`` has no controller or another one."""
    ref = _reference(owner)
    refs = _owner_refs(obj)
    controllers = [r for r in refs if r.get("controller")]
    if not controllers:
        raise ValueError(f"{type(obj).__name__} does not have a controller reference")
    if not _same_owner(controllers[0], ref):
        raise ValueError(f"{ref['kind']} {ref['name']} is not the controller of {type(obj).__name__}")
    _set_owner_refs(obj, [r for r in refs if not _same_owner(r, ref)])


def has_controller_reference(obj: Obj) -> bool:
    """Whether ``obj`` has a controller owner reference (upstream ``HasControllerReference``)."""
    return any(r.get("controller") for r in _owner_refs(obj))


def has_owner_reference(owner: Obj, obj: Obj) -> bool:
    """Whether ``obj`` has an owner reference to ``owner`` (same group, kind and name)."""
    ref = _reference(owner)
    return any(_same_owner(r, ref) for r in _owner_refs(obj))


# --- finalizers ---
def _finalizers(obj: Obj) -> list[str]:
    return list(_get(_meta(obj), "finalizers", "finalizers") or [])


def _set_finalizers(obj: Obj, finalizers: list[str]) -> None:
    meta = _meta(obj, create=True)
    if isinstance(meta, dict):
        meta["finalizers"] = finalizers
    else:
        meta.finalizers = finalizers or None


def contains_finalizer(obj: Obj, finalizer: str) -> bool:
    """Whether ``obj`` has ``finalizer`` (upstream ``ContainsFinalizer``)."""
    return finalizer in _finalizers(obj)


def add_finalizer(obj: Obj, finalizer: str) -> bool:
    """Append ``finalizer`` unless present; True if ``obj`` changed (upstream ``AddFinalizer``)."""
    current = _finalizers(obj)
    if finalizer in current:
        return False
    _set_finalizers(obj, [*current, finalizer])
    return True


def remove_finalizer(obj: Obj, finalizer: str) -> bool:
    """Remove every occurrence of ``finalizer``; True if ``obj`` changed (upstream ``RemoveFinalizer``)."""
    current = _finalizers(obj)
    kept = [f for f in current if f != finalizer]
    if len(kept) == len(current):
        return False
    _set_finalizers(obj, kept)
    return True


# --- create or update / patch ---
MutateFn = Callable[[Any], Awaitable[None] | None]


def _data(obj: Obj) -> dict[str, Any]:
    """A deep copy of ``obj`` as JSON data."""
    if isinstance(obj, msgspec.Struct):
        return msgspec.to_builtins(obj)  # type: ignore[no-any-return]
    return msgspec.json.decode(msgspec.json.encode(obj))  # type: ignore[no-any-return]


async def _mutate(mutate: MutateFn, obj: Obj, key: tuple[str, str]) -> None:
    r = mutate(obj)
    if inspect.isawaitable(r):
        await r
    if (_namespace(obj), _name(obj)) != key:
        raise ValueError("MutateFn cannot mutate object name and/or object namespace")


async def _get_existing(client: Client, obj: Obj) -> Obj | None:
    res: Any = type(obj) if isinstance(obj, msgspec.Struct) else (obj.get("apiVersion"), obj.get("kind"))
    try:
        return await client.get(res, _name(obj), namespace=_namespace(obj) or None)
    except NotFound:
        return None


async def _create_if_absent(client: Client, obj: Any, mutate: MutateFn
                            ) -> tuple[tuple[str, str], Any, tuple[OperationResult, Any] | None]:
    """The first half of CreateOrUpdate/CreateOrPatch: the key, the stored object, and, if there was
    none, the outcome of mutating and creating ``obj``."""
    key = (_namespace(obj), _name(obj))
    existing = await _get_existing(client, obj)
    if existing is not None:
        return key, existing, None
    await _mutate(mutate, obj, key)
    return key, None, (OperationResult.CREATED, await client.create(obj))


async def create_or_update(client: Client, obj: T, mutate: MutateFn) -> tuple[OperationResult, T]:
    """Create or update the object named by ``obj`` (upstream ``CreateOrUpdate``): ``mutate`` sets the
    desired state on ``obj`` (absent: then it is created) or on the stored object (then it is written
    with a PUT only if ``mutate`` changed something; a concurrent change is a 409 ``Conflict``).
    Returns what happened and the object as stored (or as read, when unchanged)."""
    key, existing, created = await _create_if_absent(client, obj, mutate)
    if created is not None:
        return created
    before = _data(existing)
    await _mutate(mutate, existing, key)
    if _data(existing) == before:
        return OperationResult.NONE, existing  # type: ignore[no-any-return]
    return OperationResult.UPDATED, await client.replace(existing)


def create_merge_patch(before: Any, after: Any) -> Any:
    """The RFC 7386 JSON merge patch that turns ``before`` into ``after`` (``null`` removes a key; lists
    and scalars are replaced whole), as ``client.MergeFrom`` computes it."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    patch: dict[str, Any] = {}
    for k, v in after.items():
        if k not in before:
            patch[k] = v
        elif before[k] != v:
            patch[k] = create_merge_patch(before[k], v) if isinstance(v, dict) and isinstance(before[k], dict) else v
    for k in before:
        if k not in after:
            patch[k] = None
    return patch


async def create_or_patch(client: Client, obj: T, mutate: MutateFn) -> tuple[OperationResult, T]:
    """Create or patch the object named by ``obj`` (upstream ``CreateOrPatch``): like
    :func:`create_or_update`, but changes are sent as JSON merge patches, the object's and (through the
    status subresource) its status's separately. The result is ``UPDATED`` (object only),
    ``UPDATED_STATUS`` (both) or ``UPDATED_STATUS_ONLY``; ``NONE`` when nothing changed."""
    key, existing, created = await _create_if_absent(client, obj, mutate)
    if created is not None:
        return created
    before = _data(existing)
    before_status = before.pop("status", None)
    await _mutate(mutate, existing, key)
    after = _data(existing)
    after_status = after.pop("status", None)
    res: Any = type(existing) if isinstance(existing, msgspec.Struct) else (after.get("apiVersion"), after.get("kind"))
    result = OperationResult.NONE
    current: Any = existing
    if before != after:
        current = await client.patch(res, key[1], create_merge_patch(before, after), namespace=key[0] or None,
                                     patch_type="merge")
        result = OperationResult.UPDATED
    if (before_status is not None or after_status is not None) and before_status != after_status:
        status_patch = {"status": create_merge_patch(before_status or {}, after_status)
                        if after_status is not None else None}
        current = await client.patch(res, key[1], status_patch, namespace=key[0] or None, patch_type="merge",
                                     subresource="status")
        result = OperationResult.UPDATED_STATUS if result is OperationResult.UPDATED else \
            OperationResult.UPDATED_STATUS_ONLY
    return result, current
