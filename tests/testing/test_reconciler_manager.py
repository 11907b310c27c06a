"""register_reconciler no longer hides its Manager (issue #15): the controller's ``manager`` is the user's
manager, one of ``cluster.managers``, and crashing it (not the built-in kube-controller-manager) stops the
user's controllers until it restarts, from the API state alone (controller-runtime: a restarted operator
relists)."""

from __future__ import annotations

from kubelite.cluster import Cluster
from kubelite.controllers import Request
from kubelite.testing import reconciler_manager, register_reconciler


async def test_the_users_manager_is_exposed_and_crashes_and_restarts() -> None:
    async with Cluster(seed=5, nodes=0, scheduler=False, controllers=["replicaset"], network=False) as cluster:
        seen: list[str] = []

        async def reconcile(req: Request) -> None:
            seen.append(req.name)

        assert reconciler_manager(cluster) is None
        ctrl = await register_reconciler(cluster, "cms", reconcile, for_="configmaps")
        mgr = reconciler_manager(cluster)
        assert mgr is not None and ctrl.manager is mgr
        assert cluster.managers == [cluster.controller_manager, mgr]

        async def configmap(name: str) -> None:
            await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                         "metadata": {"name": name, "namespace": "default"}})

        await configmap("before")
        await cluster.settle()
        assert seen == ["before"]

        await cluster.crash_controller_manager()  # the built-in one: mine keeps running
        await configmap("kcm-down")
        await cluster.settle()
        assert seen == ["before", "kcm-down"]

        await mgr.crash()
        await configmap("while-down")
        await cluster.advance(30)
        assert seen == ["before", "kcm-down"]  # nothing reconciles while my manager is down

        await mgr.restart()
        await cluster.settle()
        # the restarted manager relists: every ConfigMap is reconciled again, the missed one included
        assert sorted(seen[2:]) == ["before", "kcm-down", "while-down"], seen
        await mgr.stop()
