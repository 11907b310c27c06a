"""The built-in invariants and the invariant contract, end to end through unperturbed runs."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.fuzz import ClusterView, Env, FuzzTarget, Knobs, always, at_quiescence, run_one

from .planted import WIDGET_CRD, WIDGETS, owner_ref, widget

OFF = Knobs.off()


def owned_cm(name: str, *owners: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": name, "namespace": "default", "ownerReferences": [owner_ref(o) for o in owners]}}


def target(setup: Any, *invariants: Any, gc: bool = False) -> FuzzTarget:
    cluster = {"controllers": ["garbagecollector"] if gc else False, "scheduler": False, "network": False}
    return FuzzTarget(setup, crds=[WIDGET_CRD], invariants=list(invariants), cluster=cluster, quiet=5.0)


async def delete_owner(env: Env) -> None:
    w = await env.client.create(widget("w"))
    await env.client.create(owned_cm("child", w))
    await env.client.delete(WIDGETS, "w", namespace="default")


@pytest.mark.parametrize(("gc", "fails"), [(False, True), (True, False)], ids=["no-gc", "gc"])
def test_owners_exist_needs_the_garbage_collector(gc: bool, fails: bool) -> None:
    r = run_one(target(delete_owner, "owners_exist", gc=gc), 1, knobs=OFF)
    assert r.failed is fails
    if fails:
        assert r.failure is not None and r.failure.invariant == "owners_exist"
        assert "configmaps default/child is owned by Widget w, which does not exist" in r.failure.message


async def orphan_then_delete(env: Env) -> None:
    w = await env.client.create(widget("w"))
    await env.client.create(owned_cm("child", w))
    await env.client.patch("configmaps", "child", {"metadata": {"ownerReferences": None}}, patch_type="merge",
                           namespace="default")
    await env.client.delete(WIDGETS, "w", namespace="default")


@pytest.mark.parametrize(("invariant", "fails"), [("owners_exist", False), ("no_leak_after_owner_deletion", True)],
                         ids=["owners-exist-misses-it", "leak-check-finds-it"])
def test_an_orphaned_child_is_a_leak(invariant: str, fails: bool) -> None:
    r = run_one(target(orphan_then_delete, invariant, gc=True), 1, knobs=OFF)
    assert r.failed is fails
    if fails:
        assert r.failure is not None and "configmaps default/child outlived its deleted owner" in r.failure.message


async def adoption_fight(env: Env) -> None:
    a = await env.client.create(widget("a"))
    b = await env.client.create(widget("b"))
    await env.client.create(owned_cm("child", a))
    await env.client.patch("configmaps", "child", {"metadata": {"ownerReferences": [owner_ref(b)]}},
                           patch_type="merge", namespace="default")


def test_single_controller_catches_a_second_controller_adopting_an_owned_object() -> None:
    r = run_one(target(adoption_fight, "single_controller"), 1, knobs=OFF)
    assert r.failure is not None and r.failure.invariant == "single_controller"
    assert "changed controller from Widget a to Widget b while the first still exists" in r.failure.message
    assert r.failure.at.startswith("write rv=")


async def status_steps(env: Env, steps: list[int]) -> None:
    await env.client.create(widget("w"))
    for g in steps:
        await env.client.patch(WIDGETS, "w", {"status": {"observedGeneration": g}}, patch_type="merge",
                               subresource="status", namespace="default")


@pytest.mark.parametrize(("steps", "message"), [
    ([1, 1], None),
    ([1, 0], "status.observedGeneration went from 1 back to 0"),
    ([2], "status.observedGeneration 2 is ahead of generation 1"),
], ids=["steady", "regresses", "ahead-of-generation"])
def test_status_never_regresses(steps: list[int], message: str | None) -> None:
    async def setup(env: Env) -> None:
        await status_steps(env, steps)

    r = run_one(target(setup, "status_never_regresses"), 1, knobs=OFF)
    if message is None:
        assert r.failure is None
    else:
        assert r.failure is not None and message in r.failure.message


async def one_widget(env: Env) -> None:
    await env.client.create(widget("w"))


def test_user_invariants_must_return_a_verdict() -> None:
    @at_quiescence
    def forgot_to_return(view: ClusterView) -> None:
        view.list(WIDGETS)

    r = run_one(target(one_widget, forgot_to_return), 1, knobs=OFF)
    assert r.failure is not None and r.failure.invariant == "exception"
    assert "forgot_to_return" in r.failure.message and "returned NoneType" in r.failure.message


def test_always_invariants_see_every_write() -> None:
    writes: list[str] = []

    @always
    def no_widget_named_bad(view: ClusterView, change: Any) -> Any:
        writes.append(f"{change.type} {change.resource} {change.key}")
        return [] if change.key != "default/bad" else [f"{change.key} was written"]

    async def setup(env: Env) -> None:
        await env.client.create(widget("good"))
        await env.client.create(widget("bad"))

    r = run_one(target(setup, no_widget_named_bad), 1, knobs=OFF)
    assert r.failure is not None and r.failure.message == "default/bad was written"
    assert "ADDED widgets.example.com default/good" in writes


def test_unknown_builtin_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown built-in invariant"):
        FuzzTarget(one_widget, invariants=["no_such_thing"])
