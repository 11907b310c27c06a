"""Strategies of CustomResourceDefinitions and of the custom resources they define.

- A CRD is validated as a definition (structural schema, names, one storage version) on every write, and
  every committed write re-registers or stops serving its resource (:class:`CustomResources`).
- A custom resource is defaulted, pruned and validated from its served version's schema; its generation
  moves on any change outside metadata (and status, when it has a status subresource); a ``/status``
  write changes only the status (``ResetObjectMetaForStatus``); tables print the CRD's
  ``additionalPrinterColumns``.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import Schema
from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.registry.table import custom_resource_table
from kubelite.errors import FieldError

__all__ = ["CustomResourceDefinitionStrategy", "CustomResourceStrategy"]


class CustomResourceDefinitionStrategy(Strategy):
    tracks_generation = True

    def __init__(self, info: ResourceInfo, crs: CustomResources) -> None:
        super().__init__(info)
        self.crs = crs

    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        self.crs.default_definition(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [*super().validate(obj), *self.crs.validate_definition(obj, None)]

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return [*super().validate_update(obj, old), *self.crs.validate_definition(obj, old)]

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return [*super().validate_status_update(obj, old), *self.crs.validate_definition(obj, old)]

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        self.crs.on_definition_change(obj, old)


class CustomResourceStrategy(Strategy):
    """A custom resource of a served CRD (``apiextensions-apiserver/pkg/registry/customresource``)."""

    tracks_generation = True

    def __init__(self, info: ResourceInfo, crs: CustomResources) -> None:
        super().__init__(info)
        self.crs = crs

    def schema(self) -> Schema | None:
        return self.crs.schema(self.info)

    def ssa_schema(self) -> Schema | None:
        return self.crs.ssa_schema(self.info)

    def default(self, obj: dict[str, Any]) -> None:
        self.crs.default(self.info, obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def spec_changed(self, obj: dict[str, Any], old: dict[str, Any]) -> bool:
        return any(
            obj.get(k) != old.get(k) for k in {*obj, *old} - {"metadata", "apiVersion", "kind", "status"}
        ) or (not self.has_status and obj.get("status") != old.get("status"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.crs.validate(self.info, obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.crs.validate(self.info, obj, old)

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.crs.validate(self.info, obj, old)

    def convert_to_table(self, objs: list[dict[str, Any]], now: float) -> dict[str, Any]:
        return custom_resource_table(self.crs.printer_columns(self.info), objs, now)

    def prepare_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        """ResetObjectMetaForStatus: only ``status`` (and managedFields) change."""
        result = {k: v for k, v in old.items() if k != "status"}
        meta = dict(old["metadata"])
        if "managedFields" in obj["metadata"]:
            meta["managedFields"] = obj["metadata"]["managedFields"]
        result["metadata"] = meta
        if "status" in obj:
            result["status"] = obj["status"]
        return result
