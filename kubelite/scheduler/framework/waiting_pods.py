"""Pods held at Permit (upstream ``framework/runtime/waiting_pods_map.go``).

Contract: a pod is waiting from the moment a Permit plugin returns WAIT until every waiting plugin
allowed it, any plugin rejected it, or a plugin's timeout passed on the cluster clock (then it is
rejected with "rejected due to timeout after waiting <t> at plugin <name>"). The outcome is decided
synchronously by :meth:`WaitingPod.allow`/:meth:`WaitingPod.reject`, so a gang plugin can allow its
whole group from inside another pod's Permit; the binding cycle awaits :meth:`WaitingPod.wait`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

from kubelite.clock import Clock, TimerHandle
from kubelite.scheduler.framework.status import UNSCHEDULABLE, Status
from kubelite.scheduler.framework.types import PodInfo

__all__ = ["WaitingPod", "WaitingPods"]


class WaitingPod:
    """A pod held at Permit (upstream ``waitingPod``): bound once every waiting plugin allows it, rejected by one, or
    timed out."""

    __slots__ = ("_done", "_future", "_pending", "_timers", "node_name", "pod")

    def __init__(self, pod: PodInfo, node_name: str, timeouts: dict[str, float], clock: Clock) -> None:
        self.pod = pod
        self.node_name = node_name
        self._pending = set(timeouts)
        self._future: asyncio.Future[Status | None] | None = None
        self._done: tuple[Status | None] | None = None
        self._timers: list[TimerHandle] = []
        for plugin, t in sorted(timeouts.items()):
            self._timers.append(clock.call_later(t, self._timeout(plugin, t)))

    def _timeout(self, plugin: str, t: float) -> Callable[[], None]:
        def fire() -> None:
            self.reject(plugin, f"rejected due to timeout after waiting {t:g}s at plugin {plugin}")
        return fire

    @property
    def pending_plugins(self) -> list[str]:
        """The Permit plugins still to allow the pod, sorted (``GetPendingPlugins``)."""
        return sorted(self._pending)

    def allow(self, plugin: str) -> None:
        """``plugin`` allows the pod; once every pending plugin has, the binding cycle goes on (``waitingPod.Allow``).
        ``plugin`` allows the pod; once every pending plugin has, the binding cycle goes on (``waitingPod.Allow``)."""
        self._pending.discard(plugin)
        if not self._pending:
            self._finish(None)

    def reject(self, plugin: str, message: str) -> None:
        """``plugin`` rejects the pod: its binding cycle ends Unschedulable with ``message`` (``waitingPod.Reject``).
        ``plugin`` rejects the pod: its binding cycle ends Unschedulable with ``message`` (``waitingPod.Reject``)."""
        self._finish(Status(UNSCHEDULABLE, message, plugin=plugin))

    def _finish(self, status: Status | None) -> None:
        if self._done is not None:
            return
        self._done = (status,)
        for t in self._timers:
            t.cancel()
        if self._future is not None and not self._future.done():
            self._future.set_result(status)

    async def wait(self) -> Status | None:
        """Wait for the verdict: None when allowed, the rejecting (or timeout) Status otherwise."""
        if self._done is not None:
            return self._done[0]
        self._future = asyncio.get_running_loop().create_future()
        return await self._future


class WaitingPods:
    """uid -> :class:`WaitingPod`; entries are removed by the binding cycle once decided."""

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPod] = {}

    def add(self, wp: WaitingPod) -> None:
        """Hold ``wp`` (by pod uid)."""
        self._pods[wp.pod.uid] = wp

    def remove(self, uid: str) -> None:
        """Stop holding the pod with ``uid``; a no-op if absent."""
        self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        """The waiting pod with ``uid``, or None (``GetWaitingPod``)."""
        return self._pods.get(uid)

    def __iter__(self) -> Iterator[WaitingPod]:
        return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)
