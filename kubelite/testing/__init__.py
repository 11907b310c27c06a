"""kubelite for operator authors: a pytest plugin and helpers (layer 8).

With kubelite installed, pytest loads the plugin (entry point ``pytest11``); without installing, add
``-p kubelite.testing.plugin``. Each test that asks for ``kubelite_cluster`` gets a fresh cluster on
virtual time, seeded from ``--kubelite-seed`` or the test id::

    import pytest
    from kubelite.testing import install_crds, load_manifests, register_reconciler

    @pytest.mark.kubelite(nodes=3)
    async def test_my_operator(kubelite_cluster):
        await install_crds(kubelite_cluster, "config/crd.yaml")
        await register_reconciler(kubelite_cluster, "webapp", WebAppReconciler(kubelite_cluster.client),
                                  for_="webapps.example.com", owns=["deployments", "services"])
        await load_manifests(kubelite_cluster, "config/samples/webapp.yaml")
        await kubelite_cluster.wait_for(lambda: ..., timeout=60)

When such a test fails, its report gains a ``kubelite`` section with the seed (and the command that
replays it) and the cluster's events as ``kubectl get events -A`` shows them. A test whose cluster logged
an unexpected component error (a reconcile's non-API exception, an event handler's exception, a component
that died) fails, listing them, unless it is marked ``@pytest.mark.kubelite_allow_errors``.
:func:`reconciler_manager` is the :class:`~kubelite.controllers.Manager` running the registered reconcilers
(also in ``cluster.managers``): ``await mgr.crash()`` / ``await mgr.restart()`` crash and restart the operator.

Importing this package is cheap: the control plane is imported when a fixture or helper first runs.
"""

from kubelite.testing.helpers import (
    install_crds,
    load_manifests,
    reconciler_manager,
    register_reconciler,
    register_scheduler_plugin,
    start_default_scheduler,
)
from kubelite.testing.plugin import seed_for

__all__ = ["install_crds", "load_manifests", "reconciler_manager", "register_reconciler", "register_scheduler_plugin", "seed_for",
           "start_default_scheduler"]
