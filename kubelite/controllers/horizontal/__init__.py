"""kube-controller-manager's ``horizontalpodautoscaling`` controller (see :mod:`.horizontal`).

Options (``controller_options={"horizontalpodautoscaling": {...}}``): ``workers`` (default 5, upstream
``--concurrent-horizontal-pod-autoscaler-syncs``). Metrics come from the ``metrics.k8s.io`` API (see
:mod:`.horizontal`).
"""

from __future__ import annotations

from kubelite.api.types import HorizontalPodAutoscaler, Pod
from kubelite.controllers.horizontal.horizontal import SYNC_PERIOD, HorizontalController
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.predicate import GenerationChangedPredicate

__all__ = ["NAME", "SYNC_PERIOD", "HorizontalController", "register"]

NAME = "horizontalpodautoscaling"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"workers"})


def register(ctx: ControllerContext) -> None:
    pods = ctx.informers.informer_for(Pod).get_indexer()
    ctrl = HorizontalController(
        client=ctx.client, clock=ctx.clock, hpas=ctx.informers.informer_for(HorizontalPodAutoscaler).get_indexer(),
        pods=pods, recorder=ctx.recorder("horizontal-pod-autoscaler"))

    # Upstream requeues each HPA on a fixed resync period; its own status writes must not trigger a sync.
    # Pods are read through the lister only: upstream's HorizontalController registers no pod handler and
    # waits for ``podListerSynced``, so a pod event costs it nothing.
    (ctx.manager.controller("horizontal-pod-autoscaler").for_(HorizontalPodAutoscaler, GenerationChangedPredicate()).waits_for(Pod)
        .with_max_concurrent_reconciles(int(ctx.option(NAME, "workers", 5))).complete(ctrl))
