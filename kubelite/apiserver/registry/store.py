"""The generic registry store: the one place the apiserver writes objects (upstream's
``k8s.io/apiserver/pkg/registry/generic/registry/store.go``).

Every write of every verb and subresource ends here, in this order: strategy preparation (``rest.
BeforeCreate`` / ``BeforeUpdate``) → mutating admission → validation → canonicalization → object-dependent
authorization (RBAC escalation) → validating admission → managedFields → allocations → the store write → the
strategy's ``after_write``. Guarantees:

- **A rejected request changes nothing.** All checks work on a private copy; the store is written once,
  at the end, synchronously (no ``await`` between the last check and the write); allocations made for the
  write are rolled back if it does not happen. Verbs the write implies are authorized first: a create
  reached through an update or an apply needs ``create`` as well.
- **GuaranteedUpdate.** Admission hooks may ``await``; a write that happened meanwhile re-runs the whole
  update against the new state for unconditional updates and patches, while a caller-supplied
  resourceVersion gets 409.
- **A templated create is the same create.** A pod whose spec the per-template memo holds
  (``registry/templates.py``) takes the template's share of the result (defaulted, admitted spec, initial
  status, the spec's managedFields) from it and runs every per-object step above in the same order; only
  creates that passed every step cleanly are remembered.
- **No-op writes are not writes.** An update that changes nothing keeps the resourceVersion and sends no
  watch event (managedFields timestamps alone are not a change).
- **Deletion is graceful.** Objects with finalizers, and pods bound to a node, get ``deletionTimestamp``/
  ``deletionGracePeriodSeconds`` and stay until the last finalizer is removed (or the kubelet confirms
  with grace period 0). ``propagationPolicy`` Orphan/Foreground add the ``orphan``/``foregroundDeletion``
  finalizers for the garbage collector. Kinds with their own deletion (namespaces) say so in
  ``Strategy.before_delete``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver import heartbeat, ssa
from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.registry.strategy import DELETE_NOW, UNCHANGED, Allocation, Strategy, UpdateStrategy
from kubelite.apiserver.registry.tables import ResourceTables
from kubelite.apiserver.registry.templates import CreateTemplates, Template, TemplateKey
from kubelite.apiserver.registry.templates import managed_fields as template_managed_fields
from kubelite.apiserver.registry.written import WrittenObjects
from kubelite.apiserver.request import AdmissionRequest
from kubelite.apiserver.ssa import FieldManager, ignore_managed_fields_timestamps
from kubelite.clock import Clock, format_time
from kubelite.errors import AlreadyExists, BadRequest, Conflict, NotFound, invalid
from kubelite.memo import encoded_keys_off
from kubelite.rand import new_uid, random_suffix
from kubelite.store import StoredObject, Table

__all__ = ["GenericStore", "Write", "check_preconditions", "parse_resource_version"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
_MAX_RETRIES = 8
_GENERATE_NAME_RETRIES = 8
# rest.BeforeCreate: system fields are the server's.
_SERVER_FIELDS = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion",
                  "selfLink")

Authorize = Callable[[UserInfo, str, ResourceInfo, str, str, str], None]


def _copy(value: dict[str, Any]) -> dict[str, Any] | None:
    try:
        out: dict[str, Any] = _decode(_encode(value))
    except (TypeError, ValueError, msgspec.EncodeError):
        return None
    return out


def parse_resource_version(rv: Any) -> int | None:
    """A caller's resourceVersion precondition ("" or absent: none)."""
    if rv in (None, ""):
        return None
    try:
        return int(rv)
    except (TypeError, ValueError):
        raise BadRequest.make(f'invalid resource version "{rv}"') from None


class Write(msgspec.Struct, kw_only=True):
    """Who writes what where: the request-scoped part of a write."""

    user: UserInfo
    info: ResourceInfo
    namespace: str
    dry_run: bool = False
    manager: str = "kubelite"
    #: the response's warnings; admission appends to it (shared, not copied)
    warnings: list[str] = msgspec.field(default_factory=list)


class GenericStore:
    def __init__(
        self, *, clock: Clock, rng: random.Random, tables: ResourceTables, admission: AdmissionChain,
        field_manager: FieldManager, authorize: Authorize, track_managed_fields: bool = True,
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.tables = tables
        self.store = tables.store
        self.admission = admission
        self.field_manager = field_manager
        self.authorize = authorize
        self.track_managed_fields = track_managed_fields
        self.templates = CreateTemplates(tables=tables, admission=admission)
        #: the objects recent unseen updates wrote, for the next update's "old" (registry/written.py)
        self.written = WrittenObjects()

    # --- shared steps ---
    def admission_request(
        self, op: str, w: Write, subresource: str, name: str, obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
    ) -> AdmissionRequest:
        info = w.info
        return AdmissionRequest(
            operation=op, group=info.group, version=info.version, kind=info.kind, resource=info.plural,
            subresource=subresource, namespace=w.namespace, name=name, object=obj, old_object=old, user=w.user,
            dry_run=w.dry_run, warnings=w.warnings,
        )

    @staticmethod
    def check(info: ResourceInfo, obj: dict[str, Any], errs: list[Any]) -> None:
        if errs:
            raise invalid(info.kind, obj["metadata"].get("name") or obj["metadata"].get("generateName", ""),
                          errs, group=info.group)

    def track(
        self, strategy: Strategy | UpdateStrategy, live: dict[str, Any] | None, new: dict[str, Any], manager: str,
    ) -> dict[str, Any]:
        """managedFields for a non-apply write through ``strategy``'s endpoint."""
        if not self.track_managed_fields:
            return new
        schema = strategy.ssa_schema()
        if schema is None:
            return new
        info = strategy.info
        return self.field_manager.update(
            live, new, manager=manager, schema=schema, api_version=new.get("apiVersion", info.api_version),
            now=self.clock.timestamp(), subresource=strategy.subresource, ignored_fields=strategy.reset_fields(),
        )

    def track_created(self, strategy: Strategy, obj: dict[str, Any], manager: str) -> dict[str, Any]:
        """:meth:`track` of a create whose ``obj`` (the private copy) carries no managedFields: the entry is
        set on it in place (``ssa.created_managed_fields``), or :meth:`track` runs when that declines."""
        if not self.track_managed_fields:
            return obj
        schema = strategy.ssa_schema()
        if schema is None:
            return obj
        entries = ssa.created_managed_fields(
            obj, manager=manager, schema=schema, api_version=obj.get("apiVersion", strategy.info.api_version),
            now=self.clock.timestamp(), ignored_fields=strategy.reset_fields(),
        )
        if entries is None:
            return self.track(strategy, None, obj, manager)
        if entries:
            obj["metadata"]["managedFields"] = entries
        return obj

    def _retimed(
        self, strategy: UpdateStrategy, old: dict[str, Any], new: dict[str, Any], manager: str,
    ) -> dict[str, Any] | None:
        """:meth:`track`'s result for a sole owner's change, computed from the change alone, or None."""
        if not self.track_managed_fields:
            return new
        schema = strategy.ssa_schema()
        if schema is None:
            return new
        return heartbeat.retimed(
            old, new, manager=manager, schema=schema, api_version=new.get("apiVersion", strategy.info.api_version),
            now=self.clock.timestamp(), subresource=strategy.subresource, ignored_fields=strategy.reset_fields(),
            max_update_managers=self.field_manager.max_update_managers,
        )

    # --- create ---
    async def create(
        self, w: Write, strategy: Strategy, obj: dict[str, Any], *, managed_fields_done: bool = False,
        template: Template | None = None, template_key: TemplateKey | None = None, first_sight: bool = False,
    ) -> bytes:
        """``Store.Create``: ``obj`` is the decoded private copy.

        ``template``: the per-template memo's hit for ``obj`` (whose template field is then absent: the
        template's is used, and the steps it holds are skipped, see ``registry/templates.py``);
        ``template_key``: the memo key of a miss, recorded if the create succeeds cleanly; ``first_sight``: the
        miss's spec text was never seen (``CreateTemplates.first_sight``), so its synchronous steps run with
        the memo tables keyed on encodings off (``kubelite.memo.encoded_keys_off``)."""
        run = encoded_keys_off if first_sight else _call
        info, namespace = w.info, w.namespace
        meta = obj["metadata"]
        if info.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and body_ns != namespace:
                raise BadRequest.make(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        # the metadata as sent, for recording the template (only at its second clean create)
        sent_meta = (_copy(meta) if template is None and template_key is not None and self.templates.seen(template_key)
                     else None)
        if template is None:
            run(strategy.default, obj)
        else:
            obj[strategy.template_field] = template.spec  # type: ignore[index]  # defaulted already
        req = self.admission_request("CREATE", w, "", meta.get("name", ""), obj, None)
        await self.admission.admit(req, templated=template is not None)
        if template is not None and template.renames:  # names the skipped plugins drew, drawn again
            template = template.for_object(self.rng)
            obj[strategy.template_field] = template.spec  # type: ignore[index]
        if template is None and self.admission.has_mutating_hooks:  # (no hook sees a templated create)
            run(strategy.default, obj)
        meta = obj["metadata"]
        if template is not None and template.annotations:
            sent = meta.get("annotations")
            meta["annotations"] = {**(sent or {}), **dict(template.annotations)}
        for k in _SERVER_FIELDS:
            meta.pop(k, None)
        if not managed_fields_done:
            meta.pop("managedFields", None)
        if template is None:
            run(strategy.prepare_for_create, obj)
        else:  # Strategy.prepare_for_create, its status from the template
            if strategy.has_status and template.status is not None:
                obj["status"] = template.status
            if strategy.tracks_generation:
                meta["generation"] = 1
        strategy.prepare_for_create_as(obj, w.user)
        generate = not meta.get("name") and meta.get("generateName")
        if generate:
            meta["name"] = meta["generateName"] + random_suffix(self.rng)
        meta["uid"] = new_uid(self.rng)
        meta["creationTimestamp"] = now = self.clock.timestamp()
        strategy.finish_create(obj)
        self.check(info, obj, run(strategy.validate, obj) if template is None else strategy.validate_metadata(obj))
        strategy.canonicalize(obj)
        strategy.authorize_write(w.user, obj, None)
        await self.admission.validate(req, templated=template is not None)
        if not managed_fields_done:
            if template is not None and template.fields is not None and self.track_managed_fields:
                # (a hit runs no user hook, so nothing awaited since ``now``: the clock has not moved)
                entries = template_managed_fields(
                    template, obj, strategy.ssa_schema(), manager=w.manager,
                    api_version=obj.get("apiVersion", info.api_version), now=now,
                )
                if entries is None:
                    obj = run(self.track_created, strategy, obj, w.manager)
                elif entries:
                    meta["managedFields"] = entries
            else:
                obj = run(self.track_created, strategy, obj, w.manager)
        table = self.tables.table(info)
        allocation = strategy.allocate(obj, None)
        try:
            if w.dry_run:
                if self.store.get(table, namespace, obj["metadata"]["name"]) is not None:
                    raise AlreadyExists.for_object(info.group, info.plural, obj["metadata"]["name"])
                # nothing was stored, so no resourceVersion (upstream's dry-run Create copies the object as
                # it stands: an empty resourceVersion, which ObjectMeta's omitempty leaves out)
                obj["metadata"].pop("resourceVersion", None)
                _rollback(allocation)
                return _encode(obj)
            # a hit writes the template's recorded encodings of its spec and status (registry/templates.py)
            spliced = template.spliced(obj, strategy.template_field) if template is not None else None  # type: ignore[arg-type]
            for attempt in range(_GENERATE_NAME_RETRIES):
                try:
                    stored = self.store.create(table, obj, spliced=spliced)
                    break
                except AlreadyExists:
                    if not generate or attempt == _GENERATE_NAME_RETRIES - 1:
                        raise
                    obj["metadata"]["name"] = obj["metadata"]["generateName"] + random_suffix(self.rng)
        except BaseException:
            _rollback(allocation)
            raise
        strategy.after_write(obj, None)
        if template_key is not None and template is None and not w.warnings:
            self.templates.record(template_key, strategy, sent_meta, obj, req.generated)
        return stored.data

    # --- update ---
    async def update(
        self, w: Write, strategy: UpdateStrategy, name: str, mutate: Callable[[dict[str, Any]], dict[str, Any]], *,
        expect_rv: int | None, create_strategy: Strategy | None = None, managed_fields_done: bool = False,
    ) -> bytes:
        """``GuaranteedUpdate``: read, transform, check, write; retry if someone wrote in between.

        ``mutate(live)`` must return a new object and leave ``live`` unchanged (it is the "old" object the
        update is checked against). With ``create_strategy`` a missing object is created from
        ``mutate({})``, after authorizing ``create`` (the verb the request implies)."""
        info, namespace = w.info, w.namespace
        table = self.tables.table(info)
        for _ in range(_MAX_RETRIES):
            current = self.store.get(table, namespace, name)
            if current is None:
                if create_strategy is not None:
                    self.authorize(w.user, "create", info, "", namespace, name)
                    obj = mutate({})
                    return await self.create(w, create_strategy, obj, managed_fields_done=managed_fields_done)
                raise NotFound.for_object(info.group, info.plural, name)
            if expect_rv is not None and expect_rv != current.rv:
                raise Conflict.for_object(
                    info.group, info.plural, name,
                    "the object has been modified; please apply your changes to the latest version and try again",
                )
            old = self.written.take(table, current)  # (the object that wrote ``current``, else its decode)
            new = mutate(old)  # mutate functions return a new object and leave ``old`` untouched
            result = await self._update_checked(
                w, strategy, name, new, old, current, managed_fields_done=managed_fields_done,
            )
            if result is not None:
                return result
        raise Conflict.for_object(info.group, info.plural, name, "too many concurrent updates; try again")

    async def _update_checked(
        self, w: Write, strategy: UpdateStrategy, name: str, new: dict[str, Any], old: dict[str, Any],
        current: StoredObject, *, managed_fields_done: bool,
    ) -> bytes | None:
        info, namespace = w.info, w.namespace
        new.setdefault("metadata", {})
        new["apiVersion"] = new.get("apiVersion") or info.api_version
        new["kind"] = info.kind
        new["metadata"]["name"] = name
        if info.namespaced:
            new["metadata"]["namespace"] = namespace
        mutated = self.admission.has_mutating_hooks
        new = strategy.prepare_request(new, old, mutated=mutated)
        req = self.admission_request("UPDATE", w, strategy.subresource, name, new, old)
        # the heartbeat write path (apiserver/heartbeat.py): steps whose result cannot change are skipped
        seen = self.admission.sees(req)
        if seen:
            await self.admission.admit(req)
        strategy.prepare_for_update(new, old, mutated=mutated)
        meta_same = heartbeat.meta_unchanged(new, old)
        errs = heartbeat.validate_change(info.group, info.plural, strategy.subresource, new, old) if meta_same else None
        self.check(info, new, strategy.validate_update(new, old) if errs is None else errs)
        strategy.canonicalize(new)
        strategy.authorize_write(w.user, new, old)
        if seen:
            await self.admission.validate(req)
        if not managed_fields_done:
            retimed = self._retimed(strategy, old, new, w.manager) if meta_same else None
            new = retimed or self.track(strategy, old, new, w.manager)
        new["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
        # a no-op update is not a write (GuaranteedUpdate compares the encoded bytes)
        if _same(new, old):
            if not seen and not w.dry_run:
                self.written.remember(self.tables.table(info), current, old)
            return current.data
        table = self.tables.table(info)
        if seen:  # (unseen: nothing awaited since the read, so nobody can have written)
            latest = self.store.get(table, namespace, name)
            if latest is None or latest.rv != current.rv:
                return None  # someone wrote while admission hooks ran: re-run against the new state
        meta = new["metadata"]
        if (meta.get("deletionTimestamp") and not meta.get("finalizers") and meta.get("deletionGracePeriodSeconds") == 0
                and not strategy.spec_finalizers(new)):
            if w.dry_run:
                return _encode(new)
            final = self.store.delete(table, namespace, name, expect_rv=current.rv)
            self.written.forget(table, current.key)
            strategy.after_write(None, old)
            return final.data
        allocation = strategy.allocate(new, old)
        if w.dry_run:
            _rollback(allocation)
            return _encode(new)
        try:
            stored = self.store.update(table, new, expect_rv=current.rv)
        except BaseException:
            _rollback(allocation)
            raise
        strategy.after_write(new, old)
        if not seen:  # nothing saw ``new``: the next update may take it as its "old"
            self.written.remember(table, stored, new)
        return stored.data

    # --- delete ---
    async def delete(
        self, w: Write, strategy: Strategy, name: str, *, grace_period_seconds: int | None = None,
        propagation_policy: str | None = None, preconditions: dict[str, Any] | None = None,
        before_write: Callable[[dict[str, Any]], Any] | None = None,
    ) -> bytes:
        """``Store.Delete``. ``before_write(old)`` runs after every check passed and just before the store
        is written (the eviction REST spends its disruption budget there)."""
        info, namespace = w.info, w.namespace
        if grace_period_seconds is not None and grace_period_seconds < 0:
            grace_period_seconds = 1  # upstream: negative means "immediately" but is stored as 1
        table = self.tables.table(info)
        for _ in range(_MAX_RETRIES):
            current = self.store.get(table, namespace, name)
            if current is None:
                raise NotFound.for_object(info.group, info.plural, name)
            old = current.decode()
            check_preconditions(info, name, old, preconditions)
            req = self.admission_request("DELETE", w, "", name, None, old)
            await self.admission.admit(req)
            await self.admission.validate(req)
            latest = self.store.get(table, namespace, name)
            if latest is None or latest.rv != current.rv:
                continue
            if before_write is not None:
                before_write(old)
            return self._delete_checked(w, strategy, table, old, current, grace_period_seconds, propagation_policy)
        raise Conflict.for_object(info.group, info.plural, name, "too many concurrent updates; try again")

    def _delete_checked(
        self, w: Write, strategy: Strategy, table: Table, old: dict[str, Any], current: StoredObject,
        grace_req: int | None, propagation: str | None,
    ) -> bytes:
        dry_run = w.dry_run
        meta = old["metadata"]
        finalizers = list(meta.get("finalizers") or ())
        if propagation == "Orphan" and "orphan" not in finalizers:
            finalizers.append("orphan")
        elif propagation == "Foreground" and "foregroundDeletion" not in finalizers:
            finalizers.append("foregroundDeletion")
        if propagation in ("Background", "Foreground"):
            if propagation == "Background":
                finalizers = [f for f in finalizers if f not in ("orphan", "foregroundDeletion")]
            elif "orphan" in finalizers:
                finalizers.remove("orphan")
        grace = strategy.grace_period(old, grace_req)
        if strategy.own_delete:
            own = strategy.before_delete(old, self.clock.timestamp())
            if own == DELETE_NOW:
                return current.data if dry_run else self._remove(strategy, table, old, current)
            if own == UNCHANGED or dry_run:
                return current.data if own == UNCHANGED else _encode(old)
            return self.store.update(table, old, expect_rv=current.rv).data
        if meta.get("deletionTimestamp"):
            # Already being deleted: a shorter grace period shortens it (BeforeDelete), else nothing changes.
            cur_grace = meta.get("deletionGracePeriodSeconds")
            if cur_grace is not None and grace < cur_grace:
                meta["deletionGracePeriodSeconds"] = grace
                meta["deletionTimestamp"] = self.clock.timestamp() if grace == 0 else self._after(grace)
            elif finalizers == list(meta.get("finalizers") or ()):
                return current.data
            meta["finalizers"] = finalizers
            if not finalizers and meta.get("deletionGracePeriodSeconds") == 0:
                return current.data if dry_run else self._remove(strategy, table, old, current)
            if dry_run:
                return _encode(old)
            return self.store.update(table, old, expect_rv=current.rv).data
        if not finalizers and grace == 0:
            if dry_run:
                return current.data
            return self._remove(strategy, table, old, current)
        meta["finalizers"] = finalizers
        if not finalizers:
            meta.pop("finalizers")
        meta["deletionGracePeriodSeconds"] = grace
        meta["deletionTimestamp"] = self._after(grace) if grace else self.clock.timestamp()
        if dry_run:
            return _encode(old)
        return self.store.update(table, old, expect_rv=current.rv).data

    def _remove(self, strategy: Strategy, table: Table, old: dict[str, Any], current: StoredObject) -> bytes:
        meta = old["metadata"]
        final = self.store.delete(table, meta.get("namespace") or "", meta["name"], expect_rv=current.rv)
        self.written.forget(table, current.key)
        strategy.after_write(None, old)
        return final.data

    def _after(self, seconds: int) -> str:
        return format_time(self.clock.now() + seconds)


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def _rollback(allocation: Allocation | None) -> None:
    if allocation is not None:
        allocation.rollback()


def _same(new: dict[str, Any], old: dict[str, Any]) -> bool:
    # GuaranteedUpdate compares the bytes; managedFields timestamps alone do not make a change
    # (IgnoreManagedFieldsTimestampsTransformer), any other managedFields change does. The parts
    # besides metadata go first: a heartbeat's new status answers at once, and what the update path
    # shared with ``old`` compares by identity.
    if len(new) != len(old):
        return False
    for k in new:
        if k != "metadata" and (k not in old or old[k] != new[k]):
            return False
    return new == old or ignore_managed_fields_timestamps(new, old)


_MISSING: Any = object()


def check_preconditions(info: ResourceInfo, name: str, old: dict[str, Any], pre: dict[str, Any] | None) -> None:
    """``DeleteOptions.Preconditions`` (uid, resourceVersion) against the stored object: 409 Conflict."""
    if not pre:
        return
    meta = old["metadata"]
    uid = pre.get("uid")
    if uid and uid != meta.get("uid"):
        raise Conflict.for_object(
            info.group, info.plural, name,
            f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid')}",
        )
    rv = pre.get("resourceVersion")
    if rv and rv != meta.get("resourceVersion"):
        raise Conflict.for_object(
            info.group, info.plural, name,
            f"Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: "
            f"{meta.get('resourceVersion')}",
        )
