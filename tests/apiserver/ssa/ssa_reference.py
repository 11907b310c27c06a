"""The straightforward managedFields implementation the fast paths must agree with (tests only).

This is the code :mod:`kubelite.apiserver.ssa` ran before its hot paths were specialised: full
re-walks of both objects, set algebra that copies every level it visits, and a sorted copy of
every manager's set on the way out. It is kept unoptimised on purpose, as the executable
specification for the property tests in ``tests/apiserver/ssa/test_fast_paths.py``; nothing in
the apiserver imports it. The item path elements, merge, removal and ``ToFieldSet`` walks it uses
from :mod:`.apply` are the unspecialised ones as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import msgspec

from kubelite.api.schema import Schema
from kubelite.apiserver.ssa.apply import TypedError, ensure_named_fields, merge, remove_items
from kubelite.apiserver.ssa.fieldpath import (
    FieldSet,
    PathElement,
    field_pe,
    is_member,
    key_pe,
    pe_sort_key,
    to_fields_v1,
    value_pe,
)
from kubelite.apiserver.ssa.fieldpath import node as _fp_node
from kubelite.apiserver.ssa.managed_fields import (
    ApplyConflicts,
    ManagerKey,
    Managers,
    Times,
    VersionedSet,
    conflict_error,
    decode_managed_fields,
)
from kubelite.errors import BadRequest, InternalError, Status

__all__ = ["ReferenceFieldManager", "all_fields", "compare", "difference", "intersection", "recursive_difference", "union"]

_ABSENT: Any = object()
_SELF = "."
_CURRENT = ManagerKey("current-operation", "Update", "", "")


# --- schema walking (the oracle's own, unmemoised copies of what ssa.apply specialises) -------------------


class _Shape(NamedTuple):
    """What the walkers need to know about one schema node."""

    props: dict[str, Schema]
    elem: Schema | None  # schema of keys not in props (None: deduced)
    atomic_map: bool
    list_type: str | None  # "set" or "map"; None means atomic
    items: Schema | None
    keys: list[str]
    closed: bool  # a struct that declares its fields and allows no others


_NO_SHAPE = _Shape({}, None, False, None, None, [], False)


def _shape(s: Schema | None) -> _Shape:
    if s is None:
        return _NO_SHAPE
    lt = s.list_type
    props = s.properties
    return _Shape(
        props=props,
        elem=s.additional_properties,
        atomic_map=s.map_type == "atomic",
        list_type=lt if lt == "set" or lt == "map" else None,
        items=s.items,
        keys=s.list_map_keys,
        closed=bool(props) and not (s.additional_properties_allowed or s.preserve_unknown_fields),
    )


def _field_schema(s: Schema | None, key: str) -> tuple[Schema | None, bool]:
    """The schema of map key ``key`` and whether it is a named (struct) field."""
    sh = _shape(s)
    p = sh.props.get(key)
    if p is not None:
        return p, True
    return sh.elem, False


def _atomic_map(s: Schema | None) -> bool:
    return _shape(s).atomic_map


def _granular_list_type(s: Schema | None) -> str | None:
    return _shape(s).list_type


def _go_strings(xs: list[str]) -> str:
    return "[" + " ".join(msgspec.json.encode(x).decode() for x in xs) + "]"


def _item_pe(item: Any, lt: str, s: Schema) -> str:
    """``listItemToPathElement`` (structured-merge-diff typed/helpers.go), with upstream's wording."""
    if lt == "set":
        if isinstance(item, dict):
            raise ValueError("associative list without keys has an element that's a map type")
        if isinstance(item, list):
            raise ValueError("not supported: associative list with lists as elements")
        if item is None:
            raise ValueError("associative list without keys has an element that's an explicit null")
        return value_pe(item)
    if item is None:
        raise ValueError("associative list with keys may not have a null element")
    if not isinstance(item, dict):
        raise ValueError("associative list with keys may not have non-map elements")
    sh = _shape(s)
    kv: dict[str, Any] = {}
    for k in sh.keys:
        if k in item:
            kv[k] = item[k]
        elif sh.items is not None:
            ks = sh.items.property(k)
            if ks is not None and ks.default is not None:
                kv[k] = ks.default
    if sh.keys and not kv:
        raise ValueError(
            f"associative list with keys has an element that omits all key fields {_go_strings(sh.keys)} "
            "(and doesn't have default values for any key fields)"
        )
    return key_pe(kv)


def _index_items(
    lst: list[Any], lt: str, s: Schema, path: list[str]
) -> tuple[list[str], dict[str, list[Any]]]:
    """Path elements of a list's items in order, and the items under each element."""
    pes: list[str] = []
    by_pe: dict[str, list[Any]] = {}
    errs: list[tuple[list[str], str]] = []
    for i, item in enumerate(lst):
        try:
            pe = _item_pe(item, lt, s)
        except ValueError as e:
            errs.append((list(path), f"element {i}: {e}"))
            continue
        pes.append(pe)
        by_pe.setdefault(pe, []).append(item)
    if errs:
        raise TypedError(errs)
    return pes, by_pe


# --- set algebra (fieldpath.py) ----------------------------------------------------------------------


def node(member: bool, children: FieldSet) -> FieldSet | None:
    """The trie node for a path, or None when it would be neither a member nor a prefix."""
    if not children:
        return {} if member else None
    if member:
        out: FieldSet = {_SELF: {}}
        out.update(children)
        return out
    return children


def _children(n: FieldSet) -> FieldSet:
    if _SELF in n:
        return {k: v for k, v in n.items() if k != _SELF}
    return n


def union(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a:
        return b
    if not b:
        return a
    out = dict(a)
    for k, bn in b.items():
        an = a.get(k)
        if an is None or an is bn:
            out[k] = bn
        elif k == _SELF:
            continue
        else:
            n = node(is_member(an) or is_member(bn), union(_children(an), _children(bn)))
            assert n is not None
            out[k] = n
    return out


def intersection(a: FieldSet, b: FieldSet) -> FieldSet:
    out: FieldSet = {}
    if len(b) < len(a):
        a, b = b, a
    for k, an in a.items():
        if k == _SELF:
            continue
        bn = b.get(k)
        if bn is None:
            continue
        n = node(is_member(an) and is_member(bn), intersection(_children(an), _children(bn)))
        if n is not None:
            out[k] = n
    return out


def difference(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a or not b:
        return a
    out: FieldSet = {}
    for k, an in a.items():
        if k == _SELF:
            continue
        bn = b.get(k)
        if bn is None:
            out[k] = an
            continue
        n = node(is_member(an) and not is_member(bn), difference(_children(an), _children(bn)))
        if n is not None:
            out[k] = n
    return out


def recursive_difference(a: FieldSet, b: FieldSet) -> FieldSet:
    """``Set.RecursiveDifference``: a member of ``b`` also removes everything below it from ``a``."""
    if not a or not b:
        return a
    out: FieldSet = {}
    for k, an in a.items():
        if k == _SELF:
            continue
        bn = b.get(k)
        if bn is None:
            out[k] = an
        elif not is_member(bn):
            n = node(is_member(an), recursive_difference(_children(an), bn))
            if n is not None:
                out[k] = n
    return out



# --- compare (typed/compare.go) -------------------------------------------------------------------


def compare(lhs: Mapping[str, Any], rhs: Mapping[str, Any], schema: Schema | None) -> tuple[FieldSet, FieldSet, FieldSet]:
    """``TypedValue.Compare``: the (added, modified, removed) fields from ``lhs`` to ``rhs``.

    Unlike :func:`to_field_set`, every granular map or list that appears or disappears is itself a
    member of ``added``/``removed``, as upstream's compare walker records it.
    """
    a: FieldSet = {}
    m: FieldSet = {}
    r: FieldSet = {}
    if lhs != rhs:
        _cmp_map(lhs, rhs, schema, a, m, r, [])
    return a, m, r


def all_fields(obj: Mapping[str, Any], schema: Schema | None) -> FieldSet:
    """``compare({}, obj)``'s added set (every path is a member), already in wire order."""
    out: FieldSet = {}
    _fill_all_fields(obj, _shape(schema), [], out)
    return out


def _fill_all_fields(v: Mapping[str, Any], sh: _Shape, path: list[str], out: FieldSet) -> None:
    props = sh.props
    elem = sh.elem
    for k in sorted(v):
        cv = v[k]
        ct = type(cv)
        if (ct is dict or ct is list) and cv:
            out["f:" + k] = _all_paths(cv, props.get(k) or elem, path)
        else:
            out["f:" + k] = {}


def _all_paths(v: Any, s: Schema | None, path: list[str]) -> FieldSet:
    """The node for a value seen on one side only: every path below it is a member.

    Hot on every create, so it builds the trie already in upstream's order ("." first, fields
    sorted), which lets a create skip :func:`~.fieldpath.to_fields_v1`.
    """
    t = type(v)
    if t is dict:
        if not v:
            return {}
        sh = _shape(s)
        if sh.atomic_map:
            return {}
        out: FieldSet = {".": {}}
        _fill_all_fields(v, sh, path, out)
        return out
    if t is list and v:
        sh = _shape(s)
        lt = sh.list_type
        if lt is None:
            return {}
        assert s is not None
        _, by_pe = _index_items(v, lt, s, path)
        out = {".": {}}
        for pe in sorted(by_pe, key=pe_sort_key) if len(by_pe) > 1 else by_pe:
            got = by_pe[pe]
            out[pe] = {} if len(got) > 1 else _all_paths(got[0], sh.items, path)
        return out
    return {}


def _mark(d: FieldSet, pe: str) -> None:
    n = d.get(pe)
    if n is None:
        d[pe] = {}
    elif not is_member(n):
        d[pe] = {".": {}, **n}


def _cmp(pe: str, lv: Any, rv: Any, s: Schema | None, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str]) -> None:
    if lv is _ABSENT:
        a[pe] = _all_paths(rv, s, path)
        return
    if rv is _ABSENT:
        r[pe] = _all_paths(lv, s, path)
        return
    if lv == rv:
        return
    ca: FieldSet = {}
    cm: FieldSet = {}
    cr: FieldSet = {}
    if isinstance(lv, dict | None) and isinstance(rv, dict | None):
        if (not lv and not rv) or _atomic_map(s):
            m[pe] = {}
            return
        path.append(pe)
        _cmp_map(lv or {}, rv or {}, s, ca, cm, cr, path)
        path.pop()
    elif isinstance(lv, list | None) and isinstance(rv, list | None):
        lt = _granular_list_type(s)
        if lt is None or (not lv and not rv):
            m[pe] = {}
            return
        assert s is not None
        path.append(pe)
        _cmp_list(lv or [], rv or [], lt, s, ca, cm, cr, path)
        path.pop()
    else:
        m[pe] = {}
        return
    if ca:
        a[pe] = ca
    if cm:
        m[pe] = cm
    if cr:
        r[pe] = cr


def _cmp_map(lm: Mapping[str, Any], rm: Mapping[str, Any], s: Schema | None, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str]) -> None:
    sh = _shape(s)
    props = sh.props
    ap = sh.elem
    for k, lv in lm.items():
        rv = rm.get(k, _ABSENT)
        if rv is lv:
            continue
        cs = props.get(k) or ap
        _cmp(field_pe(k), lv, rv, cs, a, m, r, path)
    for k, rv in rm.items():
        if k not in lm:
            a[field_pe(k)] = _all_paths(rv, props.get(k) or ap, path)


def _cmp_list(ll: list[Any], rl: list[Any], lt: str, s: Schema, a: FieldSet, m: FieldSet, r: FieldSet, path: list[str]) -> None:
    lpes, lby = _index_items(ll, lt, s, path)
    rpes, rby = _index_items(rl, lt, s, path)
    items = _shape(s).items
    seen: set[str] = set()
    for pe in lpes + rpes:
        if pe in seen:
            continue
        seen.add(pe)
        lg = lby.get(pe, ())
        rg = rby.get(pe, ())
        if len(lg) <= 1 and len(rg) <= 1:
            _cmp(pe, lg[0] if lg else _ABSENT, rg[0] if rg else _ABSENT, items, a, m, r, path)
        elif len(lg) >= 2 and len(rg) >= 2:
            if lg != rg:
                _mark(m, pe)
        elif len(lg) >= 2:
            if rg:
                _cmp(pe, _ABSENT, rg[0], items, a, m, r, path)
            _mark(r, pe)
        else:
            if lg:
                _cmp(pe, lg[0], _ABSENT, items, a, m, r, path)
            _mark(a, pe)



# --- the updater (managed_fields.py) ------------------------------------------------------------------


def update_managers(
    live: Mapping[str, Any], new: Mapping[str, Any], managers: Managers, workflow: ManagerKey,
    schema: Schema | None, *, force: bool, ignored: FieldSet | None,
) -> tuple[Managers, FieldSet, FieldSet, FieldSet]:
    """``Updater.update``: take the changed fields away from every manager but ``workflow``.

    Returns the new managers and the (added, modified, removed) comparison of live to new.
    """
    added, modified, removed = compare(live, new, schema)
    if ignored:
        added = recursive_difference(added, ignored)
        modified = recursive_difference(modified, ignored)
        removed = recursive_difference(removed, ignored)
    changed = union(modified, added)
    conflicts: dict[ManagerKey, FieldSet] = {}
    if changed:
        for key, vs in managers.items():
            if key != workflow:
                c = intersection(vs.fields, changed)
                if c:
                    conflicts[key] = c
    if conflicts and not force:
        raise ApplyConflicts(conflicts)
    out: Managers = {}
    for key, vs in managers.items():
        fields = vs.fields
        if key != workflow:
            if key in conflicts:
                fields = difference(fields, conflicts[key])
            fields = difference(fields, removed)
        if fields:
            out[key] = vs if fields is vs.fields else vs._replace(fields=fields)
    return out, added, modified, removed


def apply_managers(
    live: Mapping[str, Any], config: Mapping[str, Any], managers: Managers, manager: ManagerKey,
    api_version: str, schema: Schema | None, *, force: bool, ignored: FieldSet | None,
) -> tuple[dict[str, Any], Managers]:
    """``Updater.Apply``: merge ``config`` into ``live``, record it, prune what the applier dropped.

    ``config`` must already have passed ``to_field_set(config, schema, strict=True)``.
    """
    merged = merge(live, config, schema)
    last = managers.get(manager)
    fields = to_field_set(config, schema)
    if ignored:
        fields = recursive_difference(fields, ignored)
    managers = dict(managers)
    managers[manager] = VersionedSet(fields, api_version, True)
    if last is not None and last.fields:
        merged = _prune(merged, managers, last.fields, schema)
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


def encode_managed_fields(
    managers: Managers, times: Times, *, in_wire_order: ManagerKey | None = None
) -> list[dict[str, Any]]:
    """``encodeManagedFields`` + ``sortEncodedManagedFields``: by operation, time, manager, ...

    ``in_wire_order`` names a manager whose set is freshly built in serialisation order and owned
    by nobody else, so it goes out as is instead of through :func:`to_fields_v1`.
    """
    order = sorted(
        managers,
        key=lambda k: (
            "Apply" if managers[k].applied else "Update", _seconds(times.get(k)), k.manager,
            managers[k].api_version, k.subresource,
        ),
    )
    out: list[dict[str, Any]] = []
    for key in order:
        vs = managers[key]
        entry: dict[str, Any] = {
            "manager": key.manager,
            "operation": "Apply" if vs.applied else "Update",
            "apiVersion": vs.api_version,
        }
        t = times.get(key)
        if t:
            entry["time"] = t
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = vs.fields if key == in_wire_order else to_fields_v1(vs.fields)
        if key.subresource:
            entry["subresource"] = key.subresource
        out.append(entry)
    return out



# --- the field manager (__init__.py) ----------------------------------------------------------------


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


def _managed_fields_of(obj: Mapping[str, Any] | None) -> Any:
    if obj is None:
        return None
    meta = obj.get("metadata")
    return meta.get("managedFields") if isinstance(meta, dict) else None


def _decode_or_empty(entries: Any, *, trusted: bool) -> tuple[Managers, Times]:
    try:
        return decode_managed_fields(entries, trusted=trusted)
    except ValueError:
        return {}, {}


def _is_reset(entries: Any) -> bool:
    """``isResetManagedFields``: ``[]`` or ``[{}]`` asks for the managedFields to be dropped."""
    return isinstance(entries, list) and (not entries or (len(entries) == 1 and entries[0] == {}))


def _gvk(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


class ReferenceFieldManager:
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
        if subresource:
            managers, times = _decode_or_empty(live_entries, trusted=True)
        elif _is_reset(requested):
            managers, times = {}, {}
        else:
            managers, times = _decode_or_empty(requested, trusted=False)
            if not managers:
                managers, times = _decode_or_empty(live_entries, trusted=True)
        if not managers:
            meta = live_obj.get("metadata")
            if live is not None and isinstance(meta, dict) and meta.get("uid"):
                return _set_managed_fields(out, [])
        key = ManagerKey(manager or "unknown", "Update", api_version, subresource)
        try:
            if not managers and not live_obj:
                # A plain create (the hot path): the creator owns everything, built in wire order.
                fields = all_fields(out, schema)
                if ignored_fields:
                    fields = recursive_difference(fields, ignored_fields)
                managers = {key: VersionedSet(fields, api_version, False)}
                strip_meta(managers, key)
                times[key] = now
                return _set_managed_fields(out, encode_managed_fields(managers, times, in_wire_order=key))
            managers = self._update(live_obj, out, managers, times, key, schema, api_version, now, ignored_fields)
        except TypedError:
            # UpdateNoErrors: an object SMD cannot type keeps the ownership it had.
            return _set_managed_fields(out, list(live_entries or []))
        return _set_managed_fields(out, encode_managed_fields(managers, times))

    def _update(
        self, live: Mapping[str, Any], new: Mapping[str, Any], managers: Managers, times: Times,
        key: ManagerKey, schema: Schema | None, api_version: str, now: str, ignored: FieldSet | None,
    ) -> Managers:
        """managedFieldsUpdater + stripMeta + structuredMerge Update, then capManagers."""
        managers, added, modified, _ = update_managers(
            live, new, managers, _CURRENT, schema, force=True, ignored=ignored
        )
        changed = union(modified, added)
        if changed:
            managers[_CURRENT] = VersionedSet(changed, api_version, False)
            strip_meta(managers, _CURRENT)
        current = managers.pop(_CURRENT, None)
        if current is not None:
            previous = managers.get(key)
            fields = current.fields if previous is None else union(current.fields, previous.fields)
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
            to_field_set(patch, schema, strict=True)
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
                live_obj, patch, managers, key, api_version, schema, force=force, ignored=ignored_fields
            )
        except ApplyConflicts as c:
            raise conflict_error(c.conflicts) from None
        except TypedError as e:
            raise InternalError(Status(message=f"failed to merge config: {e.text()}", reason="", code=500)) from None
        strip_meta(managers, key)
        times[key] = now  # ReturnInputOnNoop: every apply re-times its manager
        return _set_managed_fields(merged, encode_managed_fields(managers, times))


# --- ToFieldSet, interpreting the schema on every call (moved from kubelite/apiserver/ssa/apply.py) ---

def to_field_set(obj: Mapping[str, Any], schema: Schema | None, *, strict: bool = False) -> FieldSet:
    """``TypedValue.ToFieldSet``: the fields an object (an applied configuration) sets.

    Struct fields holding non-empty maps or lists are only prefixes; leaves, map keys and list
    items are members. ``strict`` validates like ``ObjectToTyped`` without ``AllowDuplicates``:
    duplicate list keys and fields not declared in a closed schema raise :class:`TypedError`.
    """
    errs: list[tuple[list[str], str]] = []
    out = _tfs_map(obj, schema, strict, [], errs)
    if errs:
        raise TypedError(errs)
    return out


def _tfs(v: Any, s: Schema | None, strict: bool, path: list[str], errs: list[Any]) -> FieldSet | None:
    """Children of ``v``'s path, or None when ``v`` is a leaf (scalar, null, atomic, empty map)."""
    if isinstance(v, dict):
        if not v or _atomic_map(s):
            return None
        return _tfs_map(v, s, strict, path, errs)
    if isinstance(v, list):
        lt = _granular_list_type(s)
        if lt is None:
            return None
        assert s is not None
        return _tfs_list(v, lt, s, strict, path, errs)
    return None


def _tfs_map(m: Mapping[str, Any], s: Schema | None, strict: bool, path: list[str], errs: list[Any]) -> FieldSet:
    out: FieldSet = {}
    closed = strict and _shape(s).closed
    for k, v in m.items():
        pe = field_pe(k)
        cs, named = _field_schema(s, k)
        if closed and not named:
            errs.append(([*path, pe], "field not declared in schema"))
            continue
        path.append(pe)
        sub = _tfs(v, cs, strict, path, errs)
        path.pop()
        if sub is None:
            out[pe] = {}
        else:
            n = _fp_node(not named, sub)
            if n is not None:
                out[pe] = n
    return out


def _tfs_list(lst: list[Any], lt: str, s: Schema, strict: bool, path: list[str], errs: list[Any]) -> FieldSet:
    try:
        pes, by_pe = _index_items(lst, lt, s, path)
    except TypedError as e:
        errs.extend(e.errors)
        return {}
    out: FieldSet = {}
    items = _shape(s).items
    for pe in pes:
        if pe in out:
            continue
        got = by_pe[pe]
        if len(got) > 1:
            if strict:
                errs.append((list(path), f"duplicate entries for key {PathElement.parse(pe)}"))
            out[pe] = {}
            continue
        path.append(pe)
        sub = _tfs(got[0], items, strict, path, errs)
        path.pop()
        out[pe] = {} if sub is None else (_fp_node(True, sub) or {})
    return out
