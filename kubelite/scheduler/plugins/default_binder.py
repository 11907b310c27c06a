"""DefaultBinder (upstream ``plugins/defaultbinder``): creates the ``pods/binding`` subresource."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.errors import ApiError
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.status import Status
from kubelite.scheduler.framework.types import PodInfo

__all__ = ["NAME", "DefaultBinder", "new"]

NAME = "DefaultBinder"


class DefaultBinder:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    async def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        try:
            # upstream's Binding carries the pod's UID: a precondition on the pod the apiserver binds
            meta = pod.pod.metadata
            await self.handle.client.bind(pod.namespace, pod.name, node_name, uid=meta.uid if meta else None)
        except ApiError as e:
            return Status.error(e.status.message or str(e))
        return None


def new(args: Mapping[str, Any], handle: Any) -> DefaultBinder:
    return DefaultBinder(handle)
