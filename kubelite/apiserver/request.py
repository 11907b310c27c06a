"""Request-scoped values passed through the apiserver pipeline.

:class:`Request` is the one description of an API request that every entry point builds (the in-process
client's calls, and the HTTP layer's routes): verb, resource, subresource, namespace, name, body, the
verb's options and the authenticated user. ``ApiServer.handle(request)`` serves it.

``Response`` carries the encoded object (bytes, decoded by the caller into whatever type it wants) and
the warnings upstream would send in ``Warning`` headers. ``AdmissionRequest`` is what admission
plugins and user hooks see: the shape of upstream's ``admission.Attributes`` / ``AdmissionReview``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.apiserver.auth.user import UserInfo

__all__ = ["VERBS", "AdmissionRequest", "ListResponse", "Options", "Request", "Response"]

# The request verbs kube-apiserver's RequestInfoFactory derives from an HTTP method and path.
VERBS = frozenset({"create", "get", "list", "watch", "update", "patch", "delete", "deletecollection"})


class Options(msgspec.Struct, kw_only=True, frozen=True):
    """The query parameters of every verb (upstream's Create/Update/Patch/Delete/ListOptions in one record;
    each verb reads only its own)."""

    dry_run: bool = False
    field_manager: str | None = None
    field_validation: str | None = None
    # patch
    patch_type: str | None = None
    force: bool | None = None
    # delete
    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    preconditions: dict[str, Any] | None = None
    # list / watch
    label_selector: str | None = None
    field_selector: str | None = None
    resource_version: str | None = None
    resource_version_match: str | None = None
    limit: int | None = None
    continue_: str | None = None
    allow_bookmarks: bool = False
    send_initial_events: bool | None = None
    timeout_seconds: float | None = None
    capacity: int | None = None  # kubelite's bound on a watcher's channel
    # get / list: answer with a meta.k8s.io/v1 Table (``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``)
    as_table: bool = False


_DEFAULT_OPTIONS = Options()


class Request(msgspec.Struct, kw_only=True, frozen=True):
    """One API request, as kube-apiserver's ``RequestInfo`` plus the decoded body and options.

    ``resource`` is the plural (``pods``), ``group`` "" for the core group. ``version`` is the API version
    the request addresses ("" for the resource's storage version): bodies are read in it and objects
    returned in it. ``body`` is handed over: the apiserver may mutate it (the client passes a fresh copy);
    a create of the main resource may carry it as its JSON bytes (the in-process client's copy), which the
    create handler decodes as far as it needs to (every other endpoint gets it decoded).
    ``user`` is the authenticated identity.
    """

    verb: str
    group: str
    resource: str
    user: UserInfo
    version: str = ""
    namespace: str = ""
    name: str = ""
    subresource: str = ""
    body: Any = None
    options: Options = _DEFAULT_OPTIONS


class Response(msgspec.Struct, kw_only=True):
    data: bytes
    warnings: list[str] = msgspec.field(default_factory=list)


class ListResponse(msgspec.Struct, kw_only=True):
    items: list[bytes]
    resource_version: str
    continue_: str | None = None
    remaining_item_count: int | None = None
    api_version: str = "v1"
    kind: str = "List"


class AdmissionRequest(msgspec.Struct, kw_only=True):
    """One admission review. ``object`` is the private, mutable copy mutating plugins may change.

    operation: CREATE, UPDATE, DELETE or CONNECT, as upstream names them.
    """

    operation: str
    group: str
    version: str
    kind: str
    resource: str
    subresource: str
    namespace: str
    name: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None
    user: UserInfo
    dry_run: bool = False
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    #: warnings for the response's ``Warning`` headers (validating admission policies with ``Warn``)
    warnings: list[str] = msgspec.field(default_factory=list)
    #: the audit annotations admission sets (``<policy>/<key>``, ``validation.policy.admission.k8s.io/...``)
    audit_annotations: dict[str, str] = msgspec.field(default_factory=dict)
    #: the names mutating plugins generated for this object, in draw order, as (base, name)
    #: (``admission.chain.generate_name``: what a per-template create memo hit draws again)
    generated: list[tuple[str, str]] = msgspec.field(default_factory=list)
