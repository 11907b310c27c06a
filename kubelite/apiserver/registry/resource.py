"""resource.k8s.io/v1 strategies (``pkg/registry/resource/*/strategy.go``) and defaults
(``pkg/apis/resource/v1/defaults.go``).

- Defaults: an ``exactly`` request (and each ``firstAvailable`` subrequest) gets ``allocationMode:
  ExactCount`` and, in that mode, ``count: 1``; a device toleration gets ``operator: Equal``.
- DeviceClass and ResourceSlice track ``metadata.generation``; a ResourceClaim has a status (allocation,
  reservedFor) written through ``/status`` and an immutable spec; a ResourceClaimTemplate's spec is
  immutable. Validation: :mod:`kubelite.apiserver.validation.resource`.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.validation import resource as v
from kubelite.errors import FieldError

__all__ = ["STRATEGIES", "default_claim_spec"]


def _default_exact(req: dict[str, Any]) -> None:
    if not req.get("allocationMode"):
        req["allocationMode"] = "ExactCount"
    if req["allocationMode"] == "ExactCount" and req.get("count") is None:
        req["count"] = 1
    for tol in req.get("tolerations") or ():
        if isinstance(tol, dict) and not tol.get("operator"):
            tol["operator"] = "Equal"


def default_claim_spec(spec: Any) -> None:
    """SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest / SetDefaults_DeviceToleration."""
    if not isinstance(spec, dict):
        return
    for req in (spec.get("devices") or {}).get("requests") or ():
        if not isinstance(req, dict):
            continue
        if isinstance(req.get("exactly"), dict):
            _default_exact(req["exactly"])
        for sub in req.get("firstAvailable") or ():
            if isinstance(sub, dict):
                _default_exact(sub)


class DeviceClassStrategy(Strategy):
    tracks_generation = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return v.validate_device_class(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return v.validate_device_class_update(obj, old)


class ResourceClaimStrategy(Strategy):
    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        default_claim_spec(obj.get("spec"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_claim(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_claim_update(obj, old)

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_claim_status_update(obj, old)


class ResourceClaimTemplateStrategy(Strategy):
    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        default_claim_spec((obj.get("spec") or {}).get("spec"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_claim_template(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_claim_template_update(obj, old)


class ResourceSliceStrategy(Strategy):
    tracks_generation = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_slice(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return v.validate_resource_slice_update(obj, old)


#: plural -> strategy class, registered in StrategySet for group resource.k8s.io
STRATEGIES: dict[str, type[Strategy]] = {
    "deviceclasses": DeviceClassStrategy,
    "resourceclaims": ResourceClaimStrategy,
    "resourceclaimtemplates": ResourceClaimTemplateStrategy,
    "resourceslices": ResourceSliceStrategy,
}
