"""PATCH of one object (``handlers/patch.go``): JSON, merge, strategic merge and server-side apply, for the
resource and its ``/status``.

- The patch is applied to the live object inside the store's GuaranteedUpdate, so a conflicting write
  re-applies it to the new state; a ``metadata.resourceVersion`` in a merge or strategic patch is a
  precondition.
- The patched object is decoded like a request body (types, unknown fields per ``fieldValidation``).
- Only an apply patch creates a missing object (``create`` permission needed as well as ``patch``:
  upstream's ``withAuthorization`` around the patcher's create validation); other patches of a missing
  object are 404.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.omitempty import omit_empty
from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.delta import decode_changed
from kubelite.apiserver.handlers.update import copy_json
from kubelite.apiserver.pipeline import canonical_quantities, check_depth
from kubelite.apiserver.registry.store import Write, parse_resource_version
from kubelite.apiserver.registry.strategy import Strategy, UpdateStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import BadRequest, UnsupportedMediaType

__all__ = ["PATCH_TYPES", "apply_patch", "check_patch_type", "patch"]

PATCH_TYPES = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}


def check_patch_type(patch_type: str | None) -> str:
    if patch_type not in PATCH_TYPES:
        raise UnsupportedMediaType.make(
            f'the body of the request was in an unknown format - accepted media types include: '
            f'{", ".join(PATCH_TYPES.values())}'
        )
    return patch_type


def apply_patch(live: dict[str, Any], patch: Any, patch_type: str, *, shared: bool = False,
                strategy: Strategy | UpdateStrategy | _VersionSchema | None = None) -> dict[str, Any]:
    """``live`` patched by a JSON, merge or strategic merge patch (a new object; ``live`` is unchanged).
    ``shared``: untouched parts of a merge or strategic patch's result may be shared with ``live``."""
    # the patch formats load with the first PATCH (a cluster's start sends none; issue #17, cold start)
    from kubelite.apiserver import patch as formats

    if patch_type == "json":
        out = formats.apply_json_patch(live, patch)
    elif patch_type == "merge":
        if not isinstance(patch, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        out = (formats.apply_merge_patch_shared if shared else formats.apply_merge_patch)(live, patch)
    else:
        if not isinstance(patch, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        schema = strategy.ssa_schema() if strategy is not None else None
        assert schema is not None
        out = (formats.apply_strategic_merge_patch_shared if shared
               else formats.apply_strategic_merge_patch)(live, patch, schema)
    if not isinstance(out, dict):
        raise BadRequest.make("the patched object is not an object")
    return out


class _VersionSchema:
    """The schema of a built-in kind at a served non-storage version (what strategic merge and apply of
    a request in that version use)."""

    def __init__(self, served: ResourceInfo) -> None:
        self.served = served

    def ssa_schema(self) -> Schema | None:
        return builtin_schemas().get(self.served.schema_ref) if self.served.schema_ref else None


def served_version(scope: Scope, info: ResourceInfo, req: Request) -> str:
    """The request's version when objects must be converted for it, else "" (the storage version)."""
    version = req.version
    if not version or version == info.version or not scope.decoder.scheme.converts(info, version):
        return ""
    return version


async def patch(scope: Scope, info: ResourceInfo, strategy: UpdateStrategy, req: Request) -> Response:
    opts = req.options
    patch_type = check_patch_type(opts.patch_type)
    if patch_type == "strategic" and not info.builtin:
        raise UnsupportedMediaType.make(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        )
    if opts.force is not None and patch_type != "apply":
        raise BadRequest.make("force is only allowed for apply patches")
    name, body = req.name, req.body
    check_depth(body)
    warnings: list[str] = []
    manager = opts.field_manager or "kubelite"
    w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=opts.dry_run, manager=manager,
              warnings=warnings)
    if patch_type == "apply":
        return await _apply(scope, info, strategy, req, w, warnings)

    expect: int | None = None
    if isinstance(body, dict):
        meta = body.get("metadata")
        expect = parse_resource_version(meta.get("resourceVersion") if isinstance(meta, dict) else None)

    version = served_version(scope, info, req)

    def mutate(live: dict[str, Any]) -> dict[str, Any]:
        # built-in kinds: the typed decode below copies what the patch changed and keeps live's untouched
        # top-level fields (kubelite.apiserver.delta), so the patch may share them
        target = live if not version else scope.decoder.scheme.from_storage(info, live, version)
        out = apply_patch(target, body, patch_type, shared=info.builtin,
                          strategy=strategy if not version else _VersionSchema(info.at_version(version)))
        local: list[str] = []
        fast = None if version else decode_changed(info, out, live, strategy.subresource)
        out = fast if fast is not None else scope.decoder.decode(info, out, opts.field_validation, local,
                                                                 version=version)
        seen = set(warnings)  # a retried mutation reports each warning once (a set: N unknown fields, O(N))
        warnings.extend(w for w in dict.fromkeys(local) if w not in seen)
        patch_meta = body.get("metadata", {}) if patch_type != "json" else None
        if type(patch_meta) is dict and "managedFields" not in patch_meta:
            # A merge or strategic patch that does not mention managedFields leaves them equal to live's
            # (a list without merge keys is only ever replaced): hand over live's own list so the field
            # manager recognises them by identity instead of comparing every entry.
            live_mf = (live.get("metadata") or {}).get("managedFields")
            out_meta = out.get("metadata")
            if live_mf is not None and isinstance(out_meta, dict) and "managedFields" in out_meta:
                out_meta["managedFields"] = live_mf
        return out

    data = await scope.store.update(w, strategy, name, mutate, expect_rv=expect)
    return Response(data=data, warnings=list(dict.fromkeys(warnings)))


async def _apply(
    scope: Scope, info: ResourceInfo, strategy: UpdateStrategy, req: Request, w: Write, warnings: list[str],
) -> Response:
    opts = req.options
    if not opts.field_manager:
        raise BadRequest.make("PATCH /apply requires fieldManager to be set")
    if not isinstance(req.body, dict):
        raise BadRequest.make("error decoding YAML: apply patches must be objects")
    version = served_version(scope, info, req)
    applied = scope.decoder.decode(info, req.body, opts.field_validation, warnings, is_apply=True, version=version)
    served = info.at_version(version) if version else info
    schema = strategy.ssa_schema() if not version else _VersionSchema(served).ssa_schema()
    assert schema is not None
    name = req.name
    field_manager = scope.store.field_manager
    scheme = scope.decoder.scheme

    def mutate(live: dict[str, Any]) -> dict[str, Any]:
        # an apply in another served version merges into the live object in that version (upstream's field
        # manager converts the live object to the applied configuration's version and back)
        target = live if not version or not live else scheme.from_storage(info, live, version)
        merged = field_manager.apply(
            target or None, copy_json(applied), manager=w.manager, schema=schema,
            api_version=applied.get("apiVersion", served.api_version), now=scope.clock.timestamp(),
            force=bool(opts.force), subresource=strategy.subresource, kind=info.kind,
            ignored_fields=strategy.reset_fields(),
        )
        merged.setdefault("metadata", {})["name"] = name
        merged = omit_empty(canonical_quantities(served, merged), served.api_version, served.kind)  # Go's omitempty
        return merged if not version else scheme.to_storage(info, merged, version)

    create = strategy if isinstance(strategy, Strategy) else None  # apply creates only the resource itself
    data = await scope.store.update(w, strategy, name, mutate, expect_rv=None, create_strategy=create,
                                    managed_fields_done=True)
    return Response(data=data, warnings=list(dict.fromkeys(warnings)))
