"""kube-apiserver in one object: every request enters through :meth:`ApiServer.handle`.

**The request entry point.** ``await apiserver.handle(Request(verb=..., group=..., resource=...,
subresource=..., namespace=..., name=..., body=..., options=Options(...), user=...))`` serves one request
and returns a :class:`~kubelite.apiserver.request.Response` (one object, encoded), a
:class:`~kubelite.apiserver.request.ListResponse` (``list``, ``deletecollection``) or a
:class:`~kubelite.store.Watcher` (``watch``), or raises an :class:`~kubelite.errors.ApiError` carrying the
Kubernetes ``Status``. The in-process client calls it through the verb methods below (same contract); the
HTTP layer builds a ``Request`` from a URL and calls it directly. ``user`` is the authenticated identity
(authentication happens where the caller's identity is established: ``authenticator`` for bearer tokens).

**One pipeline.** Every verb and subresource runs, in upstream's order:

    fault switches → resource resolution → authorization of the request's verb (RBAC) → the endpoint's
    REST object (404 if the resource has no such subresource, 405 if it does not serve the verb) → the verb
    handler: decode (kind, version, types, unknown fields) → generic store: default → mutating admission →
    strategy (PrepareForCreate/Update) → validation → object-dependent authorization (RBAC escalation;
    ``create`` when an update or apply creates) → validating admission → managedFields → allocations →
    store write → strategy after-write hooks

Guarantees: a request either succeeds or raises an ``ApiError``; a rejected request changes nothing (the
generic store writes once, synchronously, after every check, and rolls back its allocations otherwise);
responses are encoded bytes every caller decodes into its own copy.

Layout (upstream's names): ``handlers/`` the verbs, ``rest/`` the REST objects (the resource and its
subresources), ``registry/`` the generic store and the per-kind strategies, ``pipeline.py`` authorization
and decoding, ``crds.py`` the served CustomResourceDefinitions.

Upstream references: k8s.io/apiserver/pkg/endpoints/handlers (create.go, update.go, patch.go,
delete.go, get.go, watch.go), k8s.io/apiserver/pkg/registry/generic/registry/store.go and
k8s.io/apiserver/pkg/registry/rest.
"""

from __future__ import annotations

import builtins
import importlib
import random
from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.omitempty import omit_empty
from kubelite.api.resources import Registry, ResourceInfo
from kubelite.api.schema import Schema
from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.admission.certificates import (
    CertificateApproval,
    CertificateSigning,
    CertificateSubjectRestriction,
)
from kubelite.apiserver.admission.default_storage_class import DefaultStorageClass
from kubelite.apiserver.admission.default_toleration_seconds import DefaultTolerationSeconds
from kubelite.apiserver.admission.limit_ranger import LimitRanger
from kubelite.apiserver.admission.namespace_lifecycle import NamespaceLifecycle
from kubelite.apiserver.admission.priority import PriorityAdmission
from kubelite.apiserver.admission.resource_quota import ResourceQuotaAdmission
from kubelite.apiserver.admission.service_account import ServiceAccountAdmission
from kubelite.apiserver.admission.taint_nodes_by_condition import TaintNodesByCondition
from kubelite.apiserver.admission.validating_admission_policy import ValidatingAdmissionPolicyPlugin
from kubelite.apiserver.aggregator import Aggregator
from kubelite.apiserver.auth.authn import TokenAuthenticator
from kubelite.apiserver.auth.rbac import RBACAuthorizer
from kubelite.apiserver.auth.user import LOOPBACK, UserInfo
from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.event_ttl import DEFAULT_EVENT_TTL, EventStrategy, EventTTL
from kubelite.apiserver.faults import FaultInjector
from kubelite.apiserver.handlers.get import bookmark_fn
from kubelite.apiserver.handlers.patch import PATCH_TYPES
from kubelite.apiserver.ipallocator import ServiceIPAllocator
from kubelite.apiserver.kubernetes_service import KubernetesServiceController
from kubelite.apiserver.pipeline import Authorizer, Decoder
from kubelite.apiserver.registry.apiregistration import APIServiceStrategy, local_apiservices
from kubelite.apiserver.registry.conversion import builtin_scheme
from kubelite.apiserver.registry.store import GenericStore
from kubelite.apiserver.registry.strategies import StrategySet
from kubelite.apiserver.registry.tables import ResourceTables
from kubelite.apiserver.request import ListResponse, Options, Request, Response
from kubelite.apiserver.rest import RESOURCE_REVIEWS, REST, LazyREST, method_name
from kubelite.apiserver.rest.resource import ResourceREST
from kubelite.apiserver.rest.status import StatusREST
from kubelite.apiserver.scope import Scope
from kubelite.apiserver.ssa import FieldManager
from kubelite.clock import Clock
from kubelite.errors import (
    ApiError,
    BadRequest,
    InternalError,
    MethodNotAllowed,
    NotFound,
    Status,
    StatusCause,
    StatusDetails,
)
from kubelite.logs import get_logger
from kubelite.store import Store, Table, Watcher

__all__ = ["PATCH_TYPES", "ApiServer", "Options", "Request"]

log = get_logger("kubelite.apiserver")
_decode = msgspec.json.Decoder().decode
# verbs that address a collection rather than one object (a namespaced request may omit the namespace)
_COLLECTION_VERBS = ("list", "watch", "deletecollection")
# the verbs kube-apiserver's installer serves on a resource's collection path (``/pods``) and on its item path
# (``/pods/{name}``, ``/pods/{name}/{subresource}``: a subresource's create is a POST there)
_COLLECTION_PATH_VERBS = frozenset({"create", "list", "watch", "deletecollection"})
_ITEM_PATH_VERBS = frozenset({"get", "update", "patch", "delete"})
_SUBRESOURCE_PATH_VERBS = _ITEM_PATH_VERBS | {"create"}
# subresources whose requests carry the parent kind (converted with it to and from the request's version)
_SAME_KIND_SUBRESOURCES = ("", "status", "approval")


def not_served(info: ResourceInfo, verb: str, sub: str, served: frozenset[str], *,
               item_path: bool | None = None) -> ApiError:
    """What kube-apiserver answers for a verb a resource does not serve, as its HTTP routing decides it.

    A watch where list is served reaches the list handler, which answers ``NewMethodNotSupported`` ("watch is
    not supported on resources of kind ..."). Otherwise the verb's path (collection or item) is either
    registered for other methods (go-restful's 405: "the server does not allow this method on the requested
    resource", e.g. GET or LIST on a create-only review kind) or not registered at all (404: a named review,
    ``tokenreviews/x``, has no path). ``item_path`` overrides where the verb's path is (a POST to a named
    path)."""
    if verb == "watch" and "list" in served:
        return MethodNotAllowed.make(f'watch is not supported on resources of kind "{info.group_resource}"',
                                     group=info.group, kind=info.plural)
    if item_path is None:
        item_path = verb in _ITEM_PATH_VERBS
    if sub:
        path_verbs = _SUBRESOURCE_PATH_VERBS
    else:
        path_verbs = _ITEM_PATH_VERBS if item_path else _COLLECTION_PATH_VERBS
    if served & path_verbs:
        return MethodNotAllowed.no_route()
    return NotFound(Status(message="the server could not find the requested resource", reason=NotFound.reason,
                           code=NotFound.code, details=StatusDetails()))



def _csr_strategy(info: Any, clock: Clock) -> Any:
    """The CertificateSigningRequest strategy, with its PEM parsing and validation imported with the first CSR
    request, not with every apiserver (issue #17, cold start)."""
    from kubelite.apiserver.registry.certificates import CertificateSigningRequestStrategy

    return CertificateSigningRequestStrategy(info, clock)

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
        self.tables = ResourceTables(self.store, self.registry)
        self.authenticator = TokenAuthenticator()
        self.rbac = RBACAuthorizer()
        self.authorizer = Authorizer(self.rbac)
        self.faults = FaultInjector(rng=rng)
        self.field_manager = FieldManager()
        reader = self.tables
        limit_ranger = LimitRanger(reader)
        self.admission = AdmissionChain(
            mutating=[
                NamespaceLifecycle(reader), limit_ranger, ServiceAccountAdmission(reader), TaintNodesByCondition(),
                PriorityAdmission(reader), DefaultTolerationSeconds(), DefaultStorageClass(reader),
            ],
            # upstream's order (kube-apiserver's AllOrderedPlugins): LimitRanger early, the certificate plugins,
            # then ValidatingAdmissionPolicy; ResourceQuota is always the last plugin
            validating=[limit_ranger, CertificateApproval(self.rbac), CertificateSigning(self.rbac),
                        CertificateSubjectRestriction(),
                        ValidatingAdmissionPolicyPlugin(reader, resolve_kind=self._resolve_kind,
                                                        authorize=self.rbac.authorize),
                        ResourceQuotaAdmission(reader, update_status=self._charge_quota)],
        )
        self.crs = CustomResources(tables=self.tables, clock=clock)
        # the service REST storage's ClusterIP and NodePort allocators (pkg/registry/core/service)
        self.service_ips = ServiceIPAllocator(rng=rng)
        self.strategies = StrategySet(crs=self.crs, rbac=self.rbac, service_ips=self.service_ips)
        # the bootstrap controller keeping default/kubernetes and its endpoints (run by the cluster)
        self.kubernetes_service = KubernetesServiceController(self, clock=clock)
        # conversions of the built-in kinds served in more than their storage version
        self.scheme = builtin_scheme()
        # --event-ttl: Events expire one TTL after their last write (etcd leases)
        self.event_ttl = EventTTL(clock=clock, store=self.store,
                                  table=lambda: self.store.tables.get(("", "events")), ttl=event_ttl)
        self.strategies.register("", "events", lambda info: EventStrategy(info, self.event_ttl))
        self.strategies.register("certificates.k8s.io", "certificatesigningrequests",
                                 lambda info: _csr_strategy(info, clock))
        self.strategies.register("apiregistration.k8s.io", "apiservices",
                                 lambda info: APIServiceStrategy(info, clock, self.tables))
        self.generic_store = GenericStore(
            clock=clock, rng=rng, tables=self.tables, admission=self.admission, field_manager=self.field_manager,
            authorize=self.authorizer.authorize_implied, track_managed_fields=track_managed_fields,
        )
        self.scope = Scope(
            clock=clock, rng=rng, tables=self.tables, store=self.generic_store, strategies=self.strategies,
            decoder=Decoder(strategies=self.strategies, crs=self.crs, scheme=self.scheme), authorizer=self.authorizer,
            crs=self.crs,
        )
        self._resource_rest = ResourceREST(self.scope)
        #: component name -> is it running: what ``componentstatuses`` probes (the cluster registers its components)
        self.component_probes: dict[str, Callable[[], bool]] = {}
        scope = self.scope
        binding = _lazy_rest("binding", "BindingREST", scope)
        # REST objects other than the generic one, by (group, plural, subresource); each made, and its module
        # imported, with its first request
        self._rest: dict[tuple[str, str, str], REST] = {
            ("", "bindings", ""): _lazy_rest("binding", "LegacyBindingREST", binding),
            ("", "pods", "binding"): binding,
            ("", "pods", "eviction"): _lazy_rest("eviction", "EvictionREST", scope),
            ("", "namespaces", "finalize"): _lazy_rest("finalize", "FinalizeREST", scope),
            # built with their first request (their modules, PyJWT and cryptography load then: cold start)
            ("", "serviceaccounts", "token"): LazyREST(self._token_rest),
            ("", "componentstatuses", ""): LazyREST(self._component_status_rest),
            ("certificates.k8s.io", "certificatesigningrequests", "approval"): _lazy_rest(
                "approval", "ApprovalREST", scope),
        }
        reviews = _lazy_rest("reviews", "ReviewREST", scope, authenticator=self.authenticator, rbac=self.rbac)
        self._rest.update({(group, plural, ""): reviews for group, plural in RESOURCE_REVIEWS})
        # group/versions other API servers serve behind this one (kube-aggregator; metrics-server)
        self.aggregator = Aggregator(self.registry, self._rest)
        # subresources every kind that lists them serves the same way
        self._generic_subresources: dict[str, REST] = {"status": StatusREST(self.scope),
                                                       "scale": _lazy_rest("scale", "ScaleREST", self.scope)}
        for info in self.registry:
            self.tables.add(info)

    def _token_rest(self) -> REST:
        """TokenRequest, with the service-account token issuer the authenticator then also asks (a JWT can only
        be ours once one was issued)."""
        from kubelite.apiserver.auth.serviceaccount import TokenIssuer
        from kubelite.apiserver.rest.token import TokenREST

        issuer = TokenIssuer(rng=self.rng, now=self.clock.now, read=self.tables.read)
        self.authenticator.issuer = issuer
        return TokenREST(self.scope, issuer)

    def _component_status_rest(self) -> REST:
        from kubelite.apiserver.rest.componentstatus import ComponentStatusREST

        return ComponentStatusREST(self.scope, self.component_probes)

    @property
    def track_managed_fields(self) -> bool:
        return self.generic_store.track_managed_fields

    @track_managed_fields.setter
    def track_managed_fields(self, value: bool) -> None:
        self.generic_store.track_managed_fields = value

    # --- resources and tables ---
    def add_resource(self, info: ResourceInfo, *, selectable_fields: tuple[str, ...] = ()) -> Table:
        return self.tables.add(info, selectable_fields=selectable_fields)

    def remove_resource(self, group: str, plural: str) -> None:
        self.tables.remove(group, plural)

    def resource(self, group: str, plural: str) -> ResourceInfo:
        return self.tables.resource(group, plural)

    def table(self, info: ResourceInfo) -> Table:
        return self.tables.table(info)

    def schema(self, info: ResourceInfo) -> Schema | None:
        return self.strategies.for_resource(info).schema()

    def rest(self, info: ResourceInfo, subresource: str) -> REST:
        """The REST object serving ``<resource>[/<subresource>]`` (404 if there is none)."""
        rest = self._rest.get((info.group, info.plural, subresource))
        if rest is not None:
            return rest
        if not subresource:
            return self._resource_rest
        if subresource in info.subresources:
            generic = self._generic_subresources.get(subresource)
            if generic is not None:
                return generic
        raise NotFound.make("the server could not find the requested resource")

    def _resolve_kind(self, api_version: str, kind: str) -> tuple[str, str, bool] | None:
        """A policy's ``paramKind`` as (group, plural, namespaced), None if no served resource has it."""
        try:
            info = self.registry.by_kind(api_version, kind)
        except KeyError:
            return None
        return info.group, info.plural, info.namespaced

    async def _charge_quota(self, quota: dict[str, Any]) -> None:
        """ResourceQuota admission's charge: the quota's status update (with its resourceVersion) as the
        loopback client, through this pipeline (upstream's quotaAccessor.UpdateQuotaStatus)."""
        meta = quota["metadata"]
        await self.update(LOOPBACK, "", "resourcequotas", meta["namespace"], meta["name"],
                          msgspec.json.decode(msgspec.json.encode(quota)), subresource="status",
                          field_manager="kube-apiserver")

    # --- ObjectReader for admission plugins ---
    def read(self, group: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.tables.read(group, plural, namespace, name)

    def read_all(self, group: str, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.tables.read_all(group, plural, namespace)

    # --- the request entry point ---
    async def handle(self, req: Request) -> Any:
        """Serve one request (see the module docstring): Response, ListResponse or Watcher, or ApiError.

        Anything else a request raises is a bug, and is answered as upstream's panic recovery does
        (``WithPanicRecovery``): a 500 InternalError whose ``__cause__`` is the original exception (also
        logged), never a raw exception. Cancellation passes through."""
        try:
            info = self.tables.resource(req.group, req.resource)
            verb, sub = req.verb, req.subresource
            namespace = req.namespace if info.namespaced else ""
            if namespace != req.namespace:
                req = _with(req, namespace=namespace)
            self.faults.check(verb, info.group, info.plural, namespace, req.name, user=req.user.name,
                              subresource=sub)
            if info.namespaced and not namespace and verb not in _COLLECTION_VERBS:
                raise BadRequest.make("the namespace of the provided object is empty")
            # a create names no object: the name is the body's, not the request's (RequestInfo has none)
            authz_name = "" if verb == "create" and not sub else req.name
            self.authorizer.authorize(req.user, verb, info, sub, namespace, authz_name)
            rest = self.rest(info, sub)
            if type(req.body) is bytes and not (verb == "create" and rest is self._resource_rest):
                req = _with(req, body=_decode(req.body))  # (only the main resource's create takes JSON bytes)
            served = rest.verbs(info)
            if verb not in served:
                raise not_served(info, verb, sub, served)
            version = req.version
            if not version or version == info.version or not info.builtin:
                return await getattr(rest, method_name(verb))(info, req)
            if version not in info.served_versions:
                raise NotFound.make("the server could not find the requested resource")
            if sub in _SAME_KIND_SUBRESOURCES:
                return self._in_version(info, version, await getattr(rest, method_name(verb))(info, req))
            # subresources of their own kind (scale, binding, eviction) read and answer in that kind
            return await getattr(rest, method_name(verb))(info, _with(req, version=""))
        except ApiError:
            raise
        except Exception as e:
            log.error("apiserver_internal_error", verb=req.verb, group=req.group, resource=req.resource,
                      subresource=req.subresource, namespace=req.namespace, name=req.name, exc_info=True)
            raise InternalError.make(f"Internal error occurred: {e!s}", causes=[StatusCause(message=str(e))]) from e

    def _in_version(self, info: ResourceInfo, version: str, result: Any) -> Any:
        """A handler's result (storage version) as ``version`` serves it: the written or read object, each
        list item, each watch event (upstream's handlers encode through the request's version codec)."""
        scheme = self.scheme
        if not scheme.converts(info, version):
            return result
        api_version = f"{info.group}/{version}" if info.group else version
        if isinstance(result, Response):
            result.data = scheme.encode_for(info, result.data, version)
        elif isinstance(result, ListResponse):
            result.items = [scheme.encode_for(info, d, version) for d in result.items]
            result.api_version = api_version
        elif isinstance(result, Watcher):
            # converted once per event and version, shared by every watcher of that version (cachingObject)
            key = ("convert", info.group, info.kind, version)
            result.transform = lambda ev: ev.cache_encode(key, lambda e: scheme.event_for(info, e, version))
        return result

    # --- the verbs, as the in-process client calls them ---
    async def create(
        self, user: UserInfo, group: str, plural: str, namespace: str, body: dict[str, Any] | bytes, *,
        subresource: str = "", name: str = "", dry_run: bool = False, field_manager: str | None = None,
        field_validation: str | None = None, version: str = "",
    ) -> Response:
        """POST. ``body`` becomes the apiserver's private copy: a fresh dict, or the JSON bytes of one (what
        the client hands over, as an HTTP client does; see ``handlers/create.py``).
        ``version`` (every verb): the API version of the request ("" for the storage version)."""
        resp: Response = await self.handle(Request(
            verb="create", group=group, resource=plural, version=version, namespace=namespace, name=name, subresource=subresource,
            body=body, user=user,
            options=Options(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        ))
        return resp

    async def get(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, *, subresource: str = "",
        version: str = "",
    ) -> Response:
        resp: Response = await self.handle(Request(
            verb="get", group=group, resource=plural, version=version, namespace=namespace, name=name, subresource=subresource,
            user=user,
        ))
        return resp

    async def list(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, resource_version: str | None = None,
        resource_version_match: str | None = None, limit: int | None = None, continue_: str | None = None,
        version: str = "",
    ) -> ListResponse:
        resp: ListResponse = await self.handle(Request(
            verb="list", group=group, resource=plural, version=version, namespace=namespace, user=user, options=Options(
                label_selector=label_selector, field_selector=field_selector, resource_version=resource_version,
                resource_version_match=resource_version_match, limit=limit, continue_=continue_,
            ),
        ))
        return resp

    async def watch(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, resource_version: str | None = None, allow_bookmarks: bool = False,
        send_initial_events: bool | None = None, timeout_seconds: float | None = None,
        capacity: int | None = None, version: str = "",
    ) -> Watcher:
        w: Watcher = await self.handle(Request(
            verb="watch", group=group, resource=plural, version=version, namespace=namespace, user=user, options=Options(
                label_selector=label_selector, field_selector=field_selector, resource_version=resource_version,
                allow_bookmarks=allow_bookmarks, send_initial_events=send_initial_events,
                timeout_seconds=timeout_seconds, capacity=capacity,
            ),
        ))
        return w

    async def update(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, body: dict[str, Any], *,
        subresource: str = "", dry_run: bool = False, field_manager: str | None = None,
        field_validation: str | None = None, version: str = "",
    ) -> Response:
        resp: Response = await self.handle(Request(
            verb="update", group=group, resource=plural, version=version, namespace=namespace, name=name, subresource=subresource,
            body=body, user=user,
            options=Options(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        ))
        return resp

    async def patch(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, patch: Any, patch_type: str, *,
        subresource: str = "", dry_run: bool = False, field_manager: str | None = None, force: bool | None = None,
        field_validation: str | None = None, version: str = "",
    ) -> Response:
        resp: Response = await self.handle(Request(
            verb="patch", group=group, resource=plural, version=version, namespace=namespace, name=name, subresource=subresource,
            body=patch, user=user, options=Options(
                patch_type=patch_type, dry_run=dry_run, field_manager=field_manager, force=force,
                field_validation=field_validation,
            ),
        ))
        return resp

    async def delete(
        self, user: UserInfo, group: str, plural: str, namespace: str, name: str, *,
        grace_period_seconds: int | None = None, propagation_policy: str | None = None,
        preconditions: dict[str, Any] | None = None, dry_run: bool = False, version: str = "",
    ) -> Response:
        resp: Response = await self.handle(Request(
            verb="delete", group=group, resource=plural, version=version, namespace=namespace, name=name, user=user, options=Options(
                grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                preconditions=preconditions, dry_run=dry_run,
            ),
        ))
        return resp

    async def delete_collection(
        self, user: UserInfo, group: str, plural: str, namespace: str = "", *, label_selector: str | None = None,
        field_selector: str | None = None, grace_period_seconds: int | None = None,
        propagation_policy: str | None = None, dry_run: bool = False,
    ) -> ListResponse:
        resp: ListResponse = await self.handle(Request(
            verb="deletecollection", group=group, resource=plural, namespace=namespace, user=user, options=Options(
                label_selector=label_selector, field_selector=field_selector,
                grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy, dry_run=dry_run,
            ),
        ))
        return resp

    # --- housekeeping ---
    def seed(self, info: ResourceInfo, obj: dict[str, Any]) -> None:
        """Store a bootstrap object as is (the cluster's built-in RBAC policy and priority classes, which
        kube-apiserver's post-start hooks create) and run its strategy's after-write hook. Stored as Go's JSON
        prints it (``omitempty``: the core group's APIService has no ``spec.group``)."""
        self.store.create(self.tables.table(info), omit_empty(obj, info.api_version, info.kind))
        self.strategies.for_resource(info).after_write(obj, None)

    def local_apiservices(self) -> tuple[dict[str, Any], ...]:
        """The APIServices kube-apiserver's autoregister controller creates at start: one per built-in
        group/version served (the cluster seeds them with the bootstrap objects)."""
        gvs: builtins.list[tuple[str, str]] = []
        for info in self.registry:
            if not info.builtin:
                continue
            for v in (info.version, *info.served_versions):
                if (info.group, v) not in gvs:
                    gvs.append((info.group, v))
        return tuple(local_apiservices(gvs, self.clock.timestamp()))

    def send_bookmarks(self) -> None:
        """Send BOOKMARK events to every watcher that allows them (the cluster calls this periodically)."""
        for (group, plural), table in self.tables.items():
            if table.watchers or table.pinned:
                info = self.registry.by_resource(group, plural)
                self.store.bookmark(table, bookmark_fn(info))

    def compact(self, revision: int | None = None) -> int:
        return self.store.compact(revision)


def _lazy_rest(module: str, cls: str, *args: Any, **kwargs: Any) -> LazyREST:
    """``kubelite.apiserver.rest.<module>.<cls>(*args, **kwargs)``, made with its endpoint's first request."""
    return LazyREST(lambda: getattr(importlib.import_module(f"kubelite.apiserver.rest.{module}"), cls)(*args,
                                                                                                      **kwargs))


def _with(req: Request, **changes: Any) -> Request:
    return msgspec.structs.replace(req, **changes)
