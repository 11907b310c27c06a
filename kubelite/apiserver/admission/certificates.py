"""The certificates admission plugins (``plugin/pkg/admission/certificates``).

- CertificateApproval: an update through ``certificatesigningrequests/approval`` needs the ``approve`` verb
  on ``signers`` (group ``certificates.k8s.io``) named the request's signerName, or ``<domain>/*``.
- CertificateSigning: a ``/status`` update that changes ``status.certificate`` needs ``sign`` on the signer.
- CertificateSubjectRestriction: a request for the ``kubernetes.io/kube-apiserver-client`` signer may not
  name the ``system:masters`` group in its subject.
Each rejection is upstream's ``admission.NewForbidden``: ``<resource> "<name>" is forbidden: <why>``.
Members of ``system:masters`` pass the authorization checks (the privileged-group authorizer).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.certificates import decode_pem_field, parse_csr
from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer
from kubelite.apiserver.auth.user import SYSTEM_PRIVILEGED_GROUP, UserInfo
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import ApiError, Forbidden

__all__ = ["CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction", "is_authorized_for_signer"]

_GROUP = "certificates.k8s.io"
_RESOURCE = "certificatesigningrequests"
KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"


def _csr_request(req: AdmissionRequest, subresource: str) -> bool:
    return req.group == _GROUP and req.resource == _RESOURCE and req.subresource == subresource


def _forbidden(req: AdmissionRequest, why: str) -> ApiError:
    return Forbidden.make(f'{_RESOURCE}.{_GROUP} {msgspec.json.encode(req.name).decode()} is forbidden: {why}',
                          name=req.name, group=_GROUP, kind=_RESOURCE)


def is_authorized_for_signer(rbac: RBACAuthorizer, user: UserInfo, verb: str, signer: str) -> bool:
    """``certificates.IsAuthorizedForSignerName``: the verb on the signer, else on ``<domain>/*``."""
    if SYSTEM_PRIVILEGED_GROUP in user.groups:
        return True
    for name in (signer, signer.split("/", 1)[0] + "/*"):
        attrs = Attributes(user=user, verb=verb, namespace="", api_group=_GROUP, resource="signers",
                           subresource="", name=name)
        if rbac.authorize(attrs)[0]:
            return True
    return False


def _signer(obj: dict[str, Any] | None) -> str:
    spec = (obj or {}).get("spec") or {}
    signer = spec.get("signerName")
    return signer if isinstance(signer, str) else ""


class CertificateApproval:
    name = "CertificateApproval"
    operations = frozenset({"UPDATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("certificates.k8s.io", "certificatesigningrequests")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): CSRs only: not a templated kind
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, rbac: RBACAuthorizer) -> None:
        self.rbac = rbac

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "UPDATE" and _csr_request(req, "approval")

    def validate(self, req: AdmissionRequest) -> None:
        signer = _signer(req.object)
        if not is_authorized_for_signer(self.rbac, req.user, "approve", signer):
            raise _forbidden(req, f'user not permitted to approve requests with signerName "{signer}"')


class CertificateSigning:
    name = "CertificateSigning"
    operations = frozenset({"UPDATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("certificates.k8s.io", "certificatesigningrequests")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): CSRs only: not a templated kind
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, rbac: RBACAuthorizer) -> None:
        self.rbac = rbac

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "UPDATE" and _csr_request(req, "status")

    def validate(self, req: AdmissionRequest) -> None:
        new = ((req.object or {}).get("status") or {}).get("certificate")
        old = ((req.old_object or {}).get("status") or {}).get("certificate")
        if new == old:
            return
        signer = _signer(req.object)
        if not is_authorized_for_signer(self.rbac, req.user, "sign", signer):
            raise _forbidden(req, f'user not permitted to sign requests with signerName "{signer}"')


class CertificateSubjectRestriction:
    name = "CertificateSubjectRestriction"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("certificates.k8s.io", "certificatesigningrequests")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): CSRs only: not a templated kind
    template_tables: tuple[tuple[str, str], ...] | None = None

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and _csr_request(req, "")

    def validate(self, req: AdmissionRequest) -> None:
        if _signer(req.object) != KUBE_APISERVER_CLIENT:
            return
        from cryptography.x509.oid import NameOID

        try:
            csr = parse_csr(decode_pem_field(((req.object or {}).get("spec") or {}).get("request")))
        except ValueError:
            return  # validation reports it
        orgs = [a.value for a in csr.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
        if SYSTEM_PRIVILEGED_GROUP in orgs:
            raise _forbidden(req, f"use of {KUBE_APISERVER_CLIENT} signer with {SYSTEM_PRIVILEGED_GROUP} group is not allowed")
