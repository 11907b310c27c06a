"""PEM-encoded certificates and certificate signing requests in API objects (``[]byte`` fields, base64 in
JSON): decoding, parsing and the checks upstream's helpers make (``certificates.ParseCSR`` +
``CheckSignature``; the CSR validation's ``validateCertificate``). Shared by CSR validation, the
certificates admission plugins and the signing controller."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

__all__ = ["decode_pem_field", "parse_csr", "validate_certificate"]

_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----\r?\n?", re.S)

# what Go's CheckSignature reports, by public key type
_SIGNATURE_ERRORS = {
    "RSAPublicKey": "crypto/rsa: verification error",
    "ECPublicKey": "x509: ECDSA verification failure",
    "Ed25519PublicKey": "x509: Ed25519 verification failure",
}


def decode_pem_field(value: Any) -> bytes:
    """A ``[]byte`` field's JSON value (base64) as bytes; b"" when absent or not base64."""
    if not isinstance(value, str) or not value:
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


def _pem_blocks(data: bytes) -> list[tuple[str, bool, bytes]]:
    """(type, has headers, DER) of each PEM block, in the order Go's pem.Decode finds them."""
    out = []
    for m in _PEM_BLOCK.finditer(data):
        body = m.group(2)
        head, sep, rest = body.partition(b"\n\n")
        headers = bool(sep) and b":" in head
        try:
            der = base64.b64decode(b"".join((rest if headers else body).split()), validate=True)
        except (binascii.Error, ValueError):
            continue  # pem.Decode skips a block that does not decode
        out.append((m.group(1).decode(), headers, der))
    return out


def parse_csr(request: bytes) -> Any:
    """The x509 CertificateSigningRequest in ``request`` (PEM), its signature checked; ValueError with
    upstream's message otherwise."""
    from cryptography import x509

    blocks = _pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        raise ValueError("PEM block type must be CERTIFICATE REQUEST")
    try:
        csr = x509.load_der_x509_csr(blocks[0][2])
    except ValueError as e:
        raise ValueError(f"x509: malformed certificate request: {e}") from None
    if not csr.is_signature_valid:
        raise ValueError(_SIGNATURE_ERRORS.get(type(csr.public_key()).__name__,
                                               "x509: signature verification failure"))
    return csr


def validate_certificate(pem: bytes) -> str | None:
    """``validateCertificate``: None when ``pem`` is empty or only CERTIFICATE blocks, else the error."""
    from cryptography import x509

    if not pem:
        return None
    blocks = _pem_blocks(pem)
    for typ, headers, der in blocks:
        if typ != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{typ}"'
        if headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError as e:
            return f"x509: malformed certificate: {e}"
    if not blocks:
        return "must contain at least one CERTIFICATE PEM block"
    return None
