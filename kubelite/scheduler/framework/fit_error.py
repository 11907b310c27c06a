"""FitError: why a pod fits no node, in upstream's words (``framework/types.go`` ``FitError.Error``).

``0/3 nodes are available: 1 node(s) had untolerated taint {key: value}, 2 Insufficient nvidia.com/gpu.
preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.``

Each reason of each node's status is counted; the "<count> <reason>" strings are sorted (as strings,
like Go's ``sort.Strings``) and joined. A PreFilter rejection replaces the histogram (every node would
repeat it). The PostFilter (preemption) message follows.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubelite.scheduler.framework.status import Status

__all__ = ["NO_NODE_AVAILABLE_MSG", "FitError", "reasons_histogram"]

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


def reasons_histogram(statuses: Mapping[str, Status]) -> list[str]:
    counts: dict[str, int] = {}
    for st in statuses.values():
        for r in st.reasons:
            counts[r] = counts.get(r, 0) + 1
    return sorted(f"{n} {r}" for r, n in counts.items())


class FitError(Exception):
    """No node fits the pod (upstream ``framework.FitError``); ``str()`` is upstream's "0/N nodes are available: ..."
    message."""

    def __init__(self, pod_key: str, num_all_nodes: int, statuses: dict[str, Status], *,
                 pre_filter_msg: str = "", post_filter_msg: str = "", unschedulable_plugins: set[str] | None = None,
                 ) -> None:
        self.pod_key = pod_key
        self.num_all_nodes = num_all_nodes
        self.statuses = statuses
        self.pre_filter_msg = pre_filter_msg
        self.post_filter_msg = post_filter_msg
        self.unschedulable_plugins = unschedulable_plugins if unschedulable_plugins is not None else set()
        super().__init__()

    def __str__(self) -> str:
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if self.pre_filter_msg:
            msg += f" {_sentence(self.pre_filter_msg)}"
        else:
            hist = reasons_histogram(self.statuses)
            if hist:
                msg += f" {', '.join(hist)}."
        if self.post_filter_msg:
            msg += f" {_sentence(self.post_filter_msg)}"
        return msg


def _sentence(s: str) -> str:
    # Upstream once printed "..", when the preemption message (itself a FitError) got a second period.
    return s if s.endswith(".") else s + "."
