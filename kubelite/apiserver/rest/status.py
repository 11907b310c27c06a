"""``<resource>/status`` (every kind whose discovery lists it, custom resources with the status
subresource): GET, PUT and PATCH through the kind's status strategy, so only the status (and, for built-in
kinds, annotations and finalizers) change."""

from __future__ import annotations

from kubelite.api.resources import GET_PATCH_UPDATE, ResourceInfo
from kubelite.apiserver.handlers import get, patch, update
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope

__all__ = ["StatusREST"]


class StatusREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return GET_PATCH_UPDATE

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        return await get.get(self.scope, info, req)

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await update.update(self.scope, info, self.scope.strategies.for_status(info), req)

    async def patch(self, info: ResourceInfo, req: Request) -> Response:
        return await patch.patch(self.scope, info, self.scope.strategies.for_status(info), req)
