"""The heartbeat write path: a sole owner's update skips the steps whose result cannot change.

A kubelet's Lease renewal (a PUT of ``spec.renewTime``), its Node status report and its pod status
writes (patches of ``/status``) change a few leaves of an object whose every changed field the kubelet
alone already owns. The whole update path (``GenericStore._update_checked``) then runs steps whose
outcome is known in advance; this module tells the store which ones, and computes the two that are
left in proportion to the change:

- **Admission** (``AdmissionChain.sees``): when no built-in plugin handles the request (``handles``, as
  the chain itself asks) and no user hook matches it, both admission phases are no-ops; and since nothing then
  awaits between the read and the write, nobody can have written in between, so the store's second
  read (GuaranteedUpdate's "did someone write while the hooks ran") is skipped too.
- **Validation** (:func:`validate_change`): upstream's ``ValidateLeaseUpdate`` is
  ``ValidateObjectMetaUpdate`` plus ``ValidateLeaseSpec``, ``ValidateNodeStatusUpdate`` the metadata
  rules alone, ``ValidatePodStatusUpdate`` the metadata rules plus nodeName, nominatedNodeName and pod
  IP rules. When the metadata is the stored object's but for ``resourceVersion`` and
  ``managedFields`` (which no metadata rule reads), the metadata rules see the stored, already
  validated metadata twice and find nothing, so only the kind's own rules run (this relies on the
  stored object having passed them when it was written, as every write through the apiserver does; an
  object put into the store behind the apiserver's back is not revalidated). Any other write, or any
  other kind, is validated whole.
- **managedFields** (:func:`retimed`): when the change (outside metadata) adds or modifies only fields
  the requester's own entry holds, removes none, and touches no other manager's fields, the field
  manager's result is the stored entries with the requester's entry re-timed and the entries
  re-sorted (managedfieldsupdater.go re-times the manager whose operation took fields); this builds
  that directly, sharing the other entries' FieldsV1.

Guarantees: every function here returns what the whole path computes, or None/False, and the store
then runs the whole step; ``tests/apiserver/test_heartbeat.py`` drives seeded random heartbeats and
their neighbours (another manager's field, invalid values, stale resourceVersions, hooks and
ValidatingAdmissionPolicies present) through both and compares responses, errors and stored bytes.
Nothing here mutates ``old`` or the stored managedFields entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubelite.apiserver.ssa.apply import TypedError
from kubelite.apiserver.ssa.fieldpath import FieldSet, difference, union
from kubelite.apiserver.ssa.managed_fields import changes, meta_stripped
from kubelite.apiserver.validation.other import lease_spec
from kubelite.apiserver.validation.pod import pod_status_rules
from kubelite.errors import FieldError

__all__ = ["BODY_RULES", "meta_unchanged", "retimed", "validate_change"]

_MISSING: Any = object()
# metadata fields no ValidateObjectMetaUpdate rule reads (the store sets resourceVersion, the field manager
# managedFields, after validation)
_UNREAD_META = ("resourceVersion", "managedFields")
_UNREAD_MARKED = dict.fromkeys(_UNREAD_META, _MISSING)

_Rules = Callable[[Mapping[str, Any], Mapping[str, Any], list[FieldError]], None]


def _lease_rules(new: Mapping[str, Any], old: Mapping[str, Any], errs: list[FieldError]) -> None:
    lease_spec(new, errs)


def _no_rules(new: Mapping[str, Any], old: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateNodeStatusUpdate``: the metadata rules only (kubelite's, as upstream's)."""


# (group, plural, subresource) -> what the kind's update validation checks besides the metadata rules
BODY_RULES: dict[tuple[str, str, str], _Rules] = {
    ("coordination.k8s.io", "leases", ""): _lease_rules,  # ValidateLeaseUpdate: + ValidateLeaseSpec
    ("", "nodes", "status"): _no_rules,  # ValidateNodeStatusUpdate
    ("", "pods", "status"): pod_status_rules,  # ValidatePodStatusUpdate
}


def meta_unchanged(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """Whether ``new``'s metadata is ``old``'s but for the fields no metadata rule reads."""
    nm, om = new.get("metadata"), old.get("metadata")
    if type(nm) is not dict or type(om) is not dict:
        return False
    if nm is om:
        return True
    # both sides with the unread fields set to one marker, compared in C: equal exactly when every other
    # field is present in both with equal values (an unread field present on one side only is no difference)
    return {**nm, **_UNREAD_MARKED} == {**om, **_UNREAD_MARKED}


def validate_change(group: str, plural: str, subresource: str, new: dict[str, Any], old: dict[str, Any],
                    ) -> list[FieldError] | None:
    """What the strategy's ``validate_update(new, old)`` returns, when the kind's rules say so without
    the metadata rules (see the module docstring), for ``new`` whose metadata is ``old``'s but for the
    fields no metadata rule reads (:func:`meta_unchanged`, the caller's check); None: validate whole."""
    rules = BODY_RULES.get((group, plural, subresource))
    if rules is None:
        return None
    errs: list[FieldError] = []
    rules(new, old, errs)
    return errs


def _sort_key(e: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    # managed_fields._wire_order (sortEncodedManagedFields) on the encoded entries
    return (e.get("operation") or "", (e.get("time") or "")[:19], e.get("manager") or "", e.get("apiVersion") or "",
            e.get("subresource") or "")


def retimed(
    old: dict[str, Any], new: dict[str, Any], *, manager: str, schema: Any, api_version: str, now: str,
    subresource: str, ignored_fields: FieldSet | None, max_update_managers: int,
) -> dict[str, Any] | None:
    """``FieldManager.update(old, new, ...)``'s result for a sole owner's change (see the module
    docstring), or None when this is not that case and the field manager must run. ``new``'s metadata
    must be ``old``'s but for resourceVersion and managedFields (:func:`meta_unchanged`, the caller's
    check)."""
    nm, om = new["metadata"], old["metadata"]
    entries = om.get("managedFields")
    if type(entries) is not list or not entries:
        return None
    requested = nm.get("managedFields")
    # the main resource takes a sent, different list (or a reset) as the request's own: not this case
    if not subresource and requested is not None and requested is not entries and requested != entries:
        return None
    own: dict[str, Any] | None = None
    keys = set()
    updaters = 0
    for e in entries:
        if type(e) is not dict or not e.get("fieldsV1") or e.get("fieldsType") != "FieldsV1":
            return None  # (an empty set: the general path drops it)
        op = e.get("operation")
        if op not in ("Apply", "Update") or not e.get("apiVersion"):
            return None
        key = (e.get("manager") or "", op, e["apiVersion"] if op == "Update" else "", e.get("subresource") or "")
        keys.add(key)
        updaters += op == "Update"
        if key == (manager or "unknown", "Update", api_version, subresource):
            own = e
    if own is None or not own.get("time") or len(keys) != len(entries) or updaters > max_update_managers:
        return None
    try:
        added, modified, removed = changes(old, new, schema, ignored_fields, skip="metadata")
    except TypedError:
        return None
    if removed:
        return None
    changed = union(modified, added)
    if changed:
        if meta_stripped(changed) is not changed or difference(changed, own["fieldsV1"]):
            return None  # a field nobody may own, or one the requester does not own yet
        for e in entries:
            if e is not own and difference(e["fieldsV1"], changed) is not e["fieldsV1"]:
                return None  # another manager's field
        # managed_fields._entry's key order
        fresh = {"manager": own["manager"], "operation": "Update", "apiVersion": own["apiVersion"], "time": now,
                 "fieldsType": "FieldsV1", "fieldsV1": own["fieldsV1"]}
        if subresource:
            fresh["subresource"] = subresource
        out_entries = [fresh if e is own else dict(e) for e in entries]
        if len(out_entries) > 1:
            out_entries.sort(key=_sort_key)
    else:
        out_entries = [dict(e) for e in entries]
    out = dict(new)
    meta = {k: v for k, v in nm.items() if k != "managedFields"}
    meta["managedFields"] = out_entries
    out["metadata"] = meta
    return out
