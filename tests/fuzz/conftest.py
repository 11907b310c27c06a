"""Fuzz tests run on an API-only cluster; :class:`Scripted` is a perturber whose decisions the test writes."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.perturb import ApiCall, WatchAction


class Scripted:
    """A :class:`kubelite.perturb.Perturber` answering from per-point scripts (a list per point, consumed in
    order; missing or exhausted: the default). Records every question it was asked."""

    def __init__(self, **scripts: list[Any]) -> None:
        self.scripts = {k: list(v) for k, v in scripts.items()}
        self.asked: list[tuple[str, str]] = []
        self.held = 0

    def _next(self, point: str, context: str) -> Any:
        self.asked.append((point, context))
        script = self.scripts.get(point)
        return script.pop(0) if script else None

    def watch_event(self, site: str, event: str) -> WatchAction:
        return self._next("watch", f"{site} {event}")  # type: ignore[no-any-return]

    async def before_request(self, call: ApiCall) -> None:
        action = self._next("before", repr(call))
        if isinstance(action, BaseException):
            raise action

    async def after_request(self, call: ApiCall) -> None:
        action = self._next("after", repr(call))
        if isinstance(action, BaseException):
            raise action

    def defer(self, site: str, request: str) -> bool:
        return bool(self._next("defer", f"{site} {request}"))

    def duplicate(self, site: str, request: str) -> bool:
        return bool(self._next("duplicate", f"{site} {request}"))

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        self.held += 1
        try:
            yield
        finally:
            self.held -= 1


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c
