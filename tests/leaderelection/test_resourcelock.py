"""LeaseLock and the election record (client-go tools/leaderelection/resourcelock/leaselock.go)."""

from __future__ import annotations

import pytest

from kubelite.api.types import Lease
from kubelite.api.types.coordination_v1 import LeaseSpec
from kubelite.clock import EPOCH
from kubelite.cluster import Cluster
from kubelite.errors import Conflict, NotFound
from kubelite.leaderelection import LeaderElectionRecord, LeaseLock
from kubelite.leaderelection.resourcelock import lease_spec_to_record, record_to_lease_spec


@pytest.mark.parametrize(
    "record",
    [
        LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15, acquire_time=EPOCH,
                             renew_time=EPOCH + 2.5, leader_transitions=3),
        LeaderElectionRecord(lease_duration_seconds=1, acquire_time=EPOCH, renew_time=EPOCH, leader_transitions=1),
    ],
    ids=["held", "released"],
)
def test_record_round_trips_through_lease_spec(record: LeaderElectionRecord) -> None:
    spec = record_to_lease_spec(record)
    assert spec.holder_identity == record.holder_identity  # "" is written, not omitted
    assert lease_spec_to_record(spec) == record


def test_lease_times_are_micro_time() -> None:
    spec = record_to_lease_spec(LeaderElectionRecord(holder_identity="a", acquire_time=EPOCH + 0.25,
                                                     renew_time=EPOCH + 0.25))
    assert spec.renew_time == "2025-01-01T00:00:00.250000Z"


def test_empty_spec_is_an_empty_record() -> None:
    assert lease_spec_to_record(None) == LeaderElectionRecord()
    assert lease_spec_to_record(LeaseSpec()) == LeaderElectionRecord()


def test_raw_record_has_second_precision() -> None:
    a = LeaderElectionRecord(holder_identity="a", renew_time=EPOCH + 0.1)
    b = LeaderElectionRecord(holder_identity="a", renew_time=EPOCH + 0.9)
    c = LeaderElectionRecord(holder_identity="a", renew_time=EPOCH + 1.0)
    assert a.raw() == b.raw() != c.raw()


async def test_lease_lock_get_create_update(cluster: Cluster) -> None:
    lock = LeaseLock("kube-system", "sched", "a", cluster.client)
    assert lock.describe() == "kube-system/sched" and lock.identity == "a"
    with pytest.raises(NotFound):
        await lock.get()
    with pytest.raises(RuntimeError, match="lease not initialized, call get or create first"):
        await lock.update(LeaderElectionRecord())
    await lock.create(LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15, acquire_time=EPOCH,
                                           renew_time=EPOCH))
    record, raw = await lock.get()
    assert record.holder_identity == "a" and raw == record.raw()
    await lock.update(LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15, acquire_time=EPOCH,
                                           renew_time=EPOCH + 2, leader_transitions=0))
    stored = await cluster.client.get(Lease, "sched", namespace="kube-system")
    assert stored.spec.renew_time == "2025-01-01T00:00:02.000000Z"


async def test_lease_lock_update_is_optimistic(cluster: Cluster) -> None:
    a = LeaseLock("kube-system", "sched", "a", cluster.client)
    b = LeaseLock("kube-system", "sched", "b", cluster.client)
    await a.create(LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15, renew_time=EPOCH))
    await b.get()
    await a.update(LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15, renew_time=EPOCH + 2))
    with pytest.raises(Conflict):  # b's cached Lease is stale: someone else won
        await b.update(LeaderElectionRecord(holder_identity="b", lease_duration_seconds=15, leader_transitions=1))
