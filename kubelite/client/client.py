"""The in-process async client, shaped like lightkube's ``AsyncClient``.

This is the only way components reach the apiserver. Contract:
- **Typed when given a Struct.** ``create(pod)`` returns a new ``Pod``; ``get(Pod, "x")`` returns a
  ``Pod``. A resource named by string (``"pods"``, ``"deploy"``, ``"widgets.example.com"``) or given
  as a dict returns dicts: that is how custom resources are used.
- **Copies both ways.** The object you pass is never modified or retained; the object you get back is
  yours. Nothing you do to it changes the cluster.
- **Errors are raised, typed.** Every rejection raises a subclass of :class:`kubelite.errors.ApiError`
  carrying the Kubernetes ``Status``. Warnings (unknown fields with ``fieldValidation=Warn``) are kept
  in :attr:`Client.warnings`.
- ``as_user`` / ``with_token`` give a client acting as someone else (RBAC applies to them).
- **Shared views, for the control plane only.** A client made with :meth:`Client.sharing_decodes` (the
  cluster's components get one) lets its informers ask for ``shared=True`` lists and watches: objects
  are then the one read-only view per stored version that every such informer shares (see
  :mod:`kubelite.api.views`). Every other read, and every read of any other client, is a private copy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import msgspec

from kubelite.api import jsonsafe
from kubelite.api.codec import json_decoder
from kubelite.api.labels import selector_from_label_selector
from kubelite.api.resources import ResourceInfo
from kubelite.api.views import shared_view
from kubelite.apiserver.auth.impersonation import impersonate
from kubelite.apiserver.auth.user import ADMIN, UserInfo
from kubelite.errors import BadRequest, Expired, NotFound
from kubelite.perturb import Perturber
from kubelite.store.watch import BOOKMARK, ERROR, Watcher, WatchEvent

if TYPE_CHECKING:
    from kubelite.apiserver.server import ApiServer

__all__ = ["CascadeType", "Client", "ObjectList", "PatchType", "WatchStream", "ignore_not_found"]

T = TypeVar("T", bound=msgspec.Struct)
R = TypeVar("R")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode

_decoder = json_decoder


class PatchType:
    """Patch content types, as lightkube names them."""

    JSON = "json"
    MERGE = "merge"
    STRATEGIC = "strategic"
    APPLY = "apply"


class CascadeType:
    """Deletion propagation policies."""

    ORPHAN = "Orphan"
    BACKGROUND = "Background"
    FOREGROUND = "Foreground"


ResourceRef = type | str | tuple[str, str] | ResourceInfo


class ObjectList(msgspec.Struct, kw_only=True):
    """One page of a list: the items plus the list's resourceVersion and continue token."""

    items: list[Any]
    resource_version: str
    continue_: str | None = None
    remaining_item_count: int | None = None


class WatchStream:
    """A raw watch: yields ``(type, object, resourceVersion)`` including BOOKMARKs.

    Ends when the server closes the watch; :attr:`close_reason` then says why ("timeout", "too slow",
    "closed by fault injection", ...). Use it as a context manager to stop it.
    """

    def __init__(self, watcher: Watcher, decode: Any) -> None:
        self._watcher = watcher
        self._decode = decode

    @property
    def close_reason(self) -> str:
        """Why the server closed the watch ("timeout", "too slow", ...); empty while open."""
        return self._watcher.close_reason

    @property
    def closed(self) -> bool:
        """Whether the watch has ended."""
        return self._watcher.closed

    def stop(self) -> None:
        """Close the watch (client-go ``watch.Interface.Stop``)."""
        self._watcher.close("stopped")

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __aiter__(self) -> WatchStream:
        return self

    async def __anext__(self) -> tuple[str, Any, str]:
        # a plain async iterator rather than an async generator: a consumer cancelled mid-iteration leaves
        # no suspended generator for the event loop to finalize at shutdown
        ev = await self._watcher.next()
        if ev is None:
            raise StopAsyncIteration
        return ev.type, self._decode(ev), str(ev.rv)

    def poll(self) -> tuple[str, Any, str] | None:
        """The next event if one is buffered, else None (never waits)."""
        ev = self._watcher.poll()
        if ev is None:
            return None
        return ev.type, self._decode(ev), str(ev.rv)


def _meta_of(obj: Any) -> dict[str, Any] | None:
    """What :meth:`Client._ns` reads of an object to create: its metadata's namespace (read, not copied)."""
    if isinstance(obj, msgspec.Struct):
        ns = getattr(getattr(obj, "metadata", None), "namespace", None)
        return {"metadata": {"namespace": ns}}
    return obj if isinstance(obj, dict) else None


class Client:
    """See the module docstring. Build one with ``cluster.client`` or ``cluster.client_as(...)``."""

    def __init__(
        self, server: ApiServer, *, user: UserInfo = ADMIN, field_manager: str | None = None,
        namespace: str = "default", perturber: Perturber | None = None,
    ) -> None:
        """``perturber``: a seeded decision source asked before and after every request (see
        :mod:`kubelite.perturb`); clients derived from this one share it."""
        if perturber is not None:
            from kubelite.client.perturbed import PerturbedServer

            server = PerturbedServer(server, perturber)  # type: ignore[assignment]
        self._server = server
        self.user = user
        self.field_manager = field_manager
        self.namespace = namespace
        self.warnings: list[str] = []
        #: whether ``shared=True`` reads (informers) get the shared read-only views (control plane only)
        self.shares_decodes = False

    # --- identities ---
    def as_user(self, name: str, groups: Sequence[str] = (), *, uid: str = "") -> Client:
        """A client acting as ``name`` in ``groups`` (plus ``system:authenticated``).

        Impersonation is authorized as upstream's filter does it: this client's user needs the
        ``impersonate`` verb on the user (or service account), each group and the uid (403 otherwise)."""
        user = impersonate(self._server.rbac, self.user, name, tuple(groups), uid=uid)
        return self._derive(Client(self._server, user=user, field_manager=self.field_manager,
                                   namespace=self.namespace))

    def with_token(self, token: str | None) -> Client:
        """A client authenticated by a bearer token (401 Unauthorized if the token is unknown)."""
        user = self._server.authenticator.authenticate(token)
        return self._derive(Client(self._server, user=user, field_manager=self.field_manager,
                                   namespace=self.namespace))

    def with_field_manager(self, field_manager: str) -> Client:
        """A client writing as field manager ``field_manager`` (server-side apply and managedFields)."""
        return self._derive(Client(self._server, user=self.user, field_manager=field_manager,
                                   namespace=self.namespace))

    def sharing_decodes(self) -> Client:
        """This client, letting its informers share one read-only object per stored version with every other
        sharing informer (:mod:`kubelite.api.views`). For the control plane's components, which never mutate
        what an informer hands them (client-go's contract); clients derived from it share too."""
        c = Client(self._server, user=self.user, field_manager=self.field_manager, namespace=self.namespace)
        c.shares_decodes = True
        return c

    def _derive(self, c: Client) -> Client:
        c.shares_decodes = self.shares_decodes
        return c

    # --- resource resolution ---
    def _info(self, ref: ResourceRef) -> ResourceInfo:
        try:
            return self._server.registry.lookup(ref)
        except KeyError as e:
            raise BadRequest.make(f"unknown resource {ref!r}: {e.args[0] if e.args else ''}") from None

    def resource_info(self, ref: ResourceRef) -> ResourceInfo:
        """What a resource reference names (a Struct class, ``"pods"``, ``"deploy"``,
        ``"widgets.example.com"``, an ``(apiVersion, kind)`` pair): kind, plural, group, scope. A name
        that matches nothing raises ``BadRequest`` saying so."""
        return self._info(ref)

    def _info_of(self, obj: Any) -> ResourceInfo:
        if isinstance(obj, msgspec.Struct):
            return self._info(type(obj))
        if isinstance(obj, dict):
            av, kind = obj.get("apiVersion"), obj.get("kind")
            if not av or not kind:
                raise BadRequest.make("Object 'Kind' is missing in the object: apiVersion and kind are required")
            try:
                return self._server.registry.by_kind(av, kind)
            except KeyError:
                raise BadRequest.make(f'no matches for kind "{kind}" in version "{av}"') from None
        raise TypeError(f"expected a kubelite API Struct or a dict, got {type(obj).__name__}")

    @staticmethod
    def _body(obj: Any) -> dict[str, Any]:
        """A private deep copy of ``obj`` as JSON data."""
        if isinstance(obj, msgspec.Struct):
            return msgspec.to_builtins(obj)  # type: ignore[no-any-return]
        try:
            return _decode(jsonsafe.encode(obj))  # type: ignore[no-any-return]
        except RecursionError:
            raise BadRequest.make(str(jsonsafe.TooDeep())) from None

    def _ns(self, info: ResourceInfo, namespace: str | None, obj: dict[str, Any] | None = None) -> str:
        if not info.namespaced:
            return ""
        if namespace:
            return namespace
        if obj is not None:
            ns = (obj.get("metadata") or {}).get("namespace")
            if ns:
                return str(ns)
        return self.namespace

    @staticmethod
    def _result_type(ref: Any, info: ResourceInfo) -> type | None:
        if isinstance(ref, type) and issubclass(ref, msgspec.Struct):
            return ref
        if isinstance(ref, msgspec.Struct) and not isinstance(ref, ResourceInfo):
            return type(ref)  # an object passed in: results come back as its type
        return None

    def _out(self, data: bytes, cls: type | None) -> Any:
        return _decoder(cls).decode(data) if cls is not None else _decode(data)

    def _note(self, warnings: list[str]) -> None:
        if warnings:
            self.warnings.extend(warnings)

    # --- verbs ---
    @overload
    async def create(self, obj: T, *, namespace: str | None = ..., field_manager: str | None = ...,
                     dry_run: bool = ..., field_validation: str | None = ...) -> T: ...
    @overload
    async def create(self, obj: dict[str, Any], *, namespace: str | None = ..., field_manager: str | None = ...,
                     dry_run: bool = ..., field_validation: str | None = ...) -> dict[str, Any]: ...

    async def create(
        self, obj: Any, *, namespace: str | None = None, field_manager: str | None = None, dry_run: bool = False,
        field_validation: str | None = None,
    ) -> Any:
        """POST a new object (lightkube ``create``); returns it as stored, typed like ``obj``. Raises
        ``AlreadyExists`` (409), ``Invalid`` (422), ``Forbidden`` (403), ... ``field_validation``:
        ``"Strict"``, ``"Warn"`` (default: warnings land in :attr:`warnings`) or ``"Ignore"``."""
        info = self._info_of(obj)
        # the copy handed over is the body's JSON, as an HTTP client sends it: the apiserver decodes what it
        # needs of it (a pod from a template it has seen: the metadata only)
        try:
            body = jsonsafe.encode(obj)
        except RecursionError:
            raise BadRequest.make(str(jsonsafe.TooDeep())) from None
        resp = await self._server.create(
            self.user, info.group, info.plural, self._ns(info, namespace, _meta_of(obj)), body, dry_run=dry_run,
            field_manager=field_manager or self.field_manager, field_validation=field_validation, **_version(info),
        )
        self._note(resp.warnings)
        return self._out(resp.data, self._result_type(obj, info))

    @overload
    async def get(self, res: type[T], name: str, *, namespace: str | None = ...,
                  subresource: Literal[""] = ...) -> T: ...
    @overload
    async def get(self, res: str | tuple[str, str] | ResourceInfo, name: str, *, namespace: str | None = ...,
                  subresource: str = ...) -> dict[str, Any]: ...
    @overload
    async def get(self, res: type, name: str, *, namespace: str | None = ..., subresource: str = ...) -> Any: ...

    async def get(self, res: ResourceRef, name: str, *, namespace: str | None = None, subresource: str = "") -> Any:
        """GET one object (lightkube ``get``; ``kubectl get RES NAME``). ``res`` is a Struct class (the
        result is that class), a name kubectl takes (``"pods"``, ``"deploy"``, ``"widgets.example.com"``:
        a dict), an ``(apiVersion, kind)`` pair or a ``ResourceInfo``. ``subresource="scale"`` returns a
        ``Scale`` (a dict for string names); ``"status"`` the object. Raises ``NotFound`` (404)."""
        info = self._info(res)
        resp = await self._server.get(self.user, info.group, info.plural, self._ns(info, namespace), name,
                                      subresource=subresource, **_version(info))
        if subresource == "scale":
            from kubelite.api.types import Scale

            return self._out(resp.data, Scale if self._result_type(res, info) is not None else None)
        return self._out(resp.data, self._result_type(res, info))

    async def list_page(
        self, res: ResourceRef, *, namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, resource_version: str | None = None,
        resource_version_match: str | None = None, limit: int | None = None, continue_: str | None = None,
        all_namespaces: bool = False, shared: bool = False,
    ) -> ObjectList:
        """One page of a list with its resourceVersion (what a Reflector needs). ``shared``: an informer's
        read; items are the shared read-only views if this client :attr:`shares_decodes`."""
        info = self._info(res)
        ns = "" if all_namespaces or namespace == "*" else self._ns(info, namespace)
        resp = await self._server.list(
            self.user, info.group, info.plural, ns, label_selector=_label_str(labels),
            field_selector=_field_str(fields), resource_version=resource_version,
            resource_version_match=resource_version_match, limit=limit, continue_=continue_, **_version(info),
        )
        dec = self._reader(self._result_type(res, info), shared)
        return ObjectList(items=[dec(d) for d in resp.items], resource_version=resp.resource_version,
                          continue_=resp.continue_, remaining_item_count=resp.remaining_item_count)

    @overload
    async def list(
        self, res: type[T], *, namespace: str | None = ..., labels: str | dict[str, Any] | None = ...,
        fields: str | dict[str, str] | None = ..., chunk_size: int | None = ..., all_namespaces: bool = ...,
    ) -> list[T]: ...
    @overload
    async def list(
        self, res: str | tuple[str, str] | ResourceInfo, *, namespace: str | None = ...,
        labels: str | dict[str, Any] | None = ..., fields: str | dict[str, str] | None = ...,
        chunk_size: int | None = ..., all_namespaces: bool = ...,
    ) -> list[dict[str, Any]]: ...

    async def list(
        self, res: ResourceRef, *, namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, chunk_size: int | None = None, all_namespaces: bool = False,
    ) -> list[Any]:
        """Every matching object, following continue tokens (lightkube ``list``). ``namespace="*"`` or
        ``all_namespaces=True`` lists every namespace; ``labels``/``fields`` are selectors (strings or
        ``{key: value}`` maps; ``labels`` also takes a LabelSelector's ``matchLabels``/``matchExpressions``)."""
        out: list[Any] = []
        cont: str | None = None
        while True:
            page = await self.list_page(res, namespace=namespace, labels=labels, fields=fields, limit=chunk_size,
                                        continue_=cont, all_namespaces=all_namespaces)
            out.extend(page.items)
            cont = page.continue_
            if not cont:
                return out

    async def open_watch(
        self, res: ResourceRef, *, namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, resource_version: str | None = None,
        allow_bookmarks: bool = False, send_initial_events: bool | None = None, timeout_seconds: float | None = None,
        all_namespaces: bool = False, capacity: int | None = None, shared: bool = False,
    ) -> WatchStream:
        """A raw watch (see :class:`WatchStream`). Raises 410 Expired for a compacted resourceVersion.
        ``shared``: as for :meth:`list_page` (an informer's watch)."""
        info = self._info(res)
        ns = "" if all_namespaces or namespace == "*" else self._ns(info, namespace)
        w = await self._server.watch(
            self.user, info.group, info.plural, ns, label_selector=_label_str(labels),
            field_selector=_field_str(fields), resource_version=resource_version, allow_bookmarks=allow_bookmarks,
            send_initial_events=send_initial_events, timeout_seconds=timeout_seconds, capacity=capacity,
            **_version(info),
        )
        dec = self._reader(self._result_type(res, info), shared)

        def decode(ev: WatchEvent) -> Any:
            return dec(ev.data)

        return WatchStream(w, decode)

    def _reader(self, cls: type | None, shared: bool) -> Any:
        """bytes -> object: the shared view for a sharing informer, else a private decode."""
        if shared and self.shares_decodes:
            return lambda data: shared_view(data, cls)
        return _decoder(cls).decode if cls is not None else _decode

    @overload
    def watch(
        self, res: type[T], *, namespace: str | None = ..., labels: str | dict[str, Any] | None = ...,
        fields: str | dict[str, str] | None = ..., resource_version: str | None = ..., all_namespaces: bool = ...,
    ) -> AsyncIterator[tuple[str, T]]: ...
    @overload
    def watch(
        self, res: str | tuple[str, str] | ResourceInfo, *, namespace: str | None = ...,
        labels: str | dict[str, Any] | None = ..., fields: str | dict[str, str] | None = ...,
        resource_version: str | None = ..., all_namespaces: bool = ...,
    ) -> AsyncIterator[tuple[str, dict[str, Any]]]: ...

    async def watch(
        self, res: ResourceRef, *, namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, resource_version: str | None = None,
        all_namespaces: bool = False,
    ) -> AsyncIterator[tuple[str, Any]]:
        """``(type, object)`` pairs forever, re-watching from the last seen revision when the server
        closes the watch (like lightkube). A 410 Expired is raised: relist and watch again."""
        rv = resource_version
        while True:
            stream = await self.open_watch(res, namespace=namespace, labels=labels, fields=fields,
                                           resource_version=rv, allow_bookmarks=True, all_namespaces=all_namespaces)
            with stream:
                async for typ, obj, ev_rv in stream:
                    rv = ev_rv
                    if typ in (BOOKMARK, ERROR):
                        continue
                    yield typ, obj
            if rv is None:
                raise Expired.make("watch closed before any event")

    @overload
    async def replace(
        self, obj: T, *, name: str | None = ..., namespace: str | None = ..., field_manager: str | None = ...,
        dry_run: bool = ..., subresource: str = ..., field_validation: str | None = ...,
        resource: ResourceRef | None = ...,
    ) -> T: ...
    @overload
    async def replace(
        self, obj: dict[str, Any], *, name: str | None = ..., namespace: str | None = ...,
        field_manager: str | None = ..., dry_run: bool = ..., subresource: str = ...,
        field_validation: str | None = ..., resource: ResourceRef | None = ...,
    ) -> dict[str, Any]: ...

    async def replace(
        self, obj: Any, *, name: str | None = None, namespace: str | None = None, field_manager: str | None = None,
        dry_run: bool = False, subresource: str = "", field_validation: str | None = None,
        resource: ResourceRef | None = None,
    ) -> Any:
        """PUT: the whole object (its metadata.resourceVersion, if set, is a precondition). ``resource`` names the
        resource when ``obj`` is of another kind than the one written (a ``Scale`` PUT to ``<resource>/scale``)."""
        info = self._info(resource) if resource is not None else self._info_of(obj)
        return await self._replace(info, obj, self._body(obj), name=name, namespace=namespace,
                                   field_manager=field_manager, dry_run=dry_run, subresource=subresource,
                                   field_validation=field_validation)

    async def replace_owned(self, obj: dict[str, Any], *, namespace: str | None = None) -> dict[str, Any]:
        """PUT ``obj`` as :meth:`replace` does, without the private copy :meth:`replace` makes first (an encode
        and a decode per write): ``obj`` is the request's body as it is. The apiserver decodes a built-in kind's
        body into an object of its own (it normalises only ``apiVersion`` and ``kind`` in place, and a retry
        decodes the same body again), but works on a custom resource's body in place, so pass only a built-in
        kind's object that nothing else holds. For a component that PUTs the object its previous write
        returned, decoded privately for it: the kubelet renewing its Lease (client-go's lease controller PUTs
        ``latestLease``)."""
        return await self._replace(self._info_of(obj), obj, obj, namespace=namespace)  # type: ignore[no-any-return]

    async def _replace(
        self, info: ResourceInfo, obj: Any, body: dict[str, Any], *, name: str | None = None,
        namespace: str | None = None, field_manager: str | None = None, dry_run: bool = False,
        subresource: str = "", field_validation: str | None = None,
    ) -> Any:
        name = name or (body.get("metadata") or {}).get("name") or ""
        resp = await self._server.update(
            self.user, info.group, info.plural, self._ns(info, namespace, body), name, body, subresource=subresource,
            dry_run=dry_run, field_manager=field_manager or self.field_manager, field_validation=field_validation,
            **_version(info),
        )
        self._note(resp.warnings)
        return self._out(resp.data, self._result_type(obj, info))

    @overload
    async def replace_status(self, obj: T, **kw: Any) -> T: ...
    @overload
    async def replace_status(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]: ...

    async def replace_status(self, obj: Any, **kw: Any) -> Any:
        """PUT the status subresource (``replace(obj, subresource="status")``)."""
        return await self.replace(obj, subresource="status", **kw)

    @overload
    async def patch(
        self, res: type[T], name: str, patch: Any, *, namespace: str | None = ..., patch_type: str = ...,
        field_manager: str | None = ..., force: bool | None = ..., dry_run: bool = ...,
        subresource: Literal["", "status"] = ..., field_validation: str | None = ...,
    ) -> T: ...
    @overload
    async def patch(
        self, res: str | tuple[str, str] | ResourceInfo, name: str, patch: Any, *, namespace: str | None = ...,
        patch_type: str = ..., field_manager: str | None = ..., force: bool | None = ..., dry_run: bool = ...,
        subresource: str = ..., field_validation: str | None = ...,
    ) -> dict[str, Any]: ...
    @overload
    async def patch(
        self, res: type, name: str, patch: Any, *, namespace: str | None = ..., patch_type: str = ...,
        field_manager: str | None = ..., force: bool | None = ..., dry_run: bool = ..., subresource: str = ...,
        field_validation: str | None = ...,
    ) -> Any: ...

    async def patch(
        self, res: ResourceRef, name: str, patch: Any, *, namespace: str | None = None,
        patch_type: str = PatchType.STRATEGIC, field_manager: str | None = None, force: bool | None = None,
        dry_run: bool = False, subresource: str = "", field_validation: str | None = None,
    ) -> Any:
        """PATCH one object (lightkube ``patch``). ``patch_type``: ``"strategic"`` (default), ``"merge"``
        (RFC 7386), ``"json"`` (RFC 6902) or ``"apply"`` (server-side apply: ``field_manager`` required,
        ``force`` takes over conflicting fields). The result is typed like :meth:`get`'s."""
        info = self._info(res)
        data = await self._patch(info, name, patch, namespace=namespace, patch_type=patch_type,
                                 field_manager=field_manager, force=force, dry_run=dry_run, subresource=subresource,
                                 field_validation=field_validation)
        if subresource == "scale":
            from kubelite.api.types import Scale

            return self._out(data, Scale if self._result_type(res, info) is not None else None)
        return self._out(data, self._result_type(res, info))

    async def _patch(
        self, info: ResourceInfo, name: str, patch: Any, *, namespace: str | None, patch_type: str,
        field_manager: str | None = None, force: bool | None = None, dry_run: bool = False, subresource: str = "",
        field_validation: str | None = None,
    ) -> bytes:
        resp = await self._server.patch(
            self.user, info.group, info.plural, self._ns(info, namespace), name, self._body(patch), patch_type,
            subresource=subresource, dry_run=dry_run, field_manager=field_manager or self.field_manager,
            force=force, field_validation=field_validation, **_version(info),
        )
        self._note(resp.warnings)
        return resp.data

    async def patch_status(self, res: ResourceRef, name: str, patch: Any, **kw: Any) -> Any:
        """PATCH the status subresource (``patch(..., subresource="status")``)."""
        return await self.patch(res, name, patch, subresource="status", **kw)

    async def patch_status_unread(
        self, res: ResourceRef, name: str, patch: Any, *, namespace: str | None = None,
        patch_type: str = PatchType.STRATEGIC,
    ) -> None:
        """:meth:`patch_status` for a writer that never reads the result: the same request (it succeeds or
        raises the same ``ApiError``), without decoding the object the server answers with. For a component
        whose informer brings it the written object anyway: the kubelet's status manager and its Node status
        reports (a pod's answer is a whole Pod, ~4 KiB of JSON, decoded only to be dropped)."""
        await self._patch(self._info(res), name, patch, namespace=namespace, patch_type=patch_type,
                          subresource="status")

    @overload
    async def apply(
        self, obj: T, *, name: str | None = ..., namespace: str | None = ..., field_manager: str | None = ...,
        force: bool = ..., dry_run: bool = ..., subresource: str = ..., field_validation: str | None = ...,
    ) -> T: ...
    @overload
    async def apply(
        self, obj: dict[str, Any], *, name: str | None = ..., namespace: str | None = ...,
        field_manager: str | None = ..., force: bool = ..., dry_run: bool = ..., subresource: str = ...,
        field_validation: str | None = ...,
    ) -> dict[str, Any]: ...

    async def apply(
        self, obj: Any, *, name: str | None = None, namespace: str | None = None, field_manager: str | None = None,
        force: bool = False, dry_run: bool = False, subresource: str = "", field_validation: str | None = None,
    ) -> Any:
        """Server-side apply (``kubectl apply --server-side``). ``field_manager`` is required."""
        info = self._info_of(obj)
        body = self._body(obj)
        name = name or (body.get("metadata") or {}).get("name") or ""
        resp = await self._server.patch(
            self.user, info.group, info.plural, self._ns(info, namespace, body), name, body, PatchType.APPLY,
            subresource=subresource, dry_run=dry_run, field_manager=field_manager or self.field_manager,
            force=force, field_validation=field_validation, **_version(info),
        )
        self._note(resp.warnings)
        return self._out(resp.data, self._result_type(obj, info))

    async def delete(
        self, res: ResourceRef, name: str, *, namespace: str | None = None, grace_period: int | None = None,
        cascade: str | None = None, preconditions: dict[str, Any] | None = None, dry_run: bool = False,
    ) -> None:
        """DELETE one object (lightkube ``delete``): graceful for pods (``grace_period``), ``cascade`` picks the
        propagation policy (``Background`` default, ``Foreground``, ``Orphan``), ``preconditions`` a
        uid/resourceVersion; with finalizers the object only gets a ``deletionTimestamp``."""
        info = self._info(res)
        await self._server.delete(
            self.user, info.group, info.plural, self._ns(info, namespace), name, grace_period_seconds=grace_period,
            propagation_policy=cascade, preconditions=preconditions, dry_run=dry_run,
        )

    async def delete_collection(
        self, res: ResourceRef, *, namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, grace_period: int | None = None, cascade: str | None = None,
        dry_run: bool = False,
    ) -> None:
        """DELETE every matching object (``deletecollection``; ``kubectl delete RES --all``/``-l``)."""
        info = self._info(res)
        await self._server.delete_collection(
            self.user, info.group, info.plural, self._ns(info, namespace), label_selector=_label_str(labels),
            field_selector=_field_str(fields), grace_period_seconds=grace_period, propagation_policy=cascade,
            dry_run=dry_run,
        )

    deletecollection = delete_collection

    async def create_subresource(
        self, res: ResourceRef, name: str, subresource: str, body: Any, *, namespace: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """POST to a subresource such as ``pods/binding`` or ``pods/eviction``."""
        info = self._info(res)
        payload = self._body(body)
        resp = await self._server.create(
            self.user, info.group, info.plural, self._ns(info, namespace), payload, subresource=subresource,
            name=name, dry_run=dry_run, field_manager=self.field_manager,
        )
        return _decode(resp.data)  # type: ignore[no-any-return]

    async def bind(self, namespace: str, pod: str, node: str, *, uid: str | None = None) -> None:
        """Create a ``pods/binding`` (what the scheduler's DefaultBinder does). ``uid``: the pod's, a
        precondition (DefaultBinder sends it, so a pod deleted and re-created under the name is not bound)."""
        meta: dict[str, Any] = {"name": pod, "namespace": namespace}
        if uid:
            meta["uid"] = uid
        await self.create_subresource("pods", pod, "binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": meta,
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }, namespace=namespace)

    async def evict(self, namespace: str, pod: str, *, grace_period: int | None = None) -> None:
        """Create a ``pods/eviction`` (what ``kubectl drain`` does); 429 if a PDB forbids it."""
        body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction",
                                "metadata": {"name": pod, "namespace": namespace}}
        if grace_period is not None:
            body["deleteOptions"] = {"gracePeriodSeconds": grace_period}
        await self.create_subresource("pods", pod, "eviction", body, namespace=namespace)


async def ignore_not_found(aw: Awaitable[R]) -> R | None:
    """Await ``aw`` (a client call) and return its result, or None if it raised ``NotFound``
    (controller-runtime ``client.IgnoreNotFound``)::

        pod = await ignore_not_found(c.get(Pod, "web"))   # None when there is no such pod
        await ignore_not_found(c.delete(Pod, "web"))      # deleting what is gone is fine
    """
    try:
        return await aw
    except NotFound:
        return None


def _version(info: ResourceInfo) -> dict[str, str]:
    """The request's ``version`` for a resource named at a served non-storage version (an autoscaling/v1
    HorizontalPodAutoscaler): the apiserver converts to and from it. Nothing for the storage version."""
    return {"version": info.version} if info.storage_version else {}


def _label_str(labels: str | dict[str, Any] | None) -> str | None:
    if labels is None or isinstance(labels, str):
        return labels
    if "matchLabels" in labels or "matchExpressions" in labels:
        return str(selector_from_label_selector(labels))
    return ",".join(f"{k}={v}" for k, v in labels.items())


def _field_str(fields: str | dict[str, str] | None) -> str | None:
    if fields is None or isinstance(fields, str):
        return fields
    return ",".join(f"{k}={v}" for k, v in fields.items())
