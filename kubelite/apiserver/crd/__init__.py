"""Custom resources: structural schemas, validation, defaulting and pruning.

Everything here works on plain JSON dicts and :class:`kubelite.api.schema.Schema`, so the same
pruning also finds unknown fields of built-in kinds (``fieldValidation=Strict|Warn|Ignore``).
Modules mirror apiextensions-apiserver: :mod:`.pruning` (``schema/pruning``), :mod:`.defaulting`
(``schema/defaulting``), :mod:`.validation` (kube-openapi ``validate`` + ``schema/listtype``),
:mod:`.structural` (``schema/validation.go`` and the CRD's OpenAPI-schema rules) and
:mod:`.definition` (``apis/apiextensions/validation``, ``v1/defaults.go``).

The names load with their module on first use (:mod:`kubelite.lazy`): every write needs pruning (unknown
fields of built-in kinds), but validation, defaulting and the definition checks wait for the first CRD or
custom resource (issue #17, cold start).
"""

from typing import TYPE_CHECKING

from kubelite.lazy import lazy_exports

if TYPE_CHECKING:
    from kubelite.apiserver.crd.defaulting import apply_defaults, prune_non_nullable_nulls
    from kubelite.apiserver.crd.definition import CustomResourceSchema, crd_defaults, validate_crd
    from kubelite.apiserver.crd.pruning import prune, unknown_fields
    from kubelite.apiserver.crd.structural import check_structural
    from kubelite.apiserver.crd.validation import validate

__all__ = [
    "CustomResourceSchema",
    "apply_defaults",
    "check_structural",
    "crd_defaults",
    "prune",
    "prune_non_nullable_nulls",
    "unknown_fields",
    "validate",
    "validate_crd",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "apply_defaults": "kubelite.apiserver.crd.defaulting", "prune_non_nullable_nulls": "kubelite.apiserver.crd.defaulting",
    "CustomResourceSchema": "kubelite.apiserver.crd.definition", "crd_defaults": "kubelite.apiserver.crd.definition",
    "validate_crd": "kubelite.apiserver.crd.definition", "prune": "kubelite.apiserver.crd.pruning",
    "unknown_fields": "kubelite.apiserver.crd.pruning", "check_structural": "kubelite.apiserver.crd.structural",
    "validate": "kubelite.apiserver.crd.validation",
})
