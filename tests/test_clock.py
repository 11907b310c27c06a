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


async def test_an_hour_passes_instantly() -> None:
    clock = VirtualClock()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await clock.sleep(10)
            ticks += 1

    async with clock.running(), anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        await clock.advance(3600)
        tg.cancel_scope.cancel()
    assert ticks == 360
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
