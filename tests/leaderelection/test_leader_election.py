"""Leader election through a real cluster on virtual time (client-go tools/leaderelection)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.api.types import Lease
from kubelite.clock import parse_time
from kubelite.cluster import Cluster
from kubelite.events import EventRecorder
from kubelite.leaderelection import LeaderElectionConfig, LeaderElector, LeaseLock

NS, NAME = "kube-system", "kube-controller-manager"
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 15.0, 10.0, 2.0
# The longest gap between two acquire attempts: retry_period * (1 + JitterFactor).
MAX_GAP = RETRY_PERIOD * 2.2


class Candidate:
    """One candidate with a log of its callbacks as (event, arg, time)."""

    def __init__(self, cluster: Cluster, identity: str, calls: list[tuple[str, str, str, float]], **kw: Any) -> None:
        self.cluster = cluster
        self.identity = identity
        self.calls = calls
        self.lock = LeaseLock(NS, NAME, identity, cluster.client, event_recorder=kw.pop("event_recorder", None))
        self.elector = LeaderElector(LeaderElectionConfig(
            lock=self.lock, on_started_leading=self.started, on_stopped_leading=self.stopped,
            on_new_leader=self.new_leader, lease_duration=LEASE_DURATION, renew_deadline=RENEW_DEADLINE,
            retry_period=RETRY_PERIOD, name=identity, **kw,
        ), clock=cluster.clock, rng=cluster.rng)
        self.task: asyncio.Task[None] | None = None
        self.work_cancelled = False

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.elector.run())

    async def started(self) -> None:
        self._note("started")
        try:
            await asyncio.Event().wait()  # the guarded work runs until cancelled
        except asyncio.CancelledError:
            self.work_cancelled = True
            raise

    def stopped(self) -> None:
        self._note("stopped")

    def new_leader(self, identity: str) -> None:
        self._note("new_leader", identity)

    def _note(self, what: str, arg: str = "") -> None:
        self.calls.append((self.identity, what, arg, self.cluster.now))

    def mine(self) -> list[tuple[str, str]]:
        return [(what, arg) for who, what, arg, _ in self.calls if who == self.identity]

    def time_of(self, what: str) -> float:
        return next(t for who, w, _, t in self.calls if who == self.identity and w == what)

    async def cancel(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


@pytest.fixture
def calls() -> list[tuple[str, str, str, float]]:
    return []


async def lease(cluster: Cluster) -> Lease:
    got: Lease = await cluster.client.get(Lease, NAME, namespace=NS)
    return got


async def stop_all(*candidates: Candidate) -> None:
    for c in candidates:
        if c.task is not None and not c.task.done():
            await c.cancel()


def config(**kw: Any) -> LeaderElectionConfig:
    async def started() -> None:
        return None

    base: dict[str, Any] = {"lock": object(), "on_started_leading": started, "on_stopped_leading": lambda: None}
    return LeaderElectionConfig(**{**base, **kw})


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"lease_duration": 10.0}, "leaseDuration must be greater than renewDeadline"),
        ({"retry_period": 9.0}, "renewDeadline must be greater than retryPeriod*JitterFactor"),
        ({"lease_duration": -1.0, "renew_deadline": -2.0, "retry_period": -3.0},
         "leaseDuration must be greater than zero"),
        ({"lease_duration": 1.0, "renew_deadline": 0.0, "retry_period": -1.0},
         "renewDeadline must be greater than zero"),
        ({"retry_period": 0.0}, "retryPeriod must be greater than zero"),
        ({"on_started_leading": None}, "OnStartedLeading callback must not be nil"),
        ({"on_stopped_leading": None}, "OnStoppedLeading callback must not be nil"),
        ({"lock": None}, "Lock must not be nil."),
    ],
    ids=["lease<=renew", "renew<=jitter*retry", "lease<=0", "renew<=0", "retry<=0", "no-started", "no-stopped",
         "no-lock"],
)
def test_config_validation(kw: dict[str, Any], message: str) -> None:
    import random

    with pytest.raises(ValueError, match=message.replace("*", r"\*").replace(".", r"\.")):
        LeaderElector(config(**kw), clock=None, rng=random.Random(0))  # type: ignore[arg-type]


async def test_single_candidate_acquires_and_renews(cluster: Cluster, calls: list[Any]) -> None:
    a = Candidate(cluster, "a", calls)
    a.start()
    try:
        await cluster.settle()
        assert a.elector.is_leader() and a.elector.get_leader() == "a"
        assert a.mine() == [("new_leader", "a"), ("started", "")]
        spec = (await lease(cluster)).spec
        assert spec is not None
        assert (spec.holder_identity, spec.lease_duration_seconds, spec.lease_transitions) == ("a", 15, 0)
        assert spec.acquire_time == spec.renew_time == "2025-01-01T00:00:00.000000Z"
        await cluster.advance(7)
        spec = (await lease(cluster)).spec
        assert spec is not None
        assert spec.renew_time == "2025-01-01T00:00:06.000000Z"  # renewed every retry_period
        assert spec.acquire_time == "2025-01-01T00:00:00.000000Z" and spec.lease_transitions == 0
    finally:
        await stop_all(a)
    assert a.mine()[-1] == ("stopped", "") and a.work_cancelled


async def test_second_candidate_waits(cluster: Cluster, calls: list[Any]) -> None:
    a, b = Candidate(cluster, "a", calls), Candidate(cluster, "b", calls)
    a.start()
    await cluster.settle()
    b.start()
    try:
        await cluster.advance(120)
        assert a.elector.is_leader() and not b.elector.is_leader()
        assert b.elector.get_leader() == "a"
        assert b.mine() == [("new_leader", "a")]
        spec = (await lease(cluster)).spec
        assert spec is not None and spec.holder_identity == "a" and spec.lease_transitions == 0
    finally:
        await stop_all(a, b)


async def test_candidates_starting_together_elect_one(cluster: Cluster, calls: list[Any]) -> None:
    cs = [Candidate(cluster, name, calls) for name in ("a", "b", "c")]
    for c in cs:
        c.start()  # all find no Lease and race to create it: AlreadyExists for all but one
    try:
        await cluster.advance(30)
        leaders = [c.identity for c in cs if c.elector.is_leader()]
        assert len(leaders) == 1
        assert [c.elector.get_leader() for c in cs] == leaders * 3
        assert sum(1 for _, what, _, _ in calls if what == "started") == 1
    finally:
        await stop_all(*cs)


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"seed{s}")
async def test_failover_when_leader_stops(seed: int, calls: list[Any]) -> None:
    async with Cluster(seed=seed, scheduler=False, controllers=False) as cluster:
        await _failover_when_leader_stops(cluster, calls)


async def _failover_when_leader_stops(cluster: Cluster, calls: list[Any]) -> None:
    a, b = Candidate(cluster, "a", calls), Candidate(cluster, "b", calls)
    a.start()
    await cluster.settle()
    b.start()
    try:
        await cluster.advance(31)
        spec = (await lease(cluster)).spec
        assert spec is not None and spec.renew_time is not None
        last_renew = parse_time(spec.renew_time)
        await a.cancel()
        stopped_at = cluster.now
        await cluster.wait_for(b.elector.is_leader, timeout=60)
        spec = (await lease(cluster)).spec
        assert spec is not None and spec.acquire_time is not None
        acquired = parse_time(spec.acquire_time)
        # b waits a whole lease_duration after the last change it saw, then takes over at its next attempt
        assert last_renew + LEASE_DURATION <= acquired < last_renew + MAX_GAP + LEASE_DURATION + MAX_GAP
        assert acquired - stopped_at < LEASE_DURATION + 2 * MAX_GAP
        assert (spec.holder_identity, spec.lease_transitions) == ("b", 1)
        assert a.mine() == [("new_leader", "a"), ("started", ""), ("stopped", "")]
        assert b.mine() == [("new_leader", "a"), ("new_leader", "b"), ("started", "")]
        assert a.work_cancelled
    finally:
        await stop_all(a, b)


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"seed{s}")
async def test_leader_stops_when_renewals_fail(seed: int, calls: list[Any]) -> None:
    async with Cluster(seed=seed, scheduler=False, controllers=False) as cluster:
        await _leader_stops_when_renewals_fail(cluster, calls)


async def _leader_stops_when_renewals_fail(cluster: Cluster, calls: list[Any]) -> None:
    a, b = Candidate(cluster, "a", calls), Candidate(cluster, "b", calls)
    a.start()
    await cluster.settle()
    b.start()
    try:
        await cluster.advance(21)
        spec = (await lease(cluster)).spec
        assert spec is not None and spec.renew_time is not None
        last_renew = parse_time(spec.renew_time)
        # every lease update fails (faults match by verb/resource/name, so b's would too)
        cluster.faults.inject(500, verb="update", resource="coordination.k8s.io/leases", name=NAME, times=None)
        await cluster.wait_for(lambda: a.task is not None and a.task.done(), timeout=30)
        stopped_at = a.time_of("stopped")
        # the poll that fails starts one retry_period after the last renewal and gives up after renew_deadline
        assert stopped_at == pytest.approx(last_renew + RETRY_PERIOD + RENEW_DEADLINE)
        assert a.work_cancelled and a.mine()[-1] == ("stopped", "")
        assert not b.elector.is_leader()
        cluster.faults.clear()
        await cluster.wait_for(b.elector.is_leader, timeout=60)
        spec = (await lease(cluster)).spec
        assert spec is not None and spec.acquire_time is not None
        acquired = parse_time(spec.acquire_time)
        assert last_renew + LEASE_DURATION <= acquired < last_renew + LEASE_DURATION + 2 * MAX_GAP
        assert (spec.holder_identity, spec.lease_transitions) == ("b", 1)
        # callbacks in order across both candidates
        order = [(who, what, arg) for who, what, arg, _ in calls]
        assert order.index(("a", "stopped", "")) < order.index(("b", "new_leader", "b")) < order.index(
            ("b", "started", ""))
    finally:
        await stop_all(a, b)


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
async def test_release_on_cancel_hands_over_quickly(seed: int, calls: list[Any]) -> None:
    async with Cluster(seed=seed, scheduler=False, controllers=False) as cluster:
        await _release_on_cancel_hands_over_quickly(cluster, calls)


async def _release_on_cancel_hands_over_quickly(cluster: Cluster, calls: list[Any]) -> None:
    a = Candidate(cluster, "a", calls, release_on_cancel=True)
    b = Candidate(cluster, "b", calls)
    a.start()
    await cluster.settle()
    b.start()
    try:
        await cluster.advance(30)
        await a.cancel()
        released = (await lease(cluster)).spec
        assert released is not None
        assert (released.holder_identity, released.lease_duration_seconds, released.lease_transitions) == ("", 1, 0)
        assert a.mine() == [("new_leader", "a"), ("started", ""), ("stopped", "")]
        cancelled_at = cluster.now
        await cluster.wait_for(b.elector.is_leader, timeout=60)
        assert cluster.now - cancelled_at <= MAX_GAP + 0.1  # b's next attempt, not a whole lease_duration
        spec = (await lease(cluster)).spec
        assert spec is not None and (spec.holder_identity, spec.lease_transitions) == ("b", 1)
        # b takes the released (holderless) lease in the same attempt that observes it
        assert b.mine() == [("new_leader", "a"), ("new_leader", "b"), ("started", "")]
    finally:
        await stop_all(a, b)


async def test_cancel_while_acquiring_calls_only_stopped(cluster: Cluster, calls: list[Any]) -> None:
    a, b = Candidate(cluster, "a", calls), Candidate(cluster, "b", calls)
    a.start()
    await cluster.settle()
    b.start()
    await cluster.advance(5)
    await b.cancel()
    assert b.mine() == [("new_leader", "a"), ("stopped", "")]  # upstream calls OnStoppedLeading regardless
    await stop_all(a)


async def test_failing_work_ends_leadership_and_raises(cluster: Cluster) -> None:
    stopped: list[float] = []

    async def work() -> None:
        await cluster.clock.sleep(3)
        raise RuntimeError("controller crashed")

    lock = LeaseLock(NS, NAME, "a", cluster.client)
    elector = LeaderElector(LeaderElectionConfig(
        lock=lock, on_started_leading=work, on_stopped_leading=lambda: stopped.append(cluster.now),
        release_on_cancel=True,
    ), clock=cluster.clock, rng=cluster.rng)
    with pytest.raises(RuntimeError, match="controller crashed"):
        await elector.run()
    assert stopped == [cluster.now] and cluster.now == pytest.approx(cluster.clock.now())
    spec = (await lease(cluster)).spec
    assert spec is not None and spec.holder_identity == ""  # released on the way out


async def test_work_that_returns_keeps_the_lease(cluster: Cluster) -> None:
    async def work() -> None:
        return None

    lock = LeaseLock(NS, NAME, "a", cluster.client)
    elector = LeaderElector(LeaderElectionConfig(lock=lock, on_started_leading=work, on_stopped_leading=lambda: None),
                            clock=cluster.clock, rng=cluster.rng)
    task = asyncio.get_running_loop().create_task(elector.run())
    await cluster.advance(31)
    assert not task.done() and elector.is_leader()
    spec = (await lease(cluster)).spec
    assert spec is not None and spec.renew_time == "2025-01-01T00:00:30.000000Z"
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_lease_events_are_recorded(cluster: Cluster, calls: list[Any]) -> None:
    rec = EventRecorder(cluster.client, component="kube-controller-manager", clock=cluster.clock, rng=cluster.rng)
    a = Candidate(cluster, "a", calls, event_recorder=rec)
    a.start()
    await cluster.settle()
    await a.cancel()
    await rec.flush()
    evs = await cluster.client.list("events", namespace=NS, fields=f"involvedObject.name={NAME}")
    assert [(e["reason"], e["message"]) for e in evs] == [
        ("LeaderElection", "a became leader"), ("LeaderElection", "a stopped leading")]
    assert evs[0]["involvedObject"]["kind"] == "Lease"


async def test_election_replays_with_the_same_seed() -> None:
    async def run(seed: int) -> list[tuple[str, str, str, float]]:
        calls: list[tuple[str, str, str, float]] = []
        async with Cluster(seed=seed, scheduler=False, controllers=False) as cluster:
            a, b = Candidate(cluster, "a", calls), Candidate(cluster, "b", calls)
            a.start()
            await cluster.settle()
            b.start()
            await cluster.advance(10)
            await a.cancel()
            await cluster.wait_for(b.elector.is_leader, timeout=60)
            await stop_all(a, b)
        return calls

    first = await run(7)
    assert first == await run(7)
