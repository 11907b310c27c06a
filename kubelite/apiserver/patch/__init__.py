"""Patch formats kube-apiserver accepts on PATCH: JSON merge patch (RFC 7386), JSON patch (RFC 6902)
and strategic merge patch. Server-side apply lives in ``kubelite.apiserver.ssa``.

Every function here is pure: it returns a new document and never mutates its arguments (only
the ``_shared`` variants' results share the untouched subtrees of its input); failures
raise :class:`kubelite.errors.ApiError` subclasses with kube-apiserver's codes and messages.
"""

from kubelite.apiserver.patch.json_patch import MAX_JSON_PATCH_OPERATIONS, JsonPatchError, apply_json_patch
from kubelite.apiserver.patch.merge_patch import (
    apply_merge_patch,
    apply_merge_patch_shared,
    create_merge_patch,
)
from kubelite.apiserver.patch.strategic_merge import (
    apply_strategic_merge_patch,
    apply_strategic_merge_patch_shared,
    create_two_way_merge_patch,
)

__all__ = [
    "MAX_JSON_PATCH_OPERATIONS",
    "JsonPatchError",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_merge_patch_shared",
    "apply_strategic_merge_patch",
    "apply_strategic_merge_patch_shared",
    "create_merge_patch",
    "create_two_way_merge_patch",
]
