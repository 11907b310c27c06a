"""The main resource's REST object: every verb its discovery lists, through the generic store with the
kind's strategy."""

from __future__ import annotations

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.handlers import create, delete, get, patch, update
from kubelite.apiserver.request import ListResponse, Request, Response
from kubelite.apiserver.scope import Scope
from kubelite.store import Watcher

__all__ = ["ResourceREST"]


class ResourceREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return info.verbs

    async def create(self, info: ResourceInfo, req: Request) -> Response:
        return await create.create(self.scope, info, self.scope.strategies.for_resource(info), req)

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        return await get.get(self.scope, info, req)

    async def list_(self, info: ResourceInfo, req: Request) -> ListResponse | Response:
        return await get.list_(self.scope, info, req)

    async def watch(self, info: ResourceInfo, req: Request) -> Watcher:
        return await get.watch(self.scope, info, req)

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await update.update(self.scope, info, self.scope.strategies.for_resource(info), req)

    async def patch(self, info: ResourceInfo, req: Request) -> Response:
        return await patch.patch(self.scope, info, self.scope.strategies.for_resource(info), req)

    async def delete(self, info: ResourceInfo, req: Request) -> Response:
        return await delete.delete(self.scope, info, self.scope.strategies.for_resource(info), req)

    async def delete_collection(self, info: ResourceInfo, req: Request) -> ListResponse:
        return await delete.delete_collection(self.scope, info, self.scope.strategies.for_resource(info), req)
