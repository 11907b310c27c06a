"""``componentstatuses`` as kube-apiserver answers it (``pkg/registry/core/componentstatus/rest.go``): the
health of the scheduler, the controller manager and etcd, probed on each request, never stored."""

from __future__ import annotations

from typing import Any

import pytest

import kubelite
from kubelite.errors import MethodNotAllowed, NotFound

REFUSED = 'Get "https://127.0.0.1:{port}/healthz": dial tcp 127.0.0.1:{port}: connect: connection refused'


def healthy(items: list[dict[str, Any]]) -> dict[str, tuple[str, str, str]]:
    out = {}
    for cs in items:
        [cond] = cs["conditions"]
        assert cond["type"] == "Healthy"
        out[cs["metadata"]["name"]] = (cond["status"], cond.get("message", ""), cond.get("error", ""))
    return out


@pytest.mark.parametrize(("scheduler", "controllers"), [(True, True), (False, True), (True, False), (False, False)],
                         ids=["all-running", "no-scheduler", "no-controller-manager", "apiserver-only"])
async def test_components_report_what_runs(scheduler: bool, controllers: bool) -> None:
    async with kubelite.Cluster(seed=1, nodes=0, scheduler=scheduler, controllers=controllers, network=False) as c:
        items = await c.client.list("componentstatuses")
        assert [cs["metadata"]["name"] for cs in items] == ["controller-manager", "etcd-0", "scheduler"]
        got = healthy(items)
        assert got["etcd-0"] == ("True", "ok", "")
        assert got["scheduler"] == (("True", "ok", "") if scheduler else ("False", "", REFUSED.format(port=10259)))
        assert got["controller-manager"] == (("True", "ok", "") if controllers else
                                             ("False", "", REFUSED.format(port=10257)))


async def test_a_crashed_controller_manager_is_unhealthy_until_restarted() -> None:
    async with kubelite.Cluster(seed=1, nodes=0, network=False) as c:
        await c.crash_controller_manager()
        cs = await c.client.get("componentstatuses", "controller-manager")
        assert healthy([cs])["controller-manager"][0] == "False"
        await c.restart_controller_manager()
        cs = await c.client.get("componentstatuses", "controller-manager")
        assert healthy([cs])["controller-manager"] == ("True", "ok", "")


async def test_get_list_only_and_selectors() -> None:
    async with kubelite.Cluster(seed=1, nodes=0, controllers=False, scheduler=False, network=False) as c:
        with pytest.raises(NotFound, match="Component not found: kubelet"):
            await c.client.get("componentstatuses", "kubelet")
        items = await c.client.list("componentstatuses", fields="metadata.name=etcd-0")
        assert [cs["metadata"]["name"] for cs in items] == ["etcd-0"]
        with pytest.raises(MethodNotAllowed):
            await c.client.delete("componentstatuses", "etcd-0")
