"""Generated msgspec Structs for certificates/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "CertificateSigningRequest", "CertificateSigningRequestCondition",
    "CertificateSigningRequestSpec", "CertificateSigningRequestStatus"
]


class CertificateSigningRequest(K8sStruct, kw_only=True):
    """CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued."""

    api_version: str = msgspec.field(default_factory=partial(str, "certificates.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "CertificateSigningRequest"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: CertificateSigningRequestSpec | None = None
    status: CertificateSigningRequestStatus | None = None


class CertificateSigningRequestCondition(K8sStruct, kw_only=True):
    """CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object"""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    last_update_time: str | None = msgspec.field(default=None, name="lastUpdateTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class CertificateSigningRequestSpec(K8sStruct, kw_only=True):
    """CertificateSigningRequestSpec contains the certificate request."""

    expiration_seconds: int | None = msgspec.field(default=None, name="expirationSeconds")
    extra: dict[str, list[str]] | None = None
    groups: list[str] | None = None
    request: str | None = None
    signer_name: str | None = msgspec.field(default=None, name="signerName")
    uid: str | None = None
    usages: list[str] | None = None
    username: str | None = None


class CertificateSigningRequestStatus(K8sStruct, kw_only=True):
    """CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate."""

    certificate: str | None = None
    conditions: list[CertificateSigningRequestCondition] | None = None
