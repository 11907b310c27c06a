"""Who owns what: managers' field sets, the ownership updater, and the managedFields wire form.

Ports ``sigs.k8s.io/structured-merge-diff/v6/merge/update.go`` (``Updater.Update``,
``Updater.Apply``, ``prune``, ``addBackOwnedItems``, ``addBackDanglingItems``) for a single API
version, and from ``k8s.io/apimachinery/pkg/util/managedfields/internal``: ``managedfields.go``
(decode, encode, ``sortEncodedManagedFields``, ``BuildManagerIdentifier``), ``capmanagers.go``,
``stripmeta.go`` and ``conflict.go`` (``NewConflictError``).

Contract:
- A :data:`Managers` map is owned by the call that decoded it: the functions here replace its
  values but never mutate a :class:`VersionedSet` or a field-set trie in place.
- A manager is identified by (manager, operation, apiVersion, subresource), the apiVersion being
  blank for appliers, exactly the fields upstream's manager identifier JSON keeps.
- Conflicts are detected against every other manager, appliers and updaters alike; without
  ``force`` they raise :class:`ApplyConflicts` and nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.apply import ensure_named_fields, merge, remove_items
from kubelite.apiserver.ssa.compare import compare, to_field_set
from kubelite.apiserver.ssa.fieldpath import (
    FieldSet,
    difference,
    from_fields_v1,
    go_json,
    intersection,
    path_string,
    paths,
    recursive_difference,
    rewire,
    to_fields_v1,
    union,
)
from kubelite.errors import ApiError, Conflict, StatusCause

__all__ = [
    "ApplyConflicts",
    "Diff",
    "ManagerKey",
    "Managers",
    "Times",
    "VersionedSet",
    "apply_managers",
    "cap_update_managers",
    "changes",
    "conflict_error",
    "decode_managed_fields",
    "encode_created",
    "encode_managed_fields",
    "encode_retimed",
    "meta_stripped",
    "strip_meta",
    "update_managers",
]


class ManagerKey(NamedTuple):
    manager: str
    operation: str  # "Apply" | "Update"
    api_version: str  # "" for appliers
    subresource: str

    def identifier(self) -> str:
        """``BuildManagerIdentifier``: the JSON upstream keys managers by (and sorts them by)."""
        parts = [f'"manager":{go_json(self.manager)}'] if self.manager else []
        parts.append(f'"operation":{go_json(self.operation)}')
        if self.api_version:
            parts.append(f'"apiVersion":{go_json(self.api_version)}')
        if self.subresource:
            parts.append(f'"subresource":{go_json(self.subresource)}')
        return "{" + ",".join(parts) + "}"

    def printed(self) -> str:
        """``printManager`` in conflict.go (the identifier never carries a time)."""
        s = go_json(self.manager)
        if self.subresource:
            s += f" with subresource {go_json(self.subresource)}"
        if self.operation == "Update":
            s += f" using {self.api_version}"
        return s


class VersionedSet(NamedTuple):
    fields: FieldSet
    api_version: str
    applied: bool


Managers = dict[ManagerKey, VersionedSet]
Times = dict[ManagerKey, str | None]
Diff = tuple[FieldSet, FieldSet, FieldSet]  # (added, modified, removed)


class ApplyConflicts(Exception):
    """``merge.Conflicts``: fields the applied configuration would take from other managers."""

    def __init__(self, conflicts: dict[ManagerKey, FieldSet]) -> None:
        super().__init__("apply conflicts")
        self.conflicts = conflicts


# --- the updater -----------------------------------------------------------------------------------


def changes(
    live: Mapping[str, Any], new: Mapping[str, Any], schema: Schema | None, ignored: FieldSet | None, *,
    skip: str | None = None,
) -> Diff:
    """The (added, modified, removed) comparison of ``live`` to ``new``, less the ``ignored`` fields
    (``skip``: a top-level field left out of the comparison, see ``compare``)."""
    added, modified, removed = compare(live, new, schema, skip=skip)
    if ignored:
        added = recursive_difference(added, ignored)
        modified = recursive_difference(modified, ignored)
        removed = recursive_difference(removed, ignored)
    return added, modified, removed


def update_managers(
    live: Mapping[str, Any], new: Mapping[str, Any], managers: Managers, workflow: ManagerKey,
    schema: Schema | None, *, force: bool, ignored: FieldSet | None, diff: Diff | None = None,
) -> tuple[Managers, FieldSet, FieldSet, FieldSet]:
    """``Updater.update``: take the changed fields away from every manager but ``workflow``.

    Returns the new managers and the (added, modified, removed) comparison of live to new; pass
    that comparison as ``diff`` (``changes(live, new, schema, ignored)``) when already computed.
    """
    added, modified, removed = changes(live, new, schema, ignored) if diff is None else diff
    changed = union(modified, added)
    if changed and not force:
        conflicts: dict[ManagerKey, FieldSet] = {}
        for key, vs in managers.items():
            if key != workflow:
                c = intersection(vs.fields, changed)
                if c:
                    conflicts[key] = c
        if conflicts:
            raise ApplyConflicts(conflicts)
    # Upstream takes each manager's conflicts (its share of ``changed``) and then ``removed`` away;
    # as sets of member paths that is taking ``changed`` and ``removed`` away, and it needs no
    # intersection per manager (forced or conflict-free, the result is the same).
    gone = union(changed, removed)
    out: Managers = {}
    for key, vs in managers.items():
        fields = vs.fields
        if key != workflow:
            fields = difference(fields, gone)
        if fields:
            out[key] = vs if fields is vs.fields else vs._replace(fields=fields)
    return out, added, modified, removed


def apply_managers(
    live: Mapping[str, Any], config: Mapping[str, Any], managers: Managers, manager: ManagerKey,
    api_version: str, schema: Schema | None, *, force: bool, ignored: FieldSet | None,
    config_fields: FieldSet | None = None,
) -> tuple[dict[str, Any], Managers]:
    """``Updater.Apply``: merge ``config`` into ``live``, record it, prune what the applier dropped.

    ``config`` must already have passed ``to_field_set(config, schema, strict=True)``; pass that
    set as ``config_fields`` to save computing it again (a strict set without errors is the set).
    """
    merged = merge(live, config, schema)
    last = managers.get(manager)
    fields = to_field_set(config, schema) if config_fields is None else config_fields
    if ignored:
        fields = recursive_difference(fields, ignored)
    managers = dict(managers)
    managers[manager] = VersionedSet(fields, api_version, True)
    # Pruning only removes what the applier owned last time and no longer sets; when it still sets
    # all of it (a re-apply that changes values or adds fields), every path on the way to those
    # fields is owned again, so nothing would be removed. Pruning also types the merged object
    # (addBackOwnedItems' ``merged.ToFieldSet()``), which fails on what an earlier update stored
    # untyped (UpdateNoErrors), such as ``containers: [null]``: the skip keeps that check.
    if last is not None and last.fields:
        if difference(last.fields, fields):
            merged = _prune(merged, managers, last.fields, schema)
        else:
            to_field_set(merged, schema)  # raises the TypedError pruning would have raised
    managers, _, _, _ = update_managers(live, merged, managers, manager, schema, force=force, ignored=ignored)
    return merged, managers


def _prune(merged: dict[str, Any], managers: Managers, last: FieldSet, schema: Schema | None) -> dict[str, Any]:
    """Remove what the applier set last time, omits now, and nobody else owns (``Updater.prune``)."""
    last_e = ensure_named_fields(last, schema)
    pruned = remove_items(merged, last_e, schema)
    # addBackOwnedItems: keep whatever any manager (this applier's new configuration included) owns.
    managed: FieldSet = {}
    for vs in managers.values():
        managed = union(managed, vs.fields)
    merged_set = ensure_named_fields(to_field_set(merged, schema), schema)
    keep = union(ensure_named_fields(to_field_set(pruned, schema), schema), ensure_named_fields(managed, schema))
    pruned = remove_items(merged, difference(merged_set, keep), schema)
    # addBackDanglingItems: only remove what the applier itself owned last time.
    pruned_set = ensure_named_fields(to_field_set(pruned, schema), schema)
    return remove_items(merged, intersection(difference(merged_set, pruned_set), last_e), schema)


# stripmeta.go: paths that never belong to anyone (members only; what is below them is kept).
_STRIP: FieldSet = {
    "f:apiVersion": {},
    "f:kind": {},
    "f:metadata": {
        ".": {}, "f:name": {}, "f:namespace": {}, "f:creationTimestamp": {}, "f:selfLink": {}, "f:uid": {},
        "f:clusterName": {}, "f:generation": {}, "f:managedFields": {}, "f:resourceVersion": {},
    },
}


def meta_stripped(fields: FieldSet) -> FieldSet:
    """``fields`` less the paths stripmeta.go never lets anyone own."""
    return difference(fields, _STRIP)


def strip_meta(managers: Managers, key: ManagerKey) -> None:
    vs = managers.get(key)
    if vs is not None:
        fields = difference(vs.fields, _STRIP)
        if fields:
            managers[key] = vs._replace(fields=fields)
        else:
            del managers[key]


def cap_update_managers(managers: Managers, times: Times, limit: int) -> None:
    """``capManagersManager.capUpdateManagers``: fold the oldest updaters into ``ancient-changes``."""
    updaters = [k for k, vs in managers.items() if not vs.applied]
    if len(updaters) <= limit:
        return
    updaters.sort(key=lambda k: (_seconds(times.get(k)), k.identifier()))
    first_by_version: dict[str, ManagerKey] = {}
    length = len(updaters)
    for key in updaters:
        if length <= limit:
            break
        vs = managers[key]
        bucket = ManagerKey("ancient-changes", "Update", vs.api_version, "")
        first = first_by_version.get(vs.api_version)
        if first is None:
            first_by_version[vs.api_version] = key
            continue
        if bucket not in managers:
            managers[bucket] = managers.pop(first)
        managers[bucket] = VersionedSet(union(vs.fields, managers[bucket].fields), vs.api_version, vs.applied)
        del managers[key]
        length -= 1
        times[bucket] = times.get(key)


def _seconds(t: str | None) -> str:
    # RFC 3339 UTC times order as strings; upstream compares whole seconds (time.Unix()).
    return (t or "")[:19]


# --- wire form -------------------------------------------------------------------------------------


def decode_managed_fields(entries: Any, *, trusted: bool) -> tuple[Managers, Times]:
    """``DecodeManagedFields``; raises ValueError like upstream on a malformed entry.

    ``trusted`` entries come from a stored object (written by :func:`encode_managed_fields`) and
    skip re-canonicalising their FieldsV1, which is then also in serialisation order (so it may be
    passed on as ``wired`` to :func:`encode_managed_fields`).
    """
    managers: Managers = {}
    times: Times = {}
    if not entries:
        return managers, times
    if not isinstance(entries, list):
        raise ValueError("managedFields must be a list")
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ValueError(f"managed fields entry {i} must be an object")
        op = e.get("operation")
        if op not in ("Apply", "Update"):
            raise ValueError("operation must be `Apply` or `Update`")
        api_version = e.get("apiVersion") or ""
        if not api_version:
            raise ValueError("apiVersion must not be empty")
        ft = e.get("fieldsType") or ""
        if ft != "FieldsV1":
            raise ValueError(
                f"missing fieldsType in managed fields entry {i}" if not ft
                else f"invalid fieldsType {ft!r} in managed fields entry {i}"
            )
        raw = e.get("fieldsV1") or {}
        fields = raw if trusted and isinstance(raw, dict) else from_fields_v1(raw)
        key = ManagerKey(e.get("manager") or "", op, api_version if op == "Update" else "", e.get("subresource") or "")
        managers[key] = VersionedSet(fields, api_version, op == "Apply")
        times[key] = e.get("time")
    return managers, times


def encode_managed_fields(
    managers: Managers, times: Times, *, in_wire_order: ManagerKey | None = None,
    wired: Mapping[ManagerKey, FieldSet] | None = None,
) -> list[dict[str, Any]]:
    """``encodeManagedFields`` + ``sortEncodedManagedFields``: by operation, time, manager, ...

    ``in_wire_order`` names a manager whose set is freshly built in serialisation order and owned
    by nobody else, so it goes out as is instead of through :func:`to_fields_v1`. ``wired`` maps
    managers to the stored sets (already in serialisation order) their current sets were derived
    from: those go out through :func:`~.fieldpath.rewire`, sharing what did not change with the
    stored sets instead of copying them.
    """
    out: list[dict[str, Any]] = []
    for key in _wire_order(managers, times):
        vs = managers[key]
        if key == in_wire_order:
            fields = vs.fields
        else:
            w = wired.get(key) if wired is not None else None
            fields = to_fields_v1(vs.fields) if w is None else rewire(vs.fields, w)
        out.append(_entry(key, vs, times.get(key), fields))
    return out


def encode_created(key: ManagerKey, vs: VersionedSet, time: str) -> list[dict[str, Any]]:
    """:func:`encode_managed_fields` of a create's one manager, whose set is freshly built in wire order
    (``compare.created_fields``): its one entry, with no order to compute."""
    return [_entry(key, vs, time, vs.fields)]


def encode_retimed(
    managers: Managers, times: Times, entries: list[dict[str, Any]], key: ManagerKey | None,
) -> list[dict[str, Any]]:
    """:func:`encode_managed_fields` of sets and times that are the decoded ``entries`` unchanged
    but for ``key``'s time (already set in ``times``; None when no time changed either).

    ``entries`` must be the trusted list ``managers``/``times`` were decoded from, one entry per
    manager, in the same order: the others are then exactly what encoding would write again, so
    they are copied one level deep (their FieldsV1 shared) instead of rebuilt, and only the
    order is recomputed, by the same stable sort, since a new time can move an entry.
    """
    by_key = dict(zip(managers, entries, strict=True))
    out: list[dict[str, Any]] = []
    for k in _wire_order(managers, times):
        e = by_key[k]
        out.append(_entry(k, managers[k], times.get(k), e["fieldsV1"]) if k == key else dict(e))
    return out


def _wire_order(managers: Managers, times: Times) -> list[ManagerKey]:
    """``sortEncodedManagedFields``: appliers first, then by time (seconds), manager, version, ..."""
    return sorted(
        managers,
        key=lambda k: (
            "Apply" if managers[k].applied else "Update", _seconds(times.get(k)), k.manager,
            managers[k].api_version, k.subresource,
        ),
    )


def _entry(key: ManagerKey, vs: VersionedSet, time: str | None, fields: FieldSet) -> dict[str, Any]:
    # keys in the order upstream's ManagedFieldsEntry serialises them
    entry: dict[str, Any] = {
        "manager": key.manager,
        "operation": "Apply" if vs.applied else "Update",
        "apiVersion": vs.api_version,
    }
    if time:
        entry["time"] = time
    entry["fieldsType"] = "FieldsV1"
    entry["fieldsV1"] = fields
    if key.subresource:
        entry["subresource"] = key.subresource
    return entry


def conflict_error(conflicts: dict[ManagerKey, FieldSet]) -> ApiError:
    """``NewConflictError``: 409 with one ``FieldManagerConflict`` cause per conflicting field."""
    found: list[tuple[ManagerKey, str]] = []
    for key in sorted(conflicts, key=ManagerKey.identifier):
        found.extend((key, path_string(elements)) for elements in paths(conflicts[key]))
    causes = [
        StatusCause(reason="FieldManagerConflict", message=f"conflict with {k.printed()}", field=p)
        for k, p in found
    ]
    if len(found) == 1:
        only, field = found[0]
        message = f"Apply failed with 1 conflict: conflict with {only.printed()}: {field}"
    else:
        lines: list[str] = []
        last: ManagerKey | None = None
        for key, field in found:
            if key != last:
                lines.append(f"conflicts with {key.printed()}:")
                last = key
            lines.append(f"- {field}")
        message = f"Apply failed with {len(found)} conflicts: " + "\n".join(lines)
    return Conflict.make(message, causes=causes)
