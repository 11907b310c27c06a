"""The apiserver request pipeline, in upstream order.

Every request runs: fault switches → authorization (RBAC; authentication happened when the caller's
identity was established) → decoding checks (types, unknown fields per ``fieldValidation``) →
defaulting → mutating admission → the resource strategy (``PrepareForCreate``/``PrepareForUpdate``,
generated names, uid, timestamps, generation) → validation → validating admission → managedFields →
the store. Guarantees:

- **A rejected request changes nothing.** All checks work on a private copy; the store is written
  once, at the end, synchronously. Admission hooks may ``await``; an internal conflict with a write
  that happened meanwhile re-runs the whole pipeline for unconditional updates and patches, as
  upstream's ``GuaranteedUpdate`` does, while a caller-supplied resourceVersion gets 409.
- **No-op writes are not writes.** An update that changes nothing keeps the resourceVersion and sends
  no watch event.
- **Deletion is graceful.** Objects with finalizers, and pods bound to a node, get
  ``deletionTimestamp``/``deletionGracePeriodSeconds`` and stay until the last finalizer is removed
  (or the kubelet confirms with grace period 0). ``propagationPolicy`` Orphan/Foreground add the
  ``orphan``/``foregroundDeletion`` finalizers for the garbage collector.
- Responses are encoded bytes: every caller decodes its own copy.

Upstream references: k8s.io/apiserver/pkg/endpoints/handlers (create.go, update.go, patch.go,
delete.go, get.go, watch.go), k8s.io/apiserver/pkg/registry/generic/registry/store.go and
k8s.io/apiserver/pkg/registry/rest (create.go BeforeCreate, update.go BeforeUpdate, delete.go
BeforeDelete).
"""

from __future__ import annotations

import builtins
import random
from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api import jsonsafe
from kubelite.api.fields import FieldSelector, check_supported, object_fields, parse_field_selector
from kubelite.api.labels import Selector, parse_selector
from kubelite.api.quantity_fields import QuantityError, canonicalize_quantities
from kubelite.api.resources import Registry, ResourceInfo
from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.admission.default_storage_class import DefaultStorageClass
from kubelite.apiserver.admission.default_toleration_seconds import DefaultTolerationSeconds
from kubelite.apiserver.admission.namespace_lifecycle import NamespaceLifecycle
from kubelite.apiserver.admission.priority import PriorityAdmission
from kubelite.apiserver.admission.service_account import ServiceAccountAdmission
from kubelite.apiserver.admission.taint_nodes_by_condition import TaintNodesByCondition
from kubelite.apiserver.auth.authn import TokenAuthenticator
from kubelite.apiserver.auth.rbac import RBACAuthorizer, forbidden
from kubelite.apiserver.auth.request_info import request_attributes
from kubelite.apiserver.auth.user import SYSTEM_PRIVILEGED_GROUP, UserInfo
from kubelite.apiserver.crd import prune, unknown_fields
from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.event_ttl import DEFAULT_EVENT_TTL, EventTTL
from kubelite.apiserver.faults import FaultInjector
from kubelite.apiserver.ipallocator import ServiceIPAllocator
from kubelite.apiserver.patch import (
    apply_json_patch,
    apply_merge_patch,
    apply_merge_patch_shared,
    apply_strategic_merge_patch,
)
from kubelite.apiserver.request import AdmissionRequest, ListResponse, Response
from kubelite.apiserver.ssa import FieldManager, ignore_managed_fields_timestamps
from kubelite.apiserver.strategy import (
    finish_create,
    prepare_for_create,
    prepare_for_finalize,
    prepare_for_status_update,
    prepare_for_update,
)
from kubelite.apiserver.subresources import Subresources
from kubelite.apiserver.validation import validate_create, validate_status_update, validate_update
from kubelite.clock import Clock
from kubelite.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    FieldError,
    MethodNotAllowed,
    NotFound,
    UnsupportedMediaType,
    invalid,
)
from kubelite.rand import new_uid, random_suffix
from kubelite.store import Store, StoredObject, Table, Watcher

__all__ = ["PATCH_TYPES", "ApiServer"]

_encode = jsonsafe.encode  # lone surrogates become U+FFFD, as upstream's JSON decoder makes them
_decode = msgspec.json.Decoder().decode

PATCH_TYPES = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}
_RBAC_KINDS = {"roles": "Role", "clusterroles": "ClusterRole", "rolebindings": "RoleBinding",
               "clusterrolebindings": "ClusterRoleBinding"}
_RBAC_GROUP = "rbac.authorization.k8s.io"
_MAX_RETRIES = 8
# built-in kinds with fields of any shape (JSONSchemaProps' default/example, ControllerRevision.data)
_OPEN_KINDS = {("apiextensions.k8s.io", "customresourcedefinitions"), ("apps", "controllerrevisions")}
_GENERATE_NAME_RETRIES = 8
_TRIGGER_FIELDS = {("", "pods"): "spec.nodeName"}


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of JSON data (the fastest one in CPython is a msgspec round trip)."""
    out: dict[str, Any] = _decode(_encode(obj))
    return out


class ApiServer:
    """kube-apiserver in-process. Use it through :mod:`kubelite.client`; components never import it."""

    def __init__(
        self, *, clock: Clock, rng: random.Random, store: Store | None = None, registry: Registry | None = None,
        track_managed_fields: bool = True, event_ttl: float | None = DEFAULT_EVENT_TTL,
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.store = store if store is not None else Store()
        self.registry = registry if registry is not None else Registry()
        self.authenticator = TokenAuthenticator()
        self.rbac = RBACAuthorizer()
        self.faults = FaultInjector(rng=rng)
        self.field_manager = FieldManager()
        self.track_managed_fields = track_managed_fields
        self.admission = AdmissionChain(
            mutating=[
                NamespaceLifecycle(self), ServiceAccountAdmission(self), TaintNodesByCondition(),
                PriorityAdmission(self), DefaultTolerationSeconds(), DefaultStorageClass(self),
            ],
        )
        self.crs = CustomResources(self)
        # the service REST storage's ClusterIP and NodePort allocators (pkg/registry/core/service)
        self.service_ips = ServiceIPAllocator(rng=rng)
        self.subresources = Subresources(self)
        self._tables: dict[tuple[str, str], Table] = {}
        self._read_cache: dict[tuple[str, str, str | None], tuple[int, Table, list[dict[str, Any]]]] = {}
        self._object_cache: dict[tuple[str, str, str, str], tuple[StoredObject, dict[str, Any]]] = {}
        for info in self.registry:
            self.add_resource(info)
        # --event-ttl: Events expire one TTL after their last write (etcd leases)
        self.event_ttl = EventTTL(clock=clock, store=self.store, table=lambda: self._tables.get(("", "events")),
                                  ttl=event_ttl)

    # --- resources and tables ---
    def add_resource(self, info: ResourceInfo, *, selectable_fields: tuple[str, ...] = ()) -> Table:
        group, plural = info.group, info.plural

        def fields_fn(obj: dict[str, Any]) -> dict[str, str]:
            return object_fields(group, plural, obj, selectable_fields)

        table = self.store.add_table(
            group, plural, namespaced=info.namespaced, fields_fn=fields_fn,
            trigger_field=_TRIGGER_FIELDS.get((group, plural)),
        )
        self._tables[(group, plural)] = table
        return table

    def remove_resource(self, group: str, plural: str) -> None:
        self._tables.pop((group, plural), None)
        self.store.remove_table(group, plural)

    def resource(self, group: str, plural: str) -> ResourceInfo:
        try:
            return self.registry.by_resource(group, plural)
        except KeyError:
            raise NotFound.make("the server could not find the requested resource") from None

    def table(self, info: ResourceInfo) -> Table:
        return self._tables[(info.group, info.plural)]

    def _ssa_schema(self, info: ResourceInfo) -> Schema | None:
        if info.schema_ref is not None:
            return builtin_schemas().get(info.schema_ref)
        return self.crs.ssa_schema(info)

    def schema(self, info: ResourceInfo) -> Schema | None:
        if info.schema_ref is not None:
            return builtin_schemas().get(info.schema_ref)
        return self.crs.schema(info)

    # --- ObjectReader for admission plugins ---
    def read(self, group: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        """One object, decoded; cached while the stored version is unchanged (NamespaceLifecycle reads the
        namespace on every create). Callers must not mutate the result."""
        table = self._tables.get((group, plural))
        if table is None:
            return None
        obj = self.store.get(table, namespace, name)
        if obj is None:
            return None
        key = (group, plural, namespace, name)
        hit = self._object_cache.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        decoded = obj.decode()
        if len(self._object_cache) > 4096:
            self._object_cache.clear()
        self._object_cache[key] = (obj, decoded)
        return decoded

    def read_all(self, group: str, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every object of a resource, decoded; cached until the table is next written (admission plugins
        such as Priority consult small tables on every pod create). Callers must not mutate the result."""
        table = self._tables.get((group, plural))
        if table is None:
            return []
        key = (group, plural, namespace)
        hit = self._read_cache.get(key)
        if hit is not None and hit[0] == table.last_write and hit[1] is table:
            return hit[2]
        items = [o.decode() for o in self.store.list(table, namespace=namespace).items]
        self._read_cache[key] = (table.last_write, table, items)
        return items

    # --- checks shared by every verb ---
    def _preflight(
        self, user: UserInfo, verb: str, info: ResourceInfo, subresource: str, namespace: str, name: str,
    ) -> None:
        self.faults.check(verb, info.group, info.plural, namespace, name)
        if info.namespaced and not namespace and verb not in ("list", "watch", "deletecollection"):
            raise BadRequest.make("the namespace of the provided object is empty")
        if SYSTEM_PRIVILEGED_GROUP in user.groups:
            return
        attrs = request_attributes(user, verb, info, subresource, namespace, name)
        allowed, reason = self.rbac.authorize(attrs)
        if not allowed:
            raise forbidden(attrs, reason)

    def _check_decoding(
        self, info: ResourceInfo, body: dict[str, Any], field_validation: str | None, warnings: list[str],
        *, is_apply: bool = False,
    ) -> dict[str, Any]:
        """Types and unknown fields, as the decoder and ``fieldValidation`` handle them upstream.

        Returns the object to continue with: for built-in kinds the typed round trip, so explicit nulls
        read as absent exactly as they do after upstream decodes into Go structs.
        """
        mode = field_validation or "Warn"
        if mode not in ("Strict", "Warn", "Ignore"):
            raise BadRequest.make(
                f'fieldValidation {mode} is invalid, valid values are: "Ignore", "Warn", "Strict"'
            )
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        api_version, kind = body.get("apiVersion"), body.get("kind")
        if api_version is not None and kind is not None and (kind != info.kind or not self._version_ok(info, api_version)):
            raise BadRequest.make(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({info.api_version})" if kind == info.kind else
                f"{kind} in version \"{api_version}\" cannot be handled as a {info.kind}: no kind \"{kind}\" is "
                f"registered for version \"{api_version}\""
            )
        body["apiVersion"] = api_version or info.api_version
        body["kind"] = info.kind
        meta = body.get("metadata")
        if meta is None:
            body["metadata"] = {}
        elif not isinstance(meta, dict):
            raise BadRequest.make(f"{info.kind} in version \"{info.version}\" cannot be handled as a {info.kind}: "
                                  "metadata must be an object")
        if info.struct is None or (info.group, info.plural) in _OPEN_KINDS:
            self._check_depth(body)  # open-ended data: the walkers below recurse on whatever was sent
        if info.struct is None:
            schema = self.crs.schema(info)
            if schema is not None:
                self._handle_unknown(mode, unknown_fields(body, schema), body, schema, warnings, prune)
            return body
        if is_apply:
            # apply configurations keep explicit nulls (they mean "remove"), so only check them
            typed = self._typed(info, body, mode, warnings)
            del typed
            return body
        out: dict[str, Any] = msgspec.to_builtins(self._typed(info, body, mode, warnings))
        return self._canonical_quantities(info, out)

    def _canonical_quantities(self, info: ResourceInfo, obj: dict[str, Any]) -> dict[str, Any]:
        """Decoding into resource.Quantity canonicalises (``1000m`` -> ``1``) or rejects with 400."""
        schema = self.schema(info) if info.struct is not None else None
        if schema is not None:
            try:
                canonicalize_quantities(obj, schema)
            except QuantityError as e:
                raise BadRequest.make(
                    f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {e}'
                ) from None
        return obj

    @staticmethod
    def _check_depth(body: Any) -> None:
        meta = body.get("metadata") if isinstance(body, dict) else None
        if isinstance(meta, dict) and "managedFields" in meta:
            # fieldsV1 mirrors the object four levels down; its decoder guards itself
            body = {**body, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
        try:
            jsonsafe.check_depth(body)
        except jsonsafe.TooDeep as e:
            raise BadRequest.make(str(e)) from None

    def _typed(self, info: ResourceInfo, body: dict[str, Any], mode: str, warnings: list[str]) -> Any:
        assert info.struct is not None
        # The strict decode checks types and unknown fields. Converting the JSON data directly gives the
        # same result as decoding its encoding, without the encode; anything it rejects takes the JSON
        # path below, so errors and pruning are exactly the decoder's.
        try:
            return msgspec.convert(body, info.struct)
        except msgspec.ValidationError:
            pass
        try:
            return msgspec.json.decode(_encode(body), type=info.struct)
        except msgspec.ValidationError as e:
            if "unknown field" not in str(e):
                raise BadRequest.make(
                    f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {e}'
                ) from None
        schema = self.schema(info)
        assert schema is not None
        self._handle_unknown(mode, unknown_fields(body, schema), body, schema, warnings, prune)
        try:
            return msgspec.json.decode(_encode(body), type=info.struct)
        except msgspec.ValidationError as e:
            raise BadRequest.make(
                f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {e}'
            ) from None

    @staticmethod
    def _handle_unknown(
        mode: str, unknown: list[str], body: dict[str, Any], schema: Schema, warnings: list[str],
        prune: Callable[..., list[str]],
    ) -> None:
        if not unknown:
            return
        if mode == "Strict":
            raise BadRequest.make("strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown))
        prune(body, schema)
        if mode == "Warn":
            warnings.extend(f'unknown field "{p}"' for p in unknown)

    def _version_ok(self, info: ResourceInfo, api_version: str) -> bool:
        if api_version == info.api_version:
            return True
        return info.struct is None and self.crs.serves(info, api_version)

    def _admission_request(
        self, op: str, info: ResourceInfo, subresource: str, namespace: str, name: str,
        obj: dict[str, Any] | None, old: dict[str, Any] | None, user: UserInfo, dry_run: bool,
    ) -> AdmissionRequest:
        return AdmissionRequest(
            operation=op, group=info.group, version=info.version, kind=info.kind, resource=info.plural,
            subresource=subresource, namespace=namespace, name=name, object=obj, old_object=old, user=user,
            dry_run=dry_run,
        )

    def _defaults(self, info: ResourceInfo, obj: dict[str, Any]) -> None:
        if info.struct is not None:
            apply_defaults(info.group, info.kind, obj)
        if info.struct is None or info.group == "apiextensions.k8s.io":
            self.crs.default(info, obj)

    def _validate(self, info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None, subresource: str) -> None:
        if info.struct is None:
            errs = self.crs.validate(info, obj, old)
        elif old is None:
            errs = validate_create(info.group, info.kind, obj)
        elif subresource == "status":
            errs = validate_status_update(info.group, info.kind, obj, old)
        else:
            errs = validate_update(info.group, info.kind, obj, old)
        if info.plural == "customresourcedefinitions" and info.group == "apiextensions.k8s.io":
            errs = [*errs, *self.crs.validate_definition(obj, old)]
        if errs:
            raise invalid(info.kind, obj["metadata"].get("name") or obj["metadata"].get("generateName", ""),
                          errs, group=info.group)

    def _manager(self, field_manager: str | None, user: UserInfo) -> str:
        return field_manager or "kubelite"

    def _track(
        self, info: ResourceInfo, live: dict[str, Any] | None, new: dict[str, Any], manager: str, subresource: str,
    ) -> dict[str, Any]:
        if not self.track_managed_fields:
            return new
        schema = self._ssa_schema(info)
        if schema is None:
            return new
        return self.field_manager.update(
            live, new, manager=manager, schema=schema, api_version=new.get("apiVersion", info.api_version),
            now=self.clock.timestamp(), subresource=subresource, ignored_fields=self._reset_fields(info, subresource),
        )

    @staticmethod
    def _reset_fields(info: ResourceInfo, subresource: str) -> dict[str, Any] | None:
        """Upstream strategies' GetResetFields: what a write through this endpoint can never own."""
        if "status" not in info.subresources:
            return None
        if subresource == "status":
            return {"f:spec": {}, "f:metadata": {"f:labels": {}, "f:annotations": {}}}
        return {"f:status": {}}

    def _authorize_rbac_write(
        self, user: UserInfo, info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None,
    ) -> None:
        """RBAC escalation prevention (pkg/registry/rbac/*/policybased): only for the four RBAC kinds."""
        if info.group != _RBAC_GROUP or info.plural not in _RBAC_KINDS:
            return
        kind = _RBAC_KINDS[info.plural]
        if kind in ("Role", "ClusterRole"):
            self.rbac.check_role_write(user, kind, obj, old)
        else:
            self.rbac.check_binding_write(user, kind, obj, old)

    def _committed(self, info: ResourceInfo, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Side effects of a successful write on the apiserver's own caches and allocators."""
        if obj is not None and (info.group, info.plural) == ("", "events"):
            self.event_ttl.touch(obj)
        if obj is None and old is not None and (info.group, info.plural) == ("", "services"):
            self.service_ips.release(old)
        if info.group == _RBAC_GROUP and info.plural in _RBAC_KINDS:
            kind = _RBAC_KINDS[info.plural]
            if obj is not None:
                self.rbac.upsert(kind, obj)
            elif old is not None:
                self.rbac.remove(kind, old["metadata"].get("namespace") or "", old["metadata"]["name"])
        elif info.group == "apiextensions.k8s.io" and info.plural == "customresourcedefinitions":
            self.crs.on_definition_change(obj, old)

    # --- create ---
    async def create(
        self, user: UserInfo, group: str, plural: str, namespace: str, body: dict[str, Any], *,
        subresource: str = "", name: str = "", dry_run: bool = False, field_manager: str | None = None,
        field_validation: str | None = None,
    ) -> Response:
        """POST. ``body`` becomes the apiserver's private copy (the client hands over a fresh dict)."""
        info = self.resource(group, plural)
        if subresource:
            return await self.subresources.create(
                user, info, namespace, name, subresource, body, dry_run=dry_run, field_manager=field_manager,
            )
        namespace = namespace if info.namespaced else ""
        body_meta = body.get("metadata") if isinstance(body, dict) else None
        obj_name = (body_meta or {}).get("name") or "" if isinstance(body_meta, dict) else ""
        self._preflight(user, "create", info, "", namespace, obj_name)
        if "create" not in info.verbs:
            raise MethodNotAllowed.make(f"create is not supported on resources of kind \"{info.group_resource}\"")
        warnings: list[str] = []
        body = self._check_decoding(info, body, field_validation, warnings)
        return Response(
            data=await self._create_checked(user, info, namespace, body, dry_run=dry_run,
                                            manager=self._manager(field_manager, user)),
            warnings=warnings,
        )

    async def _create_checked(
        self, user: UserInfo, info: ResourceInfo, namespace: str, obj: dict[str, Any], *, dry_run: bool,
        manager: str, managed_fields_done: bool = False,
    ) -> bytes:
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
        self._defaults(info, obj)
        req = self._admission_request(
            "CREATE", info, "", namespace, meta.get("name", ""), obj, None, user, dry_run,
        )
        await self.admission.admit(req)
        if self.admission.has_mutating_hooks:
            self._defaults(info, obj)
        meta = obj["metadata"]
        # rest.BeforeCreate: system fields are the server's.
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion",
                  "selfLink"):
            meta.pop(k, None)
        if not managed_fields_done:
            meta.pop("managedFields", None)
        prepare_for_create(info, obj)
        generate = not meta.get("name") and meta.get("generateName")
        if generate:
            meta["name"] = meta["generateName"] + random_suffix(self.rng)
        meta["uid"] = new_uid(self.rng)
        meta["creationTimestamp"] = self.clock.timestamp()
        finish_create(info, obj)
        self._validate(info, obj, None, "")
        self._authorize_rbac_write(user, info, obj, None)
        await self.admission.validate(req)
        if not managed_fields_done:
            obj = self._track(info, None, obj, manager, "")
        table = self.table(info)
        is_service = (info.group, info.plural) == ("", "services")
        if is_service:
            errs = self.service_ips.allocate(obj)
            if errs:
                raise invalid(info.kind, obj["metadata"]["name"], errs)
        try:
            if dry_run:
                if self.store.get(table, namespace, obj["metadata"]["name"]) is not None:
                    raise AlreadyExists.for_object(info.group, info.plural, obj["metadata"]["name"])
                obj["metadata"]["resourceVersion"] = ""
                return _encode(obj)
            for attempt in range(_GENERATE_NAME_RETRIES):
                try:
                    stored = self.store.create(table, obj)
                    break
                except AlreadyExists:
                    if not generate or attempt == _GENERATE_NAME_RETRIES - 1:
                        raise
                    obj["metadata"]["name"] = obj["metadata"]["generateName"] + random_suffix(self.rng)
        except BaseException:
            if is_service:
                self.service_ips.release(obj)
            raise
        if is_service and dry_run:
            self.service_ips.release(obj)
        self._committed(info, obj, None)
        return stored.data

    # --- reads ---
    async def get(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, *, subresource: str = "",
    ) -> Response:
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        self._preflight(user, "get", info, subresource, namespace, name)
        if subresource:
            return await self.subresources.get(user, info, namespace, name, subresource)
        stored = self.store.get(self.table(info), namespace, name)
        if stored is None:
            raise NotFound.for_object(info.group, info.plural, name)
        return Response(data=self.crs.serve(info, stored.data))

    def _predicate(
        self, info: ResourceInfo, label_selector: str | None, field_selector: str | None,
    ) -> tuple[Callable[[StoredObject], bool] | None, FieldSelector | None]:
        lsel: Selector | None = None
        fsel: FieldSelector | None = None
        try:
            if label_selector:
                lsel = parse_selector(label_selector)
                if lsel.empty():
                    lsel = None
            if field_selector:
                fsel = parse_field_selector(field_selector)
                if fsel.empty():
                    fsel = None
        except ValueError as e:
            raise BadRequest.make(str(e)) from None
        if fsel is not None:
            check_supported(
                info.group, info.plural, fsel,
                self.crs.selectable_fields(info) if info.struct is None else None, namespaced=info.namespaced,
            )
        if lsel is None and fsel is None:
            return None, None

        def predicate(obj: StoredObject) -> bool:
            if lsel is not None and not lsel.matches(obj.labels):
                return False
            if fsel is not None:
                fields = obj.fields
                if fields is None:
                    fields = {"metadata.name": obj.name, "metadata.namespace": obj.namespace}
                if not fsel.matches(fields):
                    return False
            return True

        return predicate, fsel

    async def list(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, resource_version: str | None = None,
        resource_version_match: str | None = None, limit: int | None = None, continue_: str | None = None,
        authorized: bool = False,
    ) -> ListResponse:
        """``authorized``: part of a verb already authorized (deletecollection lists without ``list``)."""
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        if not authorized:
            self._preflight(user, "list", info, "", namespace, "")
        predicate, _ = self._predicate(info, label_selector, field_selector)
        if limit is not None and limit <= 0:
            limit = None
        result = self.store.list(
            self.table(info), namespace=namespace or None, predicate=predicate, resource_version=resource_version,
            resource_version_match=resource_version_match, limit=limit, continue_=continue_,
        )
        return ListResponse(
            items=[self.crs.serve(info, o.data) for o in result.items], resource_version=str(result.rv),
            continue_=result.continue_, remaining_item_count=result.remaining,
            api_version=info.api_version, kind=info.list_kind or f"{info.kind}List",
        )

    async def watch(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, resource_version: str | None = None, allow_bookmarks: bool = False,
        send_initial_events: bool | None = None, timeout_seconds: float | None = None,
        capacity: int | None = None,
    ) -> Watcher:
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        self._preflight(user, "watch", info, "", namespace, "")
        predicate, fsel = self._predicate(info, label_selector, field_selector)
        table = self.table(info)
        trigger = fsel.single_value(table.trigger_field) if (fsel is not None and table.trigger_field) else None
        kwargs: dict[str, Any] = {}
        if capacity is not None:
            kwargs["capacity"] = capacity
        w = self.store.watch(
            table, namespace=namespace or None, predicate=predicate, resource_version=resource_version,
            send_initial_events=send_initial_events, allow_bookmarks=allow_bookmarks, trigger=trigger,
            bookmark_data=self._bookmark_fn(info), **kwargs,
        )
        if timeout_seconds:
            handle = self.clock.call_later(timeout_seconds, lambda: w.close("timeout"))
            prev = w._on_close

            def on_close(watcher: Watcher) -> None:
                handle.cancel()
                if prev is not None:
                    prev(watcher)

            w._on_close = on_close
        return w

    def _bookmark_fn(self, info: ResourceInfo) -> Callable[[int, bool], bytes]:
        def data(rv: int, initial_end: bool) -> bytes:
            meta: dict[str, Any] = {"resourceVersion": str(rv)}
            if initial_end:
                meta["annotations"] = {"k8s.io/initial-events-end": "true"}
            return _encode({"apiVersion": info.api_version, "kind": info.kind, "metadata": meta})

        return data

    def send_bookmarks(self) -> None:
        """Send BOOKMARK events to every watcher that allows them (the cluster calls this periodically)."""
        for (group, plural), table in self._tables.items():
            if table.watchers or table.pinned:
                info = self.registry.by_resource(group, plural)
                self.store.bookmark(table, self._bookmark_fn(info))

    # --- update ---
    async def update(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, body: dict[str, Any], *,
        subresource: str = "", dry_run: bool = False, field_manager: str | None = None,
        field_validation: str | None = None,
    ) -> Response:
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        self._preflight(user, "update", info, subresource, namespace, name)
        if subresource not in ("", "status", "finalize"):
            return await self.subresources.update(
                user, info, namespace, name, subresource, body, dry_run=dry_run, field_manager=field_manager,
            )
        if (subresource == "status" and "status" not in info.subresources) or (
                subresource == "finalize" and (info.group, info.plural) != ("", "namespaces")):
            raise NotFound.make("the server could not find the requested resource")
        warnings: list[str] = []
        body = self._check_decoding(info, body, field_validation, warnings)
        meta = body["metadata"]
        if meta.get("name") and meta["name"] != name:
            raise BadRequest.make(f"the name of the object ({meta['name']}) does not match the name on the URL ({name})")
        meta["name"] = name
        if info.namespaced:
            if meta.get("namespace") and meta["namespace"] != namespace:
                raise BadRequest.make(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace
        rv = meta.get("resourceVersion")
        expect = self._parse_expected_rv(rv)
        manager = self._manager(field_manager, user)

        def mutate(_live: dict[str, Any]) -> dict[str, Any]:
            return _copy(body)

        data = await self._update_loop(
            user, info, namespace, name, mutate, subresource=subresource, expect_rv=expect, dry_run=dry_run,
            manager=manager,
        )
        return Response(data=data, warnings=warnings)

    @staticmethod
    def _parse_expected_rv(rv: Any) -> int | None:
        if rv in (None, ""):
            return None
        try:
            return int(rv)
        except (TypeError, ValueError):
            raise BadRequest.make(f'invalid resource version "{rv}"') from None

    async def _update_loop(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
        mutate: Callable[[dict[str, Any]], dict[str, Any]], *, subresource: str, expect_rv: int | None,
        dry_run: bool, manager: str, allow_create: bool = False, managed_fields_done: bool = False,
        operation: str = "UPDATE",
    ) -> bytes:
        """GuaranteedUpdate: read, transform, check, write; retry if someone wrote in between.

        ``mutate(live)`` must return a new object and leave ``live`` unchanged (it is the "old" object the
        update is checked against)."""
        table = self.table(info)
        for _ in range(_MAX_RETRIES):
            current = self.store.get(table, namespace, name)
            if current is None:
                if allow_create:
                    obj = mutate({})
                    return await self._create_checked(
                        user, info, namespace, obj, dry_run=dry_run, manager=manager,
                        managed_fields_done=managed_fields_done,
                    )
                raise NotFound.for_object(info.group, info.plural, name)
            if expect_rv is not None and expect_rv != current.rv:
                raise Conflict.for_object(
                    info.group, info.plural, name,
                    "the object has been modified; please apply your changes to the latest version and try again",
                )
            old = current.decode()
            new = mutate(old)  # mutate functions return a new object and leave ``old`` untouched
            result = await self._update_checked(
                user, info, namespace, name, new, old, current, subresource=subresource, dry_run=dry_run,
                manager=manager, managed_fields_done=managed_fields_done, operation=operation,
            )
            if result is not None:
                return result
        raise Conflict.for_object(info.group, info.plural, name, "too many concurrent updates; try again")

    async def _update_checked(
        self, user: UserInfo, info: ResourceInfo, namespace: str, name: str, new: dict[str, Any],
        old: dict[str, Any], current: StoredObject, *, subresource: str, dry_run: bool, manager: str,
        managed_fields_done: bool, operation: str,
    ) -> bytes | None:
        new.setdefault("metadata", {})
        new["apiVersion"] = new.get("apiVersion") or info.api_version
        new["kind"] = info.kind
        new["metadata"]["name"] = name
        if info.namespaced:
            new["metadata"]["namespace"] = namespace
        if subresource == "status":
            new = prepare_for_status_update(info, new, old)
        elif subresource == "finalize":
            new = prepare_for_finalize(new, old)
        elif subresource == "":
            self._defaults(info, new)
        req = self._admission_request("UPDATE", info, subresource, namespace, name, new, old, user, dry_run)
        await self.admission.admit(req)
        if subresource == "":
            if self.admission.has_mutating_hooks:
                self._defaults(info, new)
            prepare_for_update(info, new, old)
        if subresource not in ("binding", "finalize"):  # these storages write their one field past update rules
            self._validate(info, new, old, subresource)
        self._authorize_rbac_write(user, info, new, old)
        await self.admission.validate(req)
        if not managed_fields_done:
            new = self._track(info, old, new, manager, subresource)
        new["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
        # a no-op update is not a write (GuaranteedUpdate compares the encoded bytes)
        if self._same(new, old):
            return current.data
        table = self.table(info)
        latest = self.store.get(table, namespace, name)
        if latest is None or latest.rv != current.rv:
            return None  # someone wrote while admission hooks ran: re-run against the new state
        meta = new["metadata"]
        if (meta.get("deletionTimestamp") and not meta.get("finalizers") and meta.get("deletionGracePeriodSeconds") == 0
                and not self._spec_finalizers(info, new)):
            if dry_run:
                return _encode(new)
            final = self.store.delete(table, namespace, name, expect_rv=current.rv)
            self._committed(info, None, old)
            return final.data
        service_update = (info.group, info.plural) == ("", "services") and subresource == ""
        if service_update:
            errs = self.service_ips.update(old, new)
            if errs:
                raise invalid(info.kind, name, errs)
        if dry_run:
            if service_update:
                self.service_ips.revert_update(old, new)
            return _encode(new)
        try:
            stored = self.store.update(table, new, expect_rv=current.rv)
        except BaseException:
            if service_update:
                self.service_ips.revert_update(old, new)
            raise
        self._committed(info, new, old)
        return stored.data

    @staticmethod
    def _spec_finalizers(info: ResourceInfo, obj: dict[str, Any]) -> builtins.list[str]:
        """Namespaces are also held by ``spec.finalizers`` (removed through ``namespaces/finalize``)."""
        if info.group == "" and info.plural == "namespaces":
            return list((obj.get("spec") or {}).get("finalizers") or ())
        return []

    @staticmethod
    def _same(new: dict[str, Any], old: dict[str, Any]) -> bool:
        # GuaranteedUpdate compares the bytes; managedFields timestamps alone do not make a change
        return new == old or ignore_managed_fields_timestamps(new, old)

    # --- patch ---
    async def patch(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, patch: Any, patch_type: str, *,
        subresource: str = "", dry_run: bool = False, field_manager: str | None = None, force: bool | None = None,
        field_validation: str | None = None,
    ) -> Response:
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        self._preflight(user, "patch", info, subresource, namespace, name)
        if patch_type not in PATCH_TYPES:
            raise UnsupportedMediaType.make(
                f'the body of the request was in an unknown format - accepted media types include: '
                f'{", ".join(PATCH_TYPES.values())}'
            )
        if subresource not in ("", "status"):
            return await self.subresources.patch(
                user, info, namespace, name, subresource, patch, patch_type, dry_run=dry_run,
                field_manager=field_manager,
            )
        if patch_type == "strategic" and info.struct is None:
            raise UnsupportedMediaType.make(
                "the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
            )
        if force is not None and patch_type != "apply":
            raise BadRequest.make("force is only allowed for apply patches")
        self._check_depth(patch)
        warnings: list[str] = []
        schema = self.schema(info)
        manager = self._manager(field_manager, user)
        if patch_type == "apply":
            if not field_manager:
                raise BadRequest.make("PATCH /apply requires fieldManager to be set")
            if not isinstance(patch, dict):
                raise BadRequest.make("error decoding YAML: apply patches must be objects")
            self._check_decoding(info, patch, field_validation, warnings, is_apply=True)
            applied = patch
            apply_schema = self._ssa_schema(info)
            assert apply_schema is not None

            def mutate(live: dict[str, Any]) -> dict[str, Any]:
                merged = self.field_manager.apply(
                    live or None, _copy(applied), manager=manager, schema=apply_schema,
                    api_version=applied.get("apiVersion", info.api_version), now=self.clock.timestamp(),
                    force=bool(force), subresource=subresource, kind=info.kind,
                    ignored_fields=self._reset_fields(info, subresource),
                )
                merged.setdefault("metadata", {})["name"] = name
                return self._canonical_quantities(info, merged)

            data = await self._update_loop(
                user, info, namespace, name, mutate, subresource=subresource, expect_rv=None, dry_run=dry_run,
                manager=manager, allow_create=subresource == "", managed_fields_done=True,
            )
            return Response(data=data, warnings=warnings)

        expect: int | None = None
        if isinstance(patch, dict):
            expect = self._parse_expected_rv((patch.get("metadata") or {}).get("resourceVersion"))

        def mutate_patch(live: dict[str, Any]) -> dict[str, Any]:
            if patch_type == "json":
                out = apply_json_patch(live, patch)
            elif patch_type == "merge":
                if not isinstance(patch, dict):
                    raise BadRequest.make("the body of the request was in an unknown format")
                # built-in kinds: the typed decode below copies the result, so untouched parts may be shared
                out = (apply_merge_patch_shared if info.struct is not None else apply_merge_patch)(live, patch)
            else:
                if not isinstance(patch, dict):
                    raise BadRequest.make("the body of the request was in an unknown format")
                assert schema is not None
                out = apply_strategic_merge_patch(live, patch, schema)
            if not isinstance(out, dict):
                raise BadRequest.make("the patched object is not an object")
            local: list[str] = []
            out = self._check_decoding(info, out, field_validation, local)
            seen = set(warnings)  # a retried mutation reports each warning once (a set: N unknown fields, O(N))
            warnings.extend(w for w in dict.fromkeys(local) if w not in seen)
            patch_meta = patch.get("metadata", {}) if patch_type != "json" else None
            if type(patch_meta) is dict and "managedFields" not in patch_meta:
                # A merge or strategic patch that does not mention managedFields leaves them equal to live's
                # (a list without merge keys is only ever replaced): hand over live's own list so the field
                # manager recognises them by identity instead of comparing every entry.
                live_mf = (live.get("metadata") or {}).get("managedFields")
                out_meta = out.get("metadata")
                if live_mf is not None and isinstance(out_meta, dict) and "managedFields" in out_meta:
                    out_meta["managedFields"] = live_mf
            return out

        data = await self._update_loop(
            user, info, namespace, name, mutate_patch, subresource=subresource, expect_rv=expect, dry_run=dry_run,
            manager=manager,
        )
        return Response(data=data, warnings=warnings)

    # --- delete ---
    async def delete(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, *,
        grace_period_seconds: int | None = None, propagation_policy: str | None = None,
        preconditions: dict[str, Any] | None = None, dry_run: bool = False, authorized: bool = False,
    ) -> Response:
        """``authorized``: part of a verb already authorized (deletecollection, ``create pods/eviction``)."""
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        if not authorized:
            self._preflight(user, "delete", info, "", namespace, name)
        if propagation_policy not in (None, "Orphan", "Background", "Foreground"):
            raise invalid("DeleteOptions", "", [FieldError.not_supported(
                "propagationPolicy", propagation_policy, ["Foreground", "Background", "Orphan", "nil"])])
        if grace_period_seconds is not None and grace_period_seconds < 0:
            grace_period_seconds = 1  # upstream: negative means "immediately" but is stored as 1
        table = self.table(info)
        for _ in range(_MAX_RETRIES):
            current = self.store.get(table, namespace, name)
            if current is None:
                raise NotFound.for_object(info.group, info.plural, name)
            old = current.decode()
            self._check_preconditions(info, name, old, preconditions)
            req = self._admission_request("DELETE", info, "", namespace, name, None, old, user, dry_run)
            await self.admission.admit(req)
            await self.admission.validate(req)
            latest = self.store.get(table, namespace, name)
            if latest is None or latest.rv != current.rv:
                continue
            return Response(data=self._delete_checked(
                info, table, old, current, grace_period_seconds, propagation_policy, dry_run,
            ))
        raise Conflict.for_object(info.group, info.plural, name, "too many concurrent updates; try again")

    @staticmethod
    def _check_preconditions(info: ResourceInfo, name: str, old: dict[str, Any], pre: dict[str, Any] | None) -> None:
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

    def _grace_period(self, info: ResourceInfo, obj: dict[str, Any], requested: int | None) -> int:
        """pkg/registry/core/pod/strategy.go CheckGracefulDeleteByPod; other kinds delete at once."""
        if (info.group, info.plural) != ("", "pods"):
            return 0
        spec = obj.get("spec") or {}
        grace = requested if requested is not None else spec.get("terminationGracePeriodSeconds", 30)
        if not spec.get("nodeName"):
            return 0
        if (obj.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
            return 0
        return int(grace or 0)

    def _delete_checked(
        self, info: ResourceInfo, table: Table, old: dict[str, Any], current: StoredObject, grace_req: int | None,
        propagation: str | None, dry_run: bool,
    ) -> bytes:
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
        grace = self._grace_period(info, old, grace_req)
        if info.group == "" and info.plural == "namespaces":
            return self._delete_namespace(table, old, current, dry_run)
        if meta.get("deletionTimestamp"):
            # Already being deleted: a shorter grace period shortens it (BeforeDelete), else nothing changes.
            cur_grace = meta.get("deletionGracePeriodSeconds")
            if cur_grace is not None and grace < cur_grace:
                meta["deletionGracePeriodSeconds"] = grace
                meta["deletionTimestamp"] = self.clock.timestamp() if grace == 0 else _ts_after(self.clock, grace)
            elif finalizers == list(meta.get("finalizers") or ()):
                return current.data
            meta["finalizers"] = finalizers
            if not finalizers and meta.get("deletionGracePeriodSeconds") == 0:
                return current.data if dry_run else self._remove(info, table, old, current)
            if dry_run:
                return _encode(old)
            stored = self.store.update(table, old, expect_rv=current.rv)
            return stored.data
        if not finalizers and grace == 0:
            if dry_run:
                return current.data
            return self._remove(info, table, old, current)
        meta["finalizers"] = finalizers
        if not finalizers:
            meta.pop("finalizers")
        meta["deletionGracePeriodSeconds"] = grace
        meta["deletionTimestamp"] = _ts_after(self.clock, grace) if grace else self.clock.timestamp()
        if dry_run:
            return _encode(old)
        stored = self.store.update(table, old, expect_rv=current.rv)
        return stored.data

    def _remove(self, info: ResourceInfo, table: Table, old: dict[str, Any], current: StoredObject) -> bytes:
        meta = old["metadata"]
        final = self.store.delete(table, meta.get("namespace") or "", meta["name"], expect_rv=current.rv)
        self._committed(info, None, old)
        return final.data

    def _delete_namespace(self, table: Table, old: dict[str, Any], current: StoredObject, dry_run: bool) -> bytes:
        """Namespaces are finalized by the namespace controller: deletion marks them Terminating."""
        meta = old["metadata"]
        spec_finalizers = (old.get("spec") or {}).get("finalizers") or []
        if not spec_finalizers and not meta.get("finalizers"):
            if dry_run:
                return current.data
            return self.store.delete(table, "", meta["name"], expect_rv=current.rv).data
        if meta.get("deletionTimestamp"):
            return current.data
        meta["deletionTimestamp"] = self.clock.timestamp()
        meta["deletionGracePeriodSeconds"] = 0
        old.setdefault("status", {})["phase"] = "Terminating"
        if dry_run:
            return _encode(old)
        return self.store.update(table, old, expect_rv=current.rv).data

    async def delete_collection(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, grace_period_seconds: int | None = None,
        propagation_policy: str | None = None, dry_run: bool = False,
    ) -> ListResponse:
        info = self.resource(group, plural)
        namespace = namespace if info.namespaced else ""
        self._preflight(user, "deletecollection", info, "", namespace, "")
        if "deletecollection" not in info.verbs:
            raise MethodNotAllowed.make(
                f'deletecollection is not supported on resources of kind "{info.group_resource}"'
            )
        listed = await self.list(user, group, plural, namespace, label_selector=label_selector,
                                 field_selector=field_selector, authorized=True)
        out: list[bytes] = []
        for data in listed.items:
            meta = _decode(data)["metadata"]
            try:
                resp = await self.delete(
                    user, group, plural, meta.get("namespace") or "", meta["name"],
                    grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                    dry_run=dry_run, authorized=True,
                )
            except NotFound:
                continue
            out.append(resp.data)
        return ListResponse(items=out, resource_version=str(self.store.revision), api_version=info.api_version,
                            kind=info.list_kind or f"{info.kind}List")

    # --- housekeeping ---
    def compact(self, revision: int | None = None) -> int:
        return self.store.compact(revision)


def _ts_after(clock: Clock, seconds: int) -> str:
    from kubelite.clock import format_time

    return format_time(clock.now() + seconds)

