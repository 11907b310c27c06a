"""The CSR cleaner (``pkg/controller/certificates/cleaner``): garbage-collect finished requests.

A CertificateSigningRequest is deleted when (upstream's ``handle``):
- it was issued (approved, with a certificate) and the Approved condition was last updated over an hour ago;
- it was denied, or failed, and that condition was last updated over an hour ago;
- it is pending (no conditions at all) and was created over 24 hours ago;
- it was issued and the certificate has expired.
Upstream checks every request once an hour (``pollingInterval``); here each request is reconciled when it
changes and again at its next deadline, so it goes at the deadline rather than up to an hour after it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec

from kubelite.api.certificates import decode_pem_field
from kubelite.api.types import CertificateSigningRequest
from kubelite.clock import parse_time
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import NotFound
from kubelite.informer import Indexer

__all__ = ["APPROVED_EXPIRATION", "DENIED_EXPIRATION", "NAME", "PENDING_EXPIRATION", "deadline", "register"]

NAME = "csrcleaner"
APPROVED_EXPIRATION = 3600.0
DENIED_EXPIRATION = 3600.0
PENDING_EXPIRATION = 24 * 3600.0


def _time(value: Any) -> float | None:
    try:
        return parse_time(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


def _not_after(pem_b64: Any) -> float | None:
    from cryptography import x509

    pem = decode_pem_field(pem_b64)
    if not pem:
        return None
    try:
        return x509.load_pem_x509_certificate(pem).not_valid_after_utc.timestamp()
    except ValueError:
        return None


def deadline(csr: dict[str, Any]) -> float | None:
    """When the cleaner deletes ``csr`` (the earliest rule that applies); None if no rule ever will."""
    status = csr.get("status") or {}
    conditions = [c for c in status.get("conditions") or () if isinstance(c, dict)]
    issued = bool(status.get("certificate"))
    times: list[float] = []
    if not conditions:
        created = _time((csr.get("metadata") or {}).get("creationTimestamp"))
        if created is not None:
            times.append(created + PENDING_EXPIRATION)
    for c in conditions:
        updated = _time(c.get("lastUpdateTime"))
        typ = c.get("type")
        if typ in ("Denied", "Failed") and updated is not None:
            times.append(updated + DENIED_EXPIRATION)
        if typ == "Approved" and issued:
            if updated is not None:
                times.append(updated + APPROVED_EXPIRATION)
            expiry = _not_after(status.get("certificate"))
            if expiry is not None:
                times.append(expiry)
    return min(times) if times else None


class CSRCleanerController:
    def __init__(self, ctx: ControllerContext, *, csrs: Indexer) -> None:
        self.client, self.clock, self.csrs = ctx.client, ctx.clock, csrs

    async def reconcile(self, req: Request) -> Result | None:
        cached: CertificateSigningRequest | None = self.csrs.get_by_key(req.name)
        if cached is None:
            return None
        at = deadline(msgspec.to_builtins(cached))
        if at is None:
            return None
        now = self.clock.now()
        if now <= at:  # isOlderThan: strictly past the deadline
            return Result(requeue_after=at - now + 1.0)
        with contextlib.suppress(NotFound):
            await self.client.delete(CertificateSigningRequest, req.name)
        return None


def register(ctx: ControllerContext) -> None:
    csrs = ctx.informers.informer_for(CertificateSigningRequest).get_indexer()
    ctx.manager.controller("csrcleaner").for_(CertificateSigningRequest).complete(CSRCleanerController(ctx, csrs=csrs))
