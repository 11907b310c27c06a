"""VirtualClock: ordering, autojump, manual advance, settle, timeouts."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from kubelite.clock import EPOCH, VirtualClock, format_time, parse_time


async def test_autojump_sleeps_complete_in_deadline_order() -> None:
    clock = VirtualClock()
    order: list[tuple[str, float]] = []

    async def sleeper(name: str, d: float) -> None:
        await clock.sleep(d)
        order.append((name, clock.now() - EPOCH))

    async with clock.running():
        await asyncio.gather(sleeper("c", 30), sleeper("a", 10), sleeper("b", 20), sleeper("a2", 10))
    assert order == [("a", 10), ("a2", 10), ("b", 20), ("c", 30)]


class Ticker:
    """A cluster-like timer every ``every`` s of virtual time (10 by default), counting how often it fired
    (how far time jumped)."""

    def __init__(self, clock: VirtualClock, every: float = 10) -> None:
        self.clock = clock
        self.every = every
        self.ticks = 0

    async def run(self) -> None:
        while True:
            await self.clock.sleep(self.every)
            self.ticks += 1


async def test_an_hour_passes_instantly() -> None:
    clock = VirtualClock()
    ticker = Ticker(clock)

    async with clock.running(), anyio.create_task_group() as tg:
        tg.start_soon(ticker.run)
        await clock.advance(3600)
        tg.cancel_scope.cancel()
    assert ticker.ticks == 360
    assert clock.now() == EPOCH + 3600


async def test_time_does_not_jump_while_a_task_is_busy() -> None:
    clock = VirtualClock()
    seen: list[float] = []

    async def busy() -> None:
        for _ in range(100):
            seen.append(clock.now())
            await asyncio.sleep(0)

    async def sleeper() -> None:
        await clock.sleep(5)

    async with clock.running():
        await asyncio.gather(busy(), sleeper())
    assert set(seen) == {EPOCH}
    assert clock.now() == EPOCH + 5


async def test_manual_mode_moves_only_on_advance() -> None:
    clock = VirtualClock(autojump=False)
    fired: list[float] = []
    async with clock.running():
        clock.call_later(5, lambda: fired.append(clock.now()))
        clock.call_later(15, lambda: fired.append(clock.now()))
        await clock.settle()
        assert fired == []
        await clock.advance(10)
        assert fired == [EPOCH + 5]
        assert clock.now() == EPOCH + 10
        await clock.advance(10)
        assert fired == [EPOCH + 5, EPOCH + 15]


async def test_settle_waits_for_other_tasks_without_moving_time() -> None:
    clock = VirtualClock()
    progress: list[int] = []

    async def worker() -> None:
        for i in range(50):
            progress.append(i)
            await asyncio.sleep(0)

    async with clock.running(), anyio.create_task_group() as tg:
        clock.call_later(100, lambda: None)
        tg.start_soon(worker)
        await clock.settle()
        assert progress == list(range(50))
        assert clock.now() == EPOCH


async def test_fail_after_raises_on_virtual_deadline() -> None:
    clock = VirtualClock()
    async with clock.running():
        with pytest.raises(TimeoutError), clock.fail_after(30):
            await clock.sleep(60)
        assert clock.now() == EPOCH + 30
        with clock.move_on_after(5) as scope:
            await clock.sleep(1)
        assert not scope.cancelled_caught


async def test_wait_for_returns_value_before_timeout() -> None:
    clock = VirtualClock()

    async def slow() -> str:
        await clock.sleep(3)
        return "done"

    async with clock.running():
        assert await clock.wait_for(slow(), timeout=4) == "done"
        with pytest.raises(TimeoutError):
            await clock.wait_for(slow(), timeout=2)


def test_time_format_round_trips() -> None:
    assert format_time(EPOCH) == "2025-01-01T00:00:00Z"
    assert format_time(EPOCH + 1.5, micro=True) == "2025-01-01T00:00:01.500000Z"
    assert parse_time("2025-01-01T00:00:10Z") == EPOCH + 10


async def test_cancelled_sleep_leaves_no_live_timer() -> None:
    clock = VirtualClock()
    async with clock.running():
        with clock.move_on_after(1):
            await clock.sleep(100)
        assert clock.pending_timers == 0


async def test_two_clocks_in_one_loop_both_progress() -> None:
    # one driver serves every VirtualClock in the loop; each keeps its own timeline
    a, b = VirtualClock(), VirtualClock(start=EPOCH + 1000)
    seen: list[tuple[str, float]] = []

    async def tick(name: str, clock: VirtualClock, period: float) -> None:
        for _ in range(3):
            await clock.sleep(period)
            seen.append((name, clock.now()))

    async with a.running(), b.running():
        await asyncio.gather(tick("a", a, 10), tick("b", b, 4))
        await a.settle()
        await b.settle()
    assert [t for n, t in seen if n == "a"] == [EPOCH + 10, EPOCH + 20, EPOCH + 30]
    assert [t for n, t in seen if n == "b"] == [EPOCH + 1004, EPOCH + 1008, EPOCH + 1012]
    # the nearer steps (measured in each clock's own time) come first
    assert [n for n, _ in seen] == ["b", "b", "a", "b", "a", "a"]


# --- event-loop-level virtual time (issue #11) ---


async def test_asyncio_sleep_inside_a_cluster_moves_cluster_time_by_exactly_its_delay() -> None:
    # The regression: the old driver jumped cluster timers while the loop really slept, so a plain
    # asyncio.sleep(0.3) moved cluster time by ~1,480 s. Now the loop's own time is the cluster's.
    import kubelite

    async with kubelite.Cluster(seed=1, nodes=2) as cluster:
        t0 = cluster.now
        await asyncio.sleep(0.3)
        assert cluster.now - t0 == pytest.approx(0.3, abs=1e-6)
        loop = asyncio.get_running_loop()
        l0 = loop.time()
        await asyncio.sleep(600)
        assert loop.time() - l0 == pytest.approx(600)
        assert cluster.now - t0 == pytest.approx(600.3, abs=1e-6)


async def test_every_asyncio_timer_follows_virtual_time() -> None:
    clock = VirtualClock()
    fired: list[tuple[str, float]] = []
    async with clock.running():
        loop = asyncio.get_running_loop()
        loop.call_later(7, lambda: fired.append(("call_later", clock.now() - EPOCH)))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), timeout=5)
        fired.append(("wait_for", clock.now() - EPOCH))
        with anyio.move_on_after(1):
            await anyio.sleep(100)
        fired.append(("anyio", clock.now() - EPOCH))
        await clock.sleep(2)
    assert fired == [("wait_for", pytest.approx(5)), ("anyio", pytest.approx(6)), ("call_later", pytest.approx(7))]


async def test_asyncio_and_clock_timers_interleave_on_one_timeline() -> None:
    clock = VirtualClock()
    order: list[str] = []

    async def a() -> None:
        await asyncio.sleep(1.5)
        order.append("asyncio@1.5")

    async def c() -> None:
        await clock.sleep(1)
        order.append("clock@1")
        await clock.sleep(1)
        order.append("clock@2")

    async with clock.running():
        await asyncio.gather(a(), c())
    assert order == ["clock@1", "asyncio@1.5", "clock@2"]


async def test_an_operator_sleeping_ten_minutes_between_reconciles_runs_an_hour_of_cluster_time() -> None:
    # (the wall time of this is measured in bench/http_api.py; here: the hour passes and nothing is skipped)
    import kubelite

    async with kubelite.Cluster(seed=3, nodes=1) as cluster:
        reconciles: list[float] = []
        t0 = cluster.now

        async def operator() -> None:
            while True:
                await cluster.client.list("pods", namespace="default")
                reconciles.append(cluster.now - t0)
                await asyncio.sleep(600)

        task = asyncio.create_task(operator())
        await asyncio.sleep(3601)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert reconciles == [pytest.approx(600 * i, abs=1e-6) for i in range(7)]


async def test_known_io_in_flight_is_not_skipped_over() -> None:
    # An executor job really takes 0.2 s: the loop must not jump to the caller's 30 s timeout (or to the
    # cluster's 1 s ticker) while it runs; virtual time flows at real speed meanwhile.
    import time as _time

    clock = VirtualClock()
    ticker = Ticker(clock)

    async with clock.running(), anyio.create_task_group() as tg:
        tg.start_soon(ticker.run)
        loop = asyncio.get_running_loop()
        t0 = clock.now()
        result = await asyncio.wait_for(loop.run_in_executor(None, lambda: (_time.sleep(0.2), "done")[1]), 30)
        assert result == "done"
        elapsed = clock.now() - t0
        assert 0.15 < elapsed < 5
        assert ticker.ticks == 0
        tg.cancel_scope.cancel()


async def test_io_hold_lets_a_test_wait_for_a_subprocess_on_real_time() -> None:
    import sys

    from kubelite.clock import io_hold

    clock = VirtualClock()
    async with clock.running():
        clock.call_later(1, lambda: None)  # a cluster timer that would otherwise be jumped to
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import time; time.sleep(0.2); print('hello')", stdout=asyncio.subprocess.PIPE)
        with io_hold():
            out = await asyncio.wait_for(proc.stdout.read(), timeout=5)  # type: ignore[union-attr]
        await proc.wait()
    assert out.strip() == b"hello"
    assert clock.now() - EPOCH < 5


async def test_the_loop_returns_to_real_time_without_going_backwards() -> None:
    loop = asyncio.get_running_loop()
    clock = VirtualClock()
    async with clock.running():
        await asyncio.sleep(3600)
        inside = loop.time()
    after = loop.time()
    assert after >= inside
    t0 = loop.time()
    await asyncio.sleep(0.01)  # real again: a real 10 ms
    assert 0.005 < loop.time() - t0 < 1


async def test_real_time_cluster_sleeps_really() -> None:
    import time as _time

    import kubelite

    async with kubelite.Cluster(seed=1, virtual_time=False, controllers=False, scheduler=False,
                                network=False) as cluster:
        t0, w0 = cluster.now, _time.monotonic()
        await asyncio.sleep(0.05)
        assert _time.monotonic() - w0 >= 0.04
        assert 0.04 <= cluster.now - t0 < 5
        pod = await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
        assert pod["metadata"]["name"] == "x"


async def test_two_clusters_in_one_loop_advance_in_lockstep_on_asyncio_time() -> None:
    import kubelite

    async with kubelite.Cluster(seed=1) as a, kubelite.Cluster(seed=2, start_time=EPOCH + 500) as b:
        a0, b0 = a.now, b.now
        await asyncio.sleep(120)
        assert a.now - a0 == pytest.approx(120)
        assert b.now - b0 == pytest.approx(120)
        await a.advance(30)
        assert b.now - b0 == pytest.approx(150)


_BUSY_CHILD = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.1: pass\nprint('done')"
_SLEEPY_CHILD = "import time; time.sleep(0.1); print('done')"


@pytest.mark.parametrize(("child", "jumps"), [
    pytest.param(_BUSY_CHILD, False, id="a-child-on-the-cpu-holds-time"),
    pytest.param(_SLEEPY_CHILD, True, id="a-sleeping-child-does-not"),
])
async def test_a_child_process_that_can_make_progress_holds_virtual_time(child: str, jumps: bool) -> None:
    # A kubectl subprocess that starts slowly (a loaded CI machine) used to let virtual time jump by the
    # cluster's timers every 10 ms grace: 5,200 s passed during one test and its Events expired by the 1 h TTL.
    # A child that is running or runnable can make progress, so time flows at real speed while it works;
    # one that sleeps or blocks on I/O cannot, and time jumps as before. A child that has exited but whose exit
    # the loop has not seen yet (the watcher thread reaped it, the report is on its way) also holds time.
    import sys

    # While a busy child holds time, time flows at real speed: at load 20 the eight children take 20+ real
    # seconds, so a 10 s ticker would fire without any jump. The ticker's period is an hour: it fires only if
    # time jumped (to it), however slowly the machine runs the children.
    clock = VirtualClock()
    ticker = Ticker(clock, every=3600)

    async with clock.running(), anyio.create_task_group() as tg:
        tg.start_soon(ticker.run)
        outs = []
        for _ in range(8):  # the exit is a race with the child watcher's thread: run it often enough to see it
            proc = await asyncio.create_subprocess_exec(sys.executable, "-c", child, stdout=asyncio.subprocess.PIPE)
            outs.append((await proc.communicate())[0])
        tg.cancel_scope.cancel()
    assert outs == [b"done\n"] * 8
    assert (ticker.ticks > 0) is jumps, ticker.ticks
