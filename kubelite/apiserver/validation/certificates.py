"""certificates.k8s.io/v1 CertificateSigningRequest validation (``pkg/apis/certificates/validation``).

Contract: the functions read v1 JSON dicts and return :class:`~kubelite.errors.FieldError` values in
upstream's order. ``validate_csr_create`` is ``ValidateCertificateSigningRequestCreate``; the three update
functions are the main resource's, ``/status``'s (which may set ``status.certificate``) and
``/approval``'s (which may add or change the Approved and Denied conditions). The compatibility options
upstream derives from the stored object (tolerating problems it already has) are derived the same way.
``validate_signer_name`` is core validation's ``ValidateSignerName``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.api.certificates import decode_pem_field, parse_csr, validate_certificate
from kubelite.apiserver.validation.common import as_dict
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "APPROVED",
    "DENIED",
    "FAILED",
    "KNOWN_USAGES",
    "LEGACY_UNKNOWN_SIGNER",
    "validate_csr_approval_update",
    "validate_csr_create",
    "validate_csr_status_update",
    "validate_csr_update",
    "validate_signer_name",
]

APPROVED, DENIED, FAILED = "Approved", "Denied", "Failed"
LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown"
_TRUE_ONLY = (APPROVED, DENIED, FAILED)
_ALL_STATUS = ("False", "True", "Unknown")

#: allValidUsages, sorted as sets.List returns them
KNOWN_USAGES = tuple(sorted((
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement",
    "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth",
    "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel",
    "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc",
)))

def validate_signer_name(path: str, signer: Any) -> list[FieldError]:
    """``ValidateSignerName``: ``<domain with a dot>/<path of DNS-1123 subdomains>``, at most 571 bytes."""
    if not isinstance(signer, str) or not signer:
        return [FieldError.required(path)]
    segments = signer.split("/")
    if len(segments) != 2:
        return [FieldError.invalid(path, signer, "must be a fully qualified domain and path of the form "
                                                 "'example.com/signer-name'")]
    errs: list[FieldError] = []
    domain, rest = segments
    if len(domain) > 253:
        errs.append(FieldError.too_long(path, "", 253))
    labels = domain.split(".")
    for label in labels:
        problems = names.is_dns1123_label(label)
        if problems:
            errs.extend(FieldError.invalid(path, domain, f'validating label "{label}": {p}') for p in problems)
            break
    if len(labels) < 2:
        errs.append(FieldError.invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    for label in rest.split("."):
        problems = names.is_dns1123_subdomain(label)
        if problems:
            errs.extend(FieldError.invalid(path, rest, f'validating label "{label}": {p}') for p in problems)
            break
    if len(signer) > 253 + 253 + 63 + 1 + 1:
        errs.append(FieldError.too_long(path, "", 571))
    return errs


def _conditions(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    conds = as_dict(obj.get("status")).get("conditions")
    return [c for c in conds if isinstance(c, dict)] if isinstance(conds, list) else []


def _find(obj: Mapping[str, Any], typ: str) -> list[dict[str, Any]]:
    return [c for c in _conditions(obj) if c.get("type") == typ]


class _Options:
    """certificateValidationOptions, derived from the stored object as getValidationOptions does."""

    def __init__(self, new: Mapping[str, Any], old: Mapping[str, Any] | None, *, approval: bool = False,
                 certificate: bool = False) -> None:
        self.allow_setting_approval = approval
        self.allow_setting_certificate = certificate
        old_conds = _conditions(old) if old is not None else []
        old_types = [c.get("type") for c in old_conds]
        old_spec = as_dict(old.get("spec")) if old is not None else {}
        self.allow_both_approved_and_denied = APPROVED in old_types and DENIED in old_types
        self.allow_legacy_signer = old is not None and old_spec.get("signerName") == LEGACY_UNKNOWN_SIGNER
        self.allow_duplicate_types = len(old_types) != len(set(old_types))
        self.allow_empty_type = old is not None and any(not t for t in old_types)
        old_cert = _cert(old) if old is not None else b""
        self.allow_arbitrary_certificate = old is not None and (
            _cert(new) == old_cert or validate_certificate(old_cert) is not None)
        old_usages = [u for u in old_spec.get("usages") or () if isinstance(u, str)]
        self.allow_unknown_usages = any(u not in KNOWN_USAGES for u in old_usages)
        self.allow_duplicate_usages = len(old_usages) != len(set(old_usages))


def _cert(obj: Mapping[str, Any]) -> bytes:
    return decode_pem_field(as_dict(obj.get("status")).get("certificate"))


def _validate(obj: Mapping[str, Any], opts: _Options) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=lambda n, p: [])
    spec = as_dict(obj.get("spec"))
    request = spec.get("request")
    try:
        parse_csr(decode_pem_field(request))
    except ValueError as e:
        errs.append(FieldError.invalid("spec.request", request if request is not None else "", str(e)))
    usages = [u for u in spec.get("usages") or () if isinstance(u, str)]
    if not usages:
        errs.append(FieldError.required("spec.usages"))
    if not opts.allow_unknown_usages:
        errs.extend(FieldError.not_supported(f"spec.usages[{i}]", u, KNOWN_USAGES)
                    for i, u in enumerate(usages) if u not in KNOWN_USAGES)
    if not opts.allow_duplicate_usages:
        seen: set[str] = set()
        for i, u in enumerate(usages):
            if u in seen:
                errs.append(FieldError.duplicate(f"spec.usages[{i}]", u))
            seen.add(u)
    signer = spec.get("signerName")
    if not opts.allow_legacy_signer and signer == LEGACY_UNKNOWN_SIGNER:
        errs.append(FieldError.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
    else:
        errs.extend(validate_signer_name("spec.signerName", signer))
    expiration = spec.get("expirationSeconds")
    if isinstance(expiration, int) and expiration < 600:
        errs.append(FieldError.invalid("spec.expirationSeconds", expiration,
                                       "may not specify a duration less than 600 seconds (10 minutes)"))
    errs.extend(_validate_conditions(obj, opts))
    if not opts.allow_arbitrary_certificate:
        problem = validate_certificate(_cert(obj))
        if problem is not None:
            errs.append(FieldError.invalid("status.certificate", "<certificate data>", problem))
    return errs


def _validate_conditions(obj: Mapping[str, Any], opts: _Options) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    has_approved = has_denied = False
    for i, c in enumerate(_conditions(obj)):
        path = f"status.conditions[{i}]"
        typ, status = c.get("type") or "", c.get("status") or ""
        if not opts.allow_empty_type and not typ:
            errs.append(FieldError.required(f"{path}.type"))
        allowed = ("True",) if typ in _TRUE_ONLY else _ALL_STATUS
        if not status:
            errs.append(FieldError.required(f"{path}.status"))
        elif status not in allowed:
            errs.append(FieldError.not_supported(f"{path}.status", status, allowed))
        if not opts.allow_both_approved_and_denied:
            if typ == APPROVED:
                has_approved = True
                if has_denied:
                    errs.append(FieldError.invalid(f"{path}.type", typ, "Approved and Denied conditions are mutually exclusive"))
            elif typ == DENIED:
                has_denied = True
                if has_approved:
                    errs.append(FieldError.invalid(f"{path}.type", typ, "Approved and Denied conditions are mutually exclusive"))
        if not opts.allow_duplicate_types:
            if typ in seen:
                errs.append(FieldError.duplicate(f"{path}.type", typ))
            seen.add(typ)
    return errs


def validate_csr_create(obj: Mapping[str, Any]) -> list[FieldError]:
    return _validate(obj, _Options(obj, None))


def _validate_update(obj: Mapping[str, Any], old: Mapping[str, Any], opts: _Options) -> list[FieldError]:
    errs = _validate(obj, opts)
    meta_errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    for typ in (APPROVED, DENIED, FAILED):
        if len(_find(obj, typ)) < len(_find(old, typ)):
            errs.append(FieldError.forbidden("status.conditions", f'updates may not remove a condition of type "{typ}"'))
    if not opts.allow_setting_approval:
        for typ in (APPROVED, DENIED):
            new_c, old_c = _find(obj, typ), _find(old, typ)
            if len(new_c) > len(old_c):
                errs.append(FieldError.forbidden("status.conditions", f'updates may not add a condition of type "{typ}"'))
            elif len(new_c) == len(old_c) and new_c != old_c:
                errs.append(FieldError.forbidden("status.conditions", f'updates may not modify a condition of type "{typ}"'))
    if _cert(obj) != _cert(old):
        if not opts.allow_setting_certificate:
            errs.append(FieldError.forbidden("status.certificate", "updates may not set certificate content"))
        elif _cert(old):
            errs.append(FieldError.forbidden("status.certificate", "updates may not modify existing certificate content"))
    return errs + meta_errs


def validate_csr_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return _validate_update(obj, old, _Options(obj, old))


def validate_csr_status_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return _validate_update(obj, old, _Options(obj, old, certificate=True))


def validate_csr_approval_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return _validate_update(obj, old, _Options(obj, old, approval=True))
