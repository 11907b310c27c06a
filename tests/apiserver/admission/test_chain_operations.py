"""The admission chain asks a plugin only about the operations it declares (upstream's
``admission.NewHandler(admission.Create, ...)`` and ``Handler.Handles(operation)``), so an UPDATE such as a
heartbeat costs nothing in the CREATE-only plugins; a plugin without ``operations`` is asked about every
request, and the chain's order is kept."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster


class _Recorder:
    def __init__(self, name: str, log: list[str], operations: frozenset[str] | None) -> None:
        self.name = name
        self.log = log
        if operations is not None:
            self.operations = operations

    def handles(self, req: AdmissionRequest) -> bool:
        self.log.append(f"{self.name}?{req.operation}")
        return True

    def admit(self, req: AdmissionRequest) -> None:
        self.log.append(f"{self.name}!{req.operation}")

    validate = admit


def _req(op: str) -> AdmissionRequest:
    return AdmissionRequest(operation=op, group="", version="v1", kind="Pod", resource="pods", subresource="",
                            namespace="default", name="p", object={}, old_object=None, user=UserInfo(name="u"))


@pytest.mark.parametrize(("op", "asked"), [
    ("CREATE", ["create-only", "create-delete", "any"]),
    ("UPDATE", ["any"]),
    ("DELETE", ["create-delete", "any"]),
], ids=["create", "update", "delete"])
async def test_plugins_are_asked_only_about_their_operations(op: str, asked: list[str]) -> None:
    log: list[str] = []
    plugins = [_Recorder("create-only", log, frozenset({"CREATE"})),
               _Recorder("create-delete", log, frozenset({"CREATE", "DELETE"})), _Recorder("any", log, None)]
    chain = AdmissionChain(mutating=plugins, validating=plugins)
    for _ in range(2):  # the per-operation lists are computed once and reused
        log.clear()
        await chain.admit(_req(op))
        await chain.validate(_req(op))
        assert log == [f"{n}{s}{op}" for n in asked for s in "?!"] * 2


async def test_no_builtin_plugin_is_asked_about_a_pod_status_update() -> None:
    """Every built-in plugin but ValidatingAdmissionPolicy handles CREATE or DELETE only (or CSR
    subresources): a pod status heartbeat skips them without calling them."""
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        chain = cluster.apiserver.admission
        plugins: list[Any] = [*chain.mutating_plugins, *chain.validating_plugins]
        names = sorted({p.name for p in plugins if "UPDATE" in getattr(p, "operations", {"UPDATE"})})
        assert len(plugins) >= 10  # the whole built-in chain is there
    assert names == ["CertificateApproval", "CertificateSigning", "ValidatingAdmissionPolicy"]
