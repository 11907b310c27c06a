"""Server-side printing: ``meta.k8s.io/v1`` Tables (``kubectl get`` asks for them with
``Accept: application/json;as=Table``).

- :func:`default_table` is upstream's ``rest.DefaultTableConvertor``
  (``k8s.io/apiserver/pkg/registry/rest/table.go``): a Name and a Created At column.
- :func:`custom_resource_table` is apiextensions' ``tableconvertor``: Name, then the CRD's
  ``additionalPrinterColumns`` (an ``Age`` date column when it declares none), each cell the first
  JSONPath result converted to the column's type; ``date`` cells are ages on cluster time
  (``HumanDuration``), missing values ``None``.
Each row's object is the item's ``PartialObjectMetadata`` (upstream's default ``includeObject=Metadata``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubelite.api.duration import human_duration
from kubelite.apiserver.registry.jsonpath import find, print_value
from kubelite.clock import parse_time

__all__ = ["custom_resource_table", "default_table", "partial_object_metadata"]

# ObjectMeta's swagger descriptions (metav1.ObjectMeta{}.SwaggerDoc()), as the default convertor uses them
_NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_CREATED_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)


def partial_object_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}


def _table(columns: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {}, "columnDefinitions": columns,
            "rows": rows}


_NAME_COLUMN = {"name": "Name", "type": "string", "format": "name", "description": _NAME_DOC, "priority": 0}
_AGE_COLUMN = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp", "description": _CREATED_DOC}


def _cell(column_type: str, value: Any, now: float) -> Any:
    """cellForJSONValue (and jsonpath's printing for string columns)."""
    if value is None:
        return None
    if column_type == "string":
        return print_value(value)
    if column_type == "integer" and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    if column_type == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if column_type == "boolean" and isinstance(value, bool):
        return value
    if column_type == "date" and isinstance(value, str):
        try:
            return human_duration(now - parse_time(value))
        except ValueError:
            return "<invalid>"
    return None


def custom_resource_table(columns: list[dict[str, Any]], objs: Iterable[dict[str, Any]], now: float) -> dict[str, Any]:
    columns = columns or [_AGE_COLUMN]
    definitions = [_NAME_COLUMN, *({
        "name": c.get("name", ""), "type": c.get("type", ""), "format": c.get("format", ""),
        "description": c.get("description") or
        f"Custom resource definition column (in JSONPath format): {c.get('jsonPath', '')}",
        "priority": c.get("priority", 0),
    } for c in columns)]
    rows = []
    for o in objs:
        cells: list[Any] = [(o.get("metadata") or {}).get("name", "")]
        for c in columns:
            found = find(o, str(c.get("jsonPath", "")))
            cells.append(_cell(str(c.get("type", "")), found[0], now) if found else None)
        rows.append({"cells": cells, "object": partial_object_metadata(o)})
    return _table(definitions, rows)


def default_table(objs: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return {
        "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": _NAME_DOC, "priority": 0},
            {"name": "Created At", "type": "date", "format": "", "description": _CREATED_DOC, "priority": 0},
        ],
        "rows": [
            {"cells": [(o.get("metadata") or {}).get("name", ""), (o.get("metadata") or {}).get("creationTimestamp")],
             "object": partial_object_metadata(o)}
            for o in objs
        ],
    }
