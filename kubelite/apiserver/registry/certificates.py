"""CertificateSigningRequest strategies (``pkg/registry/certificates/certificates/strategy.go``).

- Create: the requester's identity is written into ``spec.username``/``uid``/``groups``/``extra`` (whatever
  the body said is cleared), and the status starts empty: nobody creates a pre-approved request.
- Update of the main resource: spec and status are the stored ones (only metadata changes).
- ``/status``: the spec is the stored one, the Approved and Denied conditions are kept as stored (they
  change only through ``/approval``), ``status.certificate`` may be set once.
- ``/approval``: only ``status.conditions`` comes from the request (spec and certificate are stored ones).
- Conditions without ``lastUpdateTime`` get now; without ``lastTransitionTime`` the stored condition's of
  the same type and status, else now (``populateConditionTimestamps``).
Validation is :mod:`kubelite.apiserver.validation.certificates`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.auth.user import user_fields
from kubelite.apiserver.registry.strategy import SYSTEM_META, Strategy, SubresourceStrategy
from kubelite.apiserver.validation.certificates import (
    APPROVED,
    DENIED,
    validate_csr_approval_update,
    validate_csr_create,
    validate_csr_status_update,
    validate_csr_update,
)
from kubelite.clock import Clock
from kubelite.errors import FieldError

if TYPE_CHECKING:
    from kubelite.apiserver.auth.user import UserInfo

__all__ = ["CertificateSigningRequestStrategy", "CSRApprovalStrategy"]


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    conds = (obj.get("status") or {}).get("conditions")
    return [c for c in conds if isinstance(c, dict)] if isinstance(conds, list) else []


class CertificateSigningRequestStrategy(Strategy):
    def __init__(self, info: ResourceInfo, clock: Clock) -> None:
        super().__init__(info)
        self.clock = clock
        self.approval = CSRApprovalStrategy(self)

    # --- create ---
    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        # upstream's PrepareForCreate: an empty status with an empty (non-nil) Conditions slice, which
        # ``conditions,omitempty`` never prints: users cannot create pre-approved requests
        return {}

    def prepare_for_create_as(self, obj: dict[str, Any], user: UserInfo) -> None:
        spec = obj.setdefault("spec", {})
        for key in ("username", "uid", "groups", "extra"):
            spec.pop(key, None)
        spec.update(user_fields(user))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_csr_create(obj)

    # --- update ---
    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        super().prepare_for_update(obj, old, mutated=mutated)
        for key in ("spec", "status"):
            if key in old:
                obj[key] = old[key]
            else:
                obj.pop(key, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_csr_update(obj, old)

    def prepare_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        out = super().prepare_status_update(obj, old)
        status = dict(out.get("status") or {})
        kept = [c for c in _conditions(out) if c.get("type") not in (APPROVED, DENIED)]
        status["conditions"] = kept + [c for c in _conditions(old) if c.get("type") in (APPROVED, DENIED)]
        out["status"] = status
        self.populate_condition_timestamps(out, old)
        return out

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_csr_status_update(obj, old)

    def populate_condition_timestamps(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        now = self.clock.timestamp()
        old_conds = _conditions(old)
        for c in _conditions(obj):
            if not c.get("lastUpdateTime"):
                c["lastUpdateTime"] = now
            if not c.get("lastTransitionTime"):
                c["lastTransitionTime"] = next(
                    (o["lastTransitionTime"] for o in old_conds if o.get("type") == c.get("type")
                     and o.get("status") == c.get("status") and o.get("lastTransitionTime")), now)


class CSRApprovalStrategy(SubresourceStrategy):
    """``csrApprovalStrategy``: the ``/approval`` endpoint changes the conditions only."""

    subresource = "approval"

    def __init__(self, main: CertificateSigningRequestStrategy) -> None:
        super().__init__(main)
        self.csr = main

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        out = {k: v for k, v in old.items() if k not in ("status", "metadata")}
        meta = dict(obj.get("metadata") or {})
        for k in (*SYSTEM_META, "name"):
            if k in old["metadata"]:
                meta[k] = old["metadata"][k]
        out["metadata"] = meta
        status = dict(old.get("status") or {})
        status["conditions"] = [dict(c) for c in _conditions(obj)]
        out["status"] = status
        self.csr.populate_condition_timestamps(out, old)
        return out

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_csr_approval_update(obj, old)

    def reset_fields(self) -> dict[str, Any] | None:
        return {"f:spec": {}, "f:status": {"f:certificate": {}}}
