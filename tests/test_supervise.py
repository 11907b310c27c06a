"""kubelite.supervise.TaskGroup: anyio's task-group contract, with cancellation delivered child by child in
start order, whatever cancels the group (the order the clean-ups of cancelled tasks run in is part of a
replay; anyio's own order walks a set and follows memory addresses).

Also: every component task of a cluster or a manager runs in a task group (controller workers, the
scheduler's binding cycles, leader election), and an exception in one fails the surrounding ``async with``.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import os
import pathlib
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from kubelite.cluster import Cluster
from kubelite.controllers import Controller, EnqueueRequestForObject, Manager, Request
from kubelite.supervise import ErrorLog, TaskGroup

ROOT = pathlib.Path(__file__).resolve().parent.parent
N = 40


async def _children(g: TaskGroup, cleanups: list[int], *, garbage: list[Any]) -> None:
    """Start N children that each wait forever and record their index when cancelled. Objects of varied
    sizes are allocated between the starts, so the tasks' addresses (and hence anyio's set order) do not
    follow start order."""
    for i in range(N):
        garbage.append(bytearray(37 * (i % 7) + 1))

        async def child(i: int = i) -> None:
            try:
                await anyio.sleep_forever()
            finally:
                cleanups.append(i)

        g.start_soon(child, name=f"child-{i}")
    await anyio.lowlevel.checkpoint()  # every child has started and waits


async def _body_fails(g: TaskGroup) -> None:
    raise KeyError("body")


async def _child_fails(g: TaskGroup) -> None:
    async def boom() -> None:
        raise KeyError("child")

    g.start_soon(boom)
    await anyio.sleep_forever()


async def _cancelled_group(g: TaskGroup) -> None:
    g.cancel()


@pytest.mark.parametrize(("cause", "expected"), [
    (_body_fails, KeyError),
    (_child_fails, KeyError),
    (_cancelled_group, None),
], ids=["body-exception", "child-exception", "group-cancel"])
async def test_children_are_cancelled_in_start_order(cause: Callable[[TaskGroup], Awaitable[None]],
                                                     expected: type[BaseException] | None) -> None:
    cleanups: list[int] = []
    garbage: list[Any] = []

    async def run() -> None:
        async with TaskGroup("t") as g:
            await _children(g, cleanups, garbage=garbage)
            await cause(g)

    if expected is None:
        await run()
    else:
        with pytest.raises(expected):
            await run()
    assert cleanups == list(range(N))


async def test_an_outer_cancellation_cancels_the_children_in_start_order() -> None:
    cleanups: list[int] = []
    garbage: list[Any] = []
    with anyio.move_on_after(5) as outer:
        async with TaskGroup("t") as g:
            await _children(g, cleanups, garbage=garbage)
            outer.cancel()
            await anyio.sleep_forever()
    assert outer.cancelled_caught
    assert cleanups == list(range(N))


async def test_a_native_task_cancel_cancels_the_children_in_start_order() -> None:
    cleanups: list[int] = []
    garbage: list[Any] = []
    started = asyncio.Event()

    async def host() -> None:
        async with TaskGroup("t") as g:
            await _children(g, cleanups, garbage=garbage)
            started.set()
            await anyio.sleep_forever()

    task = asyncio.get_running_loop().create_task(host())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleanups == list(range(N))


async def test_a_child_exception_is_raised_unwrapped_and_later_ones_are_reported() -> None:
    errors = ErrorLog()
    seen: list[BaseException] = []

    async def fail(exc: Exception) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            raise exc  # raised while being cancelled by the first failure

    async def first() -> None:
        raise ValueError("first")

    async def run() -> None:
        async with TaskGroup("t", on_failure=seen.append) as g:
            g.start_soon(fail, RuntimeError("second"))
            await anyio.lowlevel.checkpoint()
            g.start_soon(first)
            await anyio.sleep_forever()  # cancelled by the child's failure

    with errors.current(), pytest.raises(ValueError, match="first"):
        await run()
    assert [str(e) for e in seen] == ["first"]
    assert [(e.component, e.error) for e in errors.errors] == [("t", "RuntimeError: second")]


async def test_the_block_waits_for_its_children_and_a_late_failure_still_raises() -> None:
    done: list[str] = []

    async def slow() -> None:
        await anyio.sleep(0.01)
        done.append("slow")

    async def late() -> None:
        await anyio.sleep(0.02)
        raise OSError("late")

    async def run() -> None:
        async with TaskGroup("t") as g:
            g.start_soon(slow)
            g.start_soon(late)

    with pytest.raises(OSError, match="late"):
        await run()
    assert done == ["slow"]


async def test_cancelling_one_child_is_not_a_failure_and_a_cancel_before_start_runs_nothing() -> None:
    ran: list[str] = []

    async def child(name: str) -> None:
        ran.append(name)
        await anyio.sleep_forever()

    async with TaskGroup("t") as g:
        early = g.start_soon(child, "early")
        early.cancel()  # before it ever ran
        other = g.start_soon(child, "other")
        await anyio.lowlevel.checkpoint()
        await other.stop()
        assert early.done and other.done and early.exception() is None and other.exception() is None
        assert g.failure is None and g.children() == []
    assert ran == ["other"]


async def test_each_handle_has_its_own_shielded_scope_of_the_running_backend() -> None:
    """Handles make their cancel scopes with the backend's class directly (no sniffio lookup per task): each is what
    ``anyio.CancelScope(shield=True)`` gives, its own, and cancelling one leaves the others running."""
    async with TaskGroup("t") as g:
        handles = [g.start_soon(anyio.sleep_forever) for _ in range(3)]
        scopes = [h._scope for h in handles]
        assert all(isinstance(sc, type(anyio.CancelScope())) and sc.shield for sc in scopes)
        assert len({id(sc) for sc in scopes}) == 3
        handles[0].cancel()
        await anyio.lowlevel.checkpoint()
        assert handles[0].done and not handles[1].done and not handles[2].done
        for h in handles[1:]:
            await h.stop()


async def test_a_cancel_names_the_task_not_the_canceller_and_still_cancels() -> None:
    """Stopping a cluster cancels ~130 tasks from one task, and anyio's ``CancelScope.cancel()`` formatted that
    task's repr (its coroutine, file and line) into every reason, next to the scope's memory address. The
    handles' scopes are anyio's asyncio class with a ``cancel()`` whose reason names the cancelled task
    instead; the cancellation itself is anyio's: delivered now, kept when it comes before the task runs, a
    scope deadline inside the task still fires, and a child's failure is still raised (loud)."""
    from anyio._backends._asyncio import CancelScope as AsyncioCancelScope
    from anyio._backends._asyncio import is_anyio_cancellation

    reasons: list[str] = []

    async def child() -> None:
        try:
            await anyio.sleep_forever()
        except asyncio.CancelledError as e:
            reasons.append(str(e.args[0]) if e.args else "")
            raise

    async def deadline() -> str:
        with anyio.move_on_after(1) as scope:
            await anyio.sleep_forever()
        return "timed out" if scope.cancelled_caught else "not"

    timed: list[str] = []
    async with TaskGroup("t") as g:
        assert type(g.start_soon(child, name="early")._scope).__mro__[1] is AsyncioCancelScope
        await anyio.lowlevel.checkpoint()
        g.start_soon(child, name="late").cancel()  # before it ran: never runs
        g.start_soon(lambda: _append(timed, deadline()), name="deadline")
        await asyncio.sleep(1.5)
        g.cancel()
    assert reasons == ["Cancelled via cancel scope of task early"]
    assert is_anyio_cancellation(asyncio.CancelledError(reasons[0]))  # anyio still knows it for its own
    assert timed == ["timed out"]

    async def boom() -> None:
        raise OSError("boom")

    async def failing_group() -> None:
        async with TaskGroup("t") as g:
            g.start_soon(child, name="sibling")
            g.start_soon(boom, name="boom")

    with pytest.raises(OSError, match="boom"):
        await failing_group()
    assert reasons[-1] == "Cancelled via cancel scope of task sibling"


async def _append(out: list[str], aw: Awaitable[str]) -> None:
    out.append(await aw)


def test_an_anyio_without_the_expected_scope_internals_keeps_its_own_class() -> None:
    """The quiet ``cancel()`` reimplements anyio 4.16's; on an anyio whose scope lacks what it uses, the
    handles get anyio's class unchanged (and anyio's own ``cancel()``), never a half-working subclass."""
    from anyio._backends._asyncio import CancelScope as AsyncioCancelScope

    from kubelite.supervise import _quiet_scope_class

    class Other:
        __slots__ = ("_cancel_called",)

    assert _quiet_scope_class(Other) is Other
    assert _quiet_scope_class(AsyncioCancelScope).__mro__[1] is AsyncioCancelScope


async def test_start_soon_outside_the_block_is_an_error() -> None:
    g = TaskGroup("t")
    with pytest.raises(RuntimeError, match="not active"):
        g.start_soon(anyio.sleep_forever)
    async with g:
        pass
    with pytest.raises(RuntimeError, match="not active"):
        g.start_soon(anyio.sleep_forever)


# --- replay: the order of clean-ups is the same in every process and hash seed ---

_TRACE_CODE = """
import asyncio, hashlib, sys
sys.path.insert(0, 'tests')
from test_supervise import cancellation_trace
print(hashlib.sha256(asyncio.run(cancellation_trace(7))).hexdigest())
"""


async def cancellation_trace(seed: int) -> bytes:
    """A controller with 8 workers, each in a reconcile that writes a ConfigMap when it is cancelled, is
    crashed while every worker is busy; then its manager's leader election is cancelled mid-term. The
    trace is the store's watch events: the clean-up writes appear in the order the tasks were cancelled."""
    trace: list[bytes] = []
    async with Cluster(seed=seed, scheduler=False, controllers=False) as cluster:
        client = cluster.client
        stream = await client.open_watch("configmaps", namespace="default")
        for i in range(8):
            await client.create({"apiVersion": "v1", "kind": "Secret",
                                 "metadata": {"name": f"s{i}", "namespace": "default"}})

        async def reconcile(req: Request) -> None:
            try:
                await cluster.clock.sleep(3600)
            except asyncio.CancelledError:
                with anyio.CancelScope(shield=True):
                    await client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                         "metadata": {"generateName": f"cleanup-{req.name}-",
                                                      "namespace": "default"}})
                raise

        mgr = Manager(client, clock=cluster.clock, rng=cluster.rng, leader_election=("default", "op"))
        mgr.controller("busy").for_("secrets").with_max_concurrent_reconciles(8).complete(reconcile)
        await mgr.start()
        await cluster.advance(5)  # leads, every worker is in a reconcile
        await mgr.stop()
        with stream:
            while (ev := stream._watcher.poll()) is not None:
                trace.append(f"{ev.type} {ev.rv} ".encode() + ev.data)
    return b"\n".join(trace)


async def test_cancelled_workers_clean_up_in_start_order() -> None:
    trace = await cancellation_trace(7)
    names = [line.split(b'"generateName":"cleanup-')[1].split(b"-")[0] for line in trace.splitlines()]
    assert len(names) == 8
    assert names == sorted(names)  # worker i took s<i> (queue order) and was cancelled i-th


def test_cancellation_trace_is_identical_across_processes_and_hash_seeds() -> None:
    digests = set()
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", _TRACE_CODE], env=env, capture_output=True, text=True,
                             check=True, cwd=ROOT)
        digests.add(out.stdout.strip())
    assert digests == {hashlib.sha256(asyncio.run(cancellation_trace(7))).hexdigest()}


# --- every component task runs in a task group, and its failure is loud ---

_ALLOWED_PLAIN_TASKS = {
    # the one host task a Supervisor owns (it hosts the group; close() awaits it)
    "kubelite/supervise.py",
    # owned by the http helper: uvicorn's server task and a watch's disconnect listener
    "kubelite/http/app.py", "kubelite/http/server.py",
    # the CLI's own top-level watcher (not a component of a cluster or manager)
    "kubelite/cli.py",
    # EventBroadcaster.start_recording_to_sink: client-go's API for a user's own broadcaster; kubelite's
    # components run the broadcaster's run() in their supervisors instead
    "kubelite/events/recorder.py",
}


_TASK_CALLS = ("create_task", "ensure_future", "gather")


def test_no_plain_tasks_outside_task_groups() -> None:
    """controller workers, the scheduler, leader election and the scenario timeline used to start plain
    asyncio tasks, and five controllers fanned deletes out with asyncio.gather (whose other calls outlive
    the first failure); every task a cluster or manager starts now belongs to a task group."""
    found = []
    for path in sorted((ROOT / "kubelite").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in _ALLOWED_PLAIN_TASKS:
            continue
        text = path.read_text()
        if not any(name in text for name in _TASK_CALLS):  # no such call without its name (most files)
            continue
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _TASK_CALLS):
                found.append(f"{rel}:{node.lineno} {node.func.attr}")
    assert found == []


async def test_a_failing_scheduler_task_fails_the_cluster() -> None:
    from kubelite.scheduler import Scheduler
    from tests.scheduler.helpers import create_node, create_pod, running_scheduler

    class Boom:
        name = "Boom"

        def post_bind(self, state: Any, pod: Any, node_name: str) -> None:
            raise LookupError("post-bind bug")

    def setup(s: Scheduler) -> None:
        s.register_plugin("Boom", lambda args, handle: Boom())

    profiles = [{"plugins": {"postBind": {"enabled": [{"name": "Boom"}]}}}]
    async def run() -> None:
        async with Cluster(seed=1, scheduler=False, controllers=False) as cluster:
            await create_node(cluster, "n1")
            async with running_scheduler(cluster, profiles=profiles, setup=setup):
                await create_pod(cluster, "p", cpu="100m")
                await cluster.advance(5)

    with pytest.raises(LookupError, match="post-bind bug"):
        await run()


async def test_a_failing_controller_worker_fails_the_manager_block() -> None:
    """One of three workers dies (``recover_panic=False``): its siblings are cancelled and ``async with mgr``
    raises the worker's exception."""
    async with Cluster(seed=1, scheduler=False, controllers=False) as cluster:
        for name in ("a", "b", "c"):
            await cluster.client.create({"apiVersion": "v1", "kind": "Secret",
                                         "metadata": {"name": name, "namespace": "default"}})

        async def reconcile(req: Request) -> None:
            if req.name == "b":
                raise ArithmeticError("worker bug")
            await cluster.clock.sleep(3600)

        mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
        ctrl = Controller("c", reconcile, clock=cluster.clock, rng=cluster.rng, recover_panic=False,
                          max_concurrent_reconciles=3)
        ctrl.watch(mgr.informers.informer_for("secrets"), EnqueueRequestForObject())
        mgr.add(ctrl)
        with pytest.raises(ArithmeticError, match="worker bug"):
            async with mgr:
                await cluster.clock.advance(1)
        assert not ctrl.running and ctrl.statistics().active_workers == 0


async def test_gather_returns_results_in_order_and_a_failure_cancels_the_rest() -> None:
    from kubelite.supervise import gather

    async def value(v: int, delay: float) -> int:
        await anyio.sleep(delay)
        return v

    assert await gather("g", value(1, 0.02), value(2, 0.0), value(3, 0.01)) == [1, 2, 3]
    assert await gather("g") == []

    cancelled: list[int] = []

    async def slow(i: int) -> int:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(i)
        return i

    async def bad() -> int:
        raise ConnectionError("delete failed")

    with pytest.raises(ConnectionError):
        await gather("g", slow(0), bad(), slow(2))
    assert cancelled == [0]  # asyncio.gather would leave slow(0) and slow(2) running; slow(2) never ran
