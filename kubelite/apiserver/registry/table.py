"""Server-side printing: ``meta.k8s.io/v1`` Tables (``kubectl get`` asks for them with
``Accept: application/json;as=Table``).

:func:`default_table` is upstream's ``rest.DefaultTableConvertor``
(``k8s.io/apiserver/pkg/registry/rest/table.go``): a Name and a Created At column, and each row's object
as ``PartialObjectMetadata``. Strategies with richer printing override ``Strategy.convert_to_table``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["default_table", "partial_object_metadata"]

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
