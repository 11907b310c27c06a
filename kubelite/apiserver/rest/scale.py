"""``<resource>/scale`` (``pkg/registry/apps/deployment/storage`` ScaleREST, and the CRD scale
subresource): reads and writes ``spec.replicas`` of the parent as an ``autoscaling/v1`` Scale;
``status.selector`` is the parent's selector in string form. A write goes through the parent's update
(strategy, admission, validation) like any other.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.labels import selector_from_label_selector
from kubelite.api.resources import GET_PATCH_UPDATE, ResourceInfo
from kubelite.apiserver.handlers.patch import check_patch_type
from kubelite.apiserver.handlers.update import copy_json
from kubelite.apiserver.registry.store import Write, parse_resource_version
from kubelite.apiserver.registry.strategy import ScaleStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.errors import FieldError, NotFound, invalid

__all__ = ["ScaleREST"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _get_path(obj: dict[str, Any], path: str) -> Any:
    cur: Any = obj
    for part in path.strip(".").split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def _set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = path.strip(".").split(".")
    cur = obj
    for part in parts[:-1]:
        cur = cur.setdefault(part, {})
    cur[parts[-1]] = value


class ScaleREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return GET_PATCH_UPDATE

    def _paths(self, info: ResourceInfo) -> tuple[str, str, str | None]:
        if info.builtin:
            return ".spec.replicas", ".status.replicas", ".spec.selector"
        paths = self.scope.crs.scale_paths(info)
        if paths is None:
            raise NotFound.make("the server could not find the requested resource")
        return paths

    def scale_of(self, info: ResourceInfo, obj: dict[str, Any]) -> dict[str, Any]:
        spec_path, status_path, selector_path = self._paths(info)
        meta = obj["metadata"]
        selector = ""
        if selector_path:
            raw = _get_path(obj, selector_path)
            if isinstance(raw, dict):
                selector = str(selector_from_label_selector(raw))
            elif isinstance(raw, str):
                selector = raw
        status: dict[str, Any] = {"replicas": _get_path(obj, status_path) or 0}
        if selector:
            status["selector"] = selector
        return {
            "apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": _get_path(obj, spec_path) or 0},
            "status": status,
        }

    def _read(self, info: ResourceInfo, req: Request) -> dict[str, Any]:
        tables = self.scope.tables
        stored = tables.store.get(tables.table(info), req.namespace, req.name)
        if stored is None:
            raise NotFound.for_object(info.group, info.plural, req.name)
        return self.scale_of(info, stored.decode())

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        return Response(data=_encode(self._read(info, req)))

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await self._write(info, req, req.body)

    async def patch(self, info: ResourceInfo, req: Request) -> Response:
        patch_type = check_patch_type(req.options.patch_type)
        scale = self._read(info, req)
        from kubelite.apiserver import patch as patch_formats  # with the first PATCH (cold start)

        if patch_type == "json":
            scale = patch_formats.apply_json_patch(scale, req.body)
        else:
            scale = patch_formats.apply_merge_patch(scale, req.body)
        return await self._write(info, req, scale)

    async def _write(self, info: ResourceInfo, req: Request, body: Any) -> Response:
        spec_path, _, _ = self._paths(info)
        scope, name = self.scope, req.name
        sub = scope.tables.registry.subresource(info, "scale")
        scale = scope.decoder.decode_subresource(sub, copy_json(body), [])
        replicas = (scale.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise invalid("Scale", name, [FieldError.invalid(
                "spec.replicas", replicas, "must be greater than or equal to 0")], group="autoscaling")
        expect = parse_resource_version(scale["metadata"].get("resourceVersion"))

        def mutate(live: dict[str, Any]) -> dict[str, Any]:
            new: dict[str, Any] = copy_json(live)
            _set_path(new, spec_path, replicas)
            return new

        w = Write(user=req.user, info=info, namespace=req.namespace, dry_run=req.options.dry_run,
                  manager=req.options.field_manager or "kubelite")
        strategy = ScaleStrategy(scope.strategies.for_resource(info))
        data = await scope.store.update(w, strategy, name, mutate, expect_rv=expect)
        return Response(data=_encode(self.scale_of(info, _decode(data))))
