"""The CSR signing controller (``pkg/controller/certificates/signer``): issue certificates for approved
CertificateSigningRequests of the kubernetes.io signers kube-controller-manager serves.

Follows ``signer.handle``: a request is left alone unless it is approved (an Approved condition and no
Denied one), not Failed, has no certificate yet and names a signer this controller serves. The signer's own
checks (``isKubeAPIServerClient``, ``isKubeletClient``, ``isKubeletServing``: ``ValidateKubeletClientCSR``
and ``ValidateKubeletServingCSR`` in ``pkg/apis/certificates/helpers.go``) decide; a request they reject
gets a ``Failed`` condition (reason ``SignerValidationFailure``, upstream's message), one they accept its
certificate in ``status.certificate``, both through ``/status`` as the ``certificate-controller`` service
account (whose role may ``sign`` these signers).

The signing authority is the ``authority`` controller option (a :class:`CertificateAuthority`), else one
made from the cluster RNG when the first certificate is issued (so clusters that never sign draw nothing).
Options: ``authority``, ``duration`` (``--cluster-signing-duration``, seconds, default one year).
"""

from __future__ import annotations

import base64
import random
from typing import TYPE_CHECKING, Any

import msgspec

from kubelite.api.certificates import decode_pem_field, parse_csr
from kubelite.api.types import CertificateSigningRequest
from kubelite.controllers.certificates.authority import DEFAULT_SIGNING_DURATION, CertificateAuthority
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request
from kubelite.errors import NotFound
from kubelite.informer import Indexer

if TYPE_CHECKING:
    from cryptography import x509

# cryptography (~50 ms of imports) loads with the first request this controller signs or checks, not with
# the controller manager: most clusters never sign a certificate (issue #17, cold start).

__all__ = [
    "KUBE_APISERVER_CLIENT",
    "KUBE_APISERVER_CLIENT_KUBELET",
    "KUBELET_SERVING",
    "NAME",
    "SIGNERS",
    "CSRSigningController",
    "is_approved",
    "register",
    "validate_for_signer",
]

NAME = "csrsigning"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"authority", "duration"})
KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"
KUBE_APISERVER_CLIENT_KUBELET = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING = "kubernetes.io/kubelet-serving"
SIGNERS = (KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING)

_KUBELET_CLIENT_USAGES = ({"digital signature", "key encipherment", "client auth"}, {"digital signature", "client auth"})
_KUBELET_SERVING_USAGES = ({"digital signature", "key encipherment", "server auth"}, {"digital signature", "server auth"})


def _conditions(csr: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in (csr.get("status") or {}).get("conditions") or () if isinstance(c, dict)]


def is_approved(csr: dict[str, Any]) -> bool:
    """``IsCertificateRequestApproved``: an Approved condition and no Denied one."""
    types = {c.get("type") for c in _conditions(csr)}
    return "Approved" in types and "Denied" not in types


def _has_true(csr: dict[str, Any], typ: str) -> bool:
    return any(c.get("type") == typ and c.get("status") == "True" for c in _conditions(csr))


def _sans(req: x509.CertificateSigningRequest) -> x509.SubjectAlternativeName | None:
    from cryptography import x509

    try:
        return req.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None


def _names(req: x509.CertificateSigningRequest, kind: type) -> list[Any]:
    sans = _sans(req)
    return list(sans.get_values_for_type(kind)) if sans is not None else []


def _subject(req: x509.CertificateSigningRequest, oid: x509.ObjectIdentifier) -> list[str]:
    return [str(a.value) for a in req.subject.get_attributes_for_oid(oid)]


def _usages_error(required: set[str]) -> str:
    return f"usages did not match [{' '.join(sorted(required))}]"


def validate_for_signer(signer: str, req: x509.CertificateSigningRequest, usages: list[str]) -> str | None:
    """The signer's own check: None when it accepts the request, else upstream's error message."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    if signer == KUBE_APISERVER_CLIENT:  # validAPIServerClientUsages
        for u in usages:
            if u not in ("digital signature", "key encipherment", "client auth"):
                return f"invalid usage for client certificate: {u}"
        if "client auth" not in usages:
            return "missing required usage for client certificate: client auth"
        return None
    cn = _subject(req, NameOID.COMMON_NAME)
    usage_set = set(usages)
    if _subject(req, NameOID.ORGANIZATION_NAME) != ["system:nodes"]:
        return "subject organization is not system:nodes"
    dns, ips = _names(req, x509.DNSName), _names(req, x509.IPAddress)
    emails, uris = _names(req, x509.RFC822Name), _names(req, x509.UniformResourceIdentifier)
    common_name_ok = bool(cn) and cn[0].startswith("system:node:")
    if signer == KUBE_APISERVER_CLIENT_KUBELET:  # ValidateKubeletClientCSR
        for values, what in ((dns, "DNS"), (emails, "Email"), (ips, "IP"), (uris, "URI")):
            if values:
                return f"{what} subjectAltNames are not allowed"
        if not common_name_ok:
            return "subject common name does not begin with system:node:"
        if usage_set not in _KUBELET_CLIENT_USAGES:
            return _usages_error(_KUBELET_CLIENT_USAGES[0])
        return None
    # KUBELET_SERVING: ValidateKubeletServingCSR
    if not dns and not ips:
        return "DNS or IP subjectAltName is required"
    if emails:
        return "Email subjectAltNames are not allowed"
    if uris:
        return "URI subjectAltNames are not allowed"
    if usage_set not in _KUBELET_SERVING_USAGES:
        return _usages_error(_KUBELET_SERVING_USAGES[0])
    if not common_name_ok:
        return "subject common name does not begin with system:node:"
    return None


class CSRSigningController:
    def __init__(self, ctx: ControllerContext, *, csrs: Indexer) -> None:
        self.client, self.clock, self.csrs = ctx.client, ctx.clock, csrs
        self._rng = ctx.rng
        self._authority: CertificateAuthority | None = ctx.option(NAME, "authority", None)
        self.duration = float(ctx.option(NAME, "duration", DEFAULT_SIGNING_DURATION))

    @property
    def authority(self) -> CertificateAuthority:
        if self._authority is None:
            self._authority = CertificateAuthority.generate(rng=random.Random(self._rng.getrandbits(64)),
                                                            now=self.clock.now())
        return self._authority

    async def reconcile(self, req: Request) -> None:
        cached: CertificateSigningRequest | None = self.csrs.get_by_key(req.name)
        if cached is None:
            return
        csr: dict[str, Any] = msgspec.to_builtins(cached)
        spec, status = csr.get("spec") or {}, csr.get("status") or {}
        signer = spec.get("signerName")
        if not is_approved(csr) or _has_true(csr, "Failed") or status.get("certificate") or signer not in SIGNERS:
            return
        try:
            x509_req = parse_csr(decode_pem_field(spec.get("request")))
        except ValueError as e:  # upstream returns the parse error (and requeues); validation prevents it
            raise ValueError(f'unable to parse csr "{req.name}": {e}') from None
        usages = [u for u in spec.get("usages") or () if isinstance(u, str)]
        problem = validate_for_signer(signer, x509_req, usages)
        if problem is not None:
            status.setdefault("conditions", []).append({
                "type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": problem,
                "lastUpdateTime": self.clock.timestamp(),
            })
        else:
            pem = self.authority.sign(x509_req, usages, now=self.clock.now(), rng=self._rng,
                                      expiration_seconds=spec.get("expirationSeconds"), duration=self.duration)
            status["certificate"] = base64.b64encode(pem).decode()
        csr["status"] = status
        try:
            await self.client.replace_status(csr)
        except NotFound:
            return


def register(ctx: ControllerContext) -> None:
    csrs = ctx.informers.informer_for(CertificateSigningRequest).get_indexer()
    ctx.manager.controller("csrsigning").for_(CertificateSigningRequest).complete(CSRSigningController(ctx, csrs=csrs))
