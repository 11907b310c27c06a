"""The livelock watchdog: writes without bound at one virtual instant stop the run with LivelockError
from the call driving time, naming the objects and the managers that wrote them."""

from __future__ import annotations

import asyncio

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import NotFound
from kubelite.watchdog import LivelockDetector, LivelockError


async def fight(c: Cluster, manager: str, value: str) -> None:
    """A controller that 'corrects' a ConfigMap every time it sees it differ: two of them never agree."""
    client = c.client.with_field_manager(manager)
    while True:
        try:
            cm = await client.get("configmaps", "shared", namespace="default")
        except NotFound:
            await asyncio.sleep(0)
            continue
        if cm.get("data", {}).get("owner") != value:
            await client.patch("configmaps", "shared", {"data": {"owner": value}}, namespace="default",
                               patch_type="merge")
        await asyncio.sleep(0)


async def test_two_controllers_fighting_at_one_instant_raise_livelock_with_a_diagnosis() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False, livelock_per_object=300) as c:
        # (created with a value: an object created with no managed field is never tracked by later updates,
        # upstream's skipNonAppliedManager, and `data: {}` is Go's omitted zero)
        await c.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "shared", "namespace": "default"}, "data": {"owner": "nobody"}})
        c.start_soon(fight, c, "blue-operator", "blue")
        c.start_soon(fight, c, "green-operator", "green")
        start = c.now
        with pytest.raises(LivelockError) as info:
            await c.advance(60)
        err = info.value
        assert err.at == start and "configmaps default/shared" in err.diagnosis
        assert "blue-operator" in err.diagnosis and "green-operator" in err.diagnosis
        # the run stays stopped: every later time-driving call raises at once
        with pytest.raises(LivelockError):
            await c.settle()


async def test_a_burst_below_the_bound_is_not_a_livelock() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False, livelock_per_object=300) as c:
        for i in range(400):  # many objects, each written once: a burst, not a loop
            await c.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": f"cm-{i}", "namespace": "default"}})
        await c.advance(1)
        assert c.watchdog.error is None


def test_detector_counts_per_instant_and_resets_when_time_moves() -> None:
    now = [0.0]
    d = LivelockDetector(lambda: now[0], per_object=5, total=100)
    for _ in range(5):
        d.observe("pods", "default/a", b"{}")
    now[0] = 1.0
    for _ in range(5):
        d.observe("pods", "default/a", b"{}")
    assert d.error is None
    d.observe("pods", "default/a", b"{}")
    assert d.error is not None and "pods default/a: 6 writes" in d.error.diagnosis


def test_detector_reads_an_objects_json_only_once_it_is_hot() -> None:
    """The write hook hands the JSON as a callable: a cold object's (an Event's, kept deflated at rest) is never
    inflated; from the hot half of the bound on, each write's managers are read from it."""
    reads: list[str] = []

    def data(key: str) -> bytes:
        reads.append(key)
        return b'{"metadata": {"managedFields": [{"manager": "blue-operator"}]}}'

    d = LivelockDetector(lambda: 0.0, per_object=4, total=100)
    for i in range(50):
        d.observe("events", f"default/e{i}", lambda i=i: data(f"e{i}"))
    assert reads == [] and d.error is None
    for _ in range(5):
        d.observe("configmaps", "default/hot", lambda: data("hot"))
    assert reads == ["hot"] * 3  # writes 3, 4 and 5 are past per_object // 2
    assert d.error is not None and "blue-operator" in d.error.diagnosis
