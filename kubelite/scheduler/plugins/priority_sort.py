"""PrioritySort: the default QueueSort (upstream ``plugins/queuesort/priority_sort.go``): higher
``spec.priority`` first, then the earlier queue timestamp."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.scheduler.framework.types import QueuedPodInfo

__all__ = ["NAME", "PrioritySort", "new"]

NAME = "PrioritySort"


class PrioritySort:
    name = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod_info.priority, b.pod_info.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)

    def sort_key(self, qpi: QueuedPodInfo) -> tuple[int, float]:
        """A key ordered exactly as :meth:`less` (the queue compares keys in C)."""
        return -qpi.pod_info.priority, qpi.timestamp


def new(args: Mapping[str, Any], handle: Any) -> PrioritySort:
    return PrioritySort()
