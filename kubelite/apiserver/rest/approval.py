"""``certificatesigningrequests/approval``: GET, PUT and PATCH through the approval strategy, so only the
Approved/Denied conditions change (``pkg/registry/certificates/certificates/storage.go`` ApprovalREST).
Who may approve a request for a signer is the CertificateApproval admission plugin's check."""

from __future__ import annotations

from kubelite.api.resources import GET_PATCH_UPDATE, ResourceInfo
from kubelite.apiserver.handlers import get, patch, update
from kubelite.apiserver.registry.certificates import CertificateSigningRequestStrategy, CSRApprovalStrategy
from kubelite.apiserver.request import Request, Response
from kubelite.apiserver.scope import Scope

__all__ = ["ApprovalREST"]


class ApprovalREST:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return GET_PATCH_UPDATE

    def _strategy(self, info: ResourceInfo) -> CSRApprovalStrategy:
        main = self.scope.strategies.for_resource(info)
        assert isinstance(main, CertificateSigningRequestStrategy)
        return main.approval

    async def get(self, info: ResourceInfo, req: Request) -> Response:
        return await get.get(self.scope, info, req)

    async def update(self, info: ResourceInfo, req: Request) -> Response:
        return await update.update(self.scope, info, self._strategy(info), req)

    async def patch(self, info: ResourceInfo, req: Request) -> Response:
        return await patch.patch(self.scope, info, self._strategy(info), req)
