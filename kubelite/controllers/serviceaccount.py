"""The service account controller: every active namespace has a ``default`` ServiceAccount.

Follows ``pkg/controller/serviceaccount/serviceaccounts_controller.go`` (``syncNamespace``): for each
namespace that is not Terminating, the ServiceAccounts named in the controller's list (just
``default``, as kube-controller-manager configures it) are created when missing from the informer
cache; a deleted one is recreated (its deletion enqueues its namespace). A create that finds it
already there (a stale cache) is success. The controller never updates or deletes ServiceAccounts.
The ``kube-root-ca.crt`` ConfigMap (root-ca-cert-publisher) is not published: kubelite has no CA.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubelite.api.types import Namespace, ObjectMeta, ServiceAccount
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import AlreadyExists, NotFound
from kubelite.informer import Indexer

__all__ = ["NAME", "ServiceAccountsController", "register"]

NAME = "serviceaccount"
DEFAULT_SERVICE_ACCOUNTS = ("default",)


class ServiceAccountsController:
    """Requests are namespaces (``Request("", namespace)``)."""

    def __init__(self, ctx: ControllerContext, *, namespaces: Indexer, service_accounts: Indexer) -> None:
        self.client = ctx.client
        self.namespaces, self.service_accounts = namespaces, service_accounts

    @staticmethod
    def sa_requests(sa: ServiceAccount) -> Iterable[Request]:
        m = sa.metadata
        if m is not None and m.name in DEFAULT_SERVICE_ACCOUNTS:
            return (Request("", m.namespace or ""),)
        return ()

    async def reconcile(self, req: Request) -> Result | None:
        ns: Namespace | None = self.namespaces.get_by_key(req.name)
        if ns is None or (ns.status is not None and ns.status.phase == "Terminating") or (
                ns.metadata is not None and ns.metadata.deletion_timestamp):
            return None
        for name in DEFAULT_SERVICE_ACCOUNTS:
            if self.service_accounts.get_by_key(f"{req.name}/{name}") is not None:
                continue
            try:
                await self.client.create(ServiceAccount(metadata=ObjectMeta(name=name, namespace=req.name)))
            except AlreadyExists:
                continue
            except NotFound:  # the namespace went away meanwhile
                return None
        return None


def register(ctx: ControllerContext) -> None:
    namespaces = ctx.informers.informer_for(Namespace).get_indexer()
    sas = ctx.informers.informer_for(ServiceAccount).get_indexer()
    ctrl = ServiceAccountsController(ctx, namespaces=namespaces, service_accounts=sas)
    ctx.manager.controller("serviceaccount-controller").for_(Namespace).watches(
        ServiceAccount, ctrl.sa_requests).complete(ctrl)
