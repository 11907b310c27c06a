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


def new(args: Mapping[str, Any], handle: Any) -> PrioritySort:
    return PrioritySort()
