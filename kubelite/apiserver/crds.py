"""Serving custom resources: the apiextensions-apiserver part of kubelite.

Contract:
- Creating a CustomResourceDefinition validates it (structural schema, names, one storage version),
  marks it ``NamesAccepted`` and ``Established`` at once (upstream's controllers do this within
  milliseconds) and starts serving its resource: a store table, a registry entry, schema-driven
  pruning, defaulting and validation, the ``status`` and ``scale`` subresources when declared, and
  the CRD's ``selectableFields`` as field selectors.
- Custom resources are plain dicts. Unknown fields are pruned (or rejected / warned about according
  to ``fieldValidation``), defaults are applied, then the object is validated against the served
  version's ``openAPIV3Schema``.
- Versions use conversion strategy ``None``: objects are stored as written and served with the
  requested ``apiVersion``.
- Deleting the CRD deletes every custom resource of it (upstream's ``customresourcecleanup``
  finalizer), then stops serving it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.names import name_is_dns_subdomain
from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver import crd as schemas  # its functions load with the first CRD (kubelite.lazy)
from kubelite.apiserver.crd.rules import has_rules
from kubelite.apiserver.registry.tables import ResourceTables
from kubelite.clock import Clock
from kubelite.errors import FieldError

__all__ = ["CustomResources"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def _with_implicit_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """The schema as server-side apply sees it: upstream adds apiVersion, kind and metadata (ObjectMeta)
    to every CRD's structural schema, whether or not the CRD lists them."""
    props = dict(raw.get("properties") or {})
    props.setdefault("apiVersion", {"type": "string"})
    props.setdefault("kind", {"type": "string"})
    props["metadata"] = {"$ref": _OBJECT_META}
    return {**raw, "type": "object", "properties": props}


class _Definition:
    __slots__ = ("columns", "info", "rules", "scale", "schemas", "selectable", "served", "ssa_schemas", "status",
                 "storage")

    def __init__(self, crd: dict[str, Any]) -> None:
        spec = crd["spec"]
        names = spec["names"]
        self.schemas: dict[str, Schema | None] = {}
        self.ssa_schemas: dict[str, Schema | None] = {}
        #: versions whose schema has x-kubernetes-validations: only those load CEL and walk the rules
        self.rules: set[str] = set()
        self.served: set[str] = set()
        self.storage = ""
        self.status = False
        self.scale: tuple[str, str, str | None] | None = None
        self.selectable: tuple[str, ...] = ()
        self.columns: list[dict[str, Any]] = []
        for v in spec.get("versions") or ():
            raw = (v.get("schema") or {}).get("openAPIV3Schema")
            self.schemas[v["name"]] = Schema.of(raw) if raw else None
            if raw and has_rules(raw):
                self.rules.add(v["name"])
            # resolved against the built-in definitions (for ObjectMeta); Schema keeps the dict alive
            self.ssa_schemas[v["name"]] = builtin_schemas().node(_with_implicit_fields(raw)) if raw else None
            if v.get("served", True):
                self.served.add(v["name"])
            if v.get("storage"):
                self.storage = v["name"]
                subs = v.get("subresources") or {}
                self.status = "status" in subs
                if "scale" in subs:
                    sc = subs["scale"] or {}
                    self.scale = (sc.get("specReplicasPath", ".spec.replicas"),
                                  sc.get("statusReplicasPath", ".status.replicas"), sc.get("labelSelectorPath"))
                self.selectable = tuple(
                    f["jsonPath"].lstrip(".") for f in v.get("selectableFields") or () if f.get("jsonPath")
                )
                self.columns = [dict(c) for c in v.get("additionalPrinterColumns") or () if isinstance(c, dict)]
        subresources = set()
        if self.status:
            subresources.add("status")
        if self.scale:
            subresources.add("scale")
        self.info = ResourceInfo(
            group=spec["group"], version=self.storage, kind=names["kind"], plural=names["plural"],
            singular=names.get("singular") or names["kind"].lower(), namespaced=spec.get("scope") == "Namespaced",
            short_names=tuple(names.get("shortNames") or ()), categories=tuple(names.get("categories") or ()),
            subresources=frozenset(subresources), list_kind=names.get("listKind") or names["kind"] + "List",
            served_versions=tuple(v for v in self.served if v != self.storage),
        )


class CustomResources:
    """The served CRDs. ``tables`` is where their resources are registered and stored."""

    def __init__(self, *, tables: ResourceTables, clock: Clock) -> None:
        self.tables = tables
        self.clock = clock
        self.defs: dict[tuple[str, str], _Definition] = {}

    def _def(self, info: ResourceInfo) -> _Definition | None:
        return self.defs.get((info.group, info.plural))

    # --- queries used by the pipeline ---
    def schema(self, info: ResourceInfo, version: str | None = None) -> Schema | None:
        d = self._def(info)
        if d is None:
            return None
        return d.schemas.get(version or d.storage)

    def ssa_schema(self, info: ResourceInfo) -> Schema | None:
        """The schema managedFields and server-side apply use (with the implicit top-level fields)."""
        d = self._def(info)
        return d.ssa_schemas.get(d.storage) if d is not None else None

    def serves(self, info: ResourceInfo, api_version: str) -> bool:
        d = self._def(info)
        if d is None:
            return False
        group, _, version = api_version.rpartition("/")
        return group == info.group and version in d.served

    def selectable_fields(self, info: ResourceInfo) -> tuple[str, ...]:
        d = self._def(info)
        return d.selectable if d is not None else ()

    def printer_columns(self, info: ResourceInfo) -> list[dict[str, Any]]:
        """The storage version's ``additionalPrinterColumns`` (server-side printing)."""
        d = self._def(info)
        return d.columns if d is not None else []

    def scale_paths(self, info: ResourceInfo) -> tuple[str, str, str | None] | None:
        d = self._def(info)
        return d.scale if d is not None else None

    def _version_schema(self, info: ResourceInfo, obj: dict[str, Any]) -> Schema | None:
        return self._version_schema_and_rules(info, obj)[0]

    def _version_schema_and_rules(self, info: ResourceInfo, obj: dict[str, Any]) -> tuple[Schema | None, bool]:
        """The schema ``obj`` is validated against (its apiVersion's, else the storage version's), and
        whether that schema has CEL rules."""
        d = self._def(info)
        if d is None:
            return None, False
        version = str(obj.get("apiVersion", "")).rpartition("/")[2] or d.storage
        if version not in d.schemas:
            version = d.storage
        return d.schemas.get(version), version in d.rules

    @staticmethod
    def default_definition(crd: dict[str, Any]) -> None:
        schemas.crd_defaults(crd)

    def default(self, info: ResourceInfo, obj: dict[str, Any]) -> None:
        schema = self._version_schema(info, obj)
        if schema is not None:
            # the unstructured defaulter: explicit nulls of non-nullable fields without a default are
            # dropped (PruneNonNullableNullsWithoutDefaults), the rest defaulted (structural Default)
            schemas.prune_non_nullable_nulls(obj, schema)
            schemas.apply_defaults(obj, schema)

    def validate(self, info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        errs: list[FieldError] = []
        meta = obj["metadata"]
        name = meta.get("name") or ""
        if not isinstance(name, str):  # custom resources' metadata is not typed by a decoder
            errs.append(FieldError.invalid("metadata.name", name, "must be a string"))
        elif not name:
            errs.append(FieldError.required("metadata.name", "name or generateName is required"))
        else:
            errs.extend(FieldError.invalid("metadata.name", name, m) for m in name_is_dns_subdomain(name, False))
        schema, rules = self._version_schema_and_rules(info, obj)
        if schema is not None:
            body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
            schema_errs = schemas.validate(body, schema)
            errs.extend(schema_errs)
            if rules and not schema_errs:  # CEL rules see only values of their schema's types
                old_body = None if old is None else {
                    k: v for k, v in old.items() if k not in ("apiVersion", "kind", "metadata")}
                # CEL (cel-python, its grammar and its types) loads when the first custom resource whose
                # schema has rules is validated, not with the apiserver nor for a CRD without rules: most
                # clusters never need it (issue #17 cold start; it cost a kopf test from process start ~0.4 s)
                from kubelite.apiserver.crd.cel import validate_rules

                errs.extend(validate_rules(body, old_body, schema.raw))
        return errs

    def validate_definition(self, crd: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        return list(schemas.validate_crd(crd))

    # --- lifecycle of definitions ---
    def on_definition_change(self, crd: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        tables = self.tables
        if crd is None:
            assert old is not None
            key = (old["spec"]["group"], old["spec"]["names"]["plural"])
            d = self.defs.pop(key, None)
            if d is not None:
                table = tables.table(d.info)
                for obj in list(table.objects.values()):
                    tables.store.delete(table, obj.namespace, obj.name)
                tables.registry.unregister(*key)
                tables.remove(*key)
            return
        d = _Definition(crd)
        key = (d.info.group, d.info.plural)
        if key in self.defs:
            tables.registry.unregister(*key)
        self.defs[key] = d
        tables.registry.register(d.info)
        if key not in tables:
            tables.add(d.info, selectable_fields=d.selectable)
        self._mark_established(crd)

    def _mark_established(self, crd: dict[str, Any]) -> None:
        status = crd.get("status") or {}
        conds = {c.get("type"): c for c in status.get("conditions") or ()}
        if conds.get("Established", {}).get("status") == "True":
            return
        now = self.clock.timestamp()
        spec = crd["spec"]
        crd = _decode(_encode(crd))
        crd["status"] = {
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": now},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": now},
            ],
            "acceptedNames": spec["names"],
            "storedVersions": [v["name"] for v in spec.get("versions") or () if v.get("storage")],
        }
        tables = self.tables
        table = tables.table(tables.registry.by_resource("apiextensions.k8s.io", "customresourcedefinitions"))
        tables.store.update(table, crd)
