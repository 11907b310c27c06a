"""ObjectMeta validation on create and update.

Follows ``k8s.io/apimachinery/pkg/api/validation/objectmeta.go`` (``ValidateObjectMetaAccessor``,
``ValidateObjectMetaAccessorUpdate``, ``ValidateOwnerReferences``, ``ValidateFinalizers``) and
``pkg/apis/meta/v1/validation`` (labels). Errors come in upstream's order under ``metadata.*``.

Contract: pure functions over JSON ``metadata`` mappings; nothing is mutated. The caller picks the
name rule (``NameFn``) and whether the kind is namespaced.

Not checked, on purpose: ``metadata.resourceVersion`` "must be specified for an update" (kubelite, like
upstream's store for unconditional updates, fills it in from the stored object) and ``managedFields``
(the server-side-apply field manager owns them and rejects malformed entries itself).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    FIELD_IMMUTABLE,
    IS_NEGATIVE,
    NameFn,
    as_dict,
    as_list,
    labels,
    memo_valid,
)
from kubelite.errors import FieldError
from kubelite.memo import memoize

__all__ = ["validate_object_meta", "validate_object_meta_update"]

_ORPHAN = "orphan"
_FOREGROUND = "foregroundDeletion"


def _owner_references(refs: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateOwnerReferences``: note upstream reports every problem at the list path, unindexed."""
    first_controller = ""
    for ref in as_list(refs):
        ref = as_dict(ref)
        api_version = ref.get("apiVersion") or ""
        version = api_version.rsplit("/", 1)[-1] if api_version else ""
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        kind = ref.get("kind") or ""
        if not version:
            errs.append(FieldError.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(FieldError.invalid(f"{path}.kind", kind, "must not be empty"))
        if not ref.get("name"):
            errs.append(FieldError.invalid(f"{path}.name", ref.get("name") or "", "must not be empty"))
        if not ref.get("uid"):
            errs.append(FieldError.invalid(f"{path}.uid", ref.get("uid") or "", "must not be empty"))
        if group == "" and version == "v1" and kind == "Event":  # BannedOwners
            errs.append(FieldError.invalid(path, dict(ref), "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{ref.get('name') or ''}"
            if first_controller:
                errs.append(FieldError.invalid(
                    path, refs,
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{first_controller} and {current}",
                ))
            else:
                first_controller = current


def _finalizers(finalizers: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidateFinalizers``."""
    items = as_list(finalizers)
    for f in items:
        if isinstance(f, str):
            for msg in names.is_qualified_name(f):
                errs.append(FieldError.invalid(path, f, msg))
    if _ORPHAN in items and _FOREGROUND in items:
        errs.append(FieldError.invalid(path, list(items), f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set"))


# bound: distinct namespace names
@memoize("apiserver.validation.meta._namespace_problems", maxsize=1024)
def _namespace_problems(namespace: str) -> tuple[str, ...]:
    """``ValidateNamespaceName``, memoized: a cluster has few namespaces."""
    return tuple(names.name_is_dns_label(namespace, False))


# bound: distinct (path, field) pairs of object metadata: a few dozen
@memoize("apiserver.validation.meta._child", maxsize=64)
def _child(path: str, name: str) -> str:
    """``path.name``, memoized: the few metadata paths are rebuilt on every create otherwise."""
    return f"{path}.{name}"


def validate_object_meta(
    meta: Mapping[str, Any], *, namespaced: bool, name_fn: NameFn, path: str = "metadata"
) -> list[FieldError]:
    """``ValidateObjectMeta`` for a create."""
    errs: list[FieldError] = []
    generate_name = meta.get("generateName")
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(FieldError.invalid(f"{path}.generateName", generate_name, msg))
    name = meta.get("name")
    if not name:
        errs.append(FieldError.required(f"{path}.name", "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(FieldError.invalid(f"{path}.name", name, msg))
    namespace = meta.get("namespace")
    if namespaced:
        if not namespace:
            errs.append(FieldError.required(f"{path}.namespace"))
        else:
            for msg in _namespace_problems(namespace):
                errs.append(FieldError.invalid(f"{path}.namespace", namespace, msg))
    elif namespace:
        errs.append(FieldError.forbidden(f"{path}.namespace", "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(FieldError.invalid(f"{path}.generation", generation, IS_NEGATIVE))
    shared = (meta.get("labels"), meta.get("annotations"), meta.get("ownerReferences"), meta.get("finalizers"))
    if any(shared):
        _shared_meta(shared, path, errs)
    return errs


@memo_valid
def _shared_meta(shared: tuple[Any, Any, Any, Any], path: str, errs: list[FieldError]) -> None:
    """The checks of the metadata objects share (labels, annotations, owners, finalizers: the pods of one
    ReplicaSet carry the same), remembered when they pass (``memo_valid``); they come last in
    ``ValidateObjectMeta``'s order, so a remembered pass leaves the error order as it is."""
    meta_labels, annotations, refs, finalizers = shared
    if meta_labels:
        labels(meta_labels, _child(path, "labels"), errs)
    if annotations:
        errs.extend(names.validate_annotations(annotations, _child(path, "annotations")))
    if refs:
        _owner_references(refs, _child(path, "ownerReferences"), errs)
    if finalizers:
        _finalizers(finalizers, _child(path, "finalizers"), errs)


def validate_object_meta_update(
    new: Mapping[str, Any], old: Mapping[str, Any], *, path: str = "metadata"
) -> list[FieldError]:
    """``ValidateObjectMetaUpdate``: immutable identity, no new finalizers while deleting, and the
    create-time rules for labels, annotations and owner references."""
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        old_finalizers = set(as_list(old.get("finalizers")))
        extra = sorted(f for f in as_list(new.get("finalizers")) if f not in old_finalizers)
        if extra:
            shown = ", ".join(f'"{f}"' for f in extra)
            errs.append(FieldError.forbidden(
                f"{path}.finalizers",
                "no new finalizers can be added if the object is being deleted, found new finalizers "
                f"[]string{{{shown}}}",
            ))
    new_gen = new.get("generation") or 0
    old_gen = old.get("generation") or 0
    if isinstance(new_gen, int) and isinstance(old_gen, int) and new_gen < old_gen:
        errs.append(FieldError.invalid(f"{path}.generation", new_gen, "must not be decremented"))
    for key in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
        new_v = new.get(key)
        old_v = old.get(key)
        if new_v != old_v and (new_v or old_v):  # "" and absent are the same Go zero value
            errs.append(FieldError.invalid(f"{path}.{key}", new_v if new_v is not None else "", FIELD_IMMUTABLE))
    new_labels = new.get("labels")
    if new_labels:
        labels(new_labels, f"{path}.labels", errs)
    annotations = new.get("annotations")
    if annotations:
        errs.extend(names.validate_annotations(annotations, f"{path}.annotations"))
    refs = new.get("ownerReferences")
    if refs:
        _owner_references(refs, f"{path}.ownerReferences", errs)
    return errs
