"""Server-side apply and field ownership (``metadata.managedFields``).

Follows ``k8s.io/apimachinery/pkg/util/managedfields/internal`` (``fieldmanager.go`` and the
manager chain ``NewDefaultFieldManager`` builds: versioncheck → skipnonapplied → capmanagers →
buildmanagerinfo → managedfieldsupdater → stripmeta → structuredmerge) on top of the
structured-merge-diff port in :mod:`.fieldpath`, :mod:`.apply`, :mod:`.compare` (on the schema
nodes :mod:`.compiled` prepares) and :mod:`.managed_fields`. ``_reference.py`` keeps the plain,
unspecialised implementation that the property tests hold these fast paths to.

Contract:
- :meth:`FieldManager.update` runs on every non-apply write (create, update, patch) once the new
  object is final; :meth:`FieldManager.apply` computes the object a server-side apply produces.
  Both return a new top-level dict with a new ``metadata`` dict and never mutate ``live``, ``new``
  or ``patch``. ``apply``'s result shares nothing with its inputs; ``update``'s shares everything
  but the top level and ``metadata`` with ``new``, and its managedFields entries may share their
  ``fieldsV1`` subtrees with ``live``'s entries and with other ``update`` results. FieldsV1 values
  are immutable: nobody mutates the ``fieldsV1`` of an object passed to or returned by this class
  (the apiserver only encodes them), which is what lets an update cost what it changed.
- Cost: a create walks the new object once (a top-level value an earlier object of the kind had,
  such as a templated pod spec, is not walked again); an update compares ``live`` and ``new`` by
  descending only where they differ and re-serialises only the changed paths of each manager's set
  (``live``'s managedFields are trusted to be what this class wrote: canonical and in wire order).
  An update that changes no manager's set (the kubelet renewing a Lease or rewriting status
  fields it alone owns) only re-times that manager's entry and re-sorts live's entries, sharing
  their FieldsV1 (``FieldManager._retimed``); the result is the general path's to the byte.
- managedFields entries are dicts ``{manager, operation, apiVersion, time, fieldsType, fieldsV1,
  subresource}`` (``time`` omitted when unknown, ``subresource`` when empty), ordered as upstream
  sorts them: appliers before updaters, then by time, manager, apiVersion, subresource.
- An update only records ownership once the object has some: an object created without
  managedFields, or updated after they were reset with ``managedFields: []``, keeps none until
  its next create or apply (upstream's ``skipNonAppliedManager``; the first apply attributes the
  existing fields to the updater ``before-first-apply``).
- Never owned by anyone: apiVersion, kind, and metadata's name, namespace, uid, resourceVersion,
  generation, creationTimestamp, selfLink, clusterName and managedFields.
- Rejections: 400 for an apply body of the wrong type or carrying managedFields, 409 (reason
  Conflict, causes ``FieldManagerConflict``) for conflicts, and upstream's reason-less 500 for an
  applied configuration that cannot be typed (duplicate list keys, undeclared fields).

Simplified: one API version per object (no conversion between versions for older managers), no
client-side-apply annotation upgrade (``lastappliedmanager.go``/``lastappliedupdater.go``), and
``before-first-apply``/create tracking are unconditional (upstream's probability is 1 too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.apply import TypedError
from kubelite.apiserver.ssa.compare import all_fields, created_fields, to_field_set
from kubelite.apiserver.ssa.fieldpath import FieldSet, difference, recursive_difference, to_fields_v1, union
from kubelite.apiserver.ssa.managed_fields import (
    ApplyConflicts,
    Diff,
    ManagerKey,
    Managers,
    Times,
    VersionedSet,
    apply_managers,
    cap_update_managers,
    changes,
    conflict_error,
    decode_managed_fields,
    encode_created,
    encode_managed_fields,
    encode_retimed,
    meta_stripped,
    strip_meta,
    update_managers,
)
from kubelite.errors import BadRequest, InternalError, Status

__all__ = ["FieldManager", "created_managed_fields", "fields_v1", "ignore_managed_fields_timestamps"]

# managedfieldsupdater.go's stand-in for the current request, so that its fields can be told apart
# from what the same manager owned before.
_CURRENT = ManagerKey("current-operation", "Update", "", "")


def fields_v1(obj: Mapping[str, Any], schema: Schema | None) -> FieldSet:
    """The FieldsV1 set of ``obj`` (``ToFieldSet``, serialised as upstream orders it)."""
    return to_fields_v1(to_field_set(obj, schema))


def created_managed_fields(
    obj: Mapping[str, Any], *, manager: str, schema: Schema, api_version: str, now: str,
    ignored_fields: FieldSet | None,
) -> list[dict[str, Any]] | None:
    """A create's managedFields, for an ``obj`` that carries none (the generic store's create drops what
    was sent): what ``FieldManager.update(None, obj, ...)`` sets, the creator's one entry, with none of
    that method's request handling (copies, sent entries, live entries), since a create has neither.
    None when the one-walk set declines (``compare.created_fields``): then that method runs."""
    try:
        fields = created_fields(obj, schema, ignored_fields)
    except TypedError:
        return []  # UpdateNoErrors: an object SMD cannot type keeps the (no) ownership it had
    if fields is None:
        return None
    if not fields:
        return []
    key = ManagerKey(manager or "unknown", "Update", api_version, "")
    return encode_created(key, VersionedSet(fields, api_version, False), now)


def ignore_managed_fields_timestamps(new: dict[str, Any], old: Mapping[str, Any]) -> bool:
    """``IgnoreManagedFieldsTimestampsTransformer`` (apiserver's fieldmanager/equality.go): True when
    ``new`` differs from ``old`` only in the ``time`` of its managedFields entries, in which case
    ``new`` takes ``old``'s entries and the write is a no-op.

    Any other change of managedFields (a manager gaining, losing or sharing a field, a new entry, a
    new order) is a change of the object and is written, as upstream does.
    """
    nm, om = new.get("metadata"), old.get("metadata")
    if not isinstance(nm, dict) or not isinstance(om, dict):
        return False
    new_mf, old_mf = nm.get("managedFields"), om.get("managedFields")
    if not isinstance(new_mf, list) or not isinstance(old_mf, list) or len(new_mf) != len(old_mf):
        return False
    for a, b in zip(new_mf, old_mf):
        if a is b:
            continue
        if not isinstance(a, dict) or not isinstance(b, dict):
            return False
        if {k: v for k, v in a.items() if k != "time"} != {k: v for k, v in b.items() if k != "time"}:
            return False
    rest_new = {k: v for k, v in nm.items() if k != "managedFields"}
    rest_old = {k: v for k, v in om.items() if k != "managedFields"}
    if rest_new != rest_old or {**new, "metadata": None} != {**old, "metadata": None}:
        return False
    nm["managedFields"] = old_mf
    return True


def _without_managed_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta = dict(meta)
        meta.pop("managedFields", None)
        out["metadata"] = meta
    return out


def _set_managed_fields(obj: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    meta = obj.get("metadata")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
    obj["metadata"] = meta
    return obj


def _created(out: dict[str, Any], key: ManagerKey, api_version: str, now: str, fields: FieldSet) -> dict[str, Any]:
    """A create's managedFields: the creator's one entry (none for an empty set, as ``strip_meta`` drops it)."""
    if not fields:
        return _set_managed_fields(out, [])
    return _set_managed_fields(out, encode_created(key, VersionedSet(fields, api_version, False), now))


def _managed_fields_of(obj: Mapping[str, Any] | None) -> Any:
    if obj is None:
        return None
    meta = obj.get("metadata")
    return meta.get("managedFields") if isinstance(meta, dict) else None


def _decode_or_empty(entries: Any, *, trusted: bool) -> tuple[Managers, Times]:
    try:
        return decode_managed_fields(entries, trusted=trusted)
    except (ValueError, RecursionError):  # a sent list that is not managedFields (or absurdly deep)
        return {}, {}


def _is_reset(entries: Any) -> bool:
    """``isResetManagedFields``: ``[]`` or ``[{}]`` asks for the managedFields to be dropped."""
    return isinstance(entries, list) and (not entries or (len(entries) == 1 and entries[0] == {}))


def _gvk(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


class FieldManager:
    """Tracks field ownership on writes and merges server-side apply requests.

    Stateless apart from its configuration: every call decodes the ownership it needs from the
    objects it is given, so one instance may serve every resource.
    """

    def __init__(self, *, max_update_managers: int = 10) -> None:
        self.max_update_managers = max_update_managers

    def update(
        self, live: dict[str, Any] | None, new: dict[str, Any], *, manager: str, schema: Schema | None,
        api_version: str, now: str, subresource: str = "", ignored_fields: FieldSet | None = None,
    ) -> dict[str, Any]:
        """Record that ``manager`` (operation Update) set every field it changed from ``live``.

        ``live`` is None for a create. ``ignored_fields`` (upstream's reset fields, e.g. status
        for the main resource) are never claimed. Request managedFields: absent or empty keeps
        live's, a non-empty list replaces them (only on the main resource), ``[]`` resets them.
        """
        out = _without_managed_fields(new)
        live_obj = _without_managed_fields(live) if live is not None else {}
        live_entries = _managed_fields_of(live)
        requested = _managed_fields_of(new)
        from_live = True
        if subresource:
            managers, times = _decode_or_empty(live_entries, trusted=True)
        elif _is_reset(requested):
            managers, times = {}, {}
        elif requested and requested is not live_entries and requested != live_entries:
            managers, times = _decode_or_empty(requested, trusted=False)
            from_live = not managers
            if from_live:
                managers, times = _decode_or_empty(live_entries, trusted=True)
        else:
            # Absent, or live's own entries sent back (a patch or a read-modify-write): decoding the
            # request would give exactly live's sets, so take the stored (trusted) ones.
            managers, times = _decode_or_empty(live_entries, trusted=True)
        if not managers:
            meta = live_obj.get("metadata")
            if live is not None and isinstance(meta, dict) and meta.get("uid"):
                return _set_managed_fields(out, [])
        key = ManagerKey(manager or "unknown", "Update", api_version, subresource)
        try:
            if not managers and not live_obj:
                # A plain create (the hot path): the creator owns everything it set but the reset fields and
                # stripmeta's, built in wire order in one walk (compare.created_fields).
                created = created_fields(out, schema, ignored_fields)
                if created is not None:
                    return _created(out, key, api_version, now, created)
                fields = all_fields(out, schema)
                if ignored_fields:
                    fields = recursive_difference(fields, ignored_fields)
                managers = {key: VersionedSet(fields, api_version, False)}
                strip_meta(managers, key)
                times[key] = now
                return _set_managed_fields(out, encode_managed_fields(managers, times, in_wire_order=key))
            diff: Diff | None = None
            if from_live and isinstance(live_entries, list) and len(live_entries) == len(managers):
                diff = changes(live_obj, out, schema, ignored_fields)
                entries = self._retimed(live_entries, managers, times, key, diff, now)
                if entries is not None:
                    return _set_managed_fields(out, entries)
            # Stored sets are in wire order: what the update leaves alone goes out shared, not copied.
            wired = {k: vs.fields for k, vs in managers.items()} if from_live else None
            managers = self._update(
                live_obj, out, managers, times, key, schema, api_version, now, ignored_fields, diff=diff,
            )
        except TypedError:
            # UpdateNoErrors: an object SMD cannot type keeps the ownership it had.
            return _set_managed_fields(out, list(live_entries or []))
        return _set_managed_fields(out, encode_managed_fields(managers, times, wired=wired))

    def _retimed(
        self, entries: list[dict[str, Any]], managers: Managers, times: Times, key: ManagerKey, diff: Diff,
        now: str,
    ) -> list[dict[str, Any]] | None:
        """The general path's managedFields when it would change no set, else None.

        The kubelet's Lease renewals and status writes change fields it already owns alone: then
        every other manager keeps its set, ``key`` loses what changed and wins it straight back,
        and the only change is ``key``'s time (and with it, perhaps, its place in the order).
        ``managers``/``times`` must be the trusted ``entries`` decoded, one per entry. With P
        ``key``'s set, C the changed fields it claims (stripmeta.go's paths never claimed) and G
        everything changed or removed, its new set is (P - G) | C, which is P exactly when C is
        within P and P meets G only inside C; every other set S becomes S - G, which is S when
        they do not meet. ``difference`` returns its first operand itself when it removes nothing,
        so each test costs a walk of G, not a copy.
        """
        added, modified, removed = diff
        previous = managers.get(key)
        if previous is None and (added or modified):
            return None  # a new manager that changed something (it almost surely claims it): the usual miss
        changed = union(modified, added)
        claimed = meta_stripped(changed) if changed else changed
        if claimed and (previous is None or difference(claimed, previous.fields)):
            return None  # key gains fields
        gone = union(changed, removed)
        updaters = 0
        for k, vs in managers.items():
            if not vs.fields:
                return None  # the general path drops empty sets
            updaters += not vs.applied
            if (k != key or not claimed) and difference(vs.fields, gone) is not vs.fields:
                return None
        if updaters > self.max_update_managers:
            return None  # capManagers would fold some
        if not claimed:
            # Nothing claimed: no time changes, and live's (sorted) entries stand as they are.
            return encode_retimed(managers, times, entries, None)
        assert previous is not None
        if removed or claimed is not changed:
            rest = difference(gone, claimed)
            if rest and difference(previous.fields, rest) is not previous.fields:
                return None  # key loses fields it does not win back
        times[key] = now
        return encode_retimed(managers, times, entries, key)

    def _update(
        self, live: Mapping[str, Any], new: Mapping[str, Any], managers: Managers, times: Times,
        key: ManagerKey, schema: Schema | None, api_version: str, now: str, ignored: FieldSet | None,
        *, diff: Diff | None = None,
    ) -> Managers:
        """managedFieldsUpdater + stripMeta + structuredMerge Update, then capManagers.

        ``diff`` is ``changes(live, new, schema, ignored)`` when the caller already has it.
        """
        managers, added, modified, _ = update_managers(
            live, new, managers, _CURRENT, schema, force=True, ignored=ignored, diff=diff,
        )
        changed = union(modified, added)
        if changed:
            managers[_CURRENT] = VersionedSet(changed, api_version, False)
            strip_meta(managers, _CURRENT)
        current = managers.pop(_CURRENT, None)
        if current is not None:
            previous = managers.get(key)
            # previous first: the union then keeps its (stored, wire-ordered) subtrees by identity
            fields = current.fields if previous is None else union(previous.fields, current.fields)
            managers[key] = VersionedSet(fields, api_version, False)
            times[key] = now
        cap_update_managers(managers, times, self.max_update_managers)
        return managers

    def apply(
        self, live: dict[str, Any] | None, patch: dict[str, Any], *, manager: str, schema: Schema | None,
        api_version: str, now: str, force: bool = False, subresource: str = "", kind: str | None = None,
        ignored_fields: FieldSet | None = None,
    ) -> dict[str, Any]:
        """Server-side apply ``patch`` over ``live`` (None to create) on behalf of ``manager``.

        ``kind``, when given, is the kind the endpoint serves; otherwise live's kind is expected.
        """
        if not isinstance(patch, dict):
            raise BadRequest.make("error decoding YAML: apply patch must be an object")
        p_version = patch.get("apiVersion") if isinstance(patch.get("apiVersion"), str) else ""
        p_kind = patch.get("kind") if isinstance(patch.get("kind"), str) else ""
        want_kind = kind or (live or {}).get("kind") or p_kind
        if not p_version or not p_kind or p_version != api_version or p_kind != want_kind:
            raise BadRequest.make(f"invalid object type: {_gvk(p_version or '', p_kind or '')}")
        if isinstance(_managed_fields_of(patch), list):
            raise BadRequest.make("metadata.managedFields must be nil")
        try:
            config_fields = to_field_set(patch, schema, strict=True)
        except TypedError as e:
            meta = patch.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            where = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {_gvk(p_version, p_kind)}"
            raise InternalError(
                Status(message=f"failed to create typed patch object ({where}): {e.text()}", reason="", code=500)
            ) from None

        live_obj = _without_managed_fields(live) if live is not None else {}
        managers, times = _decode_or_empty(_managed_fields_of(live), trusted=True)
        if not managers and live_obj:
            # skipNonAppliedManager: whatever exists before the first apply belongs to an updater.
            before = ManagerKey("before-first-apply", "Update", api_version, subresource)
            managers = self._update({}, live_obj, managers, times, before, schema, api_version, now, ignored_fields)
        key = ManagerKey(manager or "unknown", "Apply", "", subresource)
        try:
            merged, managers = apply_managers(
                live_obj, patch, managers, key, api_version, schema, force=force, ignored=ignored_fields,
                config_fields=config_fields,
            )
        except ApplyConflicts as c:
            raise conflict_error(c.conflicts) from None
        except TypedError as e:
            raise InternalError(Status(message=f"failed to merge config: {e.text()}", reason="", code=500)) from None
        strip_meta(managers, key)
        # apimachinery builds its updater with ReturnInputOnNoop, so every apply re-times its manager;
        # an apply that changes nothing else is then a no-op through ignore_managed_fields_timestamps.
        times[key] = now
        return _set_managed_fields(merged, encode_managed_fields(managers, times))

