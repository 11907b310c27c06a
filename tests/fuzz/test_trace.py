"""Traces and logs hold no memory addresses: the handler log line that printed one is fixed."""

from __future__ import annotations

from typing import Any

import structlog

from kubelite.cluster import Cluster
from kubelite.fuzz import Knobs, run_one
from kubelite.informer import ResourceEventHandlerFuncs, SharedIndexInformer
from kubelite.informer.handlers import describe_handler

from . import planted


class Plain:
    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        raise RuntimeError("boom")

    def on_update(self, old: Any, new: Any) -> None:
        pass

    def on_delete(self, obj: Any) -> None:
        pass


def test_handler_names_have_no_address() -> None:
    def on_add(obj: Any, is_in_initial_list: bool) -> None:
        pass

    funcs = ResourceEventHandlerFuncs(on_add=on_add)
    assert "0x" not in repr(funcs)
    assert repr(funcs).startswith("ResourceEventHandlerFuncs(test_handler_names_have_no_address.<locals>.")
    assert describe_handler(Plain()) == "Plain"  # object.__repr__ would print "<... object at 0x...>"


async def test_a_failing_handler_is_logged_without_an_address(cluster: Cluster) -> None:
    inf = SharedIndexInformer(cluster.client, "configmaps", clock=cluster.clock, rng=cluster.rng)
    inf.add_event_handler(Plain())
    await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a",
                                                                                        "namespace": "default"}})
    with structlog.testing.capture_logs() as logs:
        cluster.start_soon(inf.run, name="informer")
        await cluster.advance(0.1)
    failed = [e for e in logs if e["event"] == "event_handler_failed"]
    assert failed and failed[0]["handler"] == "Plain"
    assert all("0x" not in str(v) for e in logs for v in e.values())


def test_same_seed_same_schedule_same_digest() -> None:
    a = run_one(planted.tally_buggy, 3)
    b = run_one(planted.tally_buggy, 3, schedule=a.schedule)  # replaying draws nothing
    c = run_one(planted.tally_buggy, 3)
    assert a.digest == b.digest == c.digest
    assert a.schedule == b.schedule == c.schedule
    assert run_one(planted.tally_buggy, 4).digest != a.digest


def test_a_schedule_decides_only_where_it_says() -> None:
    base = run_one(planted.replicas_fixed, 2, knobs=Knobs.off())
    assert base.schedule == []
    replayed = run_one(planted.replicas_fixed, 2, schedule=[])
    assert replayed.digest == base.digest  # an empty schedule is exactly an unperturbed run
