"""Generated msgspec Structs for authentication/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "BoundObjectReference", "SelfSubjectReview", "SelfSubjectReviewStatus", "TokenRequest",
    "TokenRequestSpec", "TokenRequestStatus", "TokenReview", "TokenReviewSpec", "TokenReviewStatus",
    "UserInfo"
]


class BoundObjectReference(K8sStruct, kw_only=True):
    """BoundObjectReference is a reference to an object that a token is bound to."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    kind: str | None = None
    name: str | None = None
    uid: str | None = None


class SelfSubjectReview(K8sStruct, kw_only=True):
    """SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request."""

    api_version: str = msgspec.field(default_factory=partial(str, "authentication.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "SelfSubjectReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    status: SelfSubjectReviewStatus | None = None


class SelfSubjectReviewStatus(K8sStruct, kw_only=True):
    """SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user."""

    user_info: UserInfo | None = msgspec.field(default=None, name="userInfo")


class TokenRequest(K8sStruct, kw_only=True):
    """TokenRequest requests a token for a given service account."""

    api_version: str = msgspec.field(default_factory=partial(str, "authentication.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "TokenRequest"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: TokenRequestSpec | None = None
    status: TokenRequestStatus | None = None


class TokenRequestSpec(K8sStruct, kw_only=True):
    """TokenRequestSpec contains client provided parameters of a token request."""

    attestations: dict[str, list[str]] | None = None
    audiences: list[str] | None = None
    bound_object_ref: BoundObjectReference | None = msgspec.field(default=None, name="boundObjectRef")
    expiration_seconds: int | None = msgspec.field(default=None, name="expirationSeconds")


class TokenRequestStatus(K8sStruct, kw_only=True):
    """TokenRequestStatus is the result of a token request."""

    expiration_timestamp: str | None = msgspec.field(default=None, name="expirationTimestamp")
    token: str | None = None


class TokenReview(K8sStruct, kw_only=True):
    """TokenReview attempts to authenticate a token to a known user."""

    api_version: str = msgspec.field(default_factory=partial(str, "authentication.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "TokenReview"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: TokenReviewSpec | None = None
    status: TokenReviewStatus | None = None


class TokenReviewSpec(K8sStruct, kw_only=True):
    """TokenReviewSpec is a description of the token authentication request."""

    audiences: list[str] | None = None
    token: str | None = None


class TokenReviewStatus(K8sStruct, kw_only=True):
    """TokenReviewStatus is the result of the token authentication request."""

    audiences: list[str] | None = None
    authenticated: bool | None = None
    error: str | None = None
    user: UserInfo | None = None


class UserInfo(K8sStruct, kw_only=True):
    """UserInfo holds the information about the user needed to implement the user.Info interface."""

    extra: dict[str, list[str]] | None = None
    groups: list[str] | None = None
    uid: str | None = None
    username: str | None = None
