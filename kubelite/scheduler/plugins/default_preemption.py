"""DefaultPreemption (upstream ``plugins/defaultpreemption``): the PostFilter that preempts; see
:mod:`kubelite.scheduler.preemption` for the algorithm. Args: ``minCandidateNodesPercentage``
(default 10) and ``minCandidateNodesAbsolute`` (default 100) bound the dry runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import PostFilterResult
from kubelite.scheduler.framework.status import Status
from kubelite.scheduler.framework.types import PodInfo
from kubelite.scheduler.preemption import Evaluator

__all__ = ["NAME", "DefaultPreemption", "new"]

NAME = "DefaultPreemption"


class DefaultPreemption:
    name = NAME

    def __init__(self, args: Mapping[str, Any], handle: Any) -> None:
        self.evaluator = Evaluator(
            handle, NAME, min_percentage=int(args.get("minCandidateNodesPercentage", 10)),
            min_absolute=int(args.get("minCandidateNodesAbsolute", 100)))

    def post_filter(self, state: CycleState, pod: PodInfo,
                    statuses: dict[str, Status]) -> tuple[PostFilterResult | None, Status | None]:
        result, st = self.evaluator.preempt(state, pod, statuses)
        if st.code == 0:
            return result, None
        msg = st.message
        return result, Status(st.code, "preemption: " + msg) if msg else st


def new(args: Mapping[str, Any], handle: Any) -> DefaultPreemption:
    return DefaultPreemption(args, handle)
