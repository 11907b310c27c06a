"""ResourceEventHandlerFuncs: the adapter binds the user's functions once (pure, no event loop)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.informer import ResourceEventHandlerFuncs


def test_two_argument_on_add_is_called_directly() -> None:
    calls: list[tuple[Any, bool]] = []

    def on_add(obj: Any, is_in_initial_list: bool) -> None:
        calls.append((obj, is_in_initial_list))

    h = ResourceEventHandlerFuncs(on_add=on_add)
    assert h.on_add is on_add  # no adapter frame on the hot path
    h.on_add("x", True)
    assert calls == [("x", True)]


def test_one_argument_on_add_gets_the_object_only() -> None:
    seen: list[Any] = []
    h = ResourceEventHandlerFuncs(on_add=seen.append)
    assert h.on_add("x", True) is None
    assert seen == ["x"]


def test_update_and_delete_are_bound_as_given() -> None:
    log: list[Any] = []

    def on_update(old: Any, new: Any) -> None:
        log.append(("update", old, new))

    h = ResourceEventHandlerFuncs(on_update=on_update, on_delete=log.append)
    assert h.on_update is on_update
    h.on_update(1, 2)
    h.on_delete(3)
    assert log == [("update", 1, 2), 3]


@pytest.mark.parametrize("method", ["on_add", "on_update", "on_delete"], ids=["add", "update", "delete"])
def test_missing_functions_ignore_their_notifications(method: str) -> None:
    h = ResourceEventHandlerFuncs()
    args = {"on_add": ("x", False), "on_update": ("x", "y"), "on_delete": ("x",)}[method]
    assert getattr(h, method)(*args) is None


async def test_async_functions_return_their_awaitable() -> None:
    seen: list[Any] = []

    async def on_delete(obj: Any) -> None:
        seen.append(obj)

    r = ResourceEventHandlerFuncs(on_delete=on_delete).on_delete("x")
    assert r is not None
    await r
    assert seen == ["x"]
