"""API errors: every rejection is a Kubernetes ``Status``, raised as a typed :class:`ApiError`.

Contract:
- Every request that kubelite rejects raises a subclass of :class:`ApiError`. The exception carries the
  full ``Status`` object (``err.status``) exactly as kube-apiserver would have returned it over HTTP, so
  the future ``kubelite serve`` can write it to the wire unchanged.
- A rejected request changes nothing in the store (the apiserver guarantees this, not this module).
- Field problems are collected as :class:`FieldError` values, formatted the way
  ``k8s.io/apimachinery/pkg/util/validation/field.Error`` formats them, and turned into one 422
  ``Invalid`` status by :func:`invalid`.

The reasons and codes mirror ``k8s.io/apimachinery/pkg/api/errors`` (``NewNotFound``, ``NewConflict``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "Conflict",
    "Expired",
    "FieldError",
    "Forbidden",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "ServerTimeout",
    "ServiceUnavailable",
    "Status",
    "StatusCause",
    "StatusDetails",
    "TooManyRequests",
    "Unauthorized",
    "UnsupportedMediaType",
    "error_from_status",
    "invalid",
]


class StatusCause(msgspec.Struct, kw_only=True, omit_defaults=True):
    """metav1 ``StatusCause``: one reason a request failed (reason, message, and the field it concerns)."""

    reason: str | None = None
    message: str | None = None
    field: str | None = None


class StatusDetails(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """metav1 ``StatusDetails``: the object a ``Status`` concerns (name, group, kind, uid), its causes and retry delay.
    metav1 ``StatusDetails``: the object a ``Status`` concerns (name, group, kind, uid), its causes and retry delay."""

    name: str | None = None
    group: str | None = None
    kind: str | None = None
    uid: str | None = None
    causes: list[StatusCause] | None = None
    retry_after_seconds: int | None = None


class Status(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """meta/v1 Status, as returned for every failed request."""

    kind: str = "Status"
    api_version: str = "v1"
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    status: str = "Failure"
    message: str = ""
    reason: str = ""
    details: StatusDetails | None = None
    code: int = 500


def _qualified(group: str | None, resource: str | None) -> str:
    """``pods`` or ``deployments.apps``: upstream's schema.GroupResource.String()."""
    if not resource:
        return ""
    return f"{resource}.{group}" if group else resource


class ApiError(Exception):
    """Base class of every API rejection. ``status`` is the Kubernetes Status object."""

    code: int = 500
    reason: str = "InternalError"

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status

    # Constructor used by subclasses: message plus optional details.
    @classmethod
    def make(
        cls,
        message: str,
        *,
        name: str | None = None,
        group: str | None = None,
        kind: str | None = None,
        causes: Sequence[StatusCause] | None = None,
        retry_after_seconds: int | None = None,
    ) -> ApiError:
        """An error of this class with ``message`` and the ``Status`` details upstream would set."""
        details = None
        if name is not None or group is not None or kind is not None or causes or retry_after_seconds:
            details = StatusDetails(
                name=name,
                group=group,
                kind=kind,
                causes=list(causes) if causes else None,
                retry_after_seconds=retry_after_seconds,
            )
        return cls(Status(message=message, reason=cls.reason, code=cls.code, details=details))

    @property
    def message(self) -> str:
        """The ``Status`` message."""
        return self.status.message

    @property
    def causes(self) -> list[StatusCause]:
        """The field-level causes of the ``Status`` (422 Invalid's field paths)."""
        return list(self.status.details.causes or []) if self.status.details else []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status.code}, {self.status.reason!r}, {self.status.message!r})"


class BadRequest(ApiError):
    """400 BadRequest: the request is malformed (``apierrors.NewBadRequest``)."""
    code = 400
    reason = "BadRequest"


class Unauthorized(ApiError):
    """401 Unauthorized (``NewUnauthorized``): the request carried no valid credentials."""

    code = 401
    reason = "Unauthorized"


class Forbidden(ApiError):
    """403 Forbidden: RBAC (or admission) denied the request (``apierrors.NewForbidden``)."""
    code = 403
    reason = "Forbidden"

    @classmethod
    def for_request(
        cls, *, user: str, verb: str, group: str, resource: str, subresource: str = "", name: str = "",
        namespace: str = "", reason: str = "",
    ) -> ApiError:
        """Upstream's message, e.g. ``pods "x" is forbidden: User "bob" cannot get resource "pods"
        in API group "" in the namespace "default"``."""
        res = f"{resource}/{subresource}" if subresource else resource
        scope = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
        msg = f'User "{user}" cannot {verb} resource "{res}" in API group "{group}"{scope}'
        if reason:
            msg += f": {reason}"
        qualified = _qualified(group, resource)
        prefix = f'{qualified} "{name}" is forbidden' if name else f"{qualified} is forbidden"
        return cls.make(f"{prefix}: {msg}", name=name or None, group=group, kind=resource)


class NotFound(ApiError):
    """404 NotFound (``apierrors.NewNotFound``)."""
    code = 404
    reason = "NotFound"

    @classmethod
    def for_object(cls, group: str, resource: str, name: str) -> ApiError:
        """Upstream's ``<resource> "<name>" not found`` for an object."""
        return cls.make(f'{_qualified(group, resource)} "{name}" not found', name=name, group=group, kind=resource)


class MethodNotAllowed(ApiError):
    """405 MethodNotAllowed (``NewMethodNotSupported``): the resource does not support the verb."""

    code = 405
    reason = "MethodNotAllowed"

    #: what kube-apiserver answers when a request's path is served but not for its HTTP method (go-restful's 405,
    #: turned into a Status by ``serviceErrorHandler`` through ``apierrors.NewGenericServerResponse``)
    NO_ROUTE_MESSAGE = "the server does not allow this method on the requested resource"

    @classmethod
    def no_route(cls) -> ApiError:
        """The 405 for a served path and an HTTP method it does not serve, with upstream's empty details."""
        return cls(Status(message=cls.NO_ROUTE_MESSAGE, reason=cls.reason, code=cls.code, details=StatusDetails()))


class AlreadyExists(ApiError):
    """409 AlreadyExists: an object with that name exists (``apierrors.NewAlreadyExists``)."""
    code = 409
    reason = "AlreadyExists"

    @classmethod
    def for_object(cls, group: str, resource: str, name: str) -> ApiError:
        """The error for ``group``/``kind`` named ``name`` (upstream's message)."""
        return cls.make(
            f'{_qualified(group, resource)} "{name}" already exists', name=name, group=group, kind=resource
        )


class Conflict(ApiError):
    """409 Conflict: a stale resourceVersion or a field-manager conflict (``apierrors.NewConflict``); re-read and
    retry."""
    code = 409
    reason = "Conflict"

    @classmethod
    def for_object(cls, group: str, resource: str, name: str, why: str) -> ApiError:
        """Upstream's "the object has been modified" conflict for an object."""
        return cls.make(
            f'Operation cannot be fulfilled on {_qualified(group, resource)} "{name}": {why}',
            name=name,
            group=group,
            kind=resource,
        )


class Expired(ApiError):
    """410 Gone: a resourceVersion older than the compacted history (reason ``Expired``)."""

    code = 410
    reason = "Expired"


class NotAcceptable(ApiError):
    """406 NotAcceptable: nothing the client's Accept header names can be served (``apierrors.NewNotAcceptableError``)."""

    code = 406
    reason = "NotAcceptable"


class UnsupportedMediaType(ApiError):
    """415 UnsupportedMediaType: the request body's content type is not accepted (e.g. protobuf for a custom
    resource)."""

    code = 415
    reason = "UnsupportedMediaType"


class Invalid(ApiError):
    """422 Invalid: validation failed; ``causes`` name the fields (``apierrors.NewInvalid``)."""
    code = 422
    reason = "Invalid"


class TooManyRequests(ApiError):
    """429 TooManyRequests: throttled or an eviction a PodDisruptionBudget forbids; retry later."""
    code = 429
    reason = "TooManyRequests"


class InternalError(ApiError):
    """500 InternalError (apimachinery ``NewInternalError``): the server failed to handle a valid request."""

    code = 500
    reason = "InternalError"


class ServiceUnavailable(ApiError):
    """503 ServiceUnavailable (``NewServiceUnavailable``): the server cannot serve the request now; retry."""

    code = 503
    reason = "ServiceUnavailable"


class ServerTimeout(ApiError):
    """504 Timeout (``NewServerTimeout``): the request may have been committed; its outcome is unknown."""

    code = 504
    reason = "Timeout"


_BY_REASON: dict[str, type[ApiError]] = {
    c.reason: c
    for c in (
        BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, AlreadyExists, Conflict, Expired,
        UnsupportedMediaType, Invalid, TooManyRequests, InternalError, ServiceUnavailable, ServerTimeout,
    )
}
_BY_CODE: dict[int, type[ApiError]] = {}
for _c in _BY_REASON.values():
    _BY_CODE.setdefault(_c.code, _c)
_BY_REASON["Gone"] = Expired


def error_from_status(status: Status) -> ApiError:
    """The typed exception for a Status (by reason, then by code)."""
    cls = _BY_REASON.get(status.reason) or _BY_CODE.get(status.code) or ApiError
    return cls(status)


# --- field errors ---------------------------------------------------------------------------------------

_FIELD_REASONS = {
    "Required": ("FieldValueRequired", "Required value"),
    "Invalid": ("FieldValueInvalid", "Invalid value"),
    "NotSupported": ("FieldValueNotSupported", "Unsupported value"),
    "Duplicate": ("FieldValueDuplicate", "Duplicate value"),
    "Forbidden": ("FieldValueForbidden", "Forbidden"),
    "TooLong": ("FieldValueTooLong", "Too long"),
    "TooMany": ("FieldValueTooMany", "Too many"),
    "TypeInvalid": ("FieldValueTypeInvalid", "Invalid value"),
    "Internal": ("InternalError", "Internal error"),
}

_OMIT = object()


def _fmt_value(v: Any) -> str:
    """Go's ``%#v``-ish rendering used by field.Error: strings quoted, numbers bare."""
    if isinstance(v, str):
        return msgspec.json.encode(v).decode()
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int | float):
        return str(v)
    return msgspec.json.encode(v).decode()


class FieldError(msgspec.Struct, frozen=True, kw_only=True):
    """One validation problem at a field path, like upstream's ``field.Error``.

    ``kind`` is one of Required, Invalid, NotSupported, Duplicate, Forbidden, TooLong, TooMany,
    TypeInvalid, Internal. ``field`` is a dotted path with indices, e.g. ``spec.containers[0].image``.
    """

    kind: str
    field: str
    detail: str = ""
    value: Any = _OMIT
    supported: tuple[str, ...] = ()

    # Constructors named after upstream's field.Required(...), field.Invalid(...), ...
    @staticmethod
    def required(field: str, detail: str = "") -> FieldError:
        """apimachinery ``field.Required``: the field must be set."""
        return FieldError(kind="Required", field=field, detail=detail)

    @staticmethod
    def invalid(field: str, value: Any, detail: str = "") -> FieldError:
        """apimachinery ``field.Invalid``: ``value`` is not valid for ``field``, with ``detail`` saying why."""
        return FieldError(kind="Invalid", field=field, value=value, detail=detail)

    @staticmethod
    def not_supported(field: str, value: Any, supported: Iterable[str]) -> FieldError:
        """apimachinery ``field.NotSupported``: ``value`` is not one of ``supported``."""
        return FieldError(kind="NotSupported", field=field, value=value, supported=tuple(supported))

    @staticmethod
    def duplicate(field: str, value: Any) -> FieldError:
        """apimachinery ``field.Duplicate``: ``value`` occurs twice where values must be unique."""
        return FieldError(kind="Duplicate", field=field, value=value)

    @staticmethod
    def forbidden(field: str, detail: str) -> FieldError:
        """apimachinery ``field.Forbidden``: the field may not be set (here, or to this value)."""
        return FieldError(kind="Forbidden", field=field, detail=detail)

    @staticmethod
    def too_long(field: str, value: Any, max_length: int) -> FieldError:
        """apimachinery ``field.TooLong``: ``value`` is longer than ``max_length`` bytes."""
        return FieldError(
            kind="TooLong", field=field, value=value, detail=f"may not be more than {max_length} bytes"
        )

    @staticmethod
    def too_many(field: str, actual: int, max_items: int) -> FieldError:
        """``field.TooMany``: "Too many: 33: must have at most 32 items"."""
        return FieldError(kind="TooMany", field=field, detail=f"{actual}: must have at most {max_items} items")

    @staticmethod
    def type_invalid(field: str, value: Any, detail: str) -> FieldError:
        """apimachinery ``field.TypeInvalid``: ``value`` has the wrong type for ``field``."""
        return FieldError(kind="TypeInvalid", field=field, value=value, detail=detail)

    @property
    def reason(self) -> str:
        """The ``StatusCause`` reason of this kind (``FieldValueInvalid``, ``FieldValueRequired``, ...)."""
        return _FIELD_REASONS[self.kind][0]

    def body(self) -> str:
        """The message without the field path (upstream ``ErrorBody``)."""
        label = _FIELD_REASONS[self.kind][1]
        if self.kind == "NotSupported":
            s = f"{label}: {_fmt_value(self.value)}"
            if self.supported:
                s += ": supported values: " + ", ".join(f'"{x}"' for x in self.supported)
            return s
        if self.kind in ("Required", "Forbidden", "Internal", "TooLong", "TooMany") or self.value is _OMIT:
            return f"{label}: {self.detail}" if self.detail else label
        s = f"{label}: {_fmt_value(self.value)}"
        return f"{s}: {self.detail}" if self.detail else s

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def cause(self) -> StatusCause:
        """This error as a ``StatusCause`` (reason, message, field) for the 422 ``Status`` details."""
        return StatusCause(reason=self.reason, message=self.body(), field=self.field)


def invalid(kind: str, name: str, errors: Sequence[FieldError], *, group: str = "") -> ApiError:
    """A 422 Invalid, formatted like upstream ``errors.NewInvalid``."""
    if len(errors) == 1:
        agg = str(errors[0])
    else:
        agg = "[" + ", ".join(str(e) for e in errors) + "]"
    return Invalid.make(
        f'{kind}{"." + group if group else ""} "{name}" is invalid: {agg}',
        name=name,
        group=group,
        kind=kind,
        causes=[e.cause() for e in errors],
    )
