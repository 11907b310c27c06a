"""The Kubernetes REST API over HTTP: an ASGI app in front of the cluster's apiserver.

Contract:
- **No second implementation of semantics.** Every resource request is decoded from HTTP (path, query,
  headers, body) and handed to the apiserver's public verbs (``create``, ``get``, ``list``, ``watch``,
  ``update``, ``patch``, ``delete``, ``delete_collection``: the entry points :mod:`kubelite.client` uses);
  their result or ``ApiError`` is encoded back. What lives here is what upstream's HTTP filter chain and
  ``endpoints/handlers`` do: authentication (bearer tokens), impersonation, content negotiation, body
  limits, watch streaming, server-side printing (Tables), discovery and OpenAPI.
- **Every error is a Status.** Unknown paths (404), wrong methods (405), bad media types (415), malformed
  bodies (400), oversized bodies (413) and unexpected exceptions (500) all answer with a ``v1 Status`` JSON
  body and its code, as kube-apiserver does; the server keeps serving.
- **Warnings** (e.g. unknown fields under ``fieldValidation=Warn``) are ``Warning: 299 - "..."`` headers.
- **Watches** stream JSON lines (``{"type":..,"object":..}``), chunked, until the watch ends, its
  ``timeoutSeconds`` passes on cluster time, or the client disconnects (then the watcher is closed and no
  task is left behind). ``sendInitialEvents=true`` serves the watch-list protocol (initial ADDED events,
  then a BOOKMARK annotated ``k8s.io/initial-events-end``).
- Protobuf (``application/vnd.kubernetes.protobuf``) request bodies of built-in kinds are decoded by
  :mod:`kubelite.api.protobuf` into the JSON object the pipeline then takes (a malformed one is a 400; a custom
  resource's, 415). Responses are JSON whenever Accept allows it; a client accepting only protobuf gets
  protobuf, watches as length-delimited WatchEvent frames (:mod:`kubelite.http.media`).
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import msgspec

from kubelite.api import protobuf
from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.auth.rbac import Attributes, forbidden
from kubelite.apiserver.auth.user import ADMIN, SYSTEM_PRIVILEGED_GROUP, UserInfo
from kubelite.apiserver.request import Options, Request
from kubelite.apiserver.server import not_served
from kubelite.clock import LoopTime, parse_time
from kubelite.errors import (
    ApiError,
    BadRequest,
    Expired,
    InternalError,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    Status,
    StatusDetails,
    UnsupportedMediaType,
)
from kubelite.http import discovery, openapi
from kubelite.http.media import PROTOBUF, PROTOBUF_WATCH, SERVED, response_media, to_protobuf, watch_frame
from kubelite.http.tables import TABLE_MEDIA_TYPE, Tabulator, wants_table
from kubelite.store.watch import WatchEvent

__all__ = ["MAX_BODY_BYTES", "ApiApp"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: kube-apiserver's limit on a request body (``maxRequestBodyBytes``: 3 MiB); larger bodies get 413.
MAX_BODY_BYTES = 3 * 1024 * 1024

_json = msgspec.json.Encoder()
_encode = _json.encode
_decode = msgspec.json.Decoder().decode
_PATCH_TYPES = {
    "application/json-patch+json": "json",
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
}
_JSON_CT = [(b"content-type", b"application/json")]
_CONTENT_TYPES = {"application/json": b"application/json", TABLE_MEDIA_TYPE: TABLE_MEDIA_TYPE.encode()}
_NO_CACHE = (b"cache-control", b"no-cache, private")


class _Request:
    __slots__ = ("body", "has_body", "headers", "impersonating", "method", "path", "protobuf", "query")

    def __init__(self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, list[str]]) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = b""
        #: a message body follows the head (RFC 9112 6.3: only with Content-Length or Transfer-Encoding)
        self.has_body = True
        #: any Impersonate-* header was sent
        self.impersonating = True
        #: the client accepts protobuf and not JSON: the response is re-encoded (kubelite.http.media)
        self.protobuf = False

    def q(self, name: str) -> str | None:
        v = self.query.get(name)
        return v[-1] if v else None

    def flag(self, name: str) -> bool:
        return (self.q(name) or "").lower() in ("true", "1")

    def header(self, name: str) -> str:
        v = self.headers.get(name)
        return v[-1] if v else ""


class _Response:
    __slots__ = ("body", "code", "content_type", "warnings")

    def __init__(self, body: bytes, code: int = 200, content_type: str = "application/json",
                 warnings: list[str] | None = None) -> None:
        self.body = body
        self.code = code
        self.content_type = content_type
        self.warnings = warnings or []


def _status_body(err: ApiError) -> bytes:
    """The Status as kube-apiserver writes it: kind, apiVersion, metadata and status always present."""
    st = err.status
    doc: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": st.metadata or {},
                           "status": st.status or "Failure", "message": st.message, "reason": st.reason}
    if st.details is not None:  # Go's omitempty: empty strings are left out too
        doc["details"] = {k: v for k, v in msgspec.to_builtins(st.details).items() if v not in ("", None)}
    doc["code"] = st.code
    return _encode(doc)


#: (group, version, plural) of the built-in resources kube-apiserver marks deprecated -> its warning
#: (``k8s.io/apiserver/pkg/endpoints/deprecation``: "<version> <Kind> is deprecated in v<major>.<minor>+[; use ...]",
#: from the types' prerelease-lifecycle tags)
DEPRECATED: dict[tuple[str, str, str], str] = {
    ("", "v1", "endpoints"): "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
    ("", "v1", "componentstatuses"): "v1 ComponentStatus is deprecated in v1.19+",
}


def _warning_header(text: str) -> tuple[bytes, bytes]:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return b"warning", f'299 - "{escaped}"'.encode("utf-8", "replace")


class ApiApp:
    """The ASGI app. ``ApiApp(cluster)``; authentication uses the cluster's tokens (``cluster.add_token``).

    ``admin_token``: a bearer token that authenticates as the cluster admin (``system:masters``), registered
    on construction (the kubeconfig that ``kubelite serve`` writes uses it).
    """

    def __init__(self, cluster: Any, *, admin_token: str | None = None, server_address: str = "") -> None:
        self.cluster = cluster
        self.server = cluster.apiserver
        self.server_address = server_address
        if admin_token:
            self.server.authenticator.add_token(admin_token, ADMIN)
        self._openapi_key: Any = None
        self._openapi_cache: dict[str, bytes] = {}
        self.requests = 0
        self.watches = 0
        self._watch_tasks: set[asyncio.Task[Any]] = set()
        self._watchers: set[Any] = set()

    def close_watches(self) -> None:
        """End every watch being served (the server is stopping)."""
        for w in list(self._watchers):
            w.close("server stopping")

    # --- ASGI ---
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if kind != "http":
            return
        self.requests += 1
        headers: dict[str, list[str]] = {}
        impersonating = has_body = False
        for k, v in scope.get("headers") or ():
            key = k.decode("latin-1").lower()
            value = v.decode("latin-1")
            have = headers.get(key)
            if have is None:
                headers[key] = [value]
            else:
                have.append(value)
            if key.startswith("impersonate-"):
                impersonating = True
            elif key == "transfer-encoding" or (key == "content-length" and value.strip() != "0"):
                has_body = True
        qs = scope.get("query_string", b"")
        query = urllib.parse.parse_qs(qs.decode("latin-1"), keep_blank_values=True) if qs else {}
        req = _Request(scope["method"], scope.get("path") or "/", query, headers)
        req.impersonating, req.has_body = impersonating, has_body
        try:
            await self._read_body(req, receive)
            resp = await self._route(req, receive, send)
        except ApiError as e:
            resp = _Response(_status_body(e), e.status.code)
        except Exception as e:  # the server never dies: an unexpected failure is a 500 Status
            err = InternalError.make(f"an error on the server ({type(e).__name__}: {e}) has prevented the request "
                                     "from succeeding")
            resp = _Response(_status_body(err), 500)
        if resp is None:  # streamed already
            return
        if req.protobuf and resp.content_type == "application/json":
            resp = _protobuf_response(resp)
        ctype = _CONTENT_TYPES.get(resp.content_type) or resp.content_type.encode()
        hdrs = [(b"content-type", ctype), (b"content-length", b"%d" % len(resp.body)), _NO_CACHE]
        hdrs.extend(_warning_header(w) for w in resp.warnings)
        await send({"type": "http.response.start", "status": resp.code, "headers": hdrs})
        await send({"type": "http.response.body", "body": resp.body})

    async def _read_body(self, req: _Request, receive: Receive) -> None:
        if not req.has_body:
            return  # no body follows the head: nothing to receive (the ASGI server sends an empty one)
        chunks: list[bytes] = []
        size = 0
        more = True
        lt = LoopTime.current()
        while more:
            # a request body still on its way is known I/O in flight: time must not jump past it
            if lt is None:
                msg = await receive()
            else:
                with lt.hold():
                    msg = await receive()
            if msg["type"] == "http.disconnect":
                raise BadRequest.make("the client disconnected before sending the whole request body")
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                err = ApiError(Status(code=413, reason="RequestEntityTooLarge",
                                      message=f"Request entity too large: limit is {MAX_BODY_BYTES}"))
                raise err
            chunks.append(chunk)
            more = msg.get("more_body", False)
        req.body = b"".join(chunks)

    # --- routing ---
    async def _route(self, req: _Request, receive: Receive, send: Send) -> _Response | None:
        path = req.path
        if path.endswith("/") and path != "/":
            path = path.rstrip("/")
        parts = path.split("/")[1:] if path != "/" else []
        if "%" in path:
            parts = [urllib.parse.unquote(p) for p in parts]
        if parts[:1] in (["healthz"], ["livez"], ["readyz"]):
            return _Response(b"ok", content_type="text/plain; charset=utf-8")
        user = self._authenticate(req)
        if parts == ["version"]:
            return self._json(discovery.version_info())
        if parts[:1] == ["openapi"]:
            return self._openapi(parts, user)
        if parts[:1] == ["api"]:
            if len(parts) == 1:
                return self._discovery_root(req, core=True)
            if len(parts) == 2:
                doc = discovery.api_resource_list(self.server, "", parts[1])
                return self._json(doc) if doc is not None else self._not_found()
            return await self._resource(req, user, "", parts[1], parts[2:], receive, send)
        if parts[:1] == ["apis"]:
            if len(parts) == 1:
                return self._discovery_root(req, core=False)
            if len(parts) == 2:
                doc = discovery.api_group(self.server, parts[1])
                return self._json(doc) if doc is not None else self._not_found()
            if len(parts) == 3:
                doc = discovery.api_resource_list(self.server, parts[1], parts[2])
                return self._json(doc) if doc is not None else self._not_found()
            return await self._resource(req, user, parts[1], parts[2], parts[3:], receive, send)
        if not parts:
            paths = ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v3", "/readyz", "/version"]
            return self._json({"paths": paths})
        return self._not_found()

    @staticmethod
    def _json(doc: Any, code: int = 200, content_type: str = "application/json") -> _Response:
        return _Response(_encode(doc), code, content_type)

    @staticmethod
    def _not_found() -> _Response:
        err = NotFound.make("the server could not find the requested resource")
        return _Response(_status_body(err), 404)

    def _discovery_root(self, req: _Request, *, core: bool) -> _Response:
        accept = req.header("accept")
        for media in (m.strip() for m in accept.split(",")):
            norm = media.replace(" ", "")
            for i, wanted in enumerate(discovery.AGGREGATED_TYPES):
                if norm == wanted or norm.startswith(wanted + ";"):
                    doc = discovery.aggregated(self.server, core=core, version=("v2", "v2beta1")[i])
                    return self._json(doc, content_type=wanted)
            if norm.startswith("application/json") and "as=" not in norm:
                break
        if core:
            return self._json(discovery.api_versions(self.server_address or req.header("host")))
        return self._json(discovery.api_group_list(self.server))

    def _openapi(self, parts: list[str], user: UserInfo) -> _Response:
        if parts[:2] != ["openapi", "v3"]:
            return self._not_found()  # /openapi/v2 is not served: clients fall back to v3
        key = (len(self.server.registry), id(self.server.read_all("apiextensions.k8s.io",
                                                                  "customresourcedefinitions")))
        if key != self._openapi_key:
            self._openapi_key, self._openapi_cache = key, {}
        sub = "/".join(parts[2:])
        cached = self._openapi_cache.get(sub)
        if cached is None:
            doc = openapi.root_document(self.server) if not sub else openapi.group_document(self.server, sub)
            if doc is None:
                return self._not_found()
            cached = self._openapi_cache[sub] = _encode(doc)
        return _Response(cached)

    # --- authentication and impersonation (upstream's WithAuthentication / WithImpersonation filters) ---
    def _authenticate(self, req: _Request) -> UserInfo:
        auth = req.header("authorization")
        token: str | None = None
        if auth:
            scheme, _, value = auth.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise ApiError(Status(code=401, reason="Unauthorized", message="Unauthorized"))
            token = value.strip()
        user: UserInfo = self.server.authenticator.authenticate(token)
        return self._impersonate(req, user)

    def _impersonate(self, req: _Request, user: UserInfo) -> UserInfo:
        if not req.impersonating:
            return user
        name = req.header("impersonate-user")
        groups = req.headers.get("impersonate-group", [])
        uid = req.header("impersonate-uid")
        extra = {k.removeprefix("impersonate-extra-"): v for k, v in req.headers.items()
                 if k.startswith("impersonate-extra-")}
        if not name:
            if groups or uid or extra:
                raise BadRequest.make("requested impersonation of groups/uid/extra without impersonating a user")
            return user
        checks: list[Attributes] = []
        if name.startswith("system:serviceaccount:"):
            ns, _, sa = name.removeprefix("system:serviceaccount:").partition(":")
            checks.append(Attributes(user=user, verb="impersonate", namespace=ns, api_group="",
                                     resource="serviceaccounts", subresource="", name=sa))
        else:
            checks.append(Attributes(user=user, verb="impersonate", namespace="", api_group="", resource="users",
                                     subresource="", name=name))
        for g in groups:
            checks.append(Attributes(user=user, verb="impersonate", namespace="", api_group="", resource="groups",
                                     subresource="", name=g))
        if uid:
            checks.append(Attributes(user=user, verb="impersonate", namespace="", api_group="authentication.k8s.io",
                                     resource="uids", subresource="", name=uid))
        for key, values in extra.items():
            for v in values:
                checks.append(Attributes(user=user, verb="impersonate", namespace="",
                                         api_group="authentication.k8s.io", resource="userextras",
                                         subresource=key, name=v))
        if SYSTEM_PRIVILEGED_GROUP not in user.groups:
            for attrs in checks:
                allowed, reason = self.server.rbac.authorize(attrs)
                if not allowed:
                    raise forbidden(attrs, reason)
        gs = tuple(groups)
        if name.startswith("system:serviceaccount:"):
            ns = name.removeprefix("system:serviceaccount:").partition(":")[0]
            gs = (*gs, "system:serviceaccounts", f"system:serviceaccounts:{ns}")
        if "system:authenticated" not in gs and name != "system:anonymous":
            gs = (*gs, "system:authenticated")
        return UserInfo(name=name, uid=uid, groups=gs,
                        extra=tuple(sorted((k, tuple(v)) for k, v in extra.items())))

    # --- resources ---
    def _info(self, group: str, version: str, plural: str) -> ResourceInfo:
        try:
            info: ResourceInfo = self.server.registry.by_resource(group, plural)
        except KeyError:
            raise NotFound.make("the server could not find the requested resource") from None
        if info.builtin and version in info.served_versions:
            view: ResourceInfo = self.server.registry.at_version(info, version)  # another served version
            return view
        if info.version != version and (info.builtin or not self.server.crs.serves(
                info, f"{group}/{version}" if group else version)):
            raise NotFound.make("the server could not find the requested resource")
        return info

    async def _resource(self, req: _Request, user: UserInfo, group: str, version: str, rest: list[str],
                        receive: Receive, send: Send) -> _Response | None:
        watch_path = False
        if rest[:1] == ["watch"]:  # the deprecated /watch/ prefix (GET only)
            watch_path, rest = True, rest[1:]
        namespace = ""
        if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] not in ("status", "finalize"):
            namespace, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            return self._not_found()
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else ""
        sub = rest[2] if len(rest) > 2 else ""
        if plural == "namespaces" and name and not namespace:
            pass  # /api/v1/namespaces/{name}[/status|/finalize]
        info = self._info(group, version, plural)
        if namespace and not info.namespaced:
            return self._not_found()
        if sub and sub not in info.subresources and not (sub == "log" and (group, plural) == ("", "pods")) \
                and not (sub in ("binding", "eviction") and (group, plural) == ("", "pods")) \
                and not (sub == "finalize" and (group, plural) == ("", "namespaces")):
            return self._not_found()
        method = req.method
        if sub != "log":  # upstream's negotiation of the response's media type (pods/log is text)
            media = response_media(req.header("accept"))
            if media is None or (media == "protobuf" and not info.struct_name):  # CRs: JSON and YAML only
                raise NotAcceptable.make("only the following media types are accepted: " + ", ".join(
                    SERVED if info.struct_name else SERVED[:2]))
            req.protobuf = media == "protobuf"
        if watch_path or (method == "GET" and not name and req.flag("watch")):
            if method != "GET":
                raise MethodNotAllowed.no_route()
            await self._watch(req, user, info, namespace, receive, send)
            return None
        if method == "GET" and sub == "log":
            return await self._log(req, user, namespace, name, receive, send)
        if method == "GET":
            resp = await self._get(req, user, info, namespace, name, sub)
        elif method == "POST":
            resp = await self._create(req, user, info, namespace, name, sub)
        elif method == "PUT" and name:
            resp = await self._update(req, user, info, namespace, name, sub)
        elif method == "PATCH" and name:
            resp = await self._patch(req, user, info, namespace, name, sub)
        elif method == "DELETE":
            resp = await self._delete(req, user, info, namespace, name, sub)
        else:
            raise MethodNotAllowed.no_route()
        deprecated = DEPRECATED.get((info.group, version, plural))
        if deprecated is not None and not sub:  # the installer's deprecation warning on every served verb
            resp.warnings.insert(0, deprecated)
        return resp

    # --- decoding ---
    def _dry_run(self, req: _Request) -> bool:
        values = [v for vs in req.query.get("dryRun", []) for v in vs.split(",") if v]
        for v in values:
            if v != "All":
                raise BadRequest.make(f'Invalid dryRun: unsupported value "{v}" (supported: "All")')
        return bool(values)

    def _decode_body(self, req: _Request, *, allow_yaml: bool = True, info: ResourceInfo | None = None,
                     sub: str = "") -> Any:
        ctype = req.header("content-type").split(";")[0].strip().lower()
        if ctype == PROTOBUF:
            if info is not None and not info.struct_name:  # custom resources have no protobuf serializer upstream
                raise UnsupportedMediaType.make(
                    f'the body of the request was in an unknown format ("{ctype}") - accepted media types '
                    "include: application/json, application/yaml")
            default = (info.api_version, info.kind) if info is not None and not sub else ("", "")
            try:
                return protobuf.decode(req.body, default)
            except protobuf.ProtobufError as e:  # upstream's createHandler: a decode error is a 400
                raise BadRequest.make(f"error decoding protobuf: {e}") from None
        if ctype in ("application/json", "", "*/*"):
            try:
                return _decode(req.body) if req.body else None
            except msgspec.DecodeError as e:
                raise BadRequest.make(f"error decoding JSON: {e}") from None
        if ctype in ("application/yaml", "application/x-yaml", "text/yaml") and allow_yaml:
            return _yaml(req.body)
        raise UnsupportedMediaType.make(
            f'the body of the request was in an unknown format ("{ctype}") - accepted media types include: '
            "application/json, application/yaml")

    def _object_body(self, req: _Request, info: ResourceInfo, sub: str) -> dict[str, Any]:
        body = self._decode_body(req, info=info, sub=sub)
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format: expected a JSON object")
        return body

    @staticmethod
    def _field_manager(req: _Request) -> str | None:
        """upstream's managerOrUserAgent: the fieldManager parameter, else the User-Agent's product name."""
        manager = req.q("fieldManager")
        if manager:
            return manager
        agent = req.header("user-agent").split("/")[0]
        return "".join(ch for ch in agent if ch.isprintable())[:128] or None

    async def _handle(self, verb: str, user: UserInfo, info: ResourceInfo, namespace: str, name: str = "",
                      sub: str = "", body: Any = None, options: Options | None = None) -> Any:
        """The apiserver's one request entry point: every resource request goes through it."""
        return await self.server.handle(Request(
            verb=verb, group=info.group, resource=info.plural, version=info.version if info.storage_version else "",
            user=user, namespace=namespace, name=name,
            subresource=sub, body=body, options=options if options is not None else Options(),
        ))

    # --- verbs ---
    async def _get(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
                   sub: str) -> _Response:
        table = wants_table(req.header("accept"))
        if table and (info.group, info.version) in self.server.aggregator.backends:
            # an aggregated API prints its own Table (metrics-server's columns), as the server behind the proxy does
            resp = await self._handle("get" if name else "list", user, info, namespace, name, sub, options=Options(
                as_table=True, label_selector=req.q("labelSelector"), field_selector=req.q("fieldSelector")))
            return _Response(resp.data, content_type=TABLE_MEDIA_TYPE)
        if name:
            resp = await self._handle("get", user, info, namespace, name, sub)
            if table and not sub:
                obj = _decode(resp.data)
                return self._json(self._tabulator(req, info).table([obj]), content_type=TABLE_MEDIA_TYPE)
            return _Response(resp.data)
        limit = req.q("limit")
        try:
            limit_n = int(limit) if limit else None
        except ValueError:
            raise BadRequest.make(f"limit: invalid value {limit!r}") from None
        lst = await self._handle("list", user, info, namespace, options=Options(
            label_selector=req.q("labelSelector"), field_selector=req.q("fieldSelector"),
            resource_version=req.q("resourceVersion"), resource_version_match=req.q("resourceVersionMatch"),
            limit=limit_n, continue_=req.q("continue"),
        ))
        meta: dict[str, Any] = {"resourceVersion": lst.resource_version}
        if lst.continue_:
            meta["continue"] = lst.continue_
        if lst.remaining_item_count is not None:
            meta["remainingItemCount"] = lst.remaining_item_count
        if table:
            objs = [_decode(d) for d in lst.items]
            return self._json(self._tabulator(req, info).table(objs, list_meta=meta), content_type=TABLE_MEDIA_TYPE)
        head = _encode({"kind": lst.kind, "apiVersion": lst.api_version, "metadata": meta})
        return _Response(head[:-1] + b',"items":[' + b",".join(lst.items) + b"]}")

    def _tabulator(self, req: _Request, info: ResourceInfo) -> Tabulator:
        columns = None
        if not info.builtin:
            columns = []
            for crd in self.server.read_all("apiextensions.k8s.io", "customresourcedefinitions"):
                spec = crd.get("spec") or {}
                if spec.get("group") == info.group and (spec.get("names") or {}).get("plural") == info.plural:
                    for v in spec.get("versions") or ():
                        if v.get("name") == info.version:
                            columns = list(v.get("additionalPrinterColumns") or ())
        include = req.q("includeObject") or "Metadata"
        if include not in ("None", "Metadata", "Object"):
            raise BadRequest.make(f'includeObject: unsupported value "{include}" (supported: None, Metadata, Object)')
        return Tabulator(info, now=self.cluster.clock.now, printer_columns=columns, include_object=include)

    async def _create(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
                      sub: str) -> _Response:
        if name and not sub:  # no POST route on an item path: 405 where the path serves a GET, else 404
            raise not_served(info, "create", "", self.server.rest(info, "").verbs(info), item_path=True)
        body = self._object_body(req, info, sub)
        resp = await self._handle("create", user, info, namespace, name, sub, body, Options(
            dry_run=self._dry_run(req), field_manager=self._field_manager(req),
            field_validation=req.q("fieldValidation"),
        ))
        return _Response(resp.data, 201, warnings=resp.warnings)

    async def _update(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
                      sub: str) -> _Response:
        body = self._object_body(req, info, sub)
        resp = await self._handle("update", user, info, namespace, name, sub, body, Options(
            dry_run=self._dry_run(req), field_manager=self._field_manager(req),
            field_validation=req.q("fieldValidation"),
        ))
        return _Response(resp.data, warnings=resp.warnings)

    async def _patch(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
                     sub: str) -> _Response:
        ctype = req.header("content-type").split(";")[0].strip().lower()
        patch_type = _PATCH_TYPES.get(ctype)
        if patch_type is None:
            raise UnsupportedMediaType.make(
                f'the body of the request was in an unknown format ("{ctype}") - accepted media types include: '
                + ", ".join(_PATCH_TYPES))
        if patch_type == "apply":
            patch: Any = _yaml(req.body)
        else:
            try:
                patch = _decode(req.body)
            except msgspec.DecodeError as e:
                raise BadRequest.make(f"error decoding patch: {e}") from None
        force_q = req.q("force")
        force = None if force_q is None else force_q.lower() in ("true", "1")
        resp = await self._handle("patch", user, info, namespace, name, sub, patch, Options(
            patch_type=patch_type, dry_run=self._dry_run(req),
            field_manager=req.q("fieldManager") if patch_type == "apply" else self._field_manager(req), force=force,
            field_validation=req.q("fieldValidation"),
        ))
        return _Response(resp.data, warnings=resp.warnings)

    def _delete_options(self, req: _Request) -> dict[str, Any]:
        opts: dict[str, Any] = {}
        if req.body.strip():
            body = self._decode_body(req)
            if body is not None and not isinstance(body, dict):
                raise BadRequest.make("the body of the request was in an unknown format: expected DeleteOptions")
            opts = dict(body or {})
        for key in ("gracePeriodSeconds", "propagationPolicy", "orphanDependents"):
            v = req.q(key)
            if v is not None:
                opts[key] = v
        grace = opts.get("gracePeriodSeconds")
        if grace is not None:
            try:
                opts["gracePeriodSeconds"] = int(grace)
            except (TypeError, ValueError):
                raise BadRequest.make(f"gracePeriodSeconds: invalid value {grace!r}") from None
        orphan = opts.pop("orphanDependents", None)
        if orphan is not None and "propagationPolicy" not in opts:
            opts["propagationPolicy"] = "Orphan" if str(orphan).lower() in ("true", "1") else "Background"
        return opts

    async def _delete(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, name: str,
                      sub: str) -> _Response:
        if sub:
            raise MethodNotAllowed.no_route()
        opts = self._delete_options(req)
        dry_run = self._dry_run(req) or bool(opts.get("dryRun"))
        options = Options(
            label_selector=req.q("labelSelector"), field_selector=req.q("fieldSelector"),
            grace_period_seconds=opts.get("gracePeriodSeconds"), propagation_policy=opts.get("propagationPolicy"),
            preconditions=opts.get("preconditions"), dry_run=dry_run,
        )
        if not name:
            lst = await self._handle("deletecollection", user, info, namespace, options=options)
            head = _encode({"kind": lst.kind, "apiVersion": lst.api_version,
                            "metadata": {"resourceVersion": lst.resource_version}})
            return _Response(head[:-1] + b',"items":[' + b",".join(lst.items) + b"]}")
        resp = await self._handle("delete", user, info, namespace, name, options=options)
        obj = _decode(resp.data)
        meta = obj.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            return _Response(resp.data)  # deletion deferred (finalizers, grace): the object, as upstream returns it
        if (info.group, info.plural) == ("", "pods"):
            return _Response(resp.data)  # pods' storage returns the deleted object (ReturnDeletedObject)
        details = StatusDetails(name=name, group=info.group, kind=info.plural, uid=meta.get("uid"))
        return self._json({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                           "details": details})

    # --- watch ---
    async def _watch(self, req: _Request, user: UserInfo, info: ResourceInfo, namespace: str, receive: Receive,
                     send: Send) -> None:
        timeout = req.q("timeoutSeconds")
        try:
            timeout_s = float(timeout) if timeout else None
        except ValueError:
            raise BadRequest.make(f"timeoutSeconds: invalid value {timeout!r}") from None
        sie = req.q("sendInitialEvents")
        send_initial = None if sie is None else sie.lower() in ("true", "1")
        if send_initial and req.q("resourceVersionMatch") not in ("NotOlderThan",):
            raise BadRequest.make("resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                                  "resourceVersionMatch to NotOlderThan")
        field_selector = req.q("fieldSelector")
        name_from_path = None
        del name_from_path
        table = wants_table(req.header("accept"))
        tab = self._tabulator(req, info) if table else None
        expired: ApiError | None = None
        watcher = None
        try:
            watcher = await self._handle("watch", user, info, namespace, options=Options(
                label_selector=req.q("labelSelector"), field_selector=field_selector,
                resource_version=req.q("resourceVersion"), allow_bookmarks=req.flag("allowWatchBookmarks"),
                send_initial_events=send_initial, timeout_seconds=timeout_s,
            ))
        except Expired as e:  # the watch cache answers a too-old resourceVersion with an ERROR event
            expired = e
        pb = req.protobuf
        req.protobuf = False  # the stream is framed here; nothing is re-encoded after it
        ctype = TABLE_MEDIA_TYPE if table else PROTOBUF_WATCH if pb else "application/json"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", ctype.encode()), (b"cache-control", b"no-cache, private")]})
        if expired is not None or watcher is None:
            assert expired is not None
            line = b'{"type":"ERROR","object":' + _status_body(expired) + b"}\n"
            await send({"type": "http.response.body", "body": watch_frame(line) if pb else line})
            return
        self.watches += 1
        w = watcher
        self._watchers.add(w)

        task = self._close_on_disconnect(w, receive)
        first = True
        try:
            while True:
                ev = await w.next()
                if ev is None:
                    break
                # everything queued goes out as one chunk (one write per wake-up, not per event)
                more = w.take(_CHUNK_EVENTS)
                if pb:  # protobuf frames, encoded once per event and shared like the JSON lines
                    lines = [e.cache_encode(_PROTOBUF_FRAME, _protobuf_frame) for e in (ev, *more)]
                elif tab is None:
                    lines = [ev.cache_encode(_JSON_LINE, _json_line)]
                    lines += [e.cache_encode(_JSON_LINE, _json_line) for e in more]
                else:
                    lines = [self._event_line(ev, tab, first)]
                    lines += [self._event_line(e, tab, False) for e in more]
                first = False
                await send({"type": "http.response.body", "body": b"".join(lines), "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            w.close("stopped")
            await self._end_task(task)
            self._watchers.discard(w)
            self.watches -= 1

    @staticmethod
    def _event_line(ev: WatchEvent, tab: Tabulator | None, first: bool) -> bytes:
        """The framed line of ``ev`` (``{"type":..,"object":..}\\n``), encoded once per event and format and
        shared by every watcher that writes it (upstream's watchEncoder caches the whole encoded event in the
        cachingObject under an identifier naming the embedded encoder, Table options and event type)."""
        if tab is None:
            return ev.cache_encode(_JSON_LINE, _json_line)
        if ev.type not in ("ADDED", "MODIFIED", "DELETED"):
            return ev.cache_encode(_JSON_LINE, _json_line)  # BOOKMARK / ERROR objects are not printed
        return ev.cache_encode((tab.identifier, first), lambda e: _table_line(e, tab, first))

    # --- pods/log ---
    async def _log(self, req: _Request, user: UserInfo, namespace: str, name: str, receive: Receive,
                   send: Send) -> _Response | None:
        """``GET pods/{name}/log`` as the kubelet serves it behind the apiserver (``pkg/registry/core/pod/rest/
        log.go`` validates PodLogOptions; the kubelet reads the CRI log): ``container``, ``previous``,
        ``timestamps``, ``sinceSeconds``/``sinceTime``, ``tailLines``, ``limitBytes`` and ``follow`` (stream until
        the container stops running, the pod goes away or the client disconnects)."""
        # pods/log is its own REST object upstream (a connection to the kubelet): authorize "get pods/log",
        # then read the pod as the server itself does
        info = self._info("", "v1", "pods")
        self.server.authorizer.authorize(user, "get", info, "log", namespace, name)
        opts = self._log_options(req)
        resp = await self._handle("get", ADMIN, info, namespace, name)
        pod = _decode(resp.data)
        spec = pod.get("spec") or {}
        containers = [c["name"] for c in spec.get("containers") or ()]
        container = req.q("container")
        if not container:
            if len(containers) != 1:
                raise BadRequest.make(f"a container name must be specified for pod {name}, choose one of: "
                                      f"[{' '.join(containers)}]")
            container = containers[0]
        elif container not in containers + [c["name"] for c in spec.get("initContainers") or ()]:
            raise BadRequest.make(f"container {container} is not valid for pod {name}")
        status = _container_status(pod, container)
        previous = req.flag("previous")
        node = spec.get("nodeName")
        lines: list[str] = []
        if previous and "terminated" not in (status.get("lastState") or {}):
            raise BadRequest.make(f'previous terminated container "{container}" in pod "{name}" not found')
        state = status.get("state") or {}
        if node:
            try:
                lines = self.cluster.kubelet(node).logs(namespace, name, container, previous=previous)
            except KeyError:
                lines = []
        if not lines and not previous and "running" not in state and "terminated" not in state:
            reason = (state.get("waiting") or {}).get("reason", "ContainerCreating")
            raise BadRequest.make(f'container "{container}" in pod "{name}" is waiting to start: {reason}')
        body = self._log_text(lines, opts)
        if not opts.follow or previous or "running" not in state:
            return _Response(body, content_type="text/plain")
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain"), (b"cache-control", b"no-cache, private")]})
        if body:
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await self._follow_until_stopped(info, namespace, name, container, status,
                                         (pod.get("metadata") or {}).get("resourceVersion", ""), receive)
        await send({"type": "http.response.body", "body": b""})
        return None

    def _log_options(self, req: _Request) -> _LogOptions:
        """PodLogOptions, validated as upstream's ``ValidatePodLogOptions``."""
        def number(key: str, minimum: int) -> int | None:
            raw = req.q(key)
            if raw is None:
                return None
            try:
                value = int(raw)
            except ValueError:
                raise BadRequest.make(f"{key}: Invalid value: {raw!r}: must be an integer") from None
            if value < minimum:
                raise BadRequest.make(f"{key}: Invalid value: {value}: must be "
                                      + ("greater than 0" if minimum == 1 else "greater than or equal to 0"))
            return value

        since_seconds = number("sinceSeconds", 1)
        since_time_q = req.q("sinceTime")
        since: float | None = None
        if since_time_q is not None:
            if since_seconds is not None:
                raise BadRequest.make("PodLogOptions: Forbidden: at most one of `sinceTime` or `sinceSeconds` may "
                                      "be specified")
            try:
                since = parse_time(since_time_q)
            except ValueError:
                raise BadRequest.make(f"sinceTime: Invalid value: {since_time_q!r}: must be RFC 3339") from None
        elif since_seconds is not None:
            since = self.cluster.clock.now() - since_seconds
        return _LogOptions(follow=req.flag("follow"), timestamps=req.flag("timestamps"), since=since,
                           tail=number("tailLines", 0), limit_bytes=number("limitBytes", 1))

    @staticmethod
    def _log_text(lines: list[str], opts: _LogOptions) -> bytes:
        if opts.since is not None:
            lines = [line for line in lines if parse_time(line.partition(" ")[0]) >= opts.since]
        if opts.tail is not None:
            lines = lines[-opts.tail:] if opts.tail else []
        if not opts.timestamps:
            lines = [line.partition(" ")[2] for line in lines]
        text = "".join(line + "\n" for line in lines).encode()
        return text[:opts.limit_bytes] if opts.limit_bytes is not None else text

    async def _follow_until_stopped(self, info: ResourceInfo, namespace: str, name: str, container: str,
                                    status: dict[str, Any], rv: str, receive: Receive) -> None:
        """Hold a followed log open while this run of the container is running (the kubelet ends the stream
        when the container exits; a restart is a new run with a new log). The workload model writes its
        lines when the container starts, so nothing more is written during the run."""
        run = (status.get("containerID"), status.get("restartCount"))
        w = await self._handle("watch", ADMIN, info, namespace, options=Options(
            field_selector=f"metadata.name={name}", resource_version=rv))
        self._watchers.add(w)
        disconnect = self._close_on_disconnect(w, receive)
        try:
            while (ev := await w.next()) is not None:
                if ev.type == "DELETED":
                    break
                if ev.type not in ("ADDED", "MODIFIED"):
                    continue
                now = _container_status(_decode(ev.data), container)
                if (now.get("containerID"), now.get("restartCount")) != run or \
                        "running" not in (now.get("state") or {}):
                    break
        finally:
            w.close("stopped")
            await self._end_task(disconnect)
            self._watchers.discard(w)

    def _close_on_disconnect(self, w: Any, receive: Receive) -> asyncio.Task[None]:
        """A task that closes ``w`` when the client disconnects (ASGI's ``http.disconnect``)."""
        async def on_disconnect() -> None:
            while True:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    w.close("client disconnected")
                    return

        task = asyncio.get_running_loop().create_task(on_disconnect(), name="kubelite-http-disconnect")
        self._watch_tasks.add(task)
        return task

    async def _end_task(self, task: asyncio.Task[None]) -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        self._watch_tasks.discard(task)


_JSON_LINE = ("watch", "application/json")
_PROTOBUF_FRAME = ("watch", PROTOBUF)
#: most events written in one chunk of a watch response
_CHUNK_EVENTS = 1024


def _protobuf_response(resp: _Response) -> _Response:
    """A JSON response re-encoded as protobuf for a client that accepts nothing else (kubelite.http.media)."""
    try:
        body = to_protobuf(resp.body)
    except (protobuf.ProtobufError, msgspec.DecodeError) as e:
        err = InternalError.make(f"the response cannot be encoded as {PROTOBUF}: {e}")
        return _Response(_status_body(err), 500)
    return _Response(body, resp.code, PROTOBUF, warnings=resp.warnings)


def _protobuf_frame(ev: WatchEvent) -> bytes:
    return watch_frame(ev.cache_encode(_JSON_LINE, _json_line))


def _json_line(ev: WatchEvent) -> bytes:
    return b'{"type":"' + ev.type.encode() + b'","object":' + ev.data + b"}\n"


def _table_line(ev: WatchEvent, tab: Tabulator, first: bool) -> bytes:
    table = tab.table([_decode(ev.data)], list_meta={"resourceVersion": str(ev.rv)}, headers=first)
    return b'{"type":"' + ev.type.encode() + b'","object":' + _encode(table) + b"}\n"


class _LogOptions(msgspec.Struct, frozen=True, kw_only=True):
    follow: bool
    timestamps: bool
    since: float | None
    tail: int | None
    limit_bytes: int | None


def _container_status(pod: dict[str, Any], container: str) -> dict[str, Any]:
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for s in status.get(key) or ():
            if s.get("name") == container:
                return dict(s)
    return {}


def _yaml(data: bytes) -> Any:
    import yaml  # with the first YAML body (clients send JSON; kubectl's YAML manifests arrive as JSON)

    try:
        return yaml.safe_load(data) if data.strip() else None
    except yaml.YAMLError as e:
        raise BadRequest.make(f"error converting YAML to JSON: {e}") from None
