"""Resource locks for leader election: the election record kept in a coordination.k8s.io/v1 Lease.

Follows client-go ``tools/leaderelection/resourcelock`` (``interface.go``: ``LeaderElectionRecord``,
``Interface``; ``leaselock.go``: ``LeaseLock``). Contract:

- A lock reads and writes one Lease through the client and nothing else. :meth:`LeaseLock.update`
  writes the Lease last returned by :meth:`LeaseLock.get` / :meth:`LeaseLock.create` with its
  resourceVersion, so a concurrent writer makes it fail with 409 Conflict: optimistic concurrency is
  what makes at most one candidate win a takeover.
- The lock caches that last Lease; only the elector that owns the lock may call it (one lock per
  candidate).
- Timestamps are epoch seconds in the record and MicroTime strings in the Lease. The *raw* record
  returned by :meth:`LeaseLock.get` (what the elector compares to notice a change) renders times at
  second precision, as upstream's ``json.Marshal`` of the record's ``metav1.Time`` fields does.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from kubelite.api.types import Lease, ObjectMeta
from kubelite.api.types.coordination_v1 import LeaseSpec
from kubelite.clock import format_time, parse_time

__all__ = ["LeaderElectionRecord", "LeaseLock", "ResourceLock", "lease_spec_to_record", "record_to_lease_spec"]

_encode = msgspec.json.Encoder().encode


class LeaderElectionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """``LeaderElectionRecord``: who holds the lock, since when, for how long, and how often it moved."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: float | None = None
    renew_time: float | None = None
    leader_transitions: int = 0
    strategy: str = ""
    preferred_holder: str = ""

    def raw(self) -> bytes:
        """The bytes the elector compares between polls (times at second precision, like upstream)."""
        return _encode((
            self.holder_identity, self.lease_duration_seconds,
            None if self.acquire_time is None else format_time(self.acquire_time),
            None if self.renew_time is None else format_time(self.renew_time),
            self.leader_transitions, self.strategy, self.preferred_holder,
        ))


class ResourceLock(Protocol):
    """``resourcelock.Interface``: what the elector needs from a lock."""

    @property
    def identity(self) -> str:
        """The candidate's identity (``Interface.Identity``)."""

    def describe(self) -> str:
        """A human-readable name of the lock (``Interface.Describe``)."""

    async def get(self) -> tuple[LeaderElectionRecord, bytes]:
        """Read the election record and its raw bytes (``Interface.Get``); NotFound if there is no lock yet."""

    async def create(self, record: LeaderElectionRecord) -> None:
        """Create the lock object holding ``record`` (``resourcelock.Interface.Create``)."""

    async def update(self, record: LeaderElectionRecord) -> None:
        """Write ``record`` over the lock read last (``Interface.Update``)."""

    def record_event(self, message: str) -> None:
        """Record a leader-election event about the lock (``Interface.RecordEvent``)."""


def lease_spec_to_record(spec: LeaseSpec | None) -> LeaderElectionRecord:
    """``LeaseSpecToLeaderElectionRecord``."""
    if spec is None:
        return LeaderElectionRecord()
    return LeaderElectionRecord(
        holder_identity=spec.holder_identity or "",
        lease_duration_seconds=spec.lease_duration_seconds or 0,
        acquire_time=parse_time(spec.acquire_time) if spec.acquire_time else None,
        renew_time=parse_time(spec.renew_time) if spec.renew_time else None,
        leader_transitions=spec.lease_transitions or 0,
        strategy=spec.strategy or "",
        preferred_holder=spec.preferred_holder or "",
    )


def record_to_lease_spec(record: LeaderElectionRecord) -> LeaseSpec:
    """``LeaderElectionRecordToLeaseSpec``: every field set (holder may be ``""`` after a release)."""
    return LeaseSpec(
        holder_identity=record.holder_identity,
        lease_duration_seconds=record.lease_duration_seconds,
        acquire_time=None if record.acquire_time is None else format_time(record.acquire_time, micro=True),
        renew_time=None if record.renew_time is None else format_time(record.renew_time, micro=True),
        lease_transitions=record.leader_transitions,
        strategy=record.strategy or None,
        preferred_holder=record.preferred_holder or None,
    )


class LeaseLock:
    """A lock on the Lease ``namespace/name``, held as ``identity`` (upstream ``LeaseLock``).

    ``event_recorder`` (an :class:`kubelite.events.EventRecorder`), if given, receives upstream's
    ``LeaderElection`` events ("<identity> became leader", "<identity> stopped leading") on the Lease.
    """

    def __init__(self, namespace: str, name: str, identity: str, client: Any, *, event_recorder: Any = None) -> None:
        self.namespace = namespace
        self.name = name
        self._identity = identity
        self.client = client
        self.event_recorder = event_recorder
        self._lease: Lease | None = None

    @property
    def identity(self) -> str:
        """This candidate's identity (``LeaseLock.Identity``)."""
        return self._identity

    def describe(self) -> str:
        """``namespace/name`` of the Lease (``LeaseLock.Describe``)."""
        return f"{self.namespace}/{self.name}"

    async def get(self) -> tuple[LeaderElectionRecord, bytes]:
        """Read the Lease: its election record and that record's serialized form, which tells changes apart
        (``LeaseLock.Get``)."""
        lease: Lease = await self.client.get(Lease, self.name, namespace=self.namespace)
        self._lease = lease
        record = lease_spec_to_record(lease.spec)
        return record, record.raw()

    async def create(self, record: LeaderElectionRecord) -> None:
        """Create the Lease holding ``record`` (``LeaseLock.Create``); AlreadyExists if another did first."""
        self._lease = await self.client.create(Lease(
            metadata=ObjectMeta(name=self.name, namespace=self.namespace), spec=record_to_lease_spec(record),
        ))

    async def update(self, record: LeaderElectionRecord) -> None:
        """Write ``record`` to the Lease read last (optimistic concurrency: Conflict if it changed since;
        ``LeaseLock.Update``)."""
        if self._lease is None:
            raise RuntimeError("lease not initialized, call get or create first")
        self._lease.spec = record_to_lease_spec(record)
        self._lease = await self.client.replace(self._lease)

    def record_event(self, message: str) -> None:
        """Emit a ``LeaderElection`` Event on the Lease, e.g. "became leader" (``LeaseLock.RecordEvent``)."""
        if self.event_recorder is None or self._lease is None:
            return
        meta = self._lease.metadata or ObjectMeta()
        subject = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {
            "name": meta.name, "namespace": meta.namespace, "uid": meta.uid, "resourceVersion": meta.resource_version,
        }}
        self.event_recorder.eventf(subject, "Normal", "LeaderElection", "%v %v", self._identity, message)
