"""Request-scoped values passed through the apiserver pipeline.

``Response`` carries the encoded object (bytes, decoded by the caller into whatever type it wants) and
the warnings upstream would send in ``Warning`` headers. ``AdmissionRequest`` is what admission
plugins and user hooks see: the shape of upstream's ``admission.Attributes`` / ``AdmissionReview``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.apiserver.auth.user import UserInfo

__all__ = ["AdmissionRequest", "ListResponse", "Response"]


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
