"""The cluster signing authority (``pkg/controller/certificates/authority``): a CA key and certificate,
and ``sign`` issuing an X.509 certificate for a certificate signing request.

Contract:
- Deterministic: a CA generated from the cluster RNG is an Ed25519 key (Ed25519 signatures are
  deterministic), its serial numbers come from that RNG and every time from the cluster clock, so the
  same seed issues byte-identical certificates. (kube-controller-manager signs with whatever key
  ``--cluster-signing-key-file`` holds, usually RSA or ECDSA; the certificate's shape is the same.)
- ``sign`` is ``CertificateAuthority.Sign`` with the ``PermissiveSigningPolicy``: subject, public key and
  subjectAltNames (DNS, IP, email, URI) from the request, key usages and extended key usages from the
  CSR's ``spec.usages``, not a CA, NotBefore backdated 5 minutes, NotAfter ``min(expirationSeconds,
  --cluster-signing-duration)`` after now, capped at the CA's own NotAfter; serial a random 128-bit number.
"""

from __future__ import annotations

import datetime
import functools
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ed25519

# cryptography is imported by the functions that use it: the signer controller is registered by every
# cluster, and cryptography's ~50 ms of imports should be paid by the first certificate issued, not by
# every cluster start (issue #17, cold start).

__all__ = ["BACKDATE", "DEFAULT_SIGNING_DURATION", "CertificateAuthority", "key_usages"]

DEFAULT_SIGNING_DURATION = 365 * 24 * 3600.0  # --cluster-signing-duration=8760h
BACKDATE = 5 * 60.0
_CA_VALIDITY = 10 * 365 * 24 * 3600.0

# authority/policies.go keyUsageDict and extKeyUsageDict
_KEY_USAGE = {
    "signing": "digital_signature", "digital signature": "digital_signature",
    "content commitment": "content_commitment", "key encipherment": "key_encipherment",
    "key agreement": "key_agreement", "data encipherment": "data_encipherment", "cert sign": "key_cert_sign",
    "crl sign": "crl_sign", "encipher only": "encipher_only", "decipher only": "decipher_only",
}
@functools.cache
def _ext_key_usage() -> dict[str, x509.ObjectIdentifier]:
    from cryptography import x509
    from cryptography.x509.oid import ExtendedKeyUsageOID

    return {
        "any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE, "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
        "client auth": ExtendedKeyUsageOID.CLIENT_AUTH, "code signing": ExtendedKeyUsageOID.CODE_SIGNING,
        "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION, "s/mime": ExtendedKeyUsageOID.EMAIL_PROTECTION,
        "ipsec end system": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.5"),
        "ipsec tunnel": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.6"),
        "ipsec user": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.7"),
        "timestamping": ExtendedKeyUsageOID.TIME_STAMPING, "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
        "microsoft sgc": x509.ObjectIdentifier("1.3.6.1.4.1.311.10.3.3"),
        "netscape sgc": x509.ObjectIdentifier("2.16.840.1.113730.4.1"),
    }


def _time(t: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(t, tz=datetime.UTC)


def key_usages(usages: list[str]) -> tuple[x509.KeyUsage | None, list[x509.ObjectIdentifier]]:
    """``keyUsagesFromStrings``: the KeyUsage extension (None when empty) and the extended key usages,
    in the order the CSR lists them (each once)."""
    from cryptography import x509

    ext_key_usage = _ext_key_usage()
    flags = {v: False for v in set(_KEY_USAGE.values())}
    ext: list[x509.ObjectIdentifier] = []
    for u in usages:
        if u in _KEY_USAGE:
            flags[_KEY_USAGE[u]] = True
        elif u in ext_key_usage and ext_key_usage[u] not in ext:
            ext.append(ext_key_usage[u])
    if not flags["key_agreement"]:  # X.509: encipherOnly/decipherOnly only qualify keyAgreement
        flags["encipher_only"] = flags["decipher_only"] = False
    return (x509.KeyUsage(**flags) if any(flags.values()) else None), ext


class CertificateAuthority:
    def __init__(self, *, key: ed25519.Ed25519PrivateKey, certificate: x509.Certificate) -> None:
        self.key = key
        self.certificate = certificate

    @classmethod
    def generate(cls, *, rng: random.Random, now: float, common_name: str = "kubernetes") -> CertificateAuthority:
        """A self-signed CA (kubeadm's ``CN=kubernetes``, ten years) made from the cluster RNG."""
        from cryptography import x509
        from cryptography.hazmat.primitives.asymmetric import ed25519
        from cryptography.x509.oid import NameOID

        key = ed25519.Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        public = key.public_key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name).issuer_name(name).public_key(public)
            .serial_number(rng.getrandbits(127) | 1)
            .not_valid_before(_time(now)).not_valid_after(_time(now + _CA_VALIDITY))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(key, None)
        )
        return cls(key=key, certificate=cert)

    @property
    def certificate_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.certificate.public_bytes(serialization.Encoding.PEM)

    def sign(
        self, csr: x509.CertificateSigningRequest, usages: list[str], *, now: float, rng: random.Random,
        expiration_seconds: int | None = None, duration: float = DEFAULT_SIGNING_DURATION,
    ) -> bytes:
        """The PEM certificate for ``csr`` (see the module docstring)."""
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        ttl = duration if expiration_seconds is None else min(float(expiration_seconds), duration)
        not_after = min(now + ttl, self.certificate.not_valid_after_utc.timestamp())
        builder = (
            x509.CertificateBuilder()
            .subject_name(csr.subject).issuer_name(self.certificate.subject).public_key(csr.public_key())
            .serial_number(rng.getrandbits(128) | 1)
            .not_valid_before(_time(now - BACKDATE)).not_valid_after(_time(not_after))
        )
        ku, eku = key_usages(usages)
        if ku is not None:
            builder = builder.add_extension(ku, critical=True)
        if eku:
            builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
        builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        ski = self.certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski),
                                        critical=False)
        sans = _sans(csr)
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return builder.sign(self.key, None).public_bytes(serialization.Encoding.PEM)


def _sans(csr: x509.CertificateSigningRequest) -> list[Any]:
    from cryptography import x509

    try:
        ext = csr.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return list(ext)
