"""CertificateSigningRequest validation, mirroring upstream's
``pkg/apis/certificates/validation/validation_test.go`` (TestValidateCertificateSigningRequestCreate,
TestValidateCertificateSigningRequestUpdate/StatusUpdate/ApprovalUpdate, TestValidateSignerName) and the
compatibility options it derives from the stored object."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kubelite.apiserver.validation.certificates import (
    validate_csr_approval_update,
    validate_csr_create,
    validate_csr_status_update,
    validate_csr_update,
    validate_signer_name,
)

_KEY = ec.derive_private_key(7, ec.SECP256R1())


def _pem_csr(cn: str = "alice") -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    return x509.CertificateSigningRequestBuilder().subject_name(name).sign(_KEY, hashes.SHA256()).public_bytes(
        serialization.Encoding.PEM)


def _pem_cert() -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ca")])
    import datetime

    t = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(_KEY.public_key())
            .serial_number(1).not_valid_before(t).not_valid_after(t + datetime.timedelta(days=1))
            .sign(_KEY, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


REQUEST = base64.b64encode(_pem_csr()).decode()
CERT = base64.b64encode(_pem_cert()).decode()


def _csr(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": "x", "resourceVersion": "1"},
            "spec": {"request": REQUEST, "signerName": "example.com/signer", "usages": ["client auth"], **spec},
            "status": {}}


def _msgs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


@pytest.mark.parametrize(("spec", "expected"), [
    ({}, []),
    ({"usages": []}, ["spec.usages: Required value"]),
    ({"usages": ["client auth", "bogus"]}, ['spec.usages[1]: Unsupported value: "bogus"']),
    ({"usages": ["client auth", "client auth"]}, ['spec.usages[1]: Duplicate value: "client auth"']),
    ({"signerName": ""}, ["spec.signerName: Required value"]),
    ({"signerName": "kubernetes.io/legacy-unknown"},
     ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']),
    ({"expirationSeconds": 599},
     ["spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"]),
    ({"expirationSeconds": 600}, []),
    ({"request": base64.b64encode(b"not pem").decode()},
     ["spec.request: Invalid value: \"bm90IHBlbQ==\": PEM block type must be CERTIFICATE REQUEST"]),
    ({"request": CERT},
     [f'spec.request: Invalid value: "{CERT}": PEM block type must be CERTIFICATE REQUEST']),
], ids=["valid", "missing-usages", "unknown-usage", "duplicate-usage", "missing-signer", "legacy-signer",
        "short-expiration", "expiration-600", "request-not-pem", "request-is-a-certificate"])
def test_create(spec: dict[str, Any], expected: list[str]) -> None:
    got = _msgs(validate_csr_create(_csr(**spec)))
    assert [g.split(": supported values")[0] for g in got] == expected


def test_tampered_request_fails_its_signature() -> None:
    der = bytearray(x509.load_pem_x509_csr(_pem_csr()).public_bytes(serialization.Encoding.DER))
    der[-1] ^= 0x01  # the last byte is in the signature
    pem = b"-----BEGIN CERTIFICATE REQUEST-----\n" + base64.encodebytes(bytes(der)) + b"-----END CERTIFICATE REQUEST-----\n"
    errs = _msgs(validate_csr_create(_csr(request=base64.b64encode(pem).decode())))
    assert len(errs) == 1 and errs[0].endswith("x509: ECDSA verification failure")


@pytest.mark.parametrize(("signer", "ok"), [
    ("example.com/signer", True), ("example.com/a.b.c", True), ("k8s.io/x", True),
    ("example.com", False), ("example.com/", False), ("/signer", False), ("a/b/c", False),
    ("localhost/signer", False), ("Example.com/signer", False), ("example.com/Signer", False),
    ("example.com/" + "a" * 254, False), ("a" * 64 + ".com/x", False),
], ids=["plain", "dotted-path", "short-domain", "no-path", "empty-path", "empty-domain", "two-slashes",
        "single-label-domain", "upper-domain", "upper-path", "path-label-too-long", "domain-label-too-long"])
def test_signer_name(signer: str, ok: bool) -> None:
    assert (validate_signer_name("spec.signerName", signer) == []) is ok


def _cond(typ: str, status: str = "True", **extra: Any) -> dict[str, Any]:
    return {"type": typ, "status": status, **extra}


def _with(obj: dict[str, Any], *conditions: dict[str, Any], certificate: str | None = None) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["status"] = {"conditions": list(conditions)}
    if certificate is not None:
        out["status"]["certificate"] = certificate
    return out


BASE = _csr()


@pytest.mark.parametrize(("old", "new", "fn", "expected"), [
    # approval conditions only through /approval
    (BASE, _with(BASE, _cond("Approved")), validate_csr_update,
     ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']),
    (BASE, _with(BASE, _cond("Approved")), validate_csr_status_update,
     ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']),
    (BASE, _with(BASE, _cond("Approved")), validate_csr_approval_update, []),
    (BASE, _with(BASE, _cond("Denied")), validate_csr_approval_update, []),
    (BASE, _with(BASE, _cond("Approved"), _cond("Denied")), validate_csr_approval_update,
     ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']),
    (BASE, _with(BASE, _cond("Approved", "False")), validate_csr_approval_update,
     ['status.conditions[0].status: Unsupported value: "False"']),
    (BASE, _with(BASE, _cond("Approved"), _cond("Approved")), validate_csr_approval_update,
     ['status.conditions[1].type: Duplicate value: "Approved"']),
    (BASE, _with(BASE, _cond("")), validate_csr_approval_update, ["status.conditions[0].type: Required value"]),
    (BASE, _with(BASE, _cond("Custom", "")), validate_csr_approval_update,
     ["status.conditions[0].status: Required value"]),
    (BASE, _with(BASE, _cond("Custom", "Unknown")), validate_csr_status_update, []),
    # removing an Approved/Denied/Failed condition is never allowed
    (_with(BASE, _cond("Approved")), BASE, validate_csr_approval_update,
     ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']),
    (_with(BASE, _cond("Failed")), BASE, validate_csr_status_update,
     ['status.conditions: Forbidden: updates may not remove a condition of type "Failed"']),
    (_with(BASE, _cond("Approved", reason="A")), _with(BASE, _cond("Approved", reason="B")), validate_csr_status_update,
     ['status.conditions: Forbidden: updates may not modify a condition of type "Approved"']),
    # the certificate: only through /status, only once, only CERTIFICATE blocks
    (_with(BASE, _cond("Approved")), _with(BASE, _cond("Approved"), certificate=CERT), validate_csr_status_update, []),
    (_with(BASE, _cond("Approved")), _with(BASE, _cond("Approved"), certificate=CERT), validate_csr_update,
     ["status.certificate: Forbidden: updates may not set certificate content"]),
    (_with(BASE, _cond("Approved")), _with(BASE, _cond("Approved"), certificate=CERT), validate_csr_approval_update,
     ["status.certificate: Forbidden: updates may not set certificate content"]),
    (_with(BASE, certificate=CERT), _with(BASE, certificate=base64.b64encode(_pem_cert() * 2).decode()),
     validate_csr_status_update, ["status.certificate: Forbidden: updates may not modify existing certificate content"]),
    (BASE, _with(BASE, certificate=REQUEST), validate_csr_status_update,
     ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"']),
    (BASE, _with(BASE, certificate=base64.b64encode(b"junk").decode()), validate_csr_status_update,
     ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']),
], ids=["update-adds-approved", "status-adds-approved", "approval-adds-approved", "approval-adds-denied",
        "approved-and-denied", "approved-false", "duplicate-type", "empty-type", "empty-status", "custom-unknown",
        "remove-approved", "remove-failed", "modify-approved", "status-sets-certificate", "update-sets-certificate",
        "approval-sets-certificate", "certificate-reset", "certificate-not-a-certificate", "certificate-junk"])
def test_updates(old: dict[str, Any], new: dict[str, Any], fn: Any, expected: list[str]) -> None:
    got = [g.split(": supported values")[0] for g in _msgs(fn(new, old))]
    assert got == expected


def test_problems_already_stored_are_tolerated() -> None:
    """getValidationOptions: data that is already bad in the stored object is not re-rejected."""
    old = _with(_csr(usages=["client auth", "bogus", "bogus"]), _cond("Approved"), _cond("Denied"))
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"a": "b"}
    assert validate_csr_update(new, old) == []
