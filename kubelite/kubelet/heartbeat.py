"""A kubelet's heartbeats: its node Lease every 10 s and its Node status when it changes or every 5 min.

Follows ``k8s.io/component-helpers/apimachinery/lease/controller.go`` (``sync``: renew the node's
Lease, creating it when missing) and ``pkg/kubelet/kubelet_node_status.go`` (``updateNodeStatus`` /
``tryUpdateNodeStatus``: with the Lease carrying the liveness signal, the Node status is only written
when it changed or ``nodeStatusReportFrequency`` (5 min) has passed since the last report).

Contract:
- Writes go through the client only, each as its kubelet's identity, with upstream's verbs. A renewal is
  a PUT of the lease as the last write returned it (upstream's ``latestLease``) with ``holderIdentity``,
  ``leaseDurationSeconds`` and ``renewTime`` set (``retryUpdateLease``: up to 5 attempts; a conflict, as
  when someone else wrote the lease, re-reads it first; a kubelet with no lease cached, or whose updates
  all failed, ensures it exists with a GET, creating it when missing, and backs off 200 ms doubling to
  7 s while that fails). The Node status write is a strategic merge patch of ``status``
  (``PatchNodeStatus``) with the conditions (their ``lastHeartbeatTime`` moves with every report; merged
  by type, so conditions other components own are kept) plus ``capacity`` and ``allocatable`` only when
  those changed since the last report.
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

from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.kubelet.node import LEASE_DURATION, LEASE_NAMESPACE, RENEW_INTERVAL, lease_body
from kubelite.logs import get_logger

__all__ = ["MAX_UPDATE_RETRIES", "NODE_REPORT_INTERVAL", "HeartbeatWheel", "NodeHeartbeat", "micro_time"]

log = get_logger("kubelite.kubelet")

#: nodeStatusReportFrequency
NODE_REPORT_INTERVAL = 300.0
#: the lease controller's maxUpdateRetries
MAX_UPDATE_RETRIES = 5
_ENSURE_BACKOFF, _ENSURE_MAX = 0.2, 7.0  # backoffEnsureLease: 100 ms doubled before the first wait, up to 7 s


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
        #: the lease as the last write returned it (upstream ``latestLease``); None after a (re)start
        self._lease: dict[str, Any] | None = None
        self._ensure_backoff = 0.0  # backoffEnsureLease's current sleep; 0 while the lease is ensured
        self.renewals = 0
        self.reports = 0

    def mark_dirty(self) -> None:
        self._dirty = True

    async def beat(self, now: float, renew_time: str) -> float:
        """Renew the lease (``renew_time``: ``micro_time(now)``), then report if due; returns the seconds
        until the next beat (``RENEW_INTERVAL``, or backoffEnsureLease's sleep after a failed ensure)."""
        if not await self._sync(renew_time):
            # backoffEnsureLease: 200 ms doubling to 7 s between attempts (nothing else happens meanwhile)
            self._ensure_backoff = min(max(2 * self._ensure_backoff, _ENSURE_BACKOFF), _ENSURE_MAX)
            return self._ensure_backoff
        self._ensure_backoff = 0.0
        if self._dirty or now - self._last_report >= NODE_REPORT_INTERVAL:
            self._dirty = False
            self._last_report = now
            await self._report()
        return RENEW_INTERVAL

    async def _sync(self, renew_time: str) -> bool:
        """controller.go ``sync``: update the lease it has; with none (a start) or after that failed, ensure
        the lease exists (GET, or create it renewed) and update it unless just created. False when the
        ensure failed (retried after a backoff)."""
        if self._lease is not None and await self._retry_update(self._lease, renew_time):
            return True
        lease, created = await self._ensure(renew_time)
        if lease is None:
            return False
        self._lease = lease
        if not created:
            await self._retry_update(lease, renew_time)
        return True

    async def _retry_update(self, base: dict[str, Any], renew_time: str) -> bool:
        """retryUpdateLease: PUT ``base`` renewed, up to ``MAX_UPDATE_RETRIES`` times; a conflict re-reads
        the lease first (OptimisticLockError)."""
        for _ in range(MAX_UPDATE_RETRIES):
            spec = base.setdefault("spec", {})
            spec["holderIdentity"] = self.node_name
            spec["leaseDurationSeconds"] = LEASE_DURATION
            spec["renewTime"] = renew_time
            try:
                # ``base`` is the kubelet's own (the lease its last write or GET returned, decoded privately for
                # it): sent as it is, not copied (a failed attempt leaves it as it was, so a retry resends it)
                self._lease = await self.client.replace_owned(base, namespace=LEASE_NAMESPACE)
            except ApiError as e:
                log.warning("lease_update_failed", node=self.node_name, error=str(e))
                if isinstance(e, Conflict):
                    lease, _ = await self._ensure(renew_time)
                    if lease is None:
                        return False
                    base = lease
                continue
            self.renewals += 1
            return True
        return False

    async def _ensure(self, renew_time: str) -> tuple[dict[str, Any] | None, bool]:
        """ensureLease: the lease as the API has it, or created now (renewed, owned by the Node) when it is
        missing; ``(None, False)`` when either request failed."""
        try:
            lease: dict[str, Any] = await self.client.get("leases", self.node_name, namespace=LEASE_NAMESPACE)
            return lease, False
        except NotFound:
            pass
        except ApiError as e:
            log.warning("lease_ensure_failed", node=self.node_name, error=str(e))
            return None, False
        try:
            created: dict[str, Any] = await self.client.create(lease_body(self.node_name, self.node_uid, renew_time))
        except ApiError as e:
            log.warning("lease_ensure_failed", node=self.node_name, error=str(e))
            return None, False
        return created, True

    async def _report(self) -> None:
        """PatchNodeStatus: a strategic merge patch of ``status`` (conditions merge by ``type``, so a
        condition another component owns, node-problem-detector's or NetworkUnavailable, is kept)."""
        status = self._status()
        reported = self._reported
        patch = {k: v for k, v in status.items() if k == "conditions" or reported.get(k) != v}
        try:
            # the answer is not read: the kubelet's Node informer brings it the written Node (a shared view)
            await self.client.patch_status_unread("nodes", self.node_name, {"status": patch}, patch_type="strategic")
        except ApiError as e:
            log.warning("node_status_failed", node=self.node_name, error=str(e))
            return
        self.reports += 1
        reported.update(status)


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
        hb._lease = None  # a (re)started kubelet has no lease cached
        hb._ensure_backoff = 0.0
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
                    self.beats += 1
                    delay = await hb.beat(now, stamp)
                    if self._at.get(hb) == at:  # still joined: its next beat
                        self._put(hb, now + delay)
