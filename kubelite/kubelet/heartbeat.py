"""A kubelet's heartbeats: its node Lease every 10 s and its Node status when it changes or every 5 min.

Follows ``k8s.io/component-helpers/apimachinery/lease/controller.go`` (``sync``: renew the node's
Lease, creating it when missing) and ``pkg/kubelet/kubelet_node_status.go`` (``updateNodeStatus`` /
``tryUpdateNodeStatus``: with the Lease carrying the liveness signal, the Node status is only written
when it changed or ``nodeStatusReportFrequency`` (5 min) has passed since the last report).

Contract:
- Writes go through the client only, each as its kubelet's identity. A renewal sets ``spec.renewTime``
  (and ``holderIdentity``) and nothing else. Upstream PUTs its cached copy of the lease and refetches on a
  conflict; here a merge patch of those two fields writes the same object (the kubelet is its lease's only
  writer, so the optimistic-concurrency round trip buys nothing) and costs ~10% less through kubelite's
  apiserver (measured with ``bench/kubelet.py``'s heartbeat floor: it decodes, validates and tracks managed
  fields of a two-field body instead of the whole lease). The Node status write is a merge patch of
  ``status`` with the conditions (their ``lastHeartbeatTime`` moves with every report) plus ``capacity``
  and ``allocatable`` only when those changed since the last report.
- One beat per node per ``RENEW_INTERVAL``: the lease is renewed, then the Node status is written if it
  is due. A kubelet that starts beats at once (creating its lease, or renewing the one it had before a
  restart, as upstream's ``sync`` does with no lease cached) and reports, then beats every 10 s from that
  instant until it stops; a stopped kubelet writes nothing more.
- **One timer per instant, not per node** (:class:`HeartbeatWheel`): the heartbeats of a node pool live in
  one wheel keyed by their next beat's time, with one clock timer and one task for the whole pool. Every
  heartbeat due at an instant beats in the order it joined, sequentially in the wheel's task, and the
  instant's ``renewTime`` text is formatted once. Renewals are not jittered (upstream's ``JitterUntil``
  adds up to 4% per period): the kubelets of a pool start in the same virtual instant and keep renewing
  together, so a 1,000-node hour costs 360 timers and task wake-ups rather than 360,000 (the lease
  semantics, 40 s duration and 10 s renewal, are unchanged). The price of sharing one task: a renewal
  that blocks (a user's admission hook that sleeps) delays the rest of its instant's renewals by as long.
- :meth:`NodeHeartbeat.mark_dirty` asks for a Node status write at the next beat (fault switches,
  memory pressure, device health).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.errors import ApiError, NotFound
from kubelite.kubelet.node import LEASE_NAMESPACE, RENEW_INTERVAL, lease_body

__all__ = ["NODE_REPORT_INTERVAL", "HeartbeatWheel", "NodeHeartbeat", "micro_time"]

log = structlog.get_logger("kubelite.kubelet")

#: nodeStatusReportFrequency
NODE_REPORT_INTERVAL = 300.0


def micro_time(t: float) -> str:
    """``metav1.MicroTime`` text of ``t``, as ``format_time(t, micro=True)`` writes it: the whole
    second's text (cached by :func:`format_time`) plus the microseconds, rounded half to even as
    ``datetime.fromtimestamp`` does; falls back to it when rounding carries into the next second."""
    whole = int(t // 1)
    us = round((t - whole) * 1e6)
    if us >= 1_000_000:
        return format_time(t, micro=True)
    return f"{format_time(whole)[:-1]}.{us:06d}Z"


class NodeHeartbeat:
    """One node's heartbeat (see the module docstring). ``status()`` builds the Node status fields the
    kubelet reports now. Beats only while joined to a :class:`HeartbeatWheel`."""

    def __init__(self, client: Client, *, clock: Clock, node_name: str,
                 status: Callable[[], dict[str, Any]]) -> None:
        self.client = client
        self.clock = clock
        self.node_name = node_name
        self.node_uid = ""
        self._status = status
        self._dirty = True
        self._reported: dict[str, Any] = {}  # the last status fields written
        self._last_report = -1e18
        self._lease_created = False  # since the last join: the first beat creates the lease
        self.renewals = 0
        self.reports = 0

    def mark_dirty(self) -> None:
        self._dirty = True

    async def beat(self, now: float, renew_time: str) -> None:
        """Create or renew the lease (``renew_time``: ``micro_time(now)``), then report if due."""
        if self._lease_created:
            await self._renew(renew_time)
        else:
            # a (re)started kubelet has no lease cached: ensure it exists, and renew one that did
            # (controller.go ``sync``: backoffEnsureLease, then retryUpdateLease unless just created)
            self._lease_created = True
            if not await self._create_lease(renew_time):
                await self._renew(renew_time)
        if self._dirty or now - self._last_report >= NODE_REPORT_INTERVAL:
            self._dirty = False
            self._last_report = now
            await self._report()

    async def _report(self) -> None:
        status = self._status()
        reported = self._reported
        patch = {k: v for k, v in status.items() if k == "conditions" or reported.get(k) != v}
        try:
            await self.client.patch_status("nodes", self.node_name, {"status": patch}, patch_type="merge")
        except ApiError as e:
            log.warning("node_status_failed", node=self.node_name, error=str(e))
            return
        self.reports += 1
        reported.update(status)

    async def _create_lease(self, renew_time: str) -> bool:
        """backoffEnsureLease: create the lease (renewed now) unless it exists; whether it was created."""
        body = lease_body(self.node_name, self.node_uid, renew_time)
        try:
            await self.client.create(body)
        except ApiError as e:
            if e.code != 409:
                raise
            return False
        return True

    async def _renew(self, renew_time: str) -> None:
        """A merge patch of the renewal's fields; a lease deleted meanwhile is created again."""
        patch = {"spec": {"holderIdentity": self.node_name, "renewTime": renew_time}}
        try:
            await self.client.patch("leases", self.node_name, patch, namespace=LEASE_NAMESPACE, patch_type="merge")
            self.renewals += 1
        except NotFound:
            await self._create_lease(renew_time)
        except ApiError as e:
            log.warning("lease_renew_failed", node=self.node_name, error=str(e))


class HeartbeatWheel:
    """The heartbeats of a node pool on one timer per beat instant (see the module docstring).

    Invariants: a joined heartbeat is in exactly one bucket, the one of its next beat's time; a bucket has
    exactly one clock timer, set when its first heartbeat entered it. :meth:`run` (the wheel's one task,
    owned by the pool or by a kubelet of its own) beats the due buckets in time order."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._buckets: dict[float, dict[NodeHeartbeat, None]] = {}  # beat time -> heartbeats, in join order
        self._at: dict[NodeHeartbeat, float] = {}  # joined heartbeat -> its bucket
        self._due: list[float] = []  # buckets whose timer fired, oldest first
        self._wake: asyncio.Event | None = None
        self.beats = 0

    def __len__(self) -> int:
        """How many heartbeats are joined."""
        return len(self._at)

    @property
    def instants(self) -> int:
        """How many beat instants are pending: one clock timer each, however many nodes beat at them."""
        return sum(1 for bucket in self._buckets.values() if bucket)

    def join(self, hb: NodeHeartbeat) -> None:
        """Start ``hb`` now: its first beat (creating the lease, reporting) happens at this instant."""
        if hb in self._at:
            return
        hb._lease_created = False
        self._put(hb, self.clock.now())

    def leave(self, hb: NodeHeartbeat) -> None:
        """Stop ``hb``: no beat of it starts from now on."""
        at = self._at.pop(hb, None)
        bucket = self._buckets.get(at) if at is not None else None
        if bucket is not None:
            bucket.pop(hb, None)

    def _put(self, hb: NodeHeartbeat, at: float) -> None:
        self._at[hb] = at
        bucket = self._buckets.get(at)
        if bucket is None:
            bucket = self._buckets[at] = {}
            self.clock.call_later(at - self.clock.now(), lambda: self._fire(at))
        bucket[hb] = None

    def _fire(self, at: float) -> None:
        self._due.append(at)
        if self._wake is not None:
            self._wake.set()

    async def run(self) -> None:
        """Beat every due heartbeat, instant after instant; until cancelled."""
        wake = self._wake = asyncio.Event()
        if self._due:
            wake.set()
        while True:
            await wake.wait()
            wake.clear()
            while self._due:
                at = self._due.pop(0)
                bucket = self._buckets.pop(at, {})
                if not bucket:
                    continue
                stamp_at, stamp = at, micro_time(at)
                for hb in list(bucket):
                    if self._at.get(hb) != at:
                        continue  # left (and maybe joined again) meanwhile
                    now = self.clock.now()  # later than ``at`` only after a renewal that blocked
                    if now != stamp_at:
                        stamp_at, stamp = now, micro_time(now)
                    self._put(hb, at + RENEW_INTERVAL)
                    self.beats += 1
                    await hb.beat(now, stamp)
