"""The scheduling queue on a hand-driven clock: backoff timing, events, flushes, gates."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.clock import TimerHandle
from kubelite.scheduler.framework.interface import ADD, DELETE, ClusterEvent, ClusterEventWithHint
from kubelite.scheduler.framework.types import PodInfo
from kubelite.scheduler.plugins import priority_sort, scheduling_gates
from kubelite.scheduler.queue.scheduling_queue import SchedulingQueue
from tests.scheduler.helpers import make_pod


class ManualClock:
    """Only what the queue uses: now() and call_later(); advance() fires due timers in order."""

    def __init__(self) -> None:
        self.t = 0.0
        self._timers: list[tuple[float, int, TimerHandle]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self.t

    def call_later(self, delay: float, cb: Callable[[], Any]) -> TimerHandle:
        h = TimerHandle(self.t + delay, cb)
        heapq.heappush(self._timers, (h.deadline, next(self._seq), h))
        return h

    def advance(self, dt: float) -> None:
        end = self.t + dt
        while self._timers and self._timers[0][0] <= end:
            at, _, h = heapq.heappop(self._timers)
            self.t = at
            if not h.cancelled:
                h.callback()
        self.t = end


HINTS = {
    "NodeResourcesFit": [ClusterEventWithHint(ClusterEvent("Node", ADD)), ClusterEventWithHint(ClusterEvent("Pod", DELETE))],
    "NodeAffinity": [ClusterEventWithHint(ClusterEvent("Node", ADD), lambda pod, old, new: new == "matching")],
}


def make_queue() -> tuple[SchedulingQueue, ManualClock]:
    clock = ManualClock()
    sort = priority_sort.new({}, None)
    gates = scheduling_gates.new({}, None)

    def pre_enqueue(pi: PodInfo) -> Any:
        st = gates.pre_enqueue(pi)
        return st.with_plugin(gates.name) if st is not None else None

    q = SchedulingQueue(clock=clock, less=sort.less, pre_enqueue=pre_enqueue, hints_for=lambda pi: HINTS)  # type: ignore[arg-type]
    return q, clock


def fail(q: SchedulingQueue, name: str, plugins: set[str], *, error: bool = False) -> None:
    qpi = q.pop()
    assert qpi is not None and qpi.pod_info.name == name
    qpi.unschedulable_plugins = plugins
    q.add_unschedulable(qpi, q.scheduling_cycle, error=error)


def test_pops_by_priority_then_time() -> None:
    q, clock = make_queue()
    q.add(PodInfo(make_pod("low", priority=1)))
    clock.advance(1)
    q.add(PodInfo(make_pod("high", priority=10)))
    q.add(PodInfo(make_pod("low2", priority=1)))
    names = [q.pop().pod_info.name for _ in range(3)]  # type: ignore[union-attr]
    assert names == ["high", "low", "low2"]
    assert q.pop() is None


def test_backoff_doubles_from_1s_to_10s() -> None:
    q, clock = make_queue()
    q.add(PodInfo(make_pod("p")))
    waits = []
    for _ in range(6):
        fail(q, "p", set(), error=True)  # errors go straight to backoffQ
        assert q.where("uid-default-p") == "backoff"
        start = clock.t
        while q.where("uid-default-p") != "active":
            clock.advance(0.25)
        waits.append(clock.t - start)
    assert waits == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


@pytest.mark.parametrize(("plugins", "event", "new", "moves"), [
    ({"NodeResourcesFit"}, ClusterEvent("Node", ADD), None, True),
    ({"NodeResourcesFit"}, ClusterEvent("Pod", DELETE), None, True),
    ({"NodeResourcesFit"}, ClusterEvent("PersistentVolumeClaim", ADD), None, False),
    ({"NodeAffinity"}, ClusterEvent("Node", ADD), "other", False),
    ({"NodeAffinity"}, ClusterEvent("Node", ADD), "matching", True),
    (set(), ClusterEvent("PersistentVolumeClaim", ADD), None, True),
], ids=["node-add", "pod-delete", "unrelated-event", "hint-skip", "hint-queue", "no-plugin-any-event"])
def test_unschedulable_pods_move_on_relevant_events(plugins: set[str], event: ClusterEvent, new: Any,
                                                    moves: bool) -> None:
    q, clock = make_queue()
    q.add(PodInfo(make_pod("p")))
    fail(q, "p", plugins)
    assert q.where("uid-default-p") == "unschedulable"
    clock.advance(5)  # past the 1 s backoff: a move goes straight to activeQ
    q.move_all_to_active_or_backoff(event, None, new)
    assert q.where("uid-default-p") == ("active" if moves else "unschedulable")


def test_move_during_backoff_goes_to_backoff_queue() -> None:
    q, clock = make_queue()
    q.add(PodInfo(make_pod("p")))
    fail(q, "p", {"NodeResourcesFit"})
    clock.advance(0.5)
    q.move_all_to_active_or_backoff(ClusterEvent("Node", ADD), None, None)
    assert q.where("uid-default-p") == "backoff"
    clock.advance(0.5)
    assert q.where("uid-default-p") == "active"


def test_event_during_attempt_sends_failed_pod_to_backoff() -> None:
    q, _ = make_queue()
    q.add(PodInfo(make_pod("p")))
    qpi = q.pop()
    assert qpi is not None
    cycle = q.scheduling_cycle
    q.move_all_to_active_or_backoff(ClusterEvent("Node", ADD), None, None)  # while "p" is in flight
    qpi.unschedulable_plugins = {"NodeResourcesFit"}
    q.add_unschedulable(qpi, cycle)
    assert q.where("uid-default-p") == "backoff"


def test_unschedulable_pods_are_flushed_after_five_minutes() -> None:
    q, clock = make_queue()
    q.add(PodInfo(make_pod("p")))
    fail(q, "p", {"NodeResourcesFit"})
    clock.advance(299)
    q.flush_unschedulable_left_over()
    assert q.where("uid-default-p") == "unschedulable"
    clock.advance(2)
    q.flush_unschedulable_left_over()
    assert q.where("uid-default-p") == "active"


def test_gated_pod_waits_until_gates_are_removed() -> None:
    q, _ = make_queue()
    q.add(PodInfo(make_pod("p", schedulingGates=[{"name": "wait"}])))
    assert q.where("uid-default-p") == "gated"
    assert q.pop() is None
    q.move_all_to_active_or_backoff(ClusterEvent("Node", ADD), None, None)
    assert q.where("uid-default-p") == "gated"
    q.update(PodInfo(make_pod("p")))
    assert q.where("uid-default-p") == "active"
    assert q.depths().active == 1


def test_delete_while_in_flight_is_not_requeued() -> None:
    q, _ = make_queue()
    q.add(PodInfo(make_pod("p")))
    qpi = q.pop()
    assert qpi is not None
    q.delete("uid-default-p")
    q.add_unschedulable(qpi, q.scheduling_cycle)
    assert q.where("uid-default-p") is None


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
def test_sort_key_pops_in_the_same_order_as_less(seed: int) -> None:
    import random

    rnd = random.Random(seed)
    sort = priority_sort.new({}, None)
    clocks = [ManualClock(), ManualClock()]
    queues = [SchedulingQueue(clock=c, less=sort.less, pre_enqueue=lambda pi: None,  # type: ignore[arg-type]
                              hints_for=lambda pi: HINTS, sort_key=k)
              for c, k in zip(clocks, (None, sort.sort_key))]
    for i in range(200):
        pod = PodInfo(make_pod(f"p{i}", priority=rnd.choice([0, 1, 5])))
        for q in queues:
            q.add(pod)
        if rnd.random() < 0.5:  # equal timestamps too: ties go to insertion order
            for c in clocks:
                c.advance(rnd.choice([0.5, 1]))
    orders = [[qpi.pod_info.name for qpi in iter(q.pop, None)] for q in queues]
    assert len(orders[0]) == 200 and orders[0] == orders[1]
