"""Structural OpenAPI v3 schemas, one shape for built-in kinds and CRDs.

Contract:
- A :class:`Schema` wraps one node of a *structural* schema (the form a CRD's ``openAPIV3Schema``
  takes, and the form ``kubelite/api/openapi.json`` is generated in). Every consumer that needs to
  know the shape of an object (strategic merge patch, server-side apply, pruning of unknown
  fields, CRD validation and defaulting) reads it through this class, so built-in kinds and
  custom resources follow one code path.
- Nodes are read-only views over plain JSON data; ``$ref`` (built-in kinds only) is resolved lazily
  against the definitions of the owning :class:`SchemaSet` and cached.
- Keys understood: ``type``, ``properties``, ``additionalProperties``, ``items``, ``required``,
  ``enum``, ``default``, ``format``, ``nullable``, ``$ref``, the numeric/string/array limits, and the
  ``x-kubernetes-*`` extensions (``list-type``, ``list-map-keys``, ``map-type``, ``patch-merge-key``,
  ``patch-strategy``, ``preserve-unknown-fields``, ``int-or-string``, ``embedded-resource``).
  Built-in Quantity fields are ``{"x-kubernetes-int-or-string": true, "format": "quantity"}``.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

import msgspec

__all__ = ["Schema", "SchemaSet", "builtin_schemas"]

_EMPTY: Mapping[str, Any] = {}


class SchemaSet:
    """A set of named definitions that ``$ref`` values resolve against."""

    def __init__(self, definitions: Mapping[str, Mapping[str, Any]]) -> None:
        self.definitions = definitions
        self._nodes: dict[int, Schema] = {}

    def get(self, name: str) -> Schema:
        """The schema of a named definition, e.g. ``io.k8s.api.core.v1.Pod``."""
        try:
            raw = self.definitions[name]
        except KeyError:
            raise KeyError(f"no schema definition {name!r}") from None
        return self.node(raw)

    def node(self, raw: Mapping[str, Any]) -> Schema:
        key = id(raw)
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = Schema(raw, self)
        return node


class Schema:
    """A read-only view of one structural schema node (``$ref`` already followed)."""

    __slots__ = ("_props", "_set", "raw")

    def __init__(self, raw: Mapping[str, Any], schema_set: SchemaSet | None = None) -> None:
        ref = raw.get("$ref")
        if ref is not None:
            if schema_set is None:
                raise ValueError(f"unresolvable $ref {ref!r}")
            target = schema_set.definitions[ref.rsplit("/", 1)[-1]]
            merged = dict(target)
            merged.update({k: v for k, v in raw.items() if k != "$ref"})
            raw = merged
        self.raw = raw
        self._set = schema_set
        self._props: dict[str, Schema] | None = None

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Schema:
        """Wrap a standalone schema (a CRD's ``openAPIV3Schema``) that has no ``$ref``."""
        return cls(raw, SchemaSet({}))

    def sub(self, raw: Mapping[str, Any]) -> Schema:
        """A schema node resolved against the same definitions (an ``allOf``/``anyOf`` clause of this one)."""
        return Schema(raw, self._set)

    def _wrap(self, raw: Mapping[str, Any] | None) -> Schema | None:
        if raw is None:
            return None
        if self._set is None:
            return Schema(raw, None)
        return self._set.node(raw)

    # --- shape ---
    @builtins.property
    def type(self) -> str | None:
        t = self.raw.get("type")
        return t if isinstance(t, str) else None

    @builtins.property
    def properties(self) -> dict[str, Schema]:
        if self._props is None:
            props = self.raw.get("properties") or _EMPTY
            self._props = {k: self._wrap(v) for k, v in props.items()}  # type: ignore[misc]
        return self._props

    def property(self, name: str) -> Schema | None:
        return self.properties.get(name)

    @builtins.property
    def additional_properties(self) -> Schema | None:
        ap = self.raw.get("additionalProperties")
        if isinstance(ap, Mapping):
            return self._wrap(ap)
        return None

    @builtins.property
    def additional_properties_allowed(self) -> bool:
        """``additionalProperties: true`` or a schema: keys other than ``properties`` are allowed."""
        ap = self.raw.get("additionalProperties")
        return ap is True or isinstance(ap, Mapping)

    @builtins.property
    def items(self) -> Schema | None:
        it = self.raw.get("items")
        return self._wrap(it) if isinstance(it, Mapping) else None

    @builtins.property
    def required(self) -> list[str]:
        return list(self.raw.get("required") or ())

    @builtins.property
    def enum(self) -> list[Any] | None:
        e = self.raw.get("enum")
        return list(e) if e is not None else None

    @builtins.property
    def default(self) -> Any:
        return self.raw.get("default")

    @builtins.property
    def has_default(self) -> bool:
        return "default" in self.raw

    @builtins.property
    def format(self) -> str | None:
        return self.raw.get("format")

    @builtins.property
    def nullable(self) -> bool:
        return bool(self.raw.get("nullable"))

    # --- Kubernetes extensions ---
    @builtins.property
    def list_type(self) -> str | None:
        """``atomic``, ``set`` or ``map`` (None means atomic for SSA)."""
        return self.raw.get("x-kubernetes-list-type")

    @builtins.property
    def list_map_keys(self) -> list[str]:
        return list(self.raw.get("x-kubernetes-list-map-keys") or ())

    @builtins.property
    def map_type(self) -> str | None:
        """``granular`` (default) or ``atomic``."""
        return self.raw.get("x-kubernetes-map-type")

    @builtins.property
    def patch_merge_key(self) -> str | None:
        return self.raw.get("x-kubernetes-patch-merge-key")

    @builtins.property
    def patch_strategy(self) -> str:
        """Comma-separated strategic-merge-patch strategies, e.g. ``merge`` or ``merge,retainKeys``."""
        return self.raw.get("x-kubernetes-patch-strategy") or ""

    @builtins.property
    def preserve_unknown_fields(self) -> bool:
        return bool(self.raw.get("x-kubernetes-preserve-unknown-fields"))

    @builtins.property
    def int_or_string(self) -> bool:
        return bool(self.raw.get("x-kubernetes-int-or-string"))

    @builtins.property
    def embedded_resource(self) -> bool:
        return bool(self.raw.get("x-kubernetes-embedded-resource"))

    def get(self, key: str, default: Any = None) -> Any:
        """Any other raw keyword (``minimum``, ``maxLength``, ``pattern``, ...)."""
        return self.raw.get(key, default)

    def __repr__(self) -> str:
        return f"Schema(type={self.type!r}, props={list(self.properties)[:6]!r})"


@functools.cache
def builtin_schemas() -> SchemaSet:
    """The generated definitions for every built-in kind (``kubelite/api/openapi.json``)."""
    data = resources.files("kubelite.api").joinpath("openapi.json").read_bytes()
    doc = msgspec.json.decode(data)
    return SchemaSet(doc["definitions"])
