"""Leader election over a Lease: at most one candidate runs the guarded work at a time (mostly).

Follows client-go ``tools/leaderelection/leaderelection.go`` (``NewLeaderElector``, ``Run``,
``acquire``, ``renew``, ``release``, ``tryAcquireOrRenew``, ``maybeReportTransition``). Contract:

- **Local time only.** A candidate trusts no timestamp written by another. It remembers the last
  record it saw and *when it saw it change* on its own clock (``observed_time``); the holder's lease is
  expired once ``observed_time + leaseDurationSeconds <= now`` without any change observed. Any number
  of candidates may run; the Lease's resourceVersion (optimistic concurrency, 409 Conflict) decides who
  wins a takeover, and ``leaseTransitions`` counts every change of holder.
- **Timing.** A candidate tries at once, then every ``retry_period * (1 + 1.2 * rng.random())``
  (upstream's ``wait.JitterUntil`` with ``JitterFactor`` 1.2). The leader renews every ``retry_period``;
  when renewals keep failing for ``renew_deadline`` it stops leading. Hence after a leader stops, another
  candidate takes over no sooner than ``lease_duration`` after the last renewal it observed, and within
  about ``lease_duration + 2 * 2.2 * retry_period`` of it.
- **Callbacks, in order:** ``on_new_leader(identity)`` (synchronously, whenever the observed holder
  changes, including the first one seen and ``""`` after a release), then ``on_started_leading()`` in its
  own task once this candidate leads, then ``on_stopped_leading()`` exactly once when :meth:`run` ends
  (also when it never led, as upstream's deferred call does). The leading task is cancelled and awaited
  before ``on_stopped_leading`` runs and before a release, so the guarded work has stopped before anyone
  else can take the lease from us on purpose.
- **No fencing.** As upstream says, this does not guarantee a single leader: a leader that cannot
  reach the apiserver keeps running its work for up to ``renew_deadline`` after its last renewal.
- ``release_on_cancel``: when :meth:`run` ends (cancelled or lost), a leader that still holds the
  Lease writes it back with an empty holder and ``leaseDurationSeconds: 1`` so the others take over
  about a second after they observe it, instead of a whole ``lease_duration``.
- If ``on_started_leading`` raises, leadership ends as above and :meth:`run` re-raises (upstream's
  goroutine panic would end the process).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from kubelite.clock import Clock
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.leaderelection.resourcelock import LeaderElectionRecord, ResourceLock
from kubelite.logs import get_logger
from kubelite.supervise import TaskGroup

__all__ = ["JITTER_FACTOR", "LeaderElectionConfig", "LeaderElector"]

#: Upstream ``JitterFactor``: acquire retries wait retry_period * (1 + JITTER_FACTOR * U[0, 1)).
JITTER_FACTOR = 1.2

log = get_logger("kubelite.leaderelection")


@dataclass(kw_only=True)
class LeaderElectionConfig:
    """``LeaderElectionConfig`` (durations in seconds; core components use 15 / 10 / 2)."""

    lock: ResourceLock
    on_started_leading: Callable[[], Awaitable[None]]
    on_stopped_leading: Callable[[], None]
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    on_new_leader: Callable[[str], None] | None = None
    release_on_cancel: bool = False
    name: str = ""


def validate_config(config: LeaderElectionConfig) -> None:
    """``NewLeaderElector``'s checks, in upstream's order and words."""
    if config.lease_duration <= config.renew_deadline:
        raise ValueError("leaseDuration must be greater than renewDeadline")
    if config.renew_deadline <= JITTER_FACTOR * config.retry_period:
        raise ValueError("renewDeadline must be greater than retryPeriod*JitterFactor")
    if config.lease_duration <= 0:
        raise ValueError("leaseDuration must be greater than zero")
    if config.renew_deadline <= 0:
        raise ValueError("renewDeadline must be greater than zero")
    if config.retry_period <= 0:
        raise ValueError("retryPeriod must be greater than zero")
    if config.on_started_leading is None:
        raise ValueError("OnStartedLeading callback must not be nil")
    if config.on_stopped_leading is None:
        raise ValueError("OnStoppedLeading callback must not be nil")
    if config.lock is None:
        raise ValueError("Lock must not be nil.")


class LeaderElector:
    """One candidate. Build one per candidate and lock; call :meth:`run` once."""

    def __init__(self, config: LeaderElectionConfig, *, clock: Clock, rng: random.Random) -> None:
        validate_config(config)
        self.config = config
        self.clock = clock
        self.rng = rng
        # The last record seen (read or written) and when it was seen to change, on our clock.
        self._observed = LeaderElectionRecord()
        self._observed_raw: bytes | None = None
        self._observed_time = 0.0
        # The holder last reported to on_new_leader; may lag _observed until maybe_report_transition.
        self._reported_leader = ""
        self._log = log.bind(lock=config.lock.describe(), identity=config.lock.identity)

    # --- queries ---
    def is_leader(self) -> bool:
        """True if the last observed holder is this candidate."""
        return self._observed.holder_identity == self.config.lock.identity

    def get_leader(self) -> str:
        """The last observed holder ("" if none observed yet)."""
        return self._observed.holder_identity

    @property
    def observed_record(self) -> LeaderElectionRecord:
        """The last election record this candidate read or wrote."""
        return self._observed

    # --- the loop ---
    async def run(self) -> None:
        """Acquire, lead while renewing, and return once leadership is lost (or raise if cancelled).

        The leading and renewing tasks run in one task group (:class:`kubelite.supervise.TaskGroup`),
        so guarded work that raises ends the run with that exception (renewing is cancelled first), and
        a cancelled run cancels both in a fixed order (leading, then renewing)."""
        acquired = False
        failure: BaseException | None = None
        try:
            await self._acquire()
            acquired = True
            name = self.config.name
            try:
                async with TaskGroup(f"leaderelection/{name or self.config.lock.identity}") as group:
                    leading = group.start_soon(self._lead, name=f"leading:{name}")
                    renewing = group.start_soon(self._renew, name=f"renew:{name}")
                    # the guarded work returning keeps the lease held, as upstream does; losing it ends
                    # the guarded work
                    await renewing.wait()
                    leading.cancel()
            except Exception as e:
                failure = e
                self._log.error("leading_task_failed", error=repr(e), exc_info=e)
        finally:
            with anyio.CancelScope(shield=True):
                await self._stop(acquired)
        if failure is not None:
            raise failure

    async def _lead(self) -> None:
        await self.config.on_started_leading()

    async def _stop(self, acquired: bool) -> None:
        """The guarded work has stopped: release if configured, then call on_stopped_leading (upstream's
        deferred ``OnStoppedLeading``, also when this candidate never led)."""
        if acquired:
            if self.config.release_on_cancel:
                with self.clock.move_on_after(self.config.renew_deadline):
                    await self._release()
            self.config.lock.record_event("stopped leading")
        self.config.on_stopped_leading()

    async def _acquire(self) -> None:
        """``acquire``: try now, then every jittered retry_period, until this candidate holds the lease."""
        self._log.info("attempting_to_acquire_leader_lease")
        period = self.config.retry_period
        while True:
            succeeded = await self._try_acquire_or_renew()
            self._maybe_report_transition()
            if succeeded:
                self.config.lock.record_event("became leader")
                self._log.info("successfully_acquired_lease")
                return
            await self.clock.sleep(period + self.rng.random() * JITTER_FACTOR * period)

    async def _renew(self) -> None:
        """``renew``: every retry_period, retry renewing until success or renew_deadline; return on failure."""
        cfg = self.config
        while True:
            renewed = False
            with self.clock.move_on_after(cfg.renew_deadline):
                while not (renewed := await self._try_acquire_or_renew()):
                    await self.clock.sleep(cfg.retry_period)
            self._maybe_report_transition()
            if not renewed:
                self._log.info("failed_to_renew_lease", error="timed out waiting for the condition")
                return
            await self.clock.sleep(cfg.retry_period)

    async def _release(self) -> bool:
        """``release``: hand the lease back (empty holder, 1 s duration) if we still hold it."""
        lock = self.config.lock
        while True:
            try:
                current, _ = await lock.get()
            except NotFound:
                self._log.info("lease_lock_not_found")
                return False
            except ApiError as e:
                self._log.error("error_retrieving_resource_lock", error=e.message)
                return False
            if not self.is_leader() or current.holder_identity != lock.identity:
                return True
            now = self.clock.now()
            record = LeaderElectionRecord(
                leader_transitions=current.leader_transitions, lease_duration_seconds=1, renew_time=now,
                acquire_time=now,
            )
            try:
                await lock.update(record)
            except Conflict:
                continue  # a renewal raced with us; read again and retry
            except ApiError as e:
                self._log.error("failed_to_release_lease", error=e.message)
                return False
            self._set_observed(record)
            return True

    async def _try_acquire_or_renew(self) -> bool:
        """``tryAcquireOrRenew``; True if this candidate holds the lease afterwards."""
        lock = self.config.lock
        now = self.clock.now()
        record = LeaderElectionRecord(
            holder_identity=lock.identity, lease_duration_seconds=int(self.config.lease_duration),
            renew_time=now, acquire_time=now,
        )

        # 1. Fast path: the leader updates optimistically, assuming its cached Lease is current.
        if self.is_leader() and self._is_lease_valid(now):
            old = self._observed
            fast = LeaderElectionRecord(
                holder_identity=record.holder_identity, lease_duration_seconds=record.lease_duration_seconds,
                renew_time=now, acquire_time=old.acquire_time, leader_transitions=old.leader_transitions,
            )
            try:
                await lock.update(fast)
            except ApiError as e:
                self._log.debug("failed_to_update_lease_optimistically", error=e.message)
            else:
                self._set_observed(fast)
                return True

        # 2. Obtain or create the election record.
        try:
            old, old_raw = await lock.get()
        except NotFound:
            try:
                await lock.create(record)
            except ApiError as e:
                self._log.error("error_initially_creating_lease_lock", error=e.message)
                return False
            self._set_observed(record)
            return True
        except ApiError as e:
            self._log.error("error_retrieving_lease_lock", error=e.message)
            return False

        # 3. Record obtained: note a change (restarting our expiry clock), then check holder and time.
        if self._observed_raw != old_raw:
            self._set_observed(old)
            self._observed_raw = old_raw
        if old.holder_identity and self._is_lease_valid(now) and not self.is_leader():
            self._log.debug("lease_held_by_another", holder=old.holder_identity)
            return False

        # 4. Update: a renewal keeps acquireTime and transitions, a takeover bumps transitions.
        if self.is_leader():
            record = LeaderElectionRecord(
                holder_identity=record.holder_identity, lease_duration_seconds=record.lease_duration_seconds,
                renew_time=now, acquire_time=old.acquire_time, leader_transitions=old.leader_transitions,
            )
        else:
            record = LeaderElectionRecord(
                holder_identity=record.holder_identity, lease_duration_seconds=record.lease_duration_seconds,
                renew_time=now, acquire_time=now, leader_transitions=old.leader_transitions + 1,
            )
        try:
            await lock.update(record)
        except ApiError as e:
            self._log.error("failed_to_update_lease", error=e.message)
            return False
        self._set_observed(record)
        return True

    # --- bookkeeping ---
    def _is_lease_valid(self, now: float) -> bool:
        return self._observed_time + self._observed.lease_duration_seconds > now

    def _set_observed(self, record: LeaderElectionRecord) -> None:
        self._observed = record
        self._observed_time = self.clock.now()

    def _maybe_report_transition(self) -> None:
        holder = self._observed.holder_identity
        if holder == self._reported_leader:
            return
        self._reported_leader = holder
        if self.config.on_new_leader is not None:
            try:
                self.config.on_new_leader(holder)
            except Exception as e:  # a callback must not break the election loop
                self._log.error("on_new_leader_failed", error=repr(e))
